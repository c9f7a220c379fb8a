/// The typed body of one op's request: its fields, how they are read off the wire (with the
/// protocol's error codes), how they are written, and the `Command` they mean.
///
/// There is one type per `Op` (`Op.requestType`, an exhaustive switch), all in `Requests`. The
/// daemon decodes a line into one; a client (register-cli, the tests) builds one and encodes
/// it, so no one writes a request's JSON by hand.
public protocol RequestBody: Sendable, Equatable {
  /// The op this body is sent as.
  static var op: Op { get }
  /// Who may send it (`Register.authorize` enforces it).
  static var access: OpAccess { get }
  /// True when it changes state: journaled, durable before its reply, and it takes an
  /// idempotency key.
  static var changesState: Bool { get }
  /// The domain command the request asks for.
  var command: Command { get }
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
}

/// A request body the daemon can read: the decoder takes the fields of a request whose op and
/// envelope have been read, and refuses bad ones with exactly the protocol's codes and messages.
/// (Internal: the field reader is the engine's; clients only build and encode bodies.)
protocol DecodableRequestBody: RequestBody {
  init(from fields: inout RequestFields) throws(RegisterError)
}

/// The request types, one per op, named after the op (`Requests.PaidIn` is `paid_in`).
public enum Requests {}

extension Op {
  /// The request type of this op: an exhaustive switch, so an op cannot be declared without
  /// one.
  var decodableType: any DecodableRequestBody.Type {
    switch self {
    case .hello: Requests.Hello.self
    case .catalog: Requests.Catalog.self
    case .catalogExport: Requests.CatalogExport.self
    case .order: Requests.Order.self
    case .receipt: Requests.Receipt.self
    case .add: Requests.Add.self
    case .scan: Requests.Scan.self
    case .remove: Requests.Remove.self
    case .setQty: Requests.SetQty.self
    case .tender: Requests.Tender.self
    case .void: Requests.Void.self
    case .discount: Requests.Discount.self
    case .overridePrice: Requests.OverridePrice.self
    case .voidLine: Requests.VoidLine.self
    case .park: Requests.Park.self
    case .parked: Requests.Parked.self
    case .resume: Requests.Resume.self
    case .`return`: Requests.Return.self
    case .giftCardBalance: Requests.GiftCardBalance.self
    case .subscribe: Requests.Subscribe.self
    case .operatorAdd: Requests.OperatorAdd.self
    case .operatorList: Requests.OperatorList.self
    case .operatorRemove: Requests.OperatorRemove.self
    case .operatorSetPIN: Requests.OperatorSetPIN.self
    case .operatorUnlock: Requests.OperatorUnlock.self
    case .setup: Requests.Setup.self
    case .signIn: Requests.SignIn.self
    case .signOut: Requests.SignOut.self
    case .customerAdd: Requests.CustomerAdd.self
    case .customerFind: Requests.CustomerFind.self
    case .attachCustomer: Requests.AttachCustomer.self
    case .detachCustomer: Requests.DetachCustomer.self
    case .customerHistory: Requests.CustomerHistory.self
    case .product: Requests.ProductLookup.self
    case .wishlist: Requests.Wishlist.self
    case .wishlistAdd: Requests.WishlistAdd.self
    case .wishlistRemove: Requests.WishlistRemove.self
    case .wishlistToOrder: Requests.WishlistToOrder.self
    case .productAdd: Requests.ProductAdd.self
    case .productUpdate: Requests.ProductUpdate.self
    case .productRemove: Requests.ProductRemove.self
    case .stockAdjust: Requests.StockAdjust.self
    case .setFloat: Requests.SetFloat.self
    case .paidIn: Requests.PaidIn.self
    case .paidOut: Requests.PaidOut.self
    case .noSale: Requests.NoSale.self
    case .emailReceipt: Requests.EmailReceipt.self
    case .print: Requests.Print.self
    case .report: Requests.Report.self
    case .closeDay: Requests.CloseDay.self
    }
  }

  /// The request type of this op.
  public var requestType: any RequestBody.Type { decodableType }
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
    object["op"] = .string(Swift.type(of: body).op.rawValue)
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
