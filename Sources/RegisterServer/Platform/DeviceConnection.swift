import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `write(2)`, by a name the connection's own `write` does not hide.
private func deviceWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}

/// A short-lived connection to a lane device (receipt printer, customer display): a device
/// file, or a TCP connection (raw port 9100). Every step has a timeout and nothing blocks
/// without one, so a device that is off, unplugged or hung costs its caller a few seconds at
/// most — and the caller is never the event loop.
///
/// A path must name a character device (a USB printer, a serial port) or a FIFO; anything else
/// — a regular file above all, which would be overwritten from its start, job after job — is
/// refused before it is opened for writing, and again after (it may have been swapped in
/// between). A character device is opened for reading too, so a printer can answer its
/// status; a FIFO only for writing (reading it would take back what was just written).
package final class DeviceConnection {
  private let fd: Int32
  /// True when what the device sends back can be read: a TCP connection, or a character
  /// device opened for reading and writing.
  package let canRead: Bool

  /// How long a TCP connect, and each stall of a write, may take.
  package static let timeoutMilliseconds: Int32 = 3000

  /// Opens `address`; throws a `SystemError` when it cannot be reached or a path names
  /// something that is not a device (see `refusal(of:)`).
  package init(_ address: DeviceAddress) throws(SystemError) {
    switch address {
    case .device(let path):
      var info = stat()
      guard stat(path, &info) == 0 else { throw SystemError("open", path: path) }
      if let refusal = Self.refusal(path, mode: info.st_mode) { throw refusal }
      let isDevice = info.st_mode & S_IFMT == S_IFCHR
      let flags = O_NONBLOCK | O_NOCTTY | O_CLOEXEC
      var opened = -1 as Int32
      if isDevice {
        opened = retryingOnInterrupt { open(path, O_RDWR | flags) }
      }
      if opened < 0 {
        // A FIFO, or a device that may only be written (its mode, a write-only driver).
        opened = retryingOnInterrupt { open(path, O_WRONLY | flags) }
        guard opened >= 0 else { throw SystemError("open", path: path) }
        canRead = false
      } else {
        canRead = true
      }
      guard fstat(opened, &info) == 0 else {
        let failure = SystemError("fstat", path: path)
        close(opened)
        throw failure
      }
      if let refusal = Self.refusal(path, mode: info.st_mode) {
        close(opened)
        throw refusal
      }
      fd = opened
    case .tcp(let host, let port):
      fd = try Self.openTCP(host: host, port: port)
      canRead = true
    }
  }

  /// False when `address` can never answer: a FIFO (only written). A path with nothing there
  /// now may become a device that answers.
  package static func mayAnswer(_ address: DeviceAddress) -> Bool {
    guard case .device(let path) = address else { return true }
    var info = stat()
    guard stat(path, &info) == 0 else { return true }
    return info.st_mode & S_IFMT == S_IFCHR
  }

  /// Why `path` cannot be a printer or display: nil for a character device, a FIFO, or
  /// nothing there now (a USB printer unplugged: it is tried again later); else the refusal.
  package static func refusal(of path: String) -> SystemError? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return refusal(path, mode: info.st_mode)
  }

  private static func refusal(_ path: String, mode: mode_t) -> SystemError? {
    let kind: String
    switch mode & S_IFMT {
    case S_IFCHR, S_IFIFO: return nil
    case S_IFREG: kind = "is a regular file"
    case S_IFDIR: kind = "is a directory"
    case S_IFBLK: kind = "is a block device"
    case S_IFSOCK: kind = "is a socket"
    default: kind = "is not a device"
    }
    return SystemError(
      "open", path: path, code: ENODEV,
      reason:
        "\(kind), not a printer or display: registerd writes only to a character device (a USB printer, a serial port), a FIFO or tcp:HOST:PORT"
    )
  }

  deinit { close(fd) }

  private static func openTCP(host: String, port: Int) throws(SystemError) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let first = list else {
      errno = EHOSTUNREACH
      throw SystemError("getaddrinfo", path: host)
    }
    defer { freeaddrinfo(list) }
    var lastError = SystemError("connect", path: "\(host):\(port)")
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let info = entry {
      entry = info.pointee.ai_next
      let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
      guard fd >= 0 else { continue }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      #if canImport(Darwin)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
      #endif
      if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
      if errno == EINPROGRESS {
        var polled = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        if retryingOnInterrupt({ poll(&polled, 1, timeoutMilliseconds) }) == 1 {
          var error: Int32 = 0
          var length = socklen_t(MemoryLayout<Int32>.size)
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
          if error == 0 { return fd }
          errno = error
        } else {
          errno = ETIMEDOUT
        }
      }
      lastError = SystemError("connect", path: "\(host):\(port)")
      close(fd)
    }
    throw lastError
  }

  /// Writes all of `bytes`; throws when a stall lasts longer than the timeout or the device
  /// goes away.
  package func write(_ bytes: [UInt8]) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes { buffer in
        retryingOnInterrupt { deviceWrite(fd, buffer.baseAddress, buffer.count) }
      }
      if count > 0 {
        offset += count
        continue
      }
      guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else {
        throw SystemError("write")
      }
      var polled = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard retryingOnInterrupt({ poll(&polled, 1, Self.timeoutMilliseconds) }) == 1,
        polled.revents & Int16(POLLERR | POLLHUP) == 0
      else {
        errno = ETIMEDOUT
        throw SystemError("write")
      }
    }
  }

  /// One byte the device sends back within `milliseconds`, or nil (many devices never
  /// answer; a device that cannot be read never does).
  package func readByte(within milliseconds: Int32) -> UInt8? {
    guard canRead else { return nil }
    var polled = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard retryingOnInterrupt({ poll(&polled, 1, milliseconds) }) == 1,
      polled.revents & Int16(POLLIN) != 0
    else { return nil }
    var byte: UInt8 = 0
    return retryingOnInterrupt({ read(fd, &byte, 1) }) == 1 ? byte : nil
  }

  /// Reads and drops what the device sent that nobody asked for (a late answer to an earlier
  /// question), at most `limit` bytes; false when more than that was waiting (a device that
  /// talks without end is not one whose answers can be told apart).
  package func discardInput(limit: Int = 4096) -> Bool {
    guard canRead else { return true }
    var buffer = [UInt8](repeating: 0, count: 256)
    var discarded = 0
    while discarded <= limit {
      let count = buffer.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { read(fd, raw.baseAddress, raw.count) }
      }
      guard count > 0 else { return true }
      discarded += count
    }
    return false
  }
}
