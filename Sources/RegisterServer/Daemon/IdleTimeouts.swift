/// The connections in the middle of a line, for the idle timeout: a client whose line stays
/// incomplete longer than the timeout is disconnected (a slow client cannot hold a slot).
struct IdleTimeouts {
  /// Connections in the middle of a line (pruned as they finish lines).
  private var partialLines: [Connection] = []

  /// Lists `connection` if it is in the middle of a line and not listed yet.
  mutating func note(_ connection: Connection) {
    if connection.partialLineSince != nil && !connection.isListedPartial {
      connection.isListedPartial = true
      partialLines.append(connection)
    }
  }

  /// The earliest moment a connection times out with `timeout`, if one is in the middle of a
  /// line.
  mutating func firstDeadline(timeout: Int64) -> Int64? {
    prune()
    var deadline: Int64?
    for connection in partialLines {
      guard let since = connection.partialLineSince else { continue }
      deadline = min(deadline ?? .max, since + timeout)
    }
    return deadline
  }

  /// Disconnects (marks broken, and `touch`es) clients whose line has stayed incomplete for
  /// `timeout`.
  mutating func closeIdle(now: Int64, timeout: Int64, touching touch: (Connection) -> Void) {
    guard !partialLines.isEmpty else { return }
    prune()
    for connection in partialLines where !connection.broken {
      guard let since = connection.partialLineSince, now - since >= timeout else { continue }
      connection.broken = true
      touch(connection)
      Log.info(
        "connection \(connection.id) timed out: a request line stayed incomplete for \(timeout) ms"
      )
    }
  }

  /// The connections still in the middle of a line (the list pruned of the others).
  private mutating func prune() {
    partialLines.removeAll { connection in
      let done = connection.isClosed || connection.readClosed || connection.partialLineSince == nil
      if done { connection.isListedPartial = false }
      return done
    }
  }
}
