#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failed system call: which one, on what, and errno's text.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  public var operation: String
  public var path: String?
  public var code: Int32

  public init(_ operation: String, path: String? = nil, code: Int32 = errno) {
    self.operation = operation
    self.path = path
    self.code = code
  }

  public var description: String {
    let reason = String(cString: strerror(code))
    if let path { return "\(operation) \(path): \(reason)" }
    return "\(operation): \(reason)"
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
  /// The whole file, or a `SystemError`.
  public static func read(_ path: String) throws(SystemError) -> [UInt8] {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { throw SystemError("open", path: path) }
    defer { close(fd) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt { systemRead(fd, buffer.baseAddress, buffer.count) }
      }
      if count < 0 { throw SystemError("read", path: path) }
      if count == 0 { return result }
      result.append(contentsOf: chunk[0..<count])
    }
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
  public static func writeAtomically(
    _ bytes: [UInt8], to path: String, mode: mode_t = 0o644
  ) throws(SystemError) {
    let directory = parentDirectory(of: path)
    let temporary = "\(path).tmp-\(getpid())"
    let fd = retryingOnInterrupt {
      open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    }
    guard fd >= 0 else { throw SystemError("open", path: temporary) }
    do throws(SystemError) {
      try writeAll(fd, bytes, path: temporary)
      if retryingOnInterrupt({ fsync(fd) }) != 0 { throw SystemError("fsync", path: temporary) }
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      let failure = SystemError("rename", path: path)
      unlink(temporary)
      throw failure
    }
    try syncDirectory(directory)
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
  /// Removes temporary files a crashed `writeAtomically(_:to:)` of `path` left behind
  /// (`PATH.tmp-PID`); returns how many.
  @discardableResult
  public static func removeStaleTemporaries(of path: String) -> Int {
    let directory = parentDirectory(of: path)
    let prefix = String(path.split(separator: "/").last ?? "") + ".tmp-"
    guard let handle = opendir(directory) else { return 0 }
    defer { closedir(handle) }
    var removed = 0
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name.hasPrefix(prefix), unlink(directory + "/" + name) == 0 { removed += 1 }
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
