#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Descriptors a daemon did not open itself but was started with.
public enum InheritedDescriptors {
  /// Closes every descriptor above standard error, so registerd holds nothing its starter
  /// left open by accident: the write end of another program's pipe (whose reader would then
  /// never see end of file while registerd runs), a socket a process supervisor uses to notice
  /// that some other child exited, a file kept open on a disk to unmount. Call it first thing,
  /// before opening anything.
  public static func closeAll() {
    // Where the system lists a process's descriptors, close just those (the listing's own
    // descriptor is skipped); otherwise close every possible one up to the limit.
    if let open = listed() {
      for fd in open where fd > 2 { close(fd) }
      return
    }
    let highest = Int32(min(descriptorLimit() ?? 65_536, 65_536))
    var fd: Int32 = 3
    while fd < highest {
      close(fd)
      fd += 1
    }
  }

  /// The descriptors open now, from /proc/self/fd (Linux) or /dev/fd, or nil.
  private static func listed() -> [Int32]? {
    for directory in ["/proc/self/fd", "/dev/fd"] {
      guard let stream = opendir(directory) else { continue }
      let own = dirfd(stream)
      var found: [Int32] = []
      while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if let fd = Int32(name), fd != own { found.append(fd) }
      }
      closedir(stream)
      return found
    }
    return nil
  }
}

/// The process's limit on open descriptors (`RLIMIT_NOFILE`, soft), or nil when unknown.
func descriptorLimit() -> Int? {
  var limit = rlimit()
  #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
    let resource = RLIMIT_NOFILE
  #endif
  guard getrlimit(resource, &limit) == 0 else { return nil }
  return Int(clamping: limit.rlim_cur)
}
