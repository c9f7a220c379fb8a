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

/// The register behind the protocol: decodes request lines, decides, applies, and replies.
///
/// It handles requests in batches. Every request of a batch is handled in arrival order
/// against the state the previous ones left, and no reply leaves before the batch's events are
/// durable (one journal write and one fsync for the whole batch: group commit). If storage
/// fails, the batch is rolled back, every mutation in it is refused with `storage_failed`, and
/// the register takes no more mutations until restarted.
public final class RegisterService {
  public private(set) var register: Register
  private let clock: any RegisterClock
  /// Why the register stopped taking mutations, when storage has failed.
  public private(set) var storageFailure: String?

  public init(register: Register, clock: any RegisterClock) {
    self.register = register
    self.clock = clock
  }

  /// Handles one batch of lines and returns one reply for each, in the same order.
  public func handle(_ batch: [IncomingLine]) -> [OutgoingReply] {
    batch.map { incoming in
      OutgoingReply(connection: incoming.connection, line: reply(to: incoming).serialized)
    }
  }

  /// Handles a single line (a batch of one).
  public func handle(line: String, connection: Int = 0) -> String {
    handle([IncomingLine(connection: connection, bytes: Array(line.utf8))])[0].line
  }

  private func reply(to incoming: IncomingLine) -> JSONValue {
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
      return Self.success(id: request.id, try execute(request))
    } catch {
      return Self.failure(id: request.id, error)
    }
  }

  private func execute(_ request: Request) throws(RegisterError) -> JSONValue {
    guard request.command.isMutation else { return try query(request.command) }
    if let storageFailure {
      throw RegisterError(
        .storageFailed,
        "the register cannot store changes (\(storageFailure)); restart registerd after fixing storage"
      )
    }
    let now = clock.now()
    let events = try register.decide(request.command, context: CommandContext(now: now))
    for event in events {
      register.apply(event, at: now)
    }
    return result(of: request.command, events: events)
  }

  /// The reply to a read-only command.
  private func query(_ command: Command) throws(RegisterError) -> JSONValue {
    switch command {
    case .hello:
      return .object([
        "protocol": 1, "server": "registerd", "version": .string(registerdVersion),
        "store": .string(register.store.name), "currency": .string(register.store.currency.code),
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
    default:
      return register.orderJSON
    }
  }

  /// The reply to a mutation, from the state after its events.
  private func result(of command: Command, events: [Event]) -> JSONValue {
    for event in events {
      if case .saleCompleted(_, let number, _, _) = event, let sale = register.receipts[number] {
        guard case .object(var object) = sale.orderJSON else { break }
        object["receipt"] = sale.receiptReply(reprint: false)
        return .object(object)
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
