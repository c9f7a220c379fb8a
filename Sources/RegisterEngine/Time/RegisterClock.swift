import Synchronization

/// Where the register gets the time. Injected so tests run on a fixed clock; the time read is
/// recorded in events and never read again during `apply`. (The machine's clock, `SystemClock`,
/// lives in RegisterServer: the engine reads no clock of its own.)
public protocol RegisterClock: Sendable {
  func now() -> Timestamp
}

/// A clock that always says the same time, or whatever a test sets it to.
///
/// Tests share one across threads (the daemon's loop and its writer), hence the mutex: the
/// standard library's, so that the engine needs no platform import for it.
public final class ManualClock: RegisterClock, Sendable {
  private let current: Mutex<Timestamp>

  public init(_ start: Timestamp) {
    current = Mutex(start)
  }

  public func now() -> Timestamp {
    current.withLock { $0 }
  }

  /// Moves the clock to `timestamp`.
  public func set(_ timestamp: Timestamp) {
    current.withLock { $0 = timestamp }
  }

  /// Moves the clock forward.
  public func advance(milliseconds: Int64) {
    current.withLock { $0.epochMilliseconds += milliseconds }
  }
}
