import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A journal file opened for appending.
public final class FileJournalStorage: JournalStorage {
  public let path: String
  private let fd: Int32
  public private(set) var length: Int

  /// Opens (creating if needed) the journal file at `path` for appending.
  public init(path: String) throws(SystemError) {
    self.path = path
    var before = stat()
    let existed = lstat(path, &before) == 0
    // Never through a symbolic link: one planted at the journal's name would have the daemon
    // append to (or, recovering, truncate) whatever it points at.
    let fd = retryingOnInterrupt {
      open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
    guard fd >= 0 else { throw SystemError("open", path: path) }
    self.fd = fd
    var info = stat()
    fstat(fd, &info)
    length = Int(info.st_size)
    if !existed {
      // A new file's directory entry must be durable too.
      try FileIO.syncDirectory(FileIO.parentDirectory(of: path))
    }
  }

  deinit { close(fd) }

  public func appendDurably(_ bytes: [UInt8]) throws(SystemError) {
    try FileIO.writeAll(fd, bytes, path: path)
    length += bytes.count
    try FileIO.sync(fd, path: path)
  }

  public func truncate(to length: Int) throws(SystemError) {
    guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError("ftruncate", path: path) }
    self.length = length
    try FileIO.sync(fd, path: path)
  }

  public func write(_ effect: FileEffect) throws(SystemError) {
    try effect.perform()
  }
}

extension FileEffect {
  /// Writes it (temporary file, fsync, rename, fsync the directory). A directory it goes in
  /// that is a symbolic link or writable by others (an outbox replaced by a link while the
  /// daemon runs) is refused with `ELOOP` / `EACCES`, not written through.
  public func perform() throws(SystemError) {
    let directory = FileIO.parentDirectory(of: path)
    try FileIO.makeDirectories(directory)
    var info = stat()
    guard lstat(directory, &info) == 0 else { throw SystemError("lstat", path: directory) }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK: throw SystemError("open", path: directory, code: ELOOP)
    default: throw SystemError("open", path: directory, code: ENOTDIR)
    }
    if info.st_mode & 0o022 != 0 { throw SystemError("open", path: directory, code: EACCES) }
    try FileIO.writeAtomically(bytes, to: path, mode: mode_t(mode))
  }
}
