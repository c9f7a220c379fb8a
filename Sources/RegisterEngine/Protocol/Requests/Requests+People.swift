// Operators (who works the lane, signing in) and customers.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let peopleOps: [any DecodableRequestBody.Type] = [
    OperatorAdd.self, OperatorList.self, OperatorRemove.self,
    OperatorSetPIN.self, OperatorUnlock.self, SignIn.self,
    SignOut.self, CustomerAdd.self, CustomerFind.self,
    AttachCustomer.self, DetachCustomer.self, CustomerHistory.self,
    Wishlist.self, WishlistAdd.self, WishlistRemove.self,
    WishlistToOrder.self, Setup.self,
  ]

  /// The operator an operator_* op is about: `operator_id`, or `id` (which is then also the
  /// request id the reply echoes).
  static func operatorID(_ fields: inout RequestFields) throws(RegisterError) -> String {
    let id: String
    if let given = try fields.optional("operator_id", as: String.self) {
      id = given
    } else if case .string(let given)? = fields.raw("id") {
      id = given
    } else {
      throw RegisterError(
        .badRequest, "the operator's id is required: \"operator_id\" (or \"id\") as a string")
    }
    return id
  }

  /// A PIN: a string (its digits are checked by `decide`; never echoed in errors).
  static func pin(_ fields: inout RequestFields) throws(RegisterError) -> String {
    guard case .string(let pin)? = fields.raw("pin") else {
      throw RegisterError(.badRequest, "pin is required, as a string of 4 to 12 digits")
    }
    return pin
  }

  /// `operator_add`: a new cashier or manager with a PIN.
  public struct OperatorAdd: RequestBody, Mutation {
    public static let wireName = "operator_add"
    public static let access: OpAccess = .manager(work: "managing operators")
    public var operatorID: String
    public var name: String
    public var role: OperatorRole
    public var pin: String

    public init(operatorID: String, name: String, role: OperatorRole, pin: String) {
      self.operatorID = operatorID
      self.name = name
      self.role = role
      self.pin = pin
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      operatorID = try Requests.operatorID(&fields)
      name = try fields.text("name", required: true, maxLength: 80) ?? ""
      let roleName = try fields.required("role", as: String.self)
      guard let role = OperatorRole(rawValue: roleName) else {
        throw RegisterError(.badRequest, "role must be \"cashier\" or \"manager\"")
      }
      self.role = role
      pin = try Requests.pin(&fields)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideOperatorAdd(
        id: operatorID, name: name, role: role, pin: pin, context: context)
    }

    var pins: [PINUse] { [.new(pin)] }

    public func encode(to object: inout JSONObject) {
      object["operator_id"] = .string(operatorID)
      object["name"] = .string(name)
      object["role"] = .string(role.rawValue)
      object["pin"] = .string(pin)
    }
  }

  /// `operator_list`: the operators and who is signed in.
  public struct OperatorList: RequestBody, Query {
    public static let wireName = "operator_list"
    public static let access: OpAccess = .open
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(register.operatorsJSON(at: replies.clock.now()))
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `operator_remove`: an operator leaves.
  public struct OperatorRemove: RequestBody, Mutation {
    public static let wireName = "operator_remove"
    public static let access: OpAccess = .manager(work: "managing operators")
    public var operatorID: String
    public init(operatorID: String) { self.operatorID = operatorID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      operatorID = try Requests.operatorID(&fields)
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideOperatorRemove(id: operatorID)
    }
    public func encode(to object: inout JSONObject) {
      object["operator_id"] = .string(operatorID)
    }
  }

  /// `operator_set_pin`: a new PIN for an operator.
  public struct OperatorSetPIN: RequestBody, Mutation {
    public static let wireName = "operator_set_pin"
    public static let access: OpAccess = .cashier
    public var operatorID: String
    public var pin: String

    public init(operatorID: String, pin: String) {
      self.operatorID = operatorID
      self.pin = pin
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      operatorID = try Requests.operatorID(&fields)
      pin = try Requests.pin(&fields)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideOperatorSetPIN(id: operatorID, pin: pin, context: context)
    }

    var pins: [PINUse] { [.new(pin)] }

    /// A cashier's op for their own PIN; setting another operator's needs a manager.
    func access(signedIn: String?) -> OpAccess {
      operatorID == signedIn ? .cashier : .manager(work: "setting another operator's PIN")
    }

    public func encode(to object: inout JSONObject) {
      object["operator_id"] = .string(operatorID)
      object["pin"] = .string(pin)
    }
  }

  /// `operator_unlock`: lift a wrong-PIN lock.
  public struct OperatorUnlock: RequestBody, Mutation {
    public static let wireName = "operator_unlock"
    public static let access: OpAccess = .manager(work: "managing operators")
    public var operatorID: String
    public init(operatorID: String) { self.operatorID = operatorID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      operatorID = try Requests.operatorID(&fields)
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideOperatorUnlock(id: operatorID)
    }
    public func encode(to object: inout JSONObject) {
      object["operator_id"] = .string(operatorID)
    }
  }

  /// `sign_in`: an operator starts working the lane.
  public struct SignIn: RequestBody, Mutation {
    public static let wireName = "sign_in"
    public static let access: OpAccess = .open
    public var operatorID: String
    public var pin: String

    public init(operatorID: String, pin: String) {
      self.operatorID = operatorID
      self.pin = pin
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      operatorID = try fields.required("operator")
      pin = try Requests.pin(&fields)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideSignIn(id: operatorID, pin: pin, context: context, standing: &standing)
    }

    var pins: [PINUse] { [.check(pin: pin, operatorID: operatorID)] }

    public func encode(to object: inout JSONObject) {
      object["operator"] = .string(operatorID)
      object["pin"] = .string(pin)
    }
  }

  /// `sign_out`: the operator signed in leaves the lane.
  public struct SignOut: RequestBody, Mutation {
    public static let wireName = "sign_out"
    public static let access: OpAccess = .cashier
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideSignOut()
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `customer_add`: a new customer.
  public struct CustomerAdd: RequestBody, Mutation {
    public static let wireName = "customer_add"
    public static let access: OpAccess = .cashier
    public var name: String
    public var email: String?
    public var phone: String?
    /// A tax-exemption certificate number.
    public var taxExempt: String?

    public init(
      name: String, email: String? = nil, phone: String? = nil, taxExempt: String? = nil
    ) {
      self.name = name
      self.email = email
      self.phone = phone
      self.taxExempt = taxExempt
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      name = try fields.text("name", required: true, maxLength: 80) ?? ""
      email = try fields.optional("email", as: String.self)
      phone = try fields.optional("phone", as: String.self)
      // A certificate number is an identifier: kept as it is, whatever its digits look like
      // (a masked number would no longer be the certificate's).
      taxExempt = try fields.identifier("tax_exempt", required: false, maxLength: 40)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideCustomerAdd(name: name, email: email, phone: phone, taxExempt: taxExempt)
    }

    public func encode(to object: inout JSONObject) {
      object["name"] = .string(name)
      if let email { object["email"] = .string(email) }
      if let taxExempt { object["tax_exempt"] = .string(taxExempt) }
      if let phone { object["phone"] = .string(phone) }
    }
  }

  /// `customer_find`: customers by name, e-mail or phone, at most `limit` of them (1–1000,
  /// default 100).
  public struct CustomerFind: RequestBody, Query {
    public static let wireName = "customer_find"
    public static let access: OpAccess = .open
    public var query: String
    public var limit: Int?
    public init(query: String, limit: Int? = nil) {
      self.query = query
      self.limit = limit
    }
    init(from fields: inout RequestFields) throws(RegisterError) {
      query = try fields.text("query", required: true, maxLength: 200) ?? ""
      // Out of its range (`IntegerRanges`) it is `bad_request`.
      limit = try fields.optional("limit", as: Int.self)
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      // `matches` (how many there are in all) only when some were left out, so a reply that
      // holds every match reads as it always has.
      let found = register.findCustomers(query, limit: limit ?? CustomerBook.defaultFindLimit)
      var reply = JSONObject()
      reply["customers"] = .array(found.customers.map { register.customerJSON($0) })
      if found.matches > found.customers.count { reply["matches"] = .int(found.matches) }
      return .value(.object(reply))
    }
    public func encode(to object: inout JSONObject) {
      object["query"] = .string(query)
      if let limit { object["limit"] = .int(Int64(limit)) }
    }
  }

  /// `attach_customer`: the customer the current order is for.
  public struct AttachCustomer: RequestBody, Mutation {
    public static let wireName = "attach_customer"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public init(customerID: String) { self.customerID = customerID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      customerID = try fields.required("customer_id")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideAttachCustomer(id: customerID)
    }
    public func encode(to object: inout JSONObject) {
      object["customer_id"] = .string(customerID)
    }
  }

  /// `detach_customer`: the customer taken off the open order.
  public struct DetachCustomer: RequestBody, Mutation {
    public static let wireName = "detach_customer"
    public static let access: OpAccess = .cashier
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideDetachCustomer()
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `customer_history`: a customer's receipts and totals.
  public struct CustomerHistory: RequestBody, Query {
    public static let wireName = "customer_history"
    public static let access: OpAccess = .open
    public var customerID: String
    public init(customerID: String) { self.customerID = customerID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      customerID = try fields.required("customer_id")
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      // Every receipt of the customer, read from the archive files: as `catalog_export`.
      let state = register
      let id = customerID
      return .computed { Result { () throws(RegisterError) in try state.customerHistory(id) } }
    }
    public func encode(to object: inout JSONObject) {
      object["customer_id"] = .string(customerID)
    }
  }

  /// `wishlist`: a customer's wishlist, with availability.
  public struct Wishlist: RequestBody, Query {
    public static let wireName = "wishlist"
    public static let access: OpAccess = .open
    public var customerID: String
    public init(customerID: String) { self.customerID = customerID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      customerID = try fields.required("customer_id")
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(try register.wishlistJSON(customerID))
    }
    public func encode(to object: inout JSONObject) {
      object["customer_id"] = .string(customerID)
    }
  }

  /// `wishlist_add`: a product onto a customer's wishlist (in stock or not).
  public struct WishlistAdd: WishlistEntryRequest, Mutation {
    public static let wireName = "wishlist_add"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public var sku: String

    public init(customerID: String, sku: String) {
      self.customerID = customerID
      self.sku = sku
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideWishlistAdd(customerID: customerID, sku: sku)
    }
  }

  /// `wishlist_remove`: a product off a customer's wishlist.
  public struct WishlistRemove: WishlistEntryRequest, Mutation {
    public static let wireName = "wishlist_remove"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public var sku: String

    public init(customerID: String, sku: String) {
      self.customerID = customerID
      self.sku = sku
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideWishlistRemove(customerID: customerID, sku: sku)
    }
  }

  /// `wishlist_to_order`: one unit of a wishlist product onto the open order; it leaves the
  /// wishlist (and stays on it when it cannot be added).
  public struct WishlistToOrder: WishlistEntryRequest, Mutation {
    public static let wireName = "wishlist_to_order"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public var sku: String

    public init(customerID: String, sku: String) {
      self.customerID = customerID
      self.sku = sku
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideWishlistToOrder(customerID: customerID, sku: sku)
    }
  }
}

/// A request about one product on one customer's wishlist: `{customer_id, sku}`, read and
/// written the same way for each such op.
public protocol WishlistEntryRequest: RequestBody {
  var customerID: String { get }
  var sku: String { get }
  init(customerID: String, sku: String)
}

extension WishlistEntryRequest {
  init(from fields: inout RequestFields) throws(RegisterError) {
    self.init(customerID: try fields.required("customer_id"), sku: try fields.required("sku"))
  }

  public func encode(to object: inout JSONObject) {
    object["customer_id"] = .string(customerID)
    object["sku"] = .string(sku)
  }
}

extension Requests.WishlistAdd: DecodableRequestBody {}
extension Requests.WishlistRemove: DecodableRequestBody {}
extension Requests.WishlistToOrder: DecodableRequestBody {}

/// The first manager of an installed register, as `setup` names them.
public struct SetupManager: Sendable, Equatable {
  public var id: String
  public var name: String
  public var pin: String

  public init(id: String, name: String, pin: String) {
    self.id = id
    self.name = name
    self.pin = pin
  }
}

extension Requests {
  /// `setup`: the first run of an installed register — its store settings (`store`, shaped as
  /// a catalog file's `store` section) and its first manager (`manager`: `id`, `name`, `pin`).
  /// Either may be left out when the register already has it (a store file, a manager).
  public struct Setup: RequestBody, Mutation {
    public static let wireName = "setup"
    public static let access: OpAccess = .open
    public var store: JSONValue?
    public var manager: SetupManager?

    public init(store: JSONValue?, manager: SetupManager?) {
      self.store = store
      self.manager = manager
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      store = fields.raw("store")
      if case .null? = store { store = nil }
      if var person = try fields.nested("manager") {
        do throws(JSONShapeError) {
          let id = try person.required("id", as: String.self)
          let name = try person.text("name", required: true, maxLength: 80) ?? ""
          guard case .string(let pin)? = person.raw("pin") else {
            throw JSONShapeError(
              path: person.pathOf("pin"), message: "is required, as a string of 4 to 12 digits")
          }
          try person.rejectUnknown()
          manager = SetupManager(id: id, name: name, pin: pin)
        } catch {
          throw RequestFields.shape(error)
        }
      }
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideSetup(store: store, manager: manager, context: context)
    }

    var pins: [PINUse] { manager.map { [.new($0.pin)] } ?? [] }

    public func encode(to object: inout JSONObject) {
      if let store { object["store"] = store }
      if let manager {
        object["manager"] = .object([
          "id": .string(manager.id), "name": .string(manager.name), "pin": .string(manager.pin),
        ])
      }
    }
  }
}

// What each op of operators and customers says on the wire.

extension Requests {
  /// The operator an operator_* op is about (or `id`, the request's own id).
  static let operatorIDField = WireField.optional(
    "operator_id", .text, "the operator (without it, the request's `id` names them)")
  static let pinField = WireField.required(
    "pin", .string(maxLength: 12, pattern: "^[0-9]{4,12}$"), "4 to 12 digits; never echoed")
  static let operatorResult = WireType.object(
    [.required("operator", .ref("operator"), "the operator as they are now")])
}

extension Requests.OperatorAdd {
  public static let summary = "Adds a cashier or a manager with a PIN."
  public static let fields: [WireField] = [
    Requests.operatorIDField, .required("name", .string(maxLength: 80), "their name"),
    .required("role", .oneOfStrings(["cashier", "manager"]), "what they may do"),
    Requests.pinField,
  ]
  public static let result = Requests.operatorResult
}

extension Requests.OperatorList {
  public static let summary = "The operators, and who is signed in."
  public static let fields: [WireField] = []
  public static let result = WireType.ref("operator_list")
}

extension Requests.OperatorRemove {
  public static let summary = "Removes an operator."
  public static let fields: [WireField] = [Requests.operatorIDField]
  public static let result = WireType.object([.required("removed", .text, "the operator removed")])
}

extension Requests.OperatorSetPIN {
  public static let summary = "Sets an operator's PIN (one's own, or anyone's as a manager)."
  public static let fields: [WireField] = [Requests.operatorIDField, Requests.pinField]
  public static let result = Requests.operatorResult
}

extension Requests.OperatorUnlock {
  public static let summary = "Lifts a wrong-PIN lock."
  public static let fields: [WireField] = [Requests.operatorIDField]
  public static let result = Requests.operatorResult
}

extension Requests.SignIn {
  public static let summary = "An operator starts working the lane."
  public static let fields: [WireField] = [
    .required("operator", .text, "the operator's id"), Requests.pinField,
  ]
  public static let result = WireType.object([
    .required("signed_in", .text, "the operator's id"),
    .optional("name", .text, "their name"),
    .optional("role", .oneOfStrings(["cashier", "manager"]), "their role"),
  ])
}

extension Requests.SignOut {
  public static let summary = "The operator signed in stops working the lane."
  public static let fields: [WireField] = []
  public static let result = WireType.object(
    [.required("signed_out", .text, "the operator who signed out")])
}

extension Requests.CustomerAdd {
  public static let summary = "Adds a customer."
  public static let fields: [WireField] = [
    .required("name", .string(maxLength: 80), "their name"),
    .optional("email", .text, "their e-mail address"),
    .optional("phone", .text, "their phone number"),
    .optional("tax_exempt", .string(maxLength: 40), "a tax-exemption certificate's number"),
  ]
  public static let result = WireType.ref("customer")
}

extension Requests.CustomerFind {
  public static let summary = "Customers whose name, e-mail or phone matches the query."
  public static let fields: [WireField] = [
    .required("query", .string(maxLength: 200), "part of a name, an e-mail or a phone number"),
    .optional("limit", .integer(), "at most this many"),
  ]
  public static let result = WireType.object(
    [
      .required("customers", .array(.ref("customer")), "the matches"),
      .optional("total", .integer(), "how many matched in all"),
    ], open: true)
}

extension Requests.AttachCustomer {
  public static let summary = "Attaches a customer to the open order."
  public static let fields: [WireField] = [.required("customer_id", .text, "the customer")]
  public static let result = WireType.ref("order")
}

extension Requests.DetachCustomer {
  public static let summary = "Takes the customer off the open order."
  public static let fields: [WireField] = []
  public static let result = WireType.ref("order")
}

extension Requests.CustomerHistory {
  public static let summary = "A customer's receipts, what they spent and what was refunded."
  public static let fields: [WireField] = [.required("customer_id", .text, "the customer")]
  public static let result = WireType.ref("customer_history")
}

extension Requests.Wishlist {
  public static let summary = "A customer's wishlist, with what is available."
  public static let fields: [WireField] = [.required("customer_id", .text, "the customer")]
  public static let result = WireType.object(
    [.required("wishlist", .ref("wishlist"), "the wishlist")])
}

extension Requests {
  static let wishlistEntryFields: [WireField] = [
    .required("customer_id", .text, "the customer"), .required("sku", .text, "the product"),
  ]
}

extension Requests.WishlistAdd {
  public static let summary = "Puts a product on a customer's wishlist."
  public static let fields = Requests.wishlistEntryFields
  public static let result = WireType.object(
    [.required("wishlist", .ref("wishlist"), "the wishlist")])
}

extension Requests.WishlistRemove {
  public static let summary = "Takes a product off a customer's wishlist."
  public static let fields = Requests.wishlistEntryFields
  public static let result = WireType.object(
    [.required("wishlist", .ref("wishlist"), "the wishlist")])
}

extension Requests.WishlistToOrder {
  public static let summary = "Rings up one unit of a wishlist's product and takes it off the list."
  public static let fields = Requests.wishlistEntryFields
  public static let result = WireType.ref("order")
}

extension Requests.Setup {
  public static let summary =
    "The first run of an installed register: its store settings and its first manager."
  public static let fields: [WireField] = [
    .optional("store", .ref("store_settings"), "a catalog file's store section"),
    .optional(
      "manager",
      .object([
        .required("id", .text, "the manager's operator id"),
        .required("name", .string(maxLength: 80), "their name"),
        Requests.pinField,
      ]), "the first manager"),
  ]
  public static let result = WireType.object([
    .required("set_up", .boolean, "whether the register is set up now"),
    .required("store", .text, "the store's name"),
    .required("currency", .text, "the store's currency"),
    .optional("operator", .ref("operator"), "the manager added"),
    .optional("setup_needed", .array(.text), "what is still missing"),
  ])
}
