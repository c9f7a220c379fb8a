import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Small POSIX file helpers: whole-file reads, durable writes, atomic replacement.
public enum FileIO {
  /// The whole file, or a `SystemError`. With `followingSymlinks` false, a symbolic link at
  /// `path` is refused (`ELOOP`) rather than read through.
  ///
  /// Only a regular file of at most `limit` bytes is read. Files like the catalog are named by
  /// someone else and read on the event loop (SIGHUP), so whatever is at the path must not be
  /// able to stall the daemon or fill its memory: the open does not block (a FIFO with no
  /// writer would wait there forever), and a FIFO, a device (/dev/zero never ends), a
  /// directory or a socket is refused by what it is, before a byte is read.
  public static func read(
    _ path: String, followingSymlinks: Bool = true, limit: Int = .max
  ) throws(SystemError) -> [UInt8] {
    let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingSymlinks ? 0 : O_NOFOLLOW)
    let fd = retryingOnInterrupt { open(path, flags) }
    guard fd >= 0 else {
      // A socket cannot be opened at all (ENXIO): say what it is rather than errno's text.
      let failure = SystemError("open", path: path)
      var info = stat()
      if failure.code == ENXIO, stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
        throw notRegularFile(path, mode: info.st_mode)
      }
      throw failure
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError("fstat", path: path) }
    guard info.st_mode & S_IFMT == S_IFREG else { throw notRegularFile(path, mode: info.st_mode) }
    if Int(info.st_size) > limit { throw tooLarge(path, size: Int(info.st_size), limit: limit) }
    var result: [UInt8] = []
    result.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt { systemRead(fd, buffer.baseAddress, buffer.count) }
      }
      if count < 0 { throw SystemError("read", path: path) }
      if count == 0 { return result }
      // The file may grow while it is read: the limit holds for what is read, too.
      if count > limit - result.count {
        throw tooLarge(path, size: result.count + count, limit: limit, growing: true)
      }
      result.append(contentsOf: chunk[0..<count])
    }
  }

  /// The refusal of something that is not a regular file, naming what it is.
  private static func notRegularFile(_ path: String, mode: mode_t) -> SystemError {
    let kind: String
    var code = EINVAL
    switch mode & S_IFMT {
    case S_IFDIR:
      kind = "is a directory, not a regular file"
      code = EISDIR
    case S_IFIFO: kind = "is a FIFO (named pipe), not a regular file"
    case S_IFCHR: kind = "is a character device, not a regular file"
    case S_IFBLK: kind = "is a block device, not a regular file"
    case S_IFSOCK: kind = "is a socket, not a regular file"
    default: kind = "is not a regular file"
    }
    return SystemError(
      "read", path: path, code: code, reason: "\(kind); only regular files are read")
  }

  /// The refusal of a file over `limit` bytes, naming the limit.
  private static func tooLarge(_ path: String, size: Int, limit: Int, growing: Bool = false)
    -> SystemError
  {
    let amount = growing ? "grew past \(size) bytes while being read" : "is \(size) bytes"
    return SystemError(
      "read", path: path, code: EFBIG,
      reason: "\(amount), more than the limit of \(byteCount(limit)); it was not read")
  }

  /// A byte count as people write it: "64 MiB" when it is a whole number of MiB.
  static func byteCount(_ bytes: Int) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
    return "\(bytes) bytes"
  }

  /// True when something exists at `path`.
  public static func exists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0
  }

  /// Writes all of `bytes` to `fd`, continuing after partial writes.
  public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String? = nil)
    throws(SystemError)
  {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        retryingOnInterrupt {
          systemWrite(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        }
      }
      if written < 0 { throw SystemError("write", path: path) }
      offset += written
    }
  }

  /// Writes all of `bytes` at `offset` (pwrite, looping on short writes), whatever the file
  /// position.
  public static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String? = nil)
    throws(SystemError)
  {
    var done = 0
    while done < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        retryingOnInterrupt {
          pwrite(
            fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset + done))
        }
      }
      if written < 0 { throw SystemError("write", path: path) }
      done += written
    }
  }

  /// Flushes a file's data to the disk (fdatasync where there is one).
  public static func sync(_ fd: Int32, path: String? = nil) throws(SystemError) {
    #if canImport(Glibc)
      let result = retryingOnInterrupt { fdatasync(fd) }
    #else
      let result = retryingOnInterrupt { fsync(fd) }
    #endif
    if result != 0 { throw SystemError("fsync", path: path) }
  }

  /// Flushes a directory, so that a rename or a new file in it survives a crash.
  public static func syncDirectory(_ path: String) throws(SystemError) {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard fd >= 0 else { throw SystemError("open", path: path) }
    defer { close(fd) }
    if retryingOnInterrupt({ fsync(fd) }) != 0 { throw SystemError("fsync", path: path) }
  }

  /// Replaces `path` with `bytes` so that a crash leaves either the old file or the new one:
  /// write a temporary file next to it, fsync it, rename it over, fsync the directory.
  ///
  /// The temporary file has an unpredictable name (`PATH.tmp-` and 16 random hex digits) and
  /// is created with `O_EXCL | O_NOFOLLOW`, so a file or symbolic link planted in the directory
  /// is never written through; the rename replaces a link at `path` itself, never its target.
  /// The directory is found as the path says (a link to it is followed): this is for files
  /// a user names. The daemon's own files go through `writeOwnFile`.
  public static func writeAtomically(
    _ bytes: [UInt8], to path: String, mode: mode_t = 0o644
  ) throws(SystemError) {
    let directory = parentDirectory(of: path)
    let directoryFD = retryingOnInterrupt { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard directoryFD >= 0 else { throw SystemError("open", path: directory) }
    defer { close(directoryFD) }
    try writeAtomically(bytes, to: path, in: directoryFD, mode: mode)
  }

  /// `writeAtomically` for a file of the daemon's own under its data directory (a snapshot,
  /// a receipt archive file, an e-mail in the outbox): its directory is made if missing and
  /// must be a real, private directory (`openOwnDirectory`), and the file is written in the
  /// directory so opened, so a symbolic link planted in its place, before or during the
  /// write, is never written through.
  public static func writeOwnFile(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600)
    throws(SystemError)
  {
    let directoryFD = try openOwnDirectory(parentDirectory(of: path))
    defer { close(directoryFD) }
    try writeAtomically(bytes, to: path, in: directoryFD, mode: mode)
  }

  /// Writes `path`'s file in the directory open as `directoryFD` (which `path` names): the
  /// temporary file, the rename and the directory's fsync all go through that descriptor.
  private static func writeAtomically(
    _ bytes: [UInt8], to path: String, in directoryFD: Int32, mode: mode_t
  ) throws(SystemError) {
    let directory = parentDirectory(of: path)
    let name = lastComponent(of: path)
    var temporary = ""
    var fd: Int32 = -1
    for _ in 0..<8 {
      temporary = "\(name).tmp-\(temporarySuffix())"
      fd = retryingOnInterrupt {
        openat(directoryFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
      }
      if fd >= 0 || errno != EEXIST { break }
    }
    let temporaryPath = directory + "/" + temporary
    guard fd >= 0 else { throw SystemError("open", path: temporaryPath) }
    do throws(SystemError) {
      try writeAll(fd, bytes, path: temporaryPath)
      if retryingOnInterrupt({ fsync(fd) }) != 0 {
        throw SystemError("fsync", path: temporaryPath)
      }
    } catch {
      close(fd)
      unlinkat(directoryFD, temporary, 0)
      throw error
    }
    close(fd)
    guard renameat(directoryFD, temporary, directoryFD, name) == 0 else {
      let failure = SystemError("rename", path: path)
      unlinkat(directoryFD, temporary, 0)
      throw failure
    }
    if retryingOnInterrupt({ fsync(directoryFD) }) != 0 {
      throw SystemError("fsync", path: directory)
    }
  }
}
