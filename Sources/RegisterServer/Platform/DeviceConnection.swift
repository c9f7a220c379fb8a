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
/// file opened for writing, or a TCP connection (raw port 9100). Every step has a timeout and
/// nothing blocks without one, so a device that is off, unplugged or hung costs its caller a
/// few seconds at most — and the caller is never the event loop.
package final class DeviceConnection {
  private let fd: Int32

  /// How long a TCP connect, and each stall of a write, may take.
  package static let timeoutMilliseconds: Int32 = 3000

  /// Opens `address`; throws a `SystemError` when it cannot be reached.
  package init(_ address: DeviceAddress) throws(SystemError) {
    switch address {
    case .device(let path):
      let opened = retryingOnInterrupt {
        open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
      }
      guard opened >= 0 else { throw SystemError("open", path: path) }
      fd = opened
    case .tcp(let host, let port):
      fd = try Self.openTCP(host: host, port: port)
    }
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

  /// One byte the device sends back within `milliseconds`, or nil (many devices, and any
  /// device file opened write-only, never answer).
  package func readByte(within milliseconds: Int32) -> UInt8? {
    var polled = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard retryingOnInterrupt({ poll(&polled, 1, milliseconds) }) == 1,
      polled.revents & Int16(POLLIN) != 0
    else { return nil }
    var byte: UInt8 = 0
    return retryingOnInterrupt({ read(fd, &byte, 1) }) == 1 ? byte : nil
  }
}
