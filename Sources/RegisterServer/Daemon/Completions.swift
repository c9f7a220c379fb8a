/// What a worker thread hands back to the event loop: each result added under a lock, then a
/// byte written on a wake pipe the loop polls (`notifyFD`); the loop takes them all at once.
/// The byte is written after the result is added and the pipe drained before the results are
/// taken, so a result taken late only leaves the pipe readable for one empty take later, and
/// none is left behind with the pipe empty. The journal writer, the PIN checks, the receipt
/// printer and every `BackgroundTask` (snapshots, the catalog reload, large replies) hand
/// their results back through one.
final class Completions<Element>: @unchecked Sendable {
  private let lock = Lock()
  private var elements: [Element] = []
  private let wakePipe: WakePipe

  /// nil when no pipe can be made (out of descriptors).
  init?() {
    guard let wakePipe = WakePipe() else { return nil }
    self.wakePipe = wakePipe
  }

  /// The loop polls this.
  var notifyFD: Int32 { wakePipe.readFD }

  /// Hands `element` to the loop (from any thread), and wakes it.
  func post(_ element: Element) {
    lock.withLock { elements.append(element) }
    wakePipe.wake()
  }

  /// Hands `newElements` to the loop at once (from any thread), and wakes it.
  func post(contentsOf newElements: [Element]) {
    lock.withLock { elements.append(contentsOf: newElements) }
    wakePipe.wake()
  }

  /// Wakes the loop without handing it an element (what the worker has for it is elsewhere).
  func wake() {
    wakePipe.wake()
  }

  /// Everything handed over since the last call, oldest first (on the loop, when `notifyFD`
  /// is readable).
  func take() -> [Element] {
    wakePipe.drain()
    return lock.withLock {
      let taken = elements
      elements = []
      return taken
    }
  }
}
