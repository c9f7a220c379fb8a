/// The version this build reports in `hello`.
public let registerdVersion = "0.1.0"

/// One request line as it arrived, tagged with the connection it came from.
public struct IncomingLine: Sendable {
  public var connection: Int
  /// The line without its newline, or `nil` when the line was too long and has been dropped.
  public var bytes: [UInt8]?

  public init(connection: Int, bytes: [UInt8]?) {
    self.connection = connection
    self.bytes = bytes
  }
}

/// One reply line, for the connection that asked.
public struct OutgoingReply: Sendable {
  public var connection: Int
  /// The serialized reply, without a trailing newline.
  public var line: String
}

/// What one batch produced: a reply per line, and the events that became durable (for live
/// subscribers), in journal order.
public struct BatchResult: Sendable {
  public var replies: [OutgoingReply]
  public var events: [CommittedEvent]
}

/// The register behind the protocol: decodes request lines, decides, applies, journals and
/// replies.
///
/// It handles requests in batches. Every request of a batch is handled in arrival order
/// against the state the previous ones left, and no reply leaves before the batch's events are
/// durable: one journal write and one fsync for the whole batch (group commit). If storage
/// fails, the batch is rolled back, every mutation in it is refused with `storage_failed`, and
/// the register takes no more mutations until restarted (reads still work).
public final class RegisterService {
  public private(set) var register: Register
  private let clock: any RegisterClock
  private let journal: Journal?
  /// Why the register stopped taking mutations, when storage has failed.
  public private(set) var storageFailure: String?
  /// Called with a message when storage fails (the daemon logs it).
  public var onStorageFailure: (String) -> Void = { _ in }

  /// A service over `register`; with a `journal`, every change is made durable before its
  /// reply is released.
  public init(register: Register, clock: any RegisterClock, journal: Journal? = nil) {
    self.register = register
    self.clock = clock
    self.journal = journal
  }

  /// Handles one batch of lines and returns one reply for each, in the same order, plus the
  /// events that were committed.
  public func process(_ batch: [IncomingLine]) -> BatchResult {
    let snapshot = register
    var pending: [PendingRecord] = []
    var replies = batch.map { reply(to: $0, pending: &pending) }
    if !pending.isEmpty, let journal {
      do {
        try journal.append(pending)
      } catch {
        // Nothing of this batch is durable: forget it, stop taking mutations, and answer every
        // request again against the state before the batch (mutations are now refused).
        register = snapshot
        storageFailure = error.description
        onStorageFailure(error.description)
        pending = []
        var none: [PendingRecord] = []
        replies = batch.map { reply(to: $0, pending: &none) }
      }
    }
    let outgoing = zip(batch, replies).map {
      OutgoingReply(connection: $0.connection, line: $1.serialized)
    }
    let events = pending.map {
      CommittedEvent(sequence: $0.sequence, at: $0.at, event: $0.event, operatorID: $0.operatorID)
    }
    return BatchResult(replies: outgoing, events: events)
  }

  /// Handles one batch of lines and returns one reply for each.
  public func handle(_ batch: [IncomingLine]) -> [OutgoingReply] {
    process(batch).replies
  }

  /// Handles a single line (a batch of one).
  public func handle(line: String, connection: Int = 0) -> String {
    handle([IncomingLine(connection: connection, bytes: Array(line.utf8))])[0].line
  }

  /// Journals and applies events that do not come from a client (start-up catalog changes).
  public func commit(_ events: [Event]) throws(SystemError) {
    guard !events.isEmpty else { return }
    let snapshot = register
    var pending: [PendingRecord] = []
    record(events, at: clock.now(), key: nil, into: &pending)
    do {
      try journal?.append(pending)
    } catch {
      register = snapshot
      throw error
    }
  }

  private func reply(to incoming: IncomingLine, pending: inout [PendingRecord]) -> JSONValue {
    guard let bytes = incoming.bytes else {
      return Self.failure(
        id: .null,
        RegisterError(
          .lineTooLong,
          "the line is longer than \(LineFramer.maximumLineLength) bytes and was discarded; send one request per line"
        ))
    }
    let request: Request
    do {
      request = try RequestDecoder.decode(bytes, currency: register.store.currency)
    } catch {
      return Self.failure(id: error.id, error.error)
    }
    do {
      return Self.success(id: request.id, try execute(request, pending: &pending))
    } catch {
      return Self.failure(id: request.id, error)
    }
  }

  private func execute(
    _ request: Request, pending: inout [PendingRecord]
  ) throws(RegisterError) -> JSONValue {
    guard request.command.isMutation else { return try query(request.command) }
    if let storageFailure {
      throw RegisterError(
        .storageFailed,
        "the register cannot store changes (\(storageFailure)); nothing was changed. Fix the storage and restart registerd"
      )
    }
    let now = clock.now()
    let events = try register.decide(request.command, context: CommandContext(now: now))
    record(events, at: now, key: nil, into: &pending)
    return result(of: request.command, events: events)
  }

  /// Applies events and queues their journal records (one request's records are linked with
  /// `more`, so recovery applies all of them or none).
  private func record(
    _ events: [Event], at time: Timestamp, key: KeyRecord?, into pending: inout [PendingRecord]
  ) {
    for (index, event) in events.enumerated() {
      let sequence = register.lastSequence + 1
      register.apply(event, at: time, sequence: sequence)
      let last = index == events.count - 1
      pending.append(
        PendingRecord(
          sequence: sequence, at: time, event: event, operatorID: nil, key: last ? key : nil,
          more: !last))
    }
  }

  /// The reply to a read-only command.
  private func query(_ command: Command) throws(RegisterError) -> JSONValue {
    switch command {
    case .hello:
      return .object([
        "protocol": 1, "server": "registerd", "version": .string(registerdVersion),
        "store": .string(register.store.name), "currency": .string(register.store.currency.code),
        "day": .int(register.day.number), "journal_seq": .int(register.lastSequence),
        "read_only": storageFailure == nil ? .bool(false) : .bool(true),
        "journal": journal.map {
          .object([
            "records": .int($0.recordsWritten), "fsyncs": .int($0.batchesWritten),
            "last_seq": .int($0.lastSequence),
          ])
        },
        "ops": .array(RequestDecoder.opNames.map(JSONValue.string)),
      ])
    case .catalog:
      return register.catalogJSON
    case .showOrder:
      return register.orderJSON
    case .receipt(let number):
      guard let wanted = number ?? register.lastReceiptNumber else {
        throw RegisterError(.receiptNotFound, "no sale has been completed yet")
      }
      guard let sale = register.receipts[wanted] else {
        throw RegisterError(.receiptNotFound, "there is no receipt \(wanted)")
      }
      return sale.receiptReply(reprint: true)
    case .report(.x, _):
      return ReportRenderer.reply(DayReport(openDayOf: register, at: clock.now()))
    case .report(.z, let day):
      guard let number = day ?? register.closedDays.keys.max() else {
        throw RegisterError(.dayNotFound, "no day has been closed yet")
      }
      guard let closed = register.closedDays[number] else {
        throw RegisterError(
          .dayNotFound, "day \(number) has not been closed (the open day is \(register.day.number))"
        )
      }
      return ReportRenderer.reply(DayReport(closed: closed))
    default:
      return register.orderJSON
    }
  }

  /// The reply to a mutation, from the state after its events.
  private func result(of command: Command, events: [Event]) -> JSONValue {
    for event in events {
      switch event {
      case .saleCompleted(_, let number, _, _):
        guard let sale = register.receipts[number], case .object(var object) = sale.orderJSON else {
          continue
        }
        object["receipt"] = sale.receiptReply(reprint: false)
        return .object(object)
      case .dayClosed(let number, _):
        guard let closed = register.closedDays[number] else { continue }
        return ReportRenderer.reply(DayReport(closed: closed))
      default:
        continue
      }
    }
    return register.orderJSON
  }

  static func success(id: JSONValue, _ result: JSONValue) -> JSONValue {
    .object(["id": id, "ok": true, "result": result])
  }

  static func failure(id: JSONValue, _ error: RegisterError) -> JSONValue {
    .object(["id": id, "ok": false, "error": error.json])
  }
}
