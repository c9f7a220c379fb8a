/// The typed body of one op's request: the op's one declaration. Its wire name, its fields,
/// how they are read off the wire (with the protocol's error codes) and written, who may send
/// it, and — as a `Query` or a `Mutation` — its entry into the register.
///
/// There is one type per op, all in `Requests`, each listed once in its file's list of ops
/// (`Requests.all`). The daemon decodes a line into one; a client (register-cli, the tests)
/// builds one and encodes it, so no one writes a request's JSON by hand.
public protocol RequestBody: Sendable, Equatable {
  /// The op's name on the wire (`paid_in`).
  static var wireName: String { get }
  /// Who may send it (`Register.authorize` enforces it).
  static var access: OpAccess { get }
  /// Writes this op's fields (not `op` and not the envelope) into a request object.
  func encode(to object: inout JSONObject)
  /// What the op does, in one line (the protocol schema's description of the request).
  static var summary: String { get }
  /// The op's fields as the wire carries them (`ProtocolSchema` writes the schema from these;
  /// tests hold the decoder to them).
  static var fields: [WireField] { get }
  /// The reply's `result` when the op succeeds.
  static var result: WireType { get }
  /// For an op whose fields depend on a kind (a tender's `type`), each kind's: which of
  /// `fields` it needs and which it may carry. Empty for every other op.
  static var variants: [WireVariant] { get }
}

extension RequestBody {
  public static var variants: [WireVariant] { [] }
  /// The op this body is sent as.
  public static var op: Op { Op(Self.self) }
}

/// A request body the daemon can read: the decoder takes the fields of a request whose op and
/// envelope have been read, and refuses bad ones with exactly the protocol's codes and messages.
/// (Internal, as are `Query` and `Mutation`: the field reader and the register's insides are
/// the engine's; clients only build and encode bodies.)
protocol DecodableRequestBody: RequestBody {
  init(from fields: inout RequestFields) throws(RegisterError)
  /// Reads a request of this op as the register takes it (given by `Query` or `Mutation`:
  /// every request type is exactly one of them).
  static func operation(from fields: inout RequestFields) throws(RegisterError) -> Operation
  /// Who may send this request, with `signedIn` signed in: the op's `access`, unless what the
  /// request names changes it.
  func access(signedIn: String?) -> OpAccess
  /// The PINs in the request that deciding it hashes (prepared off the event loop first, see
  /// `Register.pinWork`): none for most.
  var pins: [PINUse] { get }
}

extension DecodableRequestBody {
  func access(signedIn: String?) -> OpAccess { Self.access }
  var pins: [PINUse] { [] }
}

/// A PIN a request carries: one to check against an operator's, or a new one to hash.
enum PINUse {
  case check(pin: String, operatorID: String)
  case new(String)
}

/// A read: answered from the register as it stands, changing nothing.
protocol Query: DecodableRequestBody {
  /// The reply. The register is `inout` though nothing here changes it (see `Replies.hello`).
  func answer<Source: ReplySource>(
    _ replies: inout Replies, from source: Source, register: inout Register
  ) throws(RegisterError) -> ReplyResult
}

extension Query {
  static func operation(from fields: inout RequestFields) throws(RegisterError) -> Operation {
    .query(try Self(from: &fields))
  }
}

/// A change: decided into the events that carry it out (or refused), then applied, journaled
/// and made durable before its reply. It takes an idempotency key.
protocol Mutation: DecodableRequestBody {
  /// The events that carry the request out on `register`, or a refusal. Events that stand
  /// even if the request is refused (a wrong PIN counted) go to `standing`.
  func decide(on register: Register, context: CommandContext, standing: inout [Event])
    throws(RegisterError) -> [Event]
}

extension Mutation {
  static func operation(from fields: inout RequestFields) throws(RegisterError) -> Operation {
    .mutation(try Self(from: &fields))
  }
}

/// The request types, one per op, named after the op (`Requests.PaidIn` is `paid_in`).
public enum Requests {
  /// Every op, each file's in turn: adding an op is adding its type to its file's list.
  static let all: [any DecodableRequestBody.Type] =
    sessionOps + orderOps + tenderOps + receiptOps + catalogOps + peopleOps + customerOps + dayOps
}

extension RequestBody {
  /// True when `other` is a body of the same type with equal fields.
  public func isEqual(to other: any RequestBody) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}

/// What every request may carry besides its op's fields: the `id` echoed in the reply, an
/// idempotency `key`, the order version it expects (`expect_version`) and a manager's
/// approval (`approve`). Read and written here only.
public struct RequestEnvelope: Sendable, Equatable {
  /// The client's `id`, echoed in the reply (null when absent).
  public var id: JSONValue
  /// The idempotency key: a retry with the same key gets the first reply and changes nothing.
  /// Decoded, it is the key as kept (`IdempotencyKey.kept`).
  public var key: String?
  /// The order version the client based this change on.
  public var expectVersion: Int?
  /// A manager's approval sent with the request.
  public var approval: Approval?

  /// An envelope; everything is optional.
  public init(
    id: JSONValue = .null, key: String? = nil, expectVersion: Int? = nil,
    approval: Approval? = nil
  ) {
    self.id = id
    self.key = key
    self.expectVersion = expectVersion
    self.approval = approval
  }

  /// Reads the envelope's members of a request (before the op's fields, so that their
  /// errors come first).
  init(from fields: inout RequestFields) throws(RegisterError) {
    id = fields.raw("id") ?? .null
    let given = try fields.optional("key", as: String.self)
    // Counted in Unicode scalars, not characters: one character may be any number of
    // combining marks, and a key is journaled and kept in snapshots.
    if let given, given.isEmpty || given.hasMoreScalars(than: 200) {
      throw RegisterError(
        .badRequest,
        "key must be 1 to 200 characters (Unicode scalars: an accent sent as a mark of its own counts as one)"
      )
    }
    key = given.map(IdempotencyKey.kept)
    expectVersion = try fields.optional("expect_version", as: Int.self)
    if let value = fields.raw("approve") {
      guard case .object(let object) = value, case .string(let id)? = object["operator"],
        case .string(let pin)? = object["pin"], object.count == 2
      else {
        throw RegisterError(
          .badRequest, "approve must be {\"operator\": \"ID\", \"pin\": \"PIN\"} of a manager")
      }
      approval = Approval(operatorID: id, pin: pin)
    }
  }

  /// The request object for `body` in this envelope: `id` (unless null), `op`, the op's
  /// fields, then `key`, `expect_version` and `approve` when set.
  public func object(for body: any RequestBody) -> JSONObject {
    var object = JSONObject()
    if id != .null { object["id"] = id }
    object["op"] = .string(Swift.type(of: body).wireName)
    body.encode(to: &object)
    if let key { object["key"] = .string(key) }
    if let expectVersion { object["expect_version"] = .int(expectVersion) }
    if let approval {
      object["approve"] = .object([
        "operator": .string(approval.operatorID), "pin": .string(approval.pin),
      ])
    }
    return object
  }

  /// The request line (without its newline) for `body` in this envelope.
  public func line(for body: any RequestBody) -> String {
    JSONValue.object(object(for: body)).serialized
  }
}

/// Amounts and percentages as a client types them, before it knows the store's currency.
public enum TypedAmount {
  /// The currency of an amount read without the store's: ISO 4217's "no currency".
  static func unknownCurrency(minorDigits: Int) -> Currency {
    Currency(uncheckedCode: "XXX", minorDigits: minorDigits)
  }

  /// An amount from its decimal text, with the text's own number of decimals as its minor
  /// digits ("20.10" is 2010 hundredths, "20" is 20 units): it encodes back to the same
  /// decimal string, which registerd reads against the store's currency (and refuses there
  /// if it has too many decimals). Text that is no amount at all is refused with the error
  /// registerd would give for the member `path` (`invalid_amount`).
  public static func money(_ text: String, path: String) throws(RegisterError) -> Money {
    let digits = text.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first?
      .count
    do {
      return try Money.parse(text, currency: unknownCurrency(minorDigits: digits ?? 0))
    } catch {
      throw RegisterError(.invalidAmount, "\(path): \(error.description)")
    }
  }

  /// A percentage from its decimal text, refused as registerd would refuse the member `path`.
  public static func percent(_ text: String, path: String) throws(RegisterError) -> Percent {
    do {
      return try Percent(json: .string(text), path: path)
    } catch {
      throw RegisterError(.invalidAmount, error.describedMessage)
    }
  }
}
