// Operators: who works the lane, signing in, and the first manager (customers are in
// Requests+Customers.swift).

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let peopleOps: [any DecodableRequestBody.Type] = [
    OperatorAdd.self, OperatorList.self, OperatorRemove.self,
    OperatorSetPIN.self, OperatorUnlock.self, SignIn.self,
    SignOut.self, Setup.self,
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

}

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

// What each op of operators says on the wire.

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
