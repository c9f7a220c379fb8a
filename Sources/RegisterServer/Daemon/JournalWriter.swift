import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes journal groups on a thread of its own, so the event loop keeps reading and handling
/// requests (which fill the next groups) while the disk syncs. When a write is done it says so
/// with a byte on a pipe the loop polls.
///
/// The loop hands over each group as soon as it is sealed, even while an earlier one is being
/// written; the writer takes every group waiting for it in one write and one fsync the moment
/// the one before is done. Under load the writer is therefore never idle waiting for the loop
/// to notice a finished write and hand it the next group (and the loop wakes the writer only
/// when it had nothing to do): the disk syncs back to back.
package final class JournalWriter: @unchecked Sendable {
  private let journal: Journal
  private let queue = DispatchQueue(label: "registerd.journal-writer")
  private let lock = Lock()
  /// Groups handed over and not taken by the writer yet, oldest first (under `lock`).
  private var waiting: [JournalWrite] = []
  /// True while the writer's loop runs (under `lock`): a group handed over then needs no wake.
  private var draining = false
  /// Groups written, each with the error of its write (nil: durable).
  private let completions: Completions<(JournalWrite, SystemError?)>
  /// Groups handed over whose completion the loop has not taken yet (loop's thread only).
  private var outstanding = 0
  /// The loop polls this.
  var notifyFD: Int32 { completions.notifyFD }
  /// True while a group handed over has not been reported back.
  var isBusy: Bool { outstanding > 0 }

  package init?(journal: Journal) {
    guard let completions = Completions<(JournalWrite, SystemError?)>() else { return nil }
    self.completions = completions
    self.journal = journal
  }

  /// Hands `work` to the writer: it is written after every group handed over before it.
  func start(_ work: JournalWrite) {
    outstanding += 1
    let wake = lock.withLock {
      waiting.append(work)
      guard !draining else { return false }
      draining = true
      return true
    }
    if wake { queue.async { [self] in drain() } }
  }

  /// The writer's loop: takes what is waiting, writes it, reports it, until nothing waits.
  private func drain() {
    while true {
      let batch: [JournalWrite] = lock.withLock {
        let taken = Self.nextBatch(from: &waiting)
        if taken.isEmpty { draining = false }
        return taken
      }
      guard !batch.isEmpty else { return }
      var works = batch
      let error = journal.write(batch: &works)
      completions.post(contentsOf: works.map { ($0, error) })
    }
  }

  /// The groups to write together: every waiting one, up to and including the first that ends
  /// with a close of day (the next day's records start a new segment, after it is written).
  static func nextBatch(from waiting: inout [JournalWrite]) -> [JournalWrite] {
    let end =
      waiting.firstIndex { $0.pending.last?.event.eventType == .dayClosed }.map { $0 + 1 }
      ?? waiting.count
    let batch = Array(waiting[..<end])
    waiting.removeFirst(end)
    return batch
  }

  /// The result of the last `resume` not taken yet (under `lock`): nil, or the error (nil
  /// inside: storage works again).
  private var resumed: SystemError??
  /// True while a `resume` handed over has not been taken back (loop's thread only).
  private(set) var isResuming = false

  /// After a failed write, once every group handed over is reported back: the writer cuts the
  /// journal back to what is durable and tries a write and a sync (`Journal.resume`); the
  /// result comes back through `takeResumed`, with a byte on the pipe.
  func resume() {
    isResuming = true
    queue.async { [self] in
      let error = journal.resume()
      lock.withLock { resumed = .some(error) }
      completions.wake()
    }
  }

  /// The result of the `resume` handed over, once it is done: `.some(nil)` when storage works
  /// again, `.some(error)` when it still fails, nil while it is still being tried.
  func takeResumed() -> SystemError?? {
    guard isResuming else { return nil }
    let result = lock.withLock {
      let taken = resumed
      resumed = nil
      return taken
    }
    if result != nil { isResuming = false }
    return result
  }

  /// Finished writes since the last call (call when `notifyFD` is readable), oldest first.
  func takeCompletions() -> [(JournalWrite, SystemError?)] {
    let done = completions.take()
    outstanding -= done.count
    return done
  }

  /// Waits for every group handed over to be written.
  func waitUntilIdle() {
    // Only the loop hands groups over, so once the drain running now (or queued) ends,
    // nothing is left.
    queue.sync {}
  }
}
