import Dispatch
import RegisterEngine

/// Work done on a thread of its own, one job after another, whose results the event loop
/// collects when `notifyFD` (a pipe it polls) becomes readable: the loop never waits for it.
/// (Snapshots, the catalog file read again on SIGHUP, and large replies.)
package final class BackgroundTask<Output: Sendable>: @unchecked Sendable {
  /// Where the jobs run: a serial Dispatch queue, or a thread of its own at a lower priority.
  private enum Runner {
    case queue(DispatchQueue)
    case thread(WorkerThread)
  }
  private let runner: Runner
  private let completions: Completions<Output>
  /// The loop polls this.
  var notifyFD: Int32 { completions.notifyFD }
  /// True from `start` until the loop has taken its result (loop thread only).
  private(set) var isBusy = false

  /// With `niceness`, the jobs run on a thread of its own at that scheduling niceness, so
  /// that the event loop comes first for the CPU (nil when no thread can be started).
  package init?(label: String, niceness: Int32? = nil) {
    guard let completions = Completions<Output>() else { return nil }
    self.completions = completions
    if let niceness {
      guard let thread = WorkerThread(niceness: niceness) else { return nil }
      runner = .thread(thread)
    } else {
      runner = .queue(DispatchQueue(label: label))
    }
  }

  /// Runs `work` on the task's thread (after any job already started).
  func start(_ work: @escaping @Sendable () -> Output) {
    isBusy = true
    let job: @Sendable () -> Void = { [self] in
      completions.post(work())
    }
    switch runner {
    case .queue(let queue): queue.async(execute: job)
    case .thread(let thread): thread.submit(job)
    }
  }

  /// Results finished since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [Output] {
    let done = completions.take()
    if !done.isEmpty { isBusy = false }
    return done
  }

  /// Waits for the jobs started so far to finish.
  func waitUntilIdle() {
    switch runner {
    case .queue(let queue): queue.sync {}
    case .thread(let thread): thread.waitUntilIdle()
    }
  }
}
