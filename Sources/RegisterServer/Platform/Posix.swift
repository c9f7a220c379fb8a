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
