// The cash drawer and the business day: float, paid in and out, no sale, reports, closing.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let dayOps: [any DecodableRequestBody.Type] = [
    SetFloat.self, PaidIn.self, PaidOut.self,
    NoSale.self, Report.self, CloseDay.self,
  ]

  /// `float`: the cash in the drawer at the start of the day.
  public struct SetFloat: RequestBody, Mutation {
    public static let wireName = "float"
    public static let access: OpAccess = .cashier
    public var amount: Money
    public init(amount: Money) { self.amount = amount }
    init(from fields: inout RequestFields) throws(RegisterError) {
      guard let amount = try fields.money("amount") else {
        throw RegisterError(.badRequest, "amount is required, like \"150.00\"")
      }
      self.amount = amount
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideSetFloat(amount)
    }
    public func encode(to object: inout JSONObject) {
      object["amount"] = .string(amount.decimalString)
    }
  }

  /// `paid_in`: cash put into the drawer, with the reason.
  public struct PaidIn: RequestBody, Mutation {
    public static let wireName = "paid_in"
    public static let access: OpAccess = .cashier
    public var amount: Money
    public var reason: String

    public init(amount: Money, reason: String) {
      self.amount = amount
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      (amount, reason) = try Requests.cashMovement(&fields)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decidePaidIn(amount, reason: reason)
    }

    public func encode(to object: inout JSONObject) {
      object["amount"] = .string(amount.decimalString)
      object["reason"] = .string(reason)
    }
  }

  /// `paid_out`: cash taken out of the drawer, with the reason.
  public struct PaidOut: RequestBody, Mutation {
    public static let wireName = "paid_out"
    public static let access: OpAccess = .cashier
    public var amount: Money
    public var reason: String

    public init(amount: Money, reason: String) {
      self.amount = amount
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      (amount, reason) = try Requests.cashMovement(&fields)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decidePaidOut(amount, reason: reason)
    }

    public func encode(to object: inout JSONObject) {
      object["amount"] = .string(amount.decimalString)
      object["reason"] = .string(reason)
    }
  }

  /// The amount and reason of a paid-in or paid-out.
  private static func cashMovement(_ fields: inout RequestFields) throws(RegisterError) -> (
    Money, String
  ) {
    guard let amount = try fields.money("amount") else {
      throw RegisterError(.badRequest, "amount is required")
    }
    return (amount, try fields.text("reason", required: true) ?? "")
  }

  /// `no_sale`: the drawer opened without a sale.
  public struct NoSale: RequestBody, Mutation {
    public static let wireName = "no_sale"
    public static let access: OpAccess = .manager(work: "opening the drawer without a sale")
    public var reason: String?
    public init(reason: String? = nil) { self.reason = reason }
    init(from fields: inout RequestFields) throws(RegisterError) {
      reason = try fields.text("reason", required: false)
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      register.decideNoSale(reason: reason)
    }
    public func encode(to object: inout JSONObject) {
      if let reason { object["reason"] = .string(reason) }
    }
  }

  /// `report`: the X report of the open day, or the Z report of a closed one (the last one
  /// when `day` is nil).
  public struct Report: RequestBody, Query {
    public static let wireName = "report"
    public static let access: OpAccess = .open
    public var kind: DayReport.Kind
    public var day: Int?
    /// Also the report as ESC/POS bytes (`escpos` in the reply, base64).
    public var escpos: Bool

    public init(kind: DayReport.Kind, day: Int? = nil, escpos: Bool = false) {
      self.kind = kind
      self.day = day
      self.escpos = escpos
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      let kindName = try fields.optional("kind", as: String.self) ?? "x"
      guard let kind = DayReport.Kind(rawValue: kindName) else {
        throw RegisterError(
          .badRequest, "kind must be \"x\" (the day so far) or \"z\" (a closed day)")
      }
      self.kind = kind
      day = try fields.optional("day", as: Int.self)
      if kind == .x && day != nil {
        throw RegisterError(
          .badRequest, "an X report is always of the open day; use kind \"z\" with day")
      }
      escpos = try fields.optional("escpos", as: Bool.self) ?? false
    }

    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      switch kind {
      case .x:
        let report = DayReport(openDayOf: register, at: replies.clock.now())
        return .value(
          Replies.withBytes(
            ReportRenderer.reply(report),
            escpos
              ? ReportRenderer.escpos(report, options: EscPosOptions(store: register.store))
              : nil))
      case .z:
        guard let number = day ?? register.closedDays.keys.max() else {
          throw RegisterError(.dayNotFound, "no day has been closed yet")
        }
        guard let closed = register.closedDays[number] else {
          throw RegisterError(
            .dayNotFound,
            "day \(number) has not been closed (the open day is \(register.day.number))")
        }
        let report = DayReport(closed: closed, reprint: true)
        return .value(
          Replies.withBytes(
            ReportRenderer.reply(report),
            escpos
              ? ReportRenderer.escpos(report, options: EscPosOptions(store: register.store))
              : nil))
      }
    }

    public func encode(to object: inout JSONObject) {
      object["kind"] = .string(kind.rawValue)
      if let day { object["day"] = .int(day) }
      if escpos { object["escpos"] = .bool(true) }
    }
  }

  /// `close_day`: close the business day (Z report), with the cash counted in the drawer.
  public struct CloseDay: RequestBody, Mutation {
    public static let wireName = "close_day"
    public static let access: OpAccess = .manager(work: "closing the day")
    public var countedCash: Money?
    public init(countedCash: Money? = nil) { self.countedCash = countedCash }

    init(from fields: inout RequestFields) throws(RegisterError) {
      if let countedFields = try fields.nested("counted") {
        var cash = RequestFields(countedFields, currency: fields.currency)
        countedCash = try cash.money("cash")
        do {
          try cash.fields.rejectUnknown()
        } catch {
          throw RegisterError(
            .badRequest, "counted takes only \"cash\", like {\"cash\": \"412.35\"}")
        }
      }
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideCloseDay(countedCash: countedCash, context: context)
    }

    public func encode(to object: inout JSONObject) {
      if let countedCash {
        object["counted"] = .object(["cash": .string(countedCash.decimalString)])
      }
    }
  }
}

// What each op of the drawer and the day says on the wire.

extension Requests.SetFloat {
  public static let summary = "The cash in the drawer at the start of the day."
  public static let fields: [WireField] = [.required("amount", .money, "the opening float")]
  public static let result = WireType.ref("drawer_reply")
}

extension Requests.PaidIn {
  public static let summary = "Cash put into the drawer, with the reason."
  public static let fields: [WireField] = [
    .required("amount", .money, "how much"), .required("reason", .string(maxLength: 200), "why"),
  ]
  public static let result = WireType.ref("drawer_reply")
}

extension Requests.PaidOut {
  public static let summary = "Cash taken out of the drawer, with the reason."
  public static let fields: [WireField] = [
    .required("amount", .money, "how much"), .required("reason", .string(maxLength: 200), "why"),
  ]
  public static let result = WireType.ref("drawer_reply")
}

extension Requests.NoSale {
  public static let summary = "Opens the drawer without a sale."
  public static let fields: [WireField] = [.optional("reason", .string(maxLength: 200), "why")]
  public static let result = WireType.ref("drawer_reply")
}

extension Requests.Report {
  public static let summary = "The X report of the open day, or the Z report of a closed one."
  public static let fields: [WireField] = [
    .optional("kind", .oneOfStrings(["x", "z"]), "x (default): the day so far; z: a closed day"),
    .optional("day", .integer(), "kind z: which closed day (default the last)"),
    .optional("escpos", .boolean, "also the report as ESC/POS bytes, in base64"),
  ]
  public static let result = WireType.ref("report")
}

extension Requests.CloseDay {
  public static let summary = "Closes the business day: the Z report, and a new day opens."
  public static let fields: [WireField] = [
    .optional(
      "counted", .object([.optional("cash", .money, "the cash counted in the drawer")]),
      "what was counted at closing")
  ]
  public static let result = WireType.ref("report")
}
