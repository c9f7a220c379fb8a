import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking line-oriented client connection: send a line, read a line. Used by
/// register-cli, the tests and the benchmark.
public final class LineConnection {
  public let fd: Int32
  private var buffer: [UInt8] = []
  private var scanned = 0

  /// Connects to the daemon at `path`.
  public init(path: String) throws(SystemError) {
    fd = try UnixSocket.connect(to: path)
  }

  private var isOpen = true

  deinit { disconnect() }

  /// Closes the connection now (once: the descriptor's number may be another file's after
  /// that, so closing it again, here or at deinit, would close that file).
  public func disconnect() {
    guard isOpen else { return }
    isOpen = false
    close(fd)
  }

  /// Sends raw bytes.
  public func send(bytes: [UInt8]) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return UnixSocket.send(fd, base + offset, bytes.count - offset)
      }
      if sent < 0 { throw SystemError("send") }
      offset += sent
    }
  }

  /// Sends one line (a newline is added).
  public func send(line: String) throws(SystemError) {
    try send(bytes: Array((line + "\n").utf8))
  }

  /// Reads one line (without its newline); `nil` when the server closed the connection.
  public func readLine() throws(SystemError) -> String? {
    while true {
      if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        scanned = 0
        return line
      }
      scanned = buffer.count
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let count = chunk.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { recv(fd, raw.baseAddress, raw.count, 0) }
      }
      if count < 0 { throw SystemError("recv") }
      if count == 0 { return nil }
      buffer.append(contentsOf: chunk[0..<count])
    }
  }

  /// Sends a request line and reads the reply line.
  public func request(_ line: String) throws(SystemError) -> String? {
    try send(line: line)
    return try readLine()
  }

  /// Waits up to `milliseconds` for a line to read: true when one is buffered or the socket
  /// has something (data or its end) to read, false when the time ran out.
  public func waitForInput(milliseconds: Int32) -> Bool {
    if buffer.contains(UInt8(ascii: "\n")) { return true }
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = retryingOnInterrupt { poll(&entry, 1, milliseconds) }
    return ready != 0
  }

  /// Sets a receive timeout in milliseconds (0: none).
  public func setReceiveTimeout(milliseconds: Int) {
    var value = timeval()
    value.tv_sec = time_t(milliseconds / 1000)
    value.tv_usec = .init(milliseconds % 1000 * 1000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }
}
