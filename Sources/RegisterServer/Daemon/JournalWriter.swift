import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes journal groups on a thread of its own, so the event loop keeps reading and handling
/// requests (which fill the next group) while the disk syncs. When a write is done it says so
/// with a byte on a pipe the loop polls.
package final class JournalWriter: @unchecked Sendable {
  private let journal: Journal
  private let queue = DispatchQueue(label: "registerd.journal-writer")
  private let lock = Lock()
  private var completions: [(JournalWrite, SystemError?)] = []
  /// The loop polls this for completions.
  let notifyFD: Int32
  private let signalFD: Int32
  private(set) var isBusy = false

  package init?(journal: Journal) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    self.journal = journal
    notifyFD = fds[0]
    signalFD = fds[1]
  }

  /// Starts writing `work` (only one write is in flight at a time).
  func start(_ work: JournalWrite) {
    isBusy = true
    queue.async { [self] in
      var work = work
      let error = journal.write(&work)
      lock.withLock { completions.append((work, error)) }
      var byte: UInt8 = 1
      _ = write(signalFD, &byte, 1)
    }
  }

  /// Finished writes since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [(JournalWrite, SystemError?)] {
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ read(notifyFD, $0.baseAddress, $0.count) }) > 0 {}
    let done = lock.withLock {
      let taken = completions
      completions = []
      return taken
    }
    if !done.isEmpty { isBusy = false }
    return done
  }

  /// Waits for the write in flight, if any, to finish.
  func waitUntilIdle() {
    queue.sync {}
  }
}
