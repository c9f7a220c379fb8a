// The order's payment: one op, a tender of one of several kinds.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let tenderOps: [any DecodableRequestBody.Type] = [Tender.self]

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
}

// What a tender says on the wire.

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
