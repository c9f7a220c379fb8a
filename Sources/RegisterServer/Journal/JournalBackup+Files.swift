import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file steps a backup and an archive share: the target checked, files linked, copied or
/// written and synced, a half-made tree removed.
extension JournalBackup {
  /// Refuses a target that is not an empty directory (or missing), or that lies inside the
  /// data directory.
  static func checkTarget(_ target: String, dataDirectory: String) throws(BackupError) {
    guard !target.isEmpty else { throw BackupError("--to needs a directory") }
    var info = stat()
    if lstat(target, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw BackupError("refused: \(target) exists and is not a directory")
      }
      let names: [String]
      do {
        names = try FileIO.listDirectory(target)
      } catch {
        throw BackupError("cannot read \(target): \(error)")
      }
      guard names.isEmpty else {
        throw BackupError(
          "refused: \(target) exists and is not empty; back up to a new directory (a backup is never merged into another)"
        )
      }
    }
    let parent = FileIO.parentDirectory(of: target)
    do {
      try FileIO.makeDirectories(parent)
    } catch {
      throw BackupError("cannot create \(parent): \(error)")
    }
    if let data = realPath(dataDirectory), let location = realPath(parent),
      location == data || location.hasPrefix(data + "/")
    {
      throw BackupError("refused: \(target) is inside the data directory \(dataDirectory)")
    }
  }

  static func trimmingSlashes(_ path: String) -> String {
    var path = path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    return path
  }

  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  static func makeDirectory(_ path: String, parent: String) throws(SystemError) {
    guard mkdir(path, 0o700) == 0 else { throw SystemError("mkdir", path: path) }
    try FileIO.syncDirectory(parent)
  }

  static func isReadOnly(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
      && info.st_mode & 0o222 == 0
  }

  static func fileSize(_ path: String) -> Int {
    var info = stat()
    return lstat(path, &info) == 0 ? Int(info.st_size) : 0
  }

  /// Hard-links `path` at `destination`; false when links cannot be made there (another file
  /// system), so the caller copies.
  static func hardLink(_ path: String, to destination: String) throws(SystemError) -> Bool {
    if link(path, destination) == 0 { return true }
    switch errno {
    case EXDEV, EPERM, EMLINK, ENOTSUP: return false
    default: throw SystemError("link", path: destination)
    }
  }

  /// Puts `path` at `destination` for a move: linked, or copied and fsynced; a destination
  /// already holding the same bytes (an earlier run that stopped) is kept. False when `path`
  /// is gone (registerd removed an old snapshot meanwhile).
  @discardableResult
  static func place(_ path: String, at destination: String, mode: mode_t)
    throws(SystemError) -> Bool
  {
    if FileIO.exists(destination) {
      let here = try? FileIO.read(path, followingSymlinks: false)
      guard let here else { return false }
      let there = try FileIO.read(destination, followingSymlinks: false)
      guard here == there else {
        throw SystemError("link", path: destination, code: EEXIST)
      }
      return true
    }
    guard FileIO.exists(path) else { return false }
    if try hardLink(path, to: destination) { return true }
    return try copyFile(path, to: destination, mode: mode, missingOK: true)
  }

  /// Copies `name` — opened relative to the folder `directoryFD` (`AT_FDCWD`: `name` is a
  /// path), never through a link — to the new file `destination`, and fsyncs it; false when
  /// it is gone and `missingOK`. `path` names the source in errors.
  @discardableResult
  static func copyFile(
    _ name: String, in directoryFD: Int32 = AT_FDCWD, path: String? = nil,
    to destination: String, mode: mode_t, missingOK: Bool = false
  ) throws(SystemError) -> Bool {
    let path = path ?? name
    let source = retryingOnInterrupt {
      openat(directoryFD, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    }
    guard source >= 0 else {
      if missingOK && errno == ENOENT { return false }
      throw SystemError("open", path: path)
    }
    defer { close(source) }
    let fd = retryingOnInterrupt {
      open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    }
    guard fd >= 0 else { throw SystemError("open", path: destination) }
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = chunk.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt { systemRead(source, buffer.baseAddress, buffer.count) }
      }
      if count < 0 { throw SystemError("read", path: path) }
      if count == 0 { break }
      try FileIO.writeAll(fd, Array(chunk[0..<count]), path: destination)
    }
    if retryingOnInterrupt({ fsync(fd) }) != 0 { throw SystemError("fsync", path: destination) }
    return true
  }

  /// Writes `bytes` to a new file `destination` and fsyncs it.
  static func write(_ bytes: [UInt8], to destination: String, mode: mode_t)
    throws(SystemError)
  {
    let fd = retryingOnInterrupt {
      open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    }
    guard fd >= 0 else { throw SystemError("open", path: destination) }
    defer { close(fd) }
    try FileIO.writeAll(fd, bytes, path: destination)
    if retryingOnInterrupt({ fsync(fd) }) != 0 { throw SystemError("fsync", path: destination) }
  }

  /// `dayNNNNNN.ndjson` or its index `dayNNNNNN.idx` (not a temporary file left by a crash).
  static func isReceiptArchiveName(_ name: String) -> Bool {
    guard name.hasPrefix("day") else { return false }
    for suffix in [".ndjson", ".idx"] where name.hasSuffix(suffix) {
      let digits = name.dropFirst(3).dropLast(suffix.count)
      return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
    return false
  }

  /// Removes a directory tree this process made (a backup that failed). Links are removed as
  /// links, never followed.
  static func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
      for name in (try? FileIO.listDirectory(path)) ?? [] { removeTree(path + "/" + name) }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}
