// The cash drawer and the business day: float, paid in and out, no sale, reports, closing.

extension Requests {
  /// `float`: the cash in the drawer at the start of the day.
  public struct SetFloat: RequestBody, DecodableRequestBody {
    public static let op = Op.setFloat
    public static let access: OpAccess = .cashier
    public static let changesState = true
    public var amount: Money
    public init(amount: Money) { self.amount = amount }
    init(from fields: inout RequestFields) throws(RegisterError) {
      guard let amount = try fields.money("amount") else {
        throw RegisterError(.badRequest, "amount is required, like \"150.00\"")
      }
      self.amount = amount
    }
    public var command: Command { .setFloat(amount) }
    public func encode(to object: inout JSONObject) {
      object["amount"] = .string(amount.decimalString)
    }
  }

  /// `paid_in`: cash put into the drawer, with the reason.
  public struct PaidIn: RequestBody, DecodableRequestBody {
    public static let op = Op.paidIn
    public static let access: OpAccess = .cashier
    public static let changesState = true
    public var amount: Money
    public var reason: String

    public init(amount: Money, reason: String) {
      self.amount = amount
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      (amount, reason) = try Requests.cashMovement(&fields)
    }

    public var command: Command { .paidIn(amount, reason: reason) }

    public func encode(to object: inout JSONObject) {
      object["amount"] = .string(amount.decimalString)
      object["reason"] = .string(reason)
    }
  }

  /// `paid_out`: cash taken out of the drawer, with the reason.
  public struct PaidOut: RequestBody, DecodableRequestBody {
    public static let op = Op.paidOut
    public static let access: OpAccess = .cashier
    public static let changesState = true
    public var amount: Money
    public var reason: String

    public init(amount: Money, reason: String) {
      self.amount = amount
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      (amount, reason) = try Requests.cashMovement(&fields)
    }

    public var command: Command { .paidOut(amount, reason: reason) }

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
  public struct NoSale: RequestBody, DecodableRequestBody {
    public static let op = Op.noSale
    public static let access: OpAccess = .manager(work: "opening the drawer without a sale")
    public static let changesState = true
    public var reason: String?
    public init(reason: String? = nil) { self.reason = reason }
    init(from fields: inout RequestFields) throws(RegisterError) {
      reason = try fields.text("reason", required: false)
    }
    public var command: Command { .noSale(reason: reason) }
    public func encode(to object: inout JSONObject) {
      if let reason { object["reason"] = .string(reason) }
    }
  }

  /// `report`: the X report of the open day, or the Z report of a closed one (the last one
  /// when `day` is nil).
  public struct Report: RequestBody, DecodableRequestBody {
    public static let op = Op.report
    public static let access: OpAccess = .open
    public static let changesState = false
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

    public var command: Command { .report(kind, day: day, escpos: escpos) }

    public func encode(to object: inout JSONObject) {
      object["kind"] = .string(kind.rawValue)
      if let day { object["day"] = .int(day) }
      if escpos { object["escpos"] = .bool(true) }
    }
  }

  /// `close_day`: close the business day (Z report), with the cash counted in the drawer.
  public struct CloseDay: RequestBody, DecodableRequestBody {
    public static let op = Op.closeDay
    public static let access: OpAccess = .manager(work: "closing the day")
    public static let changesState = true
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

    public var command: Command { .closeDay(countedCash: countedCash) }

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
