#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pipe a worker thread writes a byte to when it has something for the event loop, which
/// polls `readFD` (each `Completions`, through which the worker threads hand back results, has
/// one).
/// Both ends are non-blocking and close-on-exec.
package final class WakePipe: @unchecked Sendable {
  /// The loop polls this.
  package let readFD: Int32
  private let writeFD: Int32

  package init?() {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    readFD = fds[0]
    writeFD = fds[1]
  }

  deinit {
    close(readFD)
    close(writeFD)
  }

  /// Wakes the loop (from any thread). A full pipe already wakes it, so a failed write is fine.
  package func wake() {
    var byte: UInt8 = 1
    _ = write(writeFD, &byte, 1)
  }

  /// Empties the pipe (on the loop's thread, when `readFD` is readable). A read that returns
  /// less than it asked for has emptied it, so the usual wake-up costs one read, not a second
  /// one that finds nothing.
  package func drain() {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
      while read(readFD, buffer.baseAddress, buffer.count) == buffer.count {}
    }
  }
}
