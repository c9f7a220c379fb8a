import RegisterEngine

/// The connections that subscribed to live events: each durable event delivered to them once,
/// in order; a subscription with `after` caught up from the journal first; a subscriber that
/// falls too far behind cut off.
///
/// A catch-up is read from the journal's segments on a thread of its own (`reader`), not on
/// the event loop: a subscriber asking for 100,000 records held every other client's requests
/// for over a second. Until its catch-up is there, what the connection is due — live events,
/// replies to requests it sent after `subscribe` — waits behind it, in order, and the server
/// hands the service no more of its lines (`isCatchingUp`).
final class Subscriptions {
  /// A subscriber whose unread events pass this many bytes is cut off (with a last error line)
  /// rather than growing the daemon's memory (`--max-subscriber-backlog`, default 1 MiB).
  var limit = 1 << 20
  /// The data directory, whose journal a subscriber with `after` catches up from.
  var dataDirectory: String?
  /// The connections that subscribed, in the order they did.
  private var subscribers: [Connection] = []
  private let service: RegisterService
  /// Reads catch-ups (nil when its wake pipe could not be made: they are read on the loop).
  private let reader = BackgroundTask<CaughtUp>(label: "registerd.catch-up")
  /// The loop polls this (nil: no reader).
  var notifyFD: Int32? { reader?.notifyFD }
  /// Connections whose catch-up is being read, by id, with what waits behind it.
  private var catchingUp: [Int: CatchingUp] = [:]

  /// What waits behind a catch-up, in the order it came.
  private enum Held {
    case event(JournalRecordLine)
    case reply(ReplyPieces)
    /// A refusal sent in a reply's place (`history_archived`).
    case line(String)
    /// A `subscribe` answered after the one being caught up (its reply is held before it).
    case subscribe(Subscription)
  }

  private struct CatchingUp {
    var connection: Connection
    var held: [Held] = []
    /// The bytes of the events held.
    var heldBytes = 0
  }

  /// A catch-up read: the lines of the events the subscription wants, after its cursor and
  /// through `through`, at most about `limit` bytes of them (more, and the subscriber is cut
  /// off when they are queued, as it would be had they been sent live).
  struct CaughtUp: Sendable {
    var connection: Int
    var lines: [String]
    var through: Int64
  }

  init(service: RegisterService) {
    self.service = service
  }

  /// True while `connection`'s catch-up is being read.
  func isCatchingUp(_ connection: Connection) -> Bool {
    !catchingUp.isEmpty && catchingUp[connection.id] != nil
  }

  /// A reply to a connection catching up waits behind the catch-up: true when it was held.
  func holdReply(_ reply: OutgoingReply, for connection: Connection) -> Bool {
    guard !catchingUp.isEmpty, catchingUp[connection.id] != nil else { return false }
    if let subscription = reply.subscription {
      if let refusal = archivedHistoryRefusal(subscription) {
        catchingUp[connection.id]?.held.append(.line(refusal))
      } else {
        catchingUp[connection.id]?.held.append(.reply(reply.pieces))
        catchingUp[connection.id]?.held.append(.subscribe(subscription))
      }
    } else {
      catchingUp[connection.id]?.held.append(.reply(reply.pieces))
    }
    return true
  }

  /// An event as a subscriber receives it.
  private struct JournalRecordLine: Sendable {
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
      if !catchingUp.isEmpty, var waiting = catchingUp[connection.id] {
        for line in lines {
          waiting.held.append(.event(line))
          waiting.heldBytes += line.line.utf8.count
        }
        catchingUp[connection.id] = waiting
        if waiting.heldBytes > limit {
          catchingUp[connection.id] = nil
          touch(connection)
          cutOff(connection)
        }
        continue
      }
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
  /// after it, so a reconnecting display catches up without a gap (read off the loop; see the
  /// type's comment).
  func subscribe(_ connection: Connection, _ subscription: Subscription) {
    if connection.subscription == nil { subscribers.append(connection) }
    connection.subscription = subscription
    Log.debug(
      "connection \(connection.id) subscribed to live events after seq \(subscription.cursor)")
    let durable = service.durableSequence
    if subscription.cursor < durable, let dataDirectory {
      if let reader {
        catchingUp[connection.id] = CatchingUp(connection: connection)
        let (id, limit) = (connection.id, limit)
        reader.start {
          CaughtUp(
            connection: id,
            lines: Self.read(dataDirectory, for: subscription, through: durable, limit: limit),
            through: durable)
        }
        return
      }
      for line in Self.read(dataDirectory, for: subscription, through: durable, limit: limit) {
        connection.enqueue(line: line)
      }
    }
    if var current = connection.subscription, current.cursor < durable {
      current.cursor = durable
      connection.subscription = current
    }
    checkBacklog(connection)
  }

  /// The lines of the durable events `subscription` wants after its cursor, through `through`,
  /// read from the journal: only the segments from the one holding the cursor on, and no more
  /// than `limit` bytes and one line (a subscriber with more to catch up is cut off).
  private static func read(
    _ dataDirectory: String, for subscription: Subscription, through: Int64, limit: Int
  ) -> [String] {
    guard let segments = try? JournalFiles.segments(in: dataDirectory) else { return [] }
    var lines: [String] = []
    var bytes = 0
    _ = try? JournalFiles.read(segments, after: subscription.cursor, sum: nil) {
      _, records throws(RecoveryError) in
      for record in records where record.sequence <= through {
        guard subscription.wants(record.type) else { continue }
        let line = JournalRecordLine(record).line
        lines.append(line)
        bytes += line.utf8.count + 1
        if bytes > limit { throw RecoveryError("the subscriber's backlog is full") }
      }
      if let last = records.last, last.sequence >= through {
        throw RecoveryError("caught up")
      }
    }
    return lines
  }

  /// Takes the catch-ups read since the last call (call when `notifyFD` is readable): each
  /// is queued for its connection, then what waited behind it, in order.
  func collectCatchUps(touching touch: (Connection) -> Void) {
    guard let reader else { return }
    for done in reader.takeCompletions() {
      guard let waiting = catchingUp.removeValue(forKey: done.connection) else { continue }
      let connection = waiting.connection
      guard !connection.isClosed, !connection.broken else { continue }
      touch(connection)
      for line in done.lines { connection.enqueue(line: line) }
      if var current = connection.subscription, current.cursor < done.through {
        current.cursor = done.through
        connection.subscription = current
      }
      release(waiting.held[...], to: connection)
      checkBacklog(connection)
    }
  }

  /// Queues what waited behind a catch-up; a `subscribe` among it that starts a catch-up of
  /// its own holds the rest again.
  private func release(_ held: ArraySlice<Held>, to connection: Connection) {
    for (index, item) in zip(held.indices, held) {
      switch item {
      case .event(let event):
        deliver(event, to: connection)
      case .reply(let pieces):
        connection.enqueue(reply: pieces)
      case .line(let line):
        connection.enqueue(line: line)
      case .subscribe(let subscription):
        subscribe(connection, subscription)
        if catchingUp[connection.id] != nil {
          catchingUp[connection.id]?.held.append(contentsOf: held[(index + 1)...])
          return
        }
      }
    }
  }

  /// The refusal of a `subscribe` whose `after` lies before the journal's first segment (the
  /// records after it were archived): catching up from there would skip them silently. The
  /// reply keeps the request's id.
  func archivedHistoryRefusal(_ subscription: Subscription) -> String? {
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
    cutOff(connection)
  }

  private func cutOff(_ connection: Connection) {
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
    if !catchingUp.isEmpty { catchingUp[connection.id] = nil }
  }

  /// Forgets every subscriber (shutdown).
  func removeAll() {
    subscribers.removeAll()
    catchingUp.removeAll()
  }
}
