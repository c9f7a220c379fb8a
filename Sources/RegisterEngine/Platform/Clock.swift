#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the register gets the time. Injected so tests run on a fixed clock; the time read is
/// recorded in events and never read again during `apply`.
public protocol RegisterClock: Sendable {
  func now() -> Timestamp
}

/// The machine's clock and local time zone (the TZ environment variable applies).
public struct SystemClock: RegisterClock {
  public init() {}

  public func now() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    let millis = Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    var seconds = time_t(spec.tv_sec)
    var parts = tm()
    localtime_r(&seconds, &parts)
    return Timestamp(epochMilliseconds: millis, utcOffsetSeconds: Int32(parts.tm_gmtoff))
  }
}

/// A clock that always says the same time, or whatever a test sets it to.
public final class ManualClock: RegisterClock, @unchecked Sendable {
  private let lock = Lock()
  private var current: Timestamp

  public init(_ start: Timestamp) {
    current = start
  }

  public func now() -> Timestamp {
    lock.withLock { current }
  }

  /// Moves the clock to `timestamp`.
  public func set(_ timestamp: Timestamp) {
    lock.withLock { current = timestamp }
  }

  /// Moves the clock forward.
  public func advance(milliseconds: Int64) {
    lock.withLock { current.epochMilliseconds += milliseconds }
  }
}

/// A small pthread mutex (Foundation-free, usable from any thread).
public final class Lock: @unchecked Sendable {
  private var mutex = pthread_mutex_t()

  public init() {
    pthread_mutex_init(&mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(&mutex)
  }

  public func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    return try body()
  }
}
