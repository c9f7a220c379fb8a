import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension SystemError {
  /// The failure of `operation` (on `path`), with errno's text for `code` (errno now by
  /// default).
  public init(_ operation: String, path: String? = nil, code: Int32 = errno) {
    self.init(operation, path: path, code: code, reason: String(cString: strerror(code)))
  }
}

/// The one place that retries system calls interrupted by a signal (EINTR).
@inline(__always)
public func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
  while true {
    let result = call()
    if result == -1 && errno == EINTR { continue }
    return result
  }
}

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

  /// Opens `path`, a directory under the data directory that the daemon keeps its own files
  /// in (the journal, snapshots, the receipt archive, the outbox), making it (mode 700, its
  /// parent then fsynced) when `create` is true and it is missing. The caller closes the
  /// descriptor.
  ///
  /// It must be a real directory, not writable by group or others. A symbolic link is refused
  /// (`ELOOP`), never followed, whatever it points at: one planted there would have the
  /// daemon write its files — or read them back at start-up — wherever it leads. Anything
  /// else is refused with `ENOTDIR`, and a directory open to others (who could plant such a
  /// link in it) with `EACCES`. The descriptor is of the directory itself, so files made
  /// through it land there even if the path is replaced meanwhile.
  ///
  /// `checkingMode` false (a folder only read, never written): the mode is not checked, only
  /// that it is a directory and no link.
  public static func openOwnDirectory(
    _ path: String, create: Bool = true, checkingMode: Bool = true
  ) throws(SystemError) -> Int32 {
    let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
    var fd = retryingOnInterrupt { open(path, flags) }
    if fd < 0 && errno == ENOENT && create {
      if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
      try syncDirectory(parentDirectory(of: path))
      fd = retryingOnInterrupt { open(path, flags) }
    }
    guard fd >= 0 else {
      let failure = SystemError("open", path: path)
      // Linux says ENOTDIR for a link opened this way: say what is there instead.
      var info = stat()
      guard lstat(path, &info) == 0 else { throw failure }
      if info.st_mode & S_IFMT == S_IFLNK {
        throw SystemError(
          "open", path: path, code: ELOOP,
          reason:
            "is a symbolic link; registerd does not follow links for the files it writes or reads in its data directory"
        )
      }
      if info.st_mode & S_IFMT != S_IFDIR {
        throw SystemError("open", path: path, code: ENOTDIR, reason: "is not a directory")
      }
      throw failure
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let failure = SystemError("fstat", path: path)
      close(fd)
      throw failure
    }
    let mode = info.st_mode & 0o777
    if checkingMode && mode & 0o022 != 0 {
      close(fd)
      throw SystemError(
        "open", path: path, code: EACCES,
        reason:
          "is writable by group or others (mode \(String(mode, radix: 8))); chmod go-w \(path)")
    }
    return fd
  }

  /// The last component of a path (the whole of a bare name).
  static func lastComponent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// 64 random bits as hex, for temporary file names nobody can guess in advance.
  package static func temporarySuffix() -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in RegisterService.systemRandom(8) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Why `path` is not a safe directory for the daemon to write its files in, or nil when it
  /// is (or does not exist yet): it must be a real directory, not a symbolic link, and not
  /// writable by group or others — whoever can write in it could plant a link or a file that
  /// the daemon would then write through or read as its own. `what` names it in the message.
  public static func unsafeDirectoryReason(_ path: String, what: String) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      return "\(what) \(SystemError("cannot be examined:", path: path))"
    }
    let type = info.st_mode & S_IFMT
    if type == S_IFLNK {
      return
        "\(what) \(path) is a symbolic link; registerd does not follow links for the files it writes. Name the real directory instead, or replace the link with a directory"
    }
    if type != S_IFDIR {
      return "\(what) \(path) is not a directory"
    }
    let mode = info.st_mode & 0o777
    if mode & 0o022 != 0 {
      return
        "\(what) \(path) is writable by group or others (mode \(String(mode, radix: 8))); make it private to registerd's user: chmod go-w \(path)"
    }
    return nil
  }

  /// Why `path` is not a file the daemon may open for writing, or nil when it is a regular
  /// file (or does not exist yet). A symbolic link is refused, never followed.
  public static func unsafeFileReason(_ path: String, what: String) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      return "\(what) \(SystemError("cannot be examined:", path: path))"
    }
    let type = info.st_mode & S_IFMT
    if type == S_IFLNK {
      return
        "\(what) \(path) is a symbolic link; registerd does not write through links. Nothing was changed. Remove the link (and put the real file there if it is yours)"
    }
    if type != S_IFREG {
      return "\(what) \(path) is not a regular file; nothing was changed. Move it away"
    }
    return nil
  }

  /// The process's working directory, or nil when it cannot be found (removed, say).
  public static func currentDirectory() -> String? {
    guard let path = getcwd(nil, 0) else { return nil }
    defer { free(path) }
    return String(cString: path)
  }

  /// Creates a directory and its parents when missing.
  public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
    guard !path.isEmpty, !exists(path) else { return }
    let parent = parentDirectory(of: path)
    if parent != path { try makeDirectories(parent, mode: mode) }
    if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
  }

  /// The directory part of a path ("." for a bare name).
  public static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
  }
}

#if canImport(Glibc)
  @inline(__always) func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
    -> Int
  {
    Glibc.read(fd, buffer, count)
  }
  @inline(__always) func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int
  {
    Glibc.write(fd, buffer, count)
  }
#else
  @inline(__always) func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
    -> Int
  {
    Darwin.read(fd, buffer, count)
  }
  @inline(__always) func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int
  {
    Darwin.write(fd, buffer, count)
  }
#endif

/// Writes text to standard error (fd 2) directly, without stdio's shared buffers.
public func writeStandardError(_ text: String) {
  try? FileIO.writeAll(2, Array(text.utf8))
}

/// Writes text to standard output (fd 1) directly.
public func writeStandardOutput(_ text: String) {
  try? FileIO.writeAll(1, Array(text.utf8))
}

extension FileIO {
  /// The names in a directory (without "." and "..").
  public static func listDirectory(_ directory: String) throws(SystemError) -> [String] {
    guard let handle = opendir(directory) else { throw SystemError("opendir", path: directory) }
    defer { closedir(handle) }
    return names(in: handle)
  }

  /// The names in one of the data directory's own folders (the journal, snapshots, receipts),
  /// opened as `openOwnDirectory` opens it: a symbolic link planted in its place is refused,
  /// never listed through (its mode is not checked: listing writes nothing). `directoryFD`,
  /// when given, is an open descriptor of the folder to list instead (it stays open).
  public static func listOwnDirectory(_ directory: String, directoryFD: Int32? = nil)
    throws(SystemError) -> [String]
  {
    let fd: Int32
    if let directoryFD {
      fd = dup(directoryFD)
      guard fd >= 0 else { throw SystemError("dup", path: directory) }
    } else {
      fd = try openOwnDirectory(directory, create: false, checkingMode: false)
    }
    guard let handle = fdopendir(fd) else {
      let failure = SystemError("fdopendir", path: directory)
      close(fd)
      throw failure
    }
    defer { closedir(handle) }  // closes fd
    rewinddir(handle)  // a duplicate shares the position of the descriptor it copies
    return names(in: handle)
  }

  /// The names an open directory stream lists, without "." and "..".
  private static func names(in handle: OpaquePointer) -> [String] {
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Renames `path` to `target` (atomically replacing what is there).
  public static func move(_ path: String, to target: String) throws(SystemError) {
    guard rename(path, target) == 0 else { throw SystemError("rename", path: path) }
  }

  /// Removes temporary files a crashed `writeAtomically(_:to:)` of `path` left behind
  /// (`PATH.tmp-SUFFIX`); returns how many.
  @discardableResult
  public static func removeStaleTemporaries(of path: String) -> Int {
    let directory = parentDirectory(of: path)
    let prefix = String(path.split(separator: "/").last ?? "") + ".tmp-"
    var removed = 0
    for name in (try? listDirectory(directory)) ?? []
    where name.hasPrefix(prefix) && unlink(directory + "/" + name) == 0 {
      removed += 1
    }
    return removed
  }
  /// Removes every temporary file a crashed `writeAtomically(_:to:)` left in `directory`
  /// (`NAME.tmp-SUFFIX`: a half-written e-mail in the outbox, a torn tail being set aside);
  /// returns how many. Call it only while holding the directory (its lock), when no write can
  /// be under way.
  @discardableResult
  public static func removeStaleTemporaries(in directory: String) -> Int {
    var removed = 0
    for name in (try? listDirectory(directory)) ?? [] {
      // NAME.tmp-SUFFIX, with a NAME: ".tmp-x" alone is not ours.
      let bytes = Array(name.utf8)
      let marker = Array(".tmp-".utf8)
      guard bytes.count > marker.count,
        (1...(bytes.count - marker.count)).contains(where: {
          bytes[$0..<$0 + marker.count].elementsEqual(marker)
        })
      else { continue }
      var info = stat()
      let path = directory + "/" + name
      // Only regular files (a planted link is removed as a link, never followed).
      guard lstat(path, &info) == 0,
        info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFLNK
      else { continue }
      if unlink(path) == 0 { removed += 1 }
    }
    return removed
  }

}

/// The process environment as a dictionary.
public func processEnvironment() -> [String: String] {
  var environment: [String: String] = [:]
  var pointer = environ
  while let entry = pointer.pointee {
    let text = String(cString: entry)
    if let equals = text.firstIndex(of: "=") {
      environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    pointer += 1
  }
  return environment
}

/// Milliseconds on the monotonic clock (for timeouts: it never jumps when the wall clock is set).
public func monotonicMilliseconds() -> Int64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}
