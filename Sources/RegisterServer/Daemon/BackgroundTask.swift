import Dispatch
import RegisterEngine

/// Work done on a thread of its own, one job after another, whose results the event loop
/// collects when `notifyFD` (a pipe it polls) becomes readable: the loop never waits for it.
/// (Snapshots, and the catalog file read again on SIGHUP.)
package final class BackgroundTask<Output: Sendable>: @unchecked Sendable {
  private let queue: DispatchQueue
  private let lock = Lock()
  private var completions: [Output] = []
  private let wakePipe: WakePipe
  /// The loop polls this.
  var notifyFD: Int32 { wakePipe.readFD }
  /// True from `start` until the loop has taken its result (loop thread only).
  private(set) var isBusy = false

  package init?(label: String) {
    guard let wakePipe = WakePipe() else { return nil }
    self.wakePipe = wakePipe
    queue = DispatchQueue(label: label)
  }

  /// Runs `work` on the task's thread (after any job already started).
  func start(_ work: @escaping @Sendable () -> Output) {
    isBusy = true
    queue.async { [self] in
      let output = work()
      lock.withLock { completions.append(output) }
      wakePipe.wake()
    }
  }

  /// Results finished since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [Output] {
    wakePipe.drain()
    let done = lock.withLock {
      let taken = completions
      completions = []
      return taken
    }
    if !done.isEmpty { isBusy = false }
    return done
  }

  /// Waits for the jobs started so far to finish.
  func waitUntilIdle() {
    queue.sync {}
  }
}
