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
  private let wakePipe: WakePipe
  /// The loop polls this.
  var notifyFD: Int32 { wakePipe.readFD }
  private(set) var isBusy = false

  package init?(journal: Journal) {
    guard let wakePipe = WakePipe() else { return nil }
    self.wakePipe = wakePipe
    self.journal = journal
  }

  /// Starts writing `work` (only one write is in flight at a time).
  func start(_ work: JournalWrite) {
    isBusy = true
    queue.async { [self] in
      var work = work
      let error = journal.write(&work)
      lock.withLock { completions.append((work, error)) }
      wakePipe.wake()
    }
  }

  /// Finished writes since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [(JournalWrite, SystemError?)] {
    wakePipe.drain()
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
