import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Talks to the service manager (systemd) the way sd_notify(3) does, without libsystemd:
/// datagrams of `KEY=VALUE` lines sent to `$NOTIFY_SOCKET`. Without that variable nothing is
/// sent and nothing fails.
package final class ServiceNotifier {
  private let fd: Int32
  private var address = sockaddr_un()
  private let addressLength: socklen_t
  /// How often to send `WATCHDOG=1` (milliseconds: half of `$WATCHDOG_USEC`), when the service
  /// manager asked for it (and `$WATCHDOG_PID`, if set, is this process).
  package let watchdogInterval: Int64?

  /// A notifier for the socket `$NOTIFY_SOCKET` names (a path, or an abstract name when it
  /// starts with `@`); nil when there is none or it is unusable.
  package init?(environment: [String: String]) {
    guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
    var bytes = Array(path.utf8)
    let abstract = bytes.first == UInt8(ascii: "@")
    if abstract { bytes[0] = 0 }
    // A path needs room for its terminating NUL; an abstract name has none.
    guard bytes.count + (abstract ? 0 : 1) <= MemoryLayout.size(ofValue: address.sun_path),
      bytes.first == 0 || bytes.first == UInt8(ascii: "/")
    else {
      Log.warning("NOTIFY_SOCKET=\(path) is not a socket path; not notifying the service manager")
      return nil
    }
    #if canImport(Glibc)
      fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      fd = socket(AF_UNIX, SOCK_DGRAM, 0)
    #endif
    guard fd >= 0 else {
      Log.warning("cannot notify the service manager: \(SystemError("socket"))")
      return nil
    }
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
    addressLength = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
    watchdogInterval = Self.watchdogInterval(environment)
  }

  deinit { close(fd) }

  /// Half the watchdog timeout the service manager set, in milliseconds (at least 1), or nil.
  private static func watchdogInterval(_ environment: [String: String]) -> Int64? {
    guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text),
      microseconds > 0
    else { return nil }
    if let pid = environment["WATCHDOG_PID"], !pid.isEmpty, pid != String(getpid()) {
      return nil
    }
    return max(1, microseconds / 2000)
  }

  /// Sends `state` (lines like `READY=1`). Never blocks: a service manager that does not read
  /// its socket misses a message rather than stopping the event loop.
  package func send(_ state: String) {
    let bytes = Array(state.utf8)
    let sent = bytes.withUnsafeBytes { raw in
      withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
          retryingOnInterrupt {
            sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), target, addressLength)
          }
        }
      }
    }
    if sent < 0 {
      Log.debug("could not notify the service manager (\(SystemError("sendto")))")
    }
  }

  /// `READY=1` with a status line and the main process id.
  package func ready(status: String) {
    send("READY=1\nSTATUS=\(oneLine(status))\nMAINPID=\(getpid())")
  }

  /// `RELOADING=1` (with the monotonic time systemd's notify-reload expects).
  package func reloading() {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    send("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
  }

  /// `STOPPING=1` with a status line.
  package func stopping(status: String) {
    send("STOPPING=1\nSTATUS=\(oneLine(status))")
  }

  /// `WATCHDOG=1`: the event loop is alive.
  package func watchdog() { send("WATCHDOG=1") }

  private func oneLine(_ text: String) -> String {
    String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
  }
}

/// A listening socket the service manager passed (socket activation, sd_listen_fds(3)).
package struct PassedSocket {
  package var fd: Int32
  /// The path it is bound to, as `getsockname` says.
  package var path: String

  /// The socket passed as descriptor 3, checked to be a listening Unix stream socket; nil when
  /// none was passed. Throws a message when what was passed cannot be served on.
  package static func take() throws(PassedSocketError) -> PassedSocket? {
    let count = InheritedDescriptors.passedCount
    guard count > 0 else { return nil }
    let fd = InheritedDescriptors.firstPassed
    if count > 1 {
      Log.warning(
        "the service manager passed \(count) sockets; serving on the first (descriptor \(fd)) and closing the others"
      )
      for extra in (fd + 1)..<(fd + count) { close(extra) }
    }
    func option(_ name: Int32) -> Int32? {
      var value: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      guard getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 else { return nil }
      return value
    }
    #if canImport(Glibc)
      let stream = Int32(SOCK_STREAM.rawValue)
    #else
      let stream = SOCK_STREAM
    #endif
    guard let type = option(SO_TYPE) else {
      throw PassedSocketError(
        "descriptor \(fd) from the service manager is not a socket (\(SystemError("getsockopt")))")
    }
    var address = sockaddr_un()
    var length = socklen_t(MemoryLayout<sockaddr_un>.size)
    let named = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(fd, $0, &length)
      }
    }
    guard named == 0, address.sun_family == sa_family_t(AF_UNIX), type == stream else {
      throw PassedSocketError(
        "the socket the service manager passed (descriptor \(fd)) is not a Unix-domain stream socket; use ListenStream=/path in the .socket unit"
      )
    }
    guard option(SO_ACCEPTCONN) == 1 else {
      throw PassedSocketError(
        "the socket the service manager passed (descriptor \(fd)) is not listening; use Accept=no in the .socket unit"
      )
    }
    let path = withUnsafeBytes(of: address.sun_path) { raw in
      let used = raw.prefix(max(0, Int(length) - 2))
      if used.first == 0 {
        return "@" + String(decoding: used.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
      }
      return String(decoding: used.prefix { $0 != 0 }, as: UTF8.self)
    }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    return PassedSocket(fd: fd, path: path)
  }
}

/// Why registerd cannot serve on the socket the service manager passed.
package struct PassedSocketError: Error, CustomStringConvertible {
  package var description: String
  init(_ description: String) { self.description = description }
}
