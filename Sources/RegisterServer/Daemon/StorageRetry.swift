import RegisterEngine

/// When storage failed, when to try it again: first after 100 ms, then each wait twice the one
/// before, up to 5 s. A full disk an administrator clears is written to within 5 s of it; a
/// disk that keeps failing is tried a dozen times a minute, not in a busy loop.
struct StorageRetry {
  static let firstWait: Int64 = 100
  static let longestWait: Int64 = 5000

  /// When (monotonic milliseconds) the episode began (nil: storage works).
  private(set) var since: Int64?
  /// When the next try is due.
  private(set) var due: Int64?
  /// Tries that failed in this episode, and why the last one did.
  private(set) var tries = 0
  private(set) var lastError: SystemError?
  private var wait = firstWait

  /// Storage failed at `now` (a write, or a try): the next try is due after the wait.
  mutating func failed(at now: Int64, _ error: SystemError? = nil) {
    if let error { lastError = error }
    if since == nil {
      since = now
      wait = Self.firstWait
    } else {
      tries += 1
    }
    due = now + wait
    wait = min(wait * 2, Self.longestWait)
  }

  /// A try is being made: none is due until it is answered.
  mutating func trying() {
    due = nil
  }

  /// Storage works again: how long the episode lasted (milliseconds) and how many tries
  /// failed in it.
  mutating func recovered(at now: Int64) -> (
    milliseconds: Int64, failedTries: Int, lastError: SystemError?
  ) {
    defer { self = StorageRetry() }
    return (now - (since ?? now), tries, lastError)
  }
}
