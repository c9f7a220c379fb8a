// The current order: showing it, its lines, parking and resuming it (its payment is
// Requests+Tender.swift).

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let orderOps: [any DecodableRequestBody.Type] = [
    Order.self, Add.self, Scan.self, Remove.self,
    SetQty.self, Void.self, Discount.self,
    OverridePrice.self, VoidLine.self, Park.self,
    Parked.self, Resume.self, GiftCardReload.self,
  ]

  /// `order`: the current order.
  public struct Order: RequestBody, Query {
    public static let wireName = "order"
    public static let access: OpAccess = .open
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      replies.order(register: &register)
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `add`: a product to the order.
  public struct Add: RequestBody, Mutation {
    public static let wireName = "add"
    public static let access: OpAccess = .cashier
    public var sku: String
    /// How many (nil: the wire's default, one).
    public var quantity: Int64?
    /// The chosen option of each option group (`frame: oak`).
    public var options: [String: String]
    /// What an open-amount gift card is loaded with.
    public var amount: Money?

    public init(
      sku: String, quantity: Int64? = nil, options: [String: String] = [:], amount: Money? = nil
    ) {
      self.sku = sku
      self.quantity = quantity
      self.options = options
      self.amount = amount
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      sku = try fields.required("sku", as: String.self)
      quantity = try fields.quantity("qty")
      options = [:]
      if let value = fields.raw("options") {
        guard case .object(let object) = value else {
          throw RegisterError(
            .badRequest,
            "options must be an object like {\"frame\": \"oak\"}, got \(value.typeName)")
        }
        for (group, choice) in object.members {
          guard case .string(let name) = choice else {
            throw RegisterError(
              .badRequest, "options.\(group) must be a string, got \(choice.typeName)")
          }
          options[group] = name
        }
      }
      amount = try fields.money("amount")
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideAdd(sku: sku, quantity: quantity ?? 1, options: options, amount: amount)
    }

    public func encode(to object: inout JSONObject) {
      object["sku"] = .string(sku)
      if let quantity { object["qty"] = .int(quantity) }
      if !options.isEmpty {
        var chosen = JSONObject()
        for (group, choice) in options.sorted(by: { $0.key < $1.key }) {
          chosen[group] = .string(choice)
        }
        object["options"] = .object(chosen)
      }
      if let amount { object["amount"] = .string(amount.decimalString) }
    }
  }

  /// `scan`: one unit of the product a scanner read (a barcode, or a SKU).
  public struct Scan: RequestBody, Mutation {
    public static let wireName = "scan"
    public static let access: OpAccess = .cashier
    /// The most characters a scanned code may have (a SKU is at most 64, a barcode 13).
    static let maximumLength = 64
    public var code: String
    public init(code: String) { self.code = code }
    init(from fields: inout RequestFields) throws(RegisterError) {
      let raw = try fields.required("code", as: String.self)
      // A keyboard-wedge scanner ends its code with Enter, some with a tab or a space: those
      // are not part of the code.
      let trimmed = raw.unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
      var scalars = Array(trimmed)
      while let last = scalars.last, last == " " || last == "\t" || last == "\r" || last == "\n" {
        scalars.removeLast()
      }
      guard !scalars.isEmpty, scalars.count <= Self.maximumLength,
        scalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 })
      else {
        throw RegisterError(
          .badRequest,
          "code must be what a scanner reads: 1 to \(Self.maximumLength) printable ASCII characters"
        )
      }
      var code = String.UnicodeScalarView()
      code.append(contentsOf: scalars)
      self.code = String(code)
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideScan(code: code)
    }
    public func encode(to object: inout JSONObject) { object["code"] = .string(code) }
  }

  /// `remove`: a line off the order (before anything is paid).
  public struct Remove: RequestBody, Mutation {
    public static let wireName = "remove"
    public static let access: OpAccess = .cashier
    public var line: Int
    public init(line: Int) { self.line = line }
    init(from fields: inout RequestFields) throws(RegisterError) {
      line = try fields.required("line")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideRemove(line: line)
    }
    public func encode(to object: inout JSONObject) { object["line"] = .int(line) }
  }

  /// `set_qty`: a line's quantity.
  public struct SetQty: RequestBody, Mutation {
    public static let wireName = "set_qty"
    public static let access: OpAccess = .cashier
    public var line: Int
    public var quantity: Int64

    public init(line: Int, quantity: Int64) {
      self.line = line
      self.quantity = quantity
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      line = try fields.required("line", as: Int.self)
      guard let quantity = try fields.quantity("qty") else {
        throw RegisterError(.badRequest, "qty is required")
      }
      self.quantity = quantity
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideSetQuantity(line: line, quantity: quantity)
    }

    public func encode(to object: inout JSONObject) {
      object["line"] = .int(line)
      object["qty"] = .int(quantity)
    }
  }

  /// `void`: abandon the order (handing back what was tendered).
  public struct Void: RequestBody, Mutation {
    public static let wireName = "void"
    public static let access: OpAccess = .manager(work: "voiding an order")
    public var reason: String?
    public init(reason: String? = nil) { self.reason = reason }
    init(from fields: inout RequestFields) throws(RegisterError) {
      reason = try fields.text("reason", required: false)
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideVoid(reason: reason)
    }
    public func encode(to object: inout JSONObject) {
      if let reason { object["reason"] = .string(reason) }
    }
  }

  /// `discount`: a discount on a line, or on the order when `line` is nil; a zero value
  /// removes it.
  public struct Discount: RequestBody, Mutation {
    public static let wireName = "discount"
    public static let access: OpAccess = .cashier
    public var line: Int?
    public var value: DiscountValue
    public var reason: String

    public init(line: Int? = nil, value: DiscountValue, reason: String) {
      self.line = line
      self.value = value
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      line = try fields.optional("line", as: Int.self)
      let percent = try fields.percent("percent")
      let amount = try fields.money("amount")
      reason = try fields.text("reason", required: true) ?? ""
      switch (percent, amount) {
      case (let percent?, nil): value = .percent(percent)
      case (nil, let amount?): value = .amount(amount)
      default:
        throw RegisterError(
          .badRequest,
          "a discount needs exactly one of percent (like \"10\") and amount (like \"5.00\"); 0 removes it"
        )
      }
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      let isZero =
        switch value {
        case .percent(let percent): percent == .zero
        case .amount(let amount): amount.isZero
        }
      return [try register.decideDiscount(line: line, value: isZero ? nil : value, reason: reason)]
    }

    public func encode(to object: inout JSONObject) {
      if let line { object["line"] = .int(line) }
      switch value {
      case .percent(let percent): object["percent"] = .string(percent.decimalString)
      case .amount(let amount): object["amount"] = .string(amount.decimalString)
      }
      object["reason"] = .string(reason)
    }
  }

  /// `override_price`: a line's unit price, with the reason.
  public struct OverridePrice: RequestBody, Mutation {
    public static let wireName = "override_price"
    public static let access: OpAccess = .manager(work: "a price override")
    public var line: Int
    public var unitPrice: Money
    public var reason: String

    public init(line: Int, unitPrice: Money, reason: String) {
      self.line = line
      self.unitPrice = unitPrice
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      line = try fields.required("line", as: Int.self)
      guard let price = try fields.money("unit_price") else {
        throw RegisterError(.badRequest, "unit_price is required, like \"19.99\"")
      }
      unitPrice = price
      reason = try fields.text("reason", required: true) ?? ""
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideOverridePrice(line: line, unitPrice: unitPrice, reason: reason)
    }

    public func encode(to object: inout JSONObject) {
      object["line"] = .int(line)
      object["unit_price"] = .string(unitPrice.decimalString)
      object["reason"] = .string(reason)
    }
  }

  /// `void_line`: strike a line (it stays on the receipt, at zero).
  public struct VoidLine: RequestBody, Mutation {
    public static let wireName = "void_line"
    public static let access: OpAccess = .cashier
    public var line: Int
    public init(line: Int) { self.line = line }
    init(from fields: inout RequestFields) throws(RegisterError) {
      line = try fields.required("line")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideVoidLine(line)
    }
    public func encode(to object: inout JSONObject) { object["line"] = .int(line) }
  }

  /// `park`: put the order aside and open a new one.
  public struct Park: RequestBody, Mutation {
    public static let wireName = "park"
    public static let access: OpAccess = .cashier
    public var note: String?
    public init(note: String? = nil) { self.note = note }
    init(from fields: inout RequestFields) throws(RegisterError) {
      note = try fields.text("note", required: false)
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decidePark(note: note)
    }
    public func encode(to object: inout JSONObject) {
      if let note { object["note"] = .string(note) }
    }
  }

  /// `parked`: the parked orders.
  public struct Parked: RequestBody, Query {
    public static let wireName = "parked"
    public static let access: OpAccess = .open
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(.object(["parked": .array(register.parked.map { register.parkedJSON($0) })]))
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `resume`: bring a parked order back.
  public struct Resume: RequestBody, Mutation {
    public static let wireName = "resume"
    public static let access: OpAccess = .cashier
    public var orderID: Int
    public init(orderID: Int) { self.orderID = orderID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      orderID = try fields.required("order_id")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideResume(orderID: orderID)
    }
    public func encode(to object: inout JSONObject) { object["order_id"] = .int(orderID) }
  }

  /// `gift_card_reload`: value loaded onto a gift card already issued, as a line of the order.
  public struct GiftCardReload: RequestBody, Mutation {
    public static let wireName = "gift_card_reload"
    public static let access: OpAccess = .cashier
    public var number: String
    public var amount: Money

    public init(number: String, amount: Money) {
      self.number = number
      self.amount = amount
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      number = try fields.required("number", as: String.self)
      guard let amount = try fields.money("amount") else {
        throw RegisterError(.badRequest, "amount is required, like \"25.00\"")
      }
      self.amount = amount
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideGiftCardReload(number: number, amount: amount)
    }

    public func encode(to object: inout JSONObject) {
      object["number"] = .string(number)
      object["amount"] = .string(amount.decimalString)
    }
  }
}

// What each op of the order says on the wire.

extension Requests.Order {
  public static let summary = "The open order."
  public static let fields: [WireField] = []
  public static let result = WireType.ref("order")
}

extension Requests.GiftCardReload {
  public static let summary =
    "Loads value onto a gift card already issued, as a line of the order; the card takes it when the sale completes."
  public static let fields: [WireField] = [
    .required("number", .string(maxLength: 64), "the gift card's number"),
    .required("amount", .money, "what to load, within the open-amount gift card limits"),
  ]
  public static let result = WireType.ref("order")
}

extension Requests.Add {
  public static let summary = "Rings up a product (by SKU, or one of its barcodes) as a new line."
  public static let fields: [WireField] = [
    .required("sku", .text, "the product's SKU, or one of its barcodes"),
    .optional("qty", .integer(), "how many (default 1)"),
    .optional("options", .map(.text), "the product's option groups and the choice in each"),
    .optional("amount", .money, "what an open-amount gift card is loaded with"),
  ]
  public static let result = WireType.ref("order")
}

extension Requests.Scan {
  public static let summary = "One unit of the product a scanner read (a barcode, or a SKU)."
  public static let fields: [WireField] = [
    .required("code", .string(maxLength: 64), "what the scanner read")
  ]
  public static let result = WireType.ref("order")
}

extension Requests.Remove {
  public static let summary = "Takes a line off the order (before payment)."
  public static let fields: [WireField] = [.required("line", .integer(), "the line's number")]
  public static let result = WireType.ref("order")
}

extension Requests.SetQty {
  public static let summary = "Sets a line's quantity."
  public static let fields: [WireField] = [
    .required("line", .integer(), "the line's number"),
    .required("qty", .integer(), "the new quantity"),
  ]
  public static let result = WireType.ref("order")
}

extension Requests.Void {
  public static let summary = "Voids the open order; tenders taken are reversed."
  public static let fields: [WireField] = [
    .optional("reason", .string(maxLength: 200), "why, for the journal and the report")
  ]
  public static let result = WireType.ref("order")
}

extension Requests.Discount {
  public static let summary =
    "A discount on a line, or on the order without `line`; neither percent nor amount clears it."
  public static let fields: [WireField] = [
    .optional("line", .integer(), "the line (none: the order)"),
    .optional("percent", .percent, "a percentage off"),
    .optional("amount", .money, "an amount off"),
    .required("reason", .string(maxLength: 200), "why"),
  ]
  public static let result = WireType.ref("order")
}

extension Requests.OverridePrice {
  public static let summary = "Charges a line at another unit price."
  public static let fields: [WireField] = [
    .required("line", .integer(), "the line's number"),
    .required("unit_price", .money, "the price charged per unit"),
    .required("reason", .string(maxLength: 200), "why"),
  ]
  public static let result = WireType.ref("order")
}

extension Requests.VoidLine {
  public static let summary = "Voids a line after payment began (it stays, struck through)."
  public static let fields: [WireField] = [.required("line", .integer(), "the line's number")]
  public static let result = WireType.ref("order")
}

extension Requests.Park {
  public static let summary = "Sets the open order aside and starts a new one."
  public static let fields: [WireField] = [
    .optional("note", .string(maxLength: 200), "what to remember it by")
  ]
  public static let result = WireType.ref("order")
}

extension Requests.Parked {
  public static let summary = "The parked orders."
  public static let fields: [WireField] = []
  public static let result = WireType.object(
    [.required("parked", .array(.ref("order")), "the parked orders, oldest first")])
}

extension Requests.Resume {
  public static let summary = "Brings a parked order back as the open one."
  public static let fields: [WireField] = [
    .required("order_id", .integer(), "the parked order's number")
  ]
  public static let result = WireType.ref("order")
}
