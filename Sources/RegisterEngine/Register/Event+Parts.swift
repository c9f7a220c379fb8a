/// The JSON forms of what events carry — a card's summary, a tender, a discount, an order
/// line, a return, a gift card issued — as the journal records them (and, for tenders, as
/// replies show them).

extension CardSummary {
  var json: JSONValue {
    .object(["brand": .string(brand.rawValue), "last4": .string(last4)])
  }

  init(json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let brandName = try fields.required("brand", as: String.self)
    let last4 = try fields.required("last4", as: String.self)
    try fields.rejectUnknown()
    try self.init(brandName: brandName, last4: last4, path: path)
  }

  /// The card a brand's name and four digits name (`path`: the object that holds them).
  init(brandName: String, last4: String, path: String) throws(JSONShapeError) {
    guard let brand = CardBrand(rawValue: brandName) else {
      throw JSONShapeError(path: joinPath(path, "brand"), message: "unknown card brand")
    }
    // Four ASCII digits, checked on the bytes (as `Character`s, a snapshot's thousands of
    // refunds took milliseconds).
    let digits = last4.utf8
    guard digits.count == 4,
      digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else {
      throw JSONShapeError(path: joinPath(path, "last4"), message: "must be four digits")
    }
    self.init(brand: brand, last4: last4)
  }
}

extension Tender {
  /// The tender as JSON: type, amount, for cards brand and last four only, and what names a
  /// gift card, a customer's credit or a store tender.
  public var json: JSONValue {
    .object([
      "type": .string(type.rawValue), "amount": amount.json, "card": card?.json,
      "gift_card": giftCard.map(JSONValue.string), "customer_id": customerID.map(JSONValue.string),
      "name": name.map(JSONValue.string), "reference": reference.map(JSONValue.string),
      "auth_code": authCode.map(JSONValue.string),
    ])
  }

  /// The tender as replies show it: `json`, with a gift card's number masked (`****0128`). The
  /// journal and snapshots keep the number (`json`): a refund or a void gives the balance
  /// back to it.
  public var publicJSON: JSONValue {
    guard let giftCard else { return json }
    var shown = self
    shown.giftCard = GiftCardNumber.masked(giftCard)
    return shown.json
  }

  init(json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let typeName = try fields.required("type", as: String.self)
    guard let type = TenderType(rawValue: typeName) else {
      throw JSONShapeError(path: fields.pathOf("type"), message: "unknown tender type")
    }
    guard let amount = try fields.money("amount", currency: currency) else {
      throw JSONShapeError(path: fields.pathOf("amount"), message: "is required")
    }
    let card = try fields.raw("card").map { value throws(JSONShapeError) in
      try CardSummary(json: value, path: fields.pathOf("card"))
    }
    let giftCard = try fields.optional("gift_card", as: String.self)
    let customerID = try fields.optional("customer_id", as: String.self)
    let name = try fields.optional("name", as: String.self)
    let reference = try fields.optional("reference", as: String.self)
    let authCode = try fields.optional("auth_code", as: String.self)
    try fields.rejectUnknown()
    // What names the tender's source is there for its type, and nothing else is: every reader
    // (refunds, balances, reports) can rely on it.
    let needed: (card: Bool, giftCard: Bool, customer: Bool, name: Bool)
    switch type {
    case .cash: needed = (false, false, false, false)
    case .card, .cardPresent: needed = (true, false, false, false)
    case .giftCard: needed = (false, true, false, false)
    case .storeCredit: needed = (false, false, true, false)
    case .other: needed = (false, false, false, true)
    }
    guard needed.card == (card != nil), needed.giftCard == (giftCard != nil),
      needed.customer == (customerID != nil), needed.name == (name != nil),
      reference == nil || type == .other, authCode == nil || type == .cardPresent
    else {
      throw JSONShapeError(path: path, message: "has the wrong members for a \(typeName) tender")
    }
    if let giftCard, !GiftCardNumber.isWellFormed(giftCard) {
      throw JSONShapeError(
        path: fields.pathOf("gift_card"), message: "is not a 16-digit gift card number")
    }
    self.init(
      type: type, amount: amount, card: card, giftCard: giftCard, customerID: customerID,
      name: name, reference: reference, authCode: authCode)
  }
}

extension Discount {
  var json: JSONValue {
    switch value {
    case .percent(let percent):
      .object(["percent": percent.json, "reason": .string(reason)])
    case .amount(let money):
      .object(["amount": money.json, "reason": .string(reason)])
    }
  }

  init(json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let percent = try fields.percent("percent")
    let amount = try fields.money("amount", currency: currency)
    let reason = try fields.required("reason", as: String.self)
    try fields.rejectUnknown()
    switch (percent, amount) {
    case (let percent?, nil): self.init(value: .percent(percent), reason: reason)
    case (nil, let amount?): self.init(value: .amount(amount), reason: reason)
    case (nil, nil), (.some, .some):
      throw JSONShapeError(path: path, message: "needs exactly one of percent and amount")
    }
    if let problem = value.problem {
      throw JSONShapeError(path: path, message: "\(problem)")
    }
  }
}

extension OrderLine {
  /// Every fact of the line, as journaled.
  var eventJSON: JSONValue {
    .object([
      "line": .int(line),
      "sku": .string(sku),
      "name": .string(name),
      "qty": .int(quantity),
      "unit_price": unitPrice.json,
      "regular_price": regularPrice.json,
      "tax_class": .string(taxClass),
      "tax_rate": taxRate.json,
      "options": options.isEmpty
        ? nil
        : .array(
          options.map {
            .object([
              "group": .string($0.group), "choice": .string($0.choice),
              "price_delta": $0.priceDelta.json,
            ])
          }),
      "override": override.map {
        .object(["unit_price": $0.unitPrice.json, "reason": .string($0.reason)])
      },
      "discount": discount?.json,
      "voided": voided ? .bool(true) : nil,
      "gift_card": giftCard ? .bool(true) : nil,
      "reloads": reloads.map(JSONValue.string),
    ])
  }

  init(eventJSON json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let line = try fields.required("line", as: Int.self)
    let sku = try fields.required("sku", as: String.self)
    let name = try fields.required("name", as: String.self)
    let quantity = try fields.required("qty", as: Int64.self)
    guard let unitPrice = try fields.money("unit_price", currency: currency),
      let regularPrice = try fields.money("regular_price", currency: currency)
    else { throw JSONShapeError(path: path, message: "unit_price and regular_price are required") }
    let taxClass = try fields.required("tax_class", as: String.self)
    guard let taxRate = try fields.percent("tax_rate") else {
      throw JSONShapeError(path: fields.pathOf("tax_rate"), message: "is required")
    }
    var options: [ChosenOption] = []
    for (index, item) in (try fields.optional("options", as: [JSONValue].self) ?? []).enumerated() {
      var optionFields = try JSONFields(item, path: indexPath(fields.pathOf("options"), index))
      let group = try optionFields.required("group", as: String.self)
      let choice = try optionFields.required("choice", as: String.self)
      let delta =
        try optionFields.money("price_delta", currency: currency, allowNegative: true)
        ?? .zero(currency)
      try optionFields.rejectUnknown()
      options.append(ChosenOption(group: group, choice: choice, priceDelta: delta))
    }
    var override: PriceOverride?
    if var overrideFields = try fields.nested("override") {
      guard let price = try overrideFields.money("unit_price", currency: currency) else {
        throw JSONShapeError(path: overrideFields.pathOf("unit_price"), message: "is required")
      }
      override = PriceOverride(
        unitPrice: price, reason: try overrideFields.required("reason", as: String.self))
      try overrideFields.rejectUnknown()
    }
    let discount = try fields.raw("discount").map { value throws(JSONShapeError) in
      try Discount(json: value, path: fields.pathOf("discount"), currency: currency)
    }
    let voided = try fields.optional("voided", as: Bool.self) ?? false
    let giftCard = try fields.optional("gift_card", as: Bool.self) ?? false
    let reloads = try fields.optional("reloads", as: String.self)
    if let reloads, !giftCard || !GiftCardNumber.isWellFormed(reloads) {
      throw JSONShapeError(
        path: fields.pathOf("reloads"), message: "is a gift card number, on a gift card line")
    }
    try fields.rejectUnknown()
    self.init(
      line: line, sku: sku, name: name, quantity: quantity, unitPrice: unitPrice,
      regularPrice: regularPrice, taxClass: taxClass, taxRate: taxRate, options: options,
      override: override, discount: discount, voided: voided, giftCard: giftCard, reloads: reloads)
  }
}

/// The facts of a return, as journaled: every amount is computed by `decide` and recorded, so
/// the return receipt never depends on anything but the journal.
public struct ReturnEvent: Sendable, Equatable {
  public var receipt: Int
  public var original: Int
  public var lines: [ReturnLine]
  public var refunds: [Tender]
  public var cashRounding: Money
  public var reason: String

  public init(
    receipt: Int, original: Int, lines: [ReturnLine], refunds: [Tender], cashRounding: Money,
    reason: String
  ) {
    self.receipt = receipt
    self.original = original
    self.lines = lines
    self.refunds = refunds
    self.cashRounding = cashRounding
    self.reason = reason
  }

  var json: JSONValue {
    .object([
      "receipt": .int(receipt),
      "original_receipt": .int(original),
      "lines": .array(
        lines.map {
          .object([
            "line": .int($0.line), "sku": .string($0.sku), "name": .string($0.name),
            "qty": .int($0.quantity), "unit_price": $0.unitPrice.json, "net": $0.net.json,
            "tax": $0.tax.json, "tax_class": .string($0.taxClass), "tax_rate": $0.taxRate.json,
          ])
        }),
      "refunds": .array(refunds.map(\.json)),
      "cash_rounding": cashRounding.json,
      "reason": .string(reason),
    ])
  }

  init(json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    receipt = try fields.required("receipt")
    original = try fields.required("original_receipt")
    lines = []
    for (index, item) in try fields.required("lines", as: [JSONValue].self).enumerated() {
      var line = try JSONFields(item, path: "\(path).lines[\(index)]")
      guard let unitPrice = try line.money("unit_price", currency: currency),
        let net = try line.money("net", currency: currency),
        let tax = try line.money("tax", currency: currency),
        let rate = try line.percent("tax_rate")
      else {
        throw JSONShapeError(path: "\(path).lines[\(index)]", message: "amounts are required")
      }
      lines.append(
        ReturnLine(
          line: try line.required("line"), sku: try line.required("sku"),
          name: try line.required("name"), quantity: try line.required("qty"),
          unitPrice: unitPrice, net: net, tax: tax, taxClass: try line.required("tax_class"),
          taxRate: rate))
      try line.rejectUnknown()
    }
    refunds = []
    for (index, item) in try fields.required("refunds", as: [JSONValue].self).enumerated() {
      refunds.append(try Tender(json: item, path: "\(path).refunds[\(index)]", currency: currency))
    }
    cashRounding =
      try fields.money("cash_rounding", currency: currency, allowNegative: true) ?? .zero(currency)
    reason = try fields.required("reason")
    try fields.rejectUnknown()
  }
}

extension IssuedGiftCard {
  /// `{line, number, amount}`, as `sale_completed` journals it.
  var json: JSONValue {
    .object(["line": .int(line), "number": .string(number), "amount": amount.json])
  }

  init(json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let line = try fields.required("line", as: Int.self)
    let number = try fields.required("number", as: String.self)
    guard GiftCardNumber.isWellFormed(number) else {
      throw JSONShapeError(path: fields.pathOf("number"), message: "is not a gift card number")
    }
    guard let amount = try fields.money("amount", currency: currency) else {
      throw JSONShapeError(path: fields.pathOf("amount"), message: "is required")
    }
    try fields.rejectUnknown()
    self.init(line: line, number: number, amount: amount)
  }
}
