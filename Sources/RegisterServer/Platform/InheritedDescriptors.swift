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
  ///
  /// The sockets a service manager passed (socket activation: `LISTEN_PID` is this process and
  /// `LISTEN_FDS` counts them, from descriptor 3 on, see sd_listen_fds(3)) are kept, and
  /// `passedCount` says how many; `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` are removed
  /// from the environment first, so nothing registerd starts believes they are meant for it.
  public static func closeAll() {
    passedCount = takeListenEnvironment()
    let keep = firstPassed..<(firstPassed + passedCount)
    // Where the system lists a process's descriptors, close just those (the listing's own
    // descriptor is skipped); otherwise close every possible one up to the limit.
    if let open = listed() {
      for fd in open where fd > 2 && !keep.contains(fd) { close(fd) }
      return
    }
    let highest = Int32(min(descriptorLimit() ?? 65_536, 65_536))
    var fd: Int32 = 3
    while fd < highest {
      if !keep.contains(fd) { close(fd) }
      fd += 1
    }
  }

  /// The first descriptor a service manager passes (`SD_LISTEN_FDS_START`).
  public static let firstPassed: Int32 = 3

  /// How many descriptors the service manager passed (from `firstPassed` on), as
  /// `closeAll` found them.
  nonisolated(unsafe) public private(set) static var passedCount: Int32 = 0

  /// Reads and removes the socket-activation variables; the count of passed descriptors when
  /// they are meant for this process, else 0.
  private static func takeListenEnvironment() -> Int32 {
    func take(_ name: String) -> String? {
      guard let value = getenv(name) else { return nil }
      let text = String(cString: value)
      unsetenv(name)
      return text
    }
    let pid = take("LISTEN_PID")
    let count = take("LISTEN_FDS")
    _ = take("LISTEN_FDNAMES")
    guard let pid, let owner = Int32(pid), owner == getpid(), let count,
      let passed = Int32(count), passed > 0
    else { return 0 }
    // A count past the descriptor table is nonsense; keep no more than could be open.
    return min(passed, Int32(min(descriptorLimit() ?? 65_536, 65_536)) - firstPassed)
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
