import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The write end of the self-pipe; the signal handler only writes one byte to it.
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

/// Turns SIGINT, SIGTERM and SIGHUP into bytes on a pipe the event loop polls, so that signal
/// handling happens on the loop's thread and never in the handler.
package enum SignalPipe {
  /// Installs the handlers and returns the read end of the pipe.
  package static func install() -> Int32 {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return -1 }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    signalPipeWrite = fds[1]
    signal(SIGPIPE, SIG_IGN)
    // A parent may start us with these signals blocked (threads of a launching process often
    // block them, and the mask is inherited); unblock them or SIGTERM would never arrive.
    var mask = sigset_t()
    sigemptyset(&mask)
    for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&mask, number) }
    sigprocmask(SIG_UNBLOCK, &mask, nil)
    for number in [SIGINT, SIGTERM, SIGHUP] {
      signal(number) { received in
        var byte = UInt8(truncatingIfNeeded: received)
        _ = write(signalPipeWrite, &byte, 1)
      }
    }
    return fds[0]
  }

  /// The signals that arrived since the last call.
  static func drain(_ fd: Int32) -> [Int32] {
    var signals: [Int32] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count <= 0 { return signals }
      signals.append(contentsOf: buffer[0..<count].map { Int32($0) })
    }
  }
}
