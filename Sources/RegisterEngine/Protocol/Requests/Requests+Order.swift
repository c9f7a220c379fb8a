// The current order: showing it, its lines, its payment, parking and resuming it.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let orderOps: [any DecodableRequestBody.Type] = [
    Order.self, Add.self, Scan.self, Remove.self,
    SetQty.self, Tender.self, Void.self, Discount.self,
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

  /// `tender`: a payment — cash with an amount, a card with an optional one, a gift card
  /// (`number`), a customer's store credit (`customer_id`), a store tender (`name`,
  /// `reference`), or a payment an external terminal approved (`brand`, `last4`, `auth_code`).
  public struct Tender: RequestBody, Mutation {
    public static let wireName = "tender"
    public static let access: OpAccess = .cashier
    public var request: TenderRequest

    public var type: TenderType { request.type }
    public var amount: Money? { request.amount }
    public var card: CardInput? { request.card }

    public init(_ request: TenderRequest) { self.request = request }

    /// Each kind of tender: the fields it needs and the ones it may carry (`TenderRequest`'s
    /// cases; the decoder refuses any other).
    public static let variants: [WireVariant] = [
      WireVariant("type", "cash", required: ["amount"]),
      WireVariant("type", "card", required: ["card"], optional: ["amount"]),
      WireVariant(
        "type", "card_present", required: ["amount", "brand", "last4", "auth_code"]),
      WireVariant("type", "gift_card", required: ["number"], optional: ["amount"]),
      WireVariant("type", "store_credit", required: ["customer_id"], optional: ["amount"]),
      WireVariant("type", "other", required: ["name", "amount"], optional: ["reference"]),
    ]

    /// The members each type takes besides `type` and `amount`.
    static let members: [TenderType: Set<String>] = variants.reduce(into: [:]) { table, kind in
      guard let type = TenderType(rawValue: kind.value) else { return }
      table[type] = Set(kind.required + kind.optional).subtracting(["amount"])
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      let typeName = try fields.required("type", as: String.self)
      guard let type = TenderType(rawValue: typeName) else {
        let known = TenderType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        throw RegisterError(.badRequest, "type must be one of \(known), got \"\(typeName)\"")
      }
      let allowed = Self.members[type] ?? []
      for member in Set(Self.members.values.joined()).subtracting(allowed).sorted()
      where fields.raw(member) != nil {
        throw RegisterError(.badRequest, "a \(typeName) tender takes no \(member)")
      }
      let amount = try fields.money("amount")
      switch type {
      case .cash:
        guard let amount else {
          throw RegisterError(
            .badRequest, "a cash tender needs an amount, like \"amount\": \"20.00\"")
        }
        request = .cash(amount: amount)
      case .card:
        guard let value = fields.raw("card") else {
          throw RegisterError(
            .badRequest,
            "a card tender needs \"card\": {\"number\", \"exp_month\", \"exp_year\", \"cvv\"}")
        }
        request = .card(try Self.decodeCard(value), amount: amount)
      case .cardPresent:
        guard let amount else {
          throw RegisterError(.badRequest, "a card_present tender needs an amount")
        }
        let brand = try fields.optional("brand", as: String.self)
        let last4 = try fields.optional("last4", as: String.self)
        let authCode = try fields.optional("auth_code", as: String.self)
        guard let brand else {
          let brands = CardBrand.allCases.map(\.rawValue).joined(separator: ", ")
          throw RegisterError(.invalidCard, "brand must be one of \(brands)")
        }
        guard let last4 else {
          throw RegisterError(
            .invalidCard, "last4 must be exactly the last 4 digits of the card (never the number)")
        }
        guard let authCode else {
          throw RegisterError(
            .invalidCard,
            "auth_code must be the terminal's authorization code: 1 to 12 letters and digits")
        }
        request = .cardPresent(amount: amount, brand: brand, last4: last4, authCode: authCode)
      case .giftCard:
        guard let number = try fields.optional("number", as: String.self) else {
          throw RegisterError(.badRequest, "a gift_card tender needs the card's \"number\"")
        }
        request = .giftCard(number: number, amount: amount)
      case .storeCredit:
        guard let customer = try fields.optional("customer_id", as: String.self) else {
          throw RegisterError(.badRequest, "a store_credit tender needs the \"customer_id\"")
        }
        request = .storeCredit(customerID: customer, amount: amount)
      case .other:
        guard let name = try fields.optional("name", as: String.self) else {
          throw RegisterError(.badRequest, "an other tender needs the store tender's \"name\"")
        }
        let reference = try fields.text("reference", required: false, maxLength: 40)
        guard let amount else {
          throw RegisterError(.badRequest, "a \(name) tender needs an amount")
        }
        request = .other(name: name, amount: amount, reference: reference)
      }
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideTender(request, context: context)
    }

    public func encode(to object: inout JSONObject) {
      object["type"] = .string(type.rawValue)
      if let amount { object["amount"] = .string(amount.decimalString) }
      switch request {
      case .cash: break
      case .card(let card, _):
        object["card"] = .object([
          "number": .string(card.number), "exp_month": .int(card.expiryMonth),
          "exp_year": .int(card.expiryYear), "cvv": .string(card.cvv),
        ])
      case .cardPresent(_, let brand, let last4, let authCode):
        object["brand"] = .string(brand)
        object["last4"] = .string(last4)
        object["auth_code"] = .string(authCode)
      case .giftCard(let number, _): object["number"] = .string(number)
      case .storeCredit(let customer, _): object["customer_id"] = .string(customer)
      case .other(let name, _, let reference):
        object["name"] = .string(name)
        if let reference { object["reference"] = .string(reference) }
      }
    }

    /// Card data. Any problem with it is `invalid_card`, and no message repeats the number.
    private static func decodeCard(_ value: JSONValue) throws(RegisterError) -> CardInput {
      do {
        var fields = try JSONFields(value, path: "card")
        let number = try fields.required("number", as: String.self)
        let month = try fields.required("exp_month", as: Int.self)
        let year = try fields.required("exp_year", as: Int.self)
        let cvv = try fields.required("cvv", as: String.self)
        try fields.rejectUnknown()
        return CardInput(number: number, expiryMonth: month, expiryYear: year, cvv: cvv)
      } catch {
        // Say which field, never what was in it: it may be a card number typed in the wrong
        // box.
        let expected = [
          "card.number": "a string of digits", "card.exp_month": "an integer 1-12",
          "card.exp_year": "an integer like 2030", "card.cvv": "a string of 3 or 4 digits",
        ]
        let what =
          expected[error.path].map { "\(error.path) must be \($0)" }
          ?? (error.path == "card"
            ? "card must be an object" : "\(error.path) is not a card field")
        throw RegisterError(
          .invalidCard,
          "\(what); send card as {\"number\": \"4242...\", \"exp_month\": 12, \"exp_year\": 2030, \"cvv\": \"123\"}"
        )
      }
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

extension Requests.Tender {
  public static let summary =
    "A payment toward the order; the one that covers the balance completes the sale."
  public static let fields: [WireField] = [
    .required("type", .oneOfStrings(TenderType.allCases.map(\.rawValue)), "how the customer pays"),
    .optional("amount", .money, "how much (default: the balance due, or the card's balance)"),
    .optional("card", .ref("card_entry"), "type card: the card as keyed"),
    .optional("number", .string(maxLength: 64), "type gift_card: the gift card's number"),
    .optional("customer_id", .text, "type store_credit: whose credit"),
    .optional("name", .text, "type other: one of the store's own tenders"),
    .optional("reference", .string(maxLength: 40), "type other: a cheque or voucher number"),
    .optional("brand", .text, "type card_present: the card network the terminal read"),
    .optional("last4", .string(pattern: "^[0-9]{4}$"), "type card_present: the last four digits"),
    .optional("auth_code", .text, "type card_present: the terminal's approval code"),
  ]
  public static let result = WireType.anyOf([.ref("order"), .ref("completed_order")])
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
