/// A drain (the first SIGTERM or SIGINT): no new clients; the connected ones are served until
/// what they had sent is answered, or until the deadline. Counted for the log line that ends
/// it.
struct Drain {
  /// How long (milliseconds) a drain waits for the clients still connected to take their last
  /// replies before they are dropped.
  static let grace: Int64 = 5000

  /// True from the signal on.
  private(set) var isActive = false
  /// When the grace is over (monotonic milliseconds).
  private(set) var deadline: Int64 = 0
  /// Connections when it began.
  private(set) var startedWith = 0
  /// Requests answered since it began.
  var answered = 0

  /// Begins the drain at `now`, with `connections` connected.
  mutating func start(now: Int64, connections: Int) {
    isActive = true
    deadline = now + Self.grace
    startedWith = connections
  }
}
