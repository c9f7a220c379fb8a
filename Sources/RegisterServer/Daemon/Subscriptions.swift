import RegisterEngine

/// The connections that subscribed to live events: each durable event delivered to them once,
/// in order; a subscription with `after` caught up from the journal first; a subscriber that
/// falls too far behind cut off.
final class Subscriptions {
  /// A subscriber whose unread events pass this many bytes is cut off (with a last error line)
  /// rather than growing the daemon's memory (`--max-subscriber-backlog`, default 1 MiB).
  var limit = 1 << 20
  /// The data directory, whose journal a subscriber with `after` catches up from.
  var dataDirectory: String?
  /// The connections that subscribed, in the order they did.
  private var subscribers: [Connection] = []
  private let service: RegisterService

  init(service: RegisterService) {
    self.service = service
  }

  /// An event as a subscriber receives it.
  private struct JournalRecordLine {
    var sequence: Int64
    var type: String
    var line: String

    init(_ event: CommittedEvent) {
      sequence = event.sequence
      type = event.event.type
      line = Topics.line(for: event).serialized
    }

    init(_ record: JournalRecord) {
      sequence = record.sequence
      type = record.type
      line =
        Topics.line(type: record.type, sequence: record.sequence, at: record.at, data: record.data)
        .serialized
    }
  }

  /// Sends newly durable events to every subscriber still served (each one `touch`ed first).
  func publish(_ events: [CommittedEvent], touching touch: (Connection) -> Void) {
    guard !events.isEmpty && !subscribers.isEmpty else { return }
    // Each event's line is made once for every subscriber.
    let lines = events.map(JournalRecordLine.init)
    for connection in subscribers where !connection.broken {
      touch(connection)
      for line in lines {
        deliver(line, to: connection)
      }
      checkBacklog(connection)
    }
  }

  private func deliver(_ event: JournalRecordLine, to connection: Connection) {
    guard var subscription = connection.subscription, event.sequence > subscription.cursor else {
      return
    }
    if subscription.wants(event.type) { connection.enqueue(line: event.line) }
    subscription.cursor = event.sequence
    connection.subscription = subscription
  }

  /// Starts a subscription; with `after`, first replays from the journal every durable event
  /// after it, so a reconnecting display catches up without a gap.
  func subscribe(_ connection: Connection, _ subscription: Subscription) {
    if connection.subscription == nil { subscribers.append(connection) }
    connection.subscription = subscription
    Log.debug(
      "connection \(connection.id) subscribed to live events after seq \(subscription.cursor)")
    let durable = service.durableSequence
    if subscription.cursor < durable, let dataDirectory,
      let segments = try? JournalFiles.segments(in: dataDirectory)
    {
      // Only the segments from the one holding the cursor on are read.
      _ = try? JournalFiles.read(segments, after: subscription.cursor, sum: nil) {
        _, records throws(RecoveryError) in
        for record in records where record.sequence <= durable {
          deliver(JournalRecordLine(record), to: connection)
          if connection.pendingOutput > limit {
            throw RecoveryError("the subscriber's backlog is full")
          }
        }
      }
    }
    if var current = connection.subscription, current.cursor < durable {
      current.cursor = durable
      connection.subscription = current
    }
    checkBacklog(connection)
  }

  /// The refusal of a `subscribe` whose `after` lies before the journal's first segment (the
  /// records after it were archived): catching up from there would skip them silently. The
  /// reply keeps the request's id.
  func archivedHistoryRefusal(_ reply: OutgoingReply, _ subscription: Subscription) -> String? {
    guard subscription.cursor < service.durableSequence, let dataDirectory,
      let first = (try? JournalFiles.segments(in: dataDirectory))?.first?.firstSequence,
      subscription.cursor < first - 1
    else { return nil }
    let id = subscription.requestID
    let error = RegisterError(
      .historyArchived,
      "records \(subscription.cursor + 1)-\(first - 1) were archived out of the data directory (register-cli archive); subscribe with after \(first - 1) or later (older ones are in the archive, offline)"
    )
    return JSONValue.object(["id": id, "ok": .bool(false), "error": error.json]).serialized
  }

  /// Cuts off a subscriber that has fallen too far behind: one last error line, then close.
  private func checkBacklog(_ connection: Connection) {
    guard connection.pendingOutput > limit else { return }
    connection.enqueue(
      line: JSONValue.object([
        "event": "error",
        "error": .object([
          "code": .string(ErrorCode.subscriberTooSlow.rawValue),
          "message": .string(
            "this listener fell more than \(limit) bytes behind and was disconnected; reconnect and subscribe with after to catch up"
          ),
        ]),
      ]).serialized)
    connection.flush()
    connection.broken = true
    Log.warning("connection \(connection.id) cut off: subscriber too slow")
  }

  /// Forgets a connection that closed.
  func remove(_ connection: Connection) {
    if connection.subscription != nil { subscribers.removeAll { $0 === connection } }
  }

  /// Forgets every subscriber (shutdown).
  func removeAll() {
    subscribers.removeAll()
  }
}
