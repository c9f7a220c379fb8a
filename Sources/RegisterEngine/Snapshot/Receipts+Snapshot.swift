extension CompletedSale {
  /// The sale with every stored property, for a snapshot or the receipt archive. Amounts are
  /// in the sale's own currency, written beside them.
  public var snapshotValue: JSONValue {
    .object([
      "receipt_number": .int(receiptNumber),
      "day": .int(day),
      "at": at.snapshotValue,
      "order": order.snapshotValue,
      "totals": totals.snapshotValue,
      "cash_rounding": cashRounding.snapshotValue,
      "change": change.snapshotValue,
      "header": header.snapshotValue,
      "currency": .string(currency.code),
      "operator_name": operatorName.snapshot(JSONValue.string),
      "customer": customer.snapshot(\.snapshotValue),
      "gift_cards": .array(giftCards.map(\.json)),
      "promotions": .array(promotions.map(\.json)),
    ])
  }

  /// Reads a sale written by `snapshotValue`; `path` names it in errors.
  public init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let currency = try fields.currency("currency")
    self.init(
      receiptNumber: try fields.int("receipt_number", in: SnapshotRange.positive),
      day: try fields.int("day", in: SnapshotRange.positive),
      at: try fields.timestamp("at"),
      order: try fields.decoded("order") { value, path throws(JSONShapeError) in
        try Order(snapshot: value, path: path, currency: currency)
      },
      totals: try fields.decoded("totals") { value, path throws(JSONShapeError) in
        try OrderTotals(snapshot: value, path: path)
      },
      cashRounding: try fields.money("cash_rounding", in: currency),
      change: try fields.money("change", in: currency),
      header: try fields.decoded("header") { value, path throws(JSONShapeError) in
        try ReceiptHeader(snapshot: value, path: path)
      },
      currency: currency,
      operatorName: try fields.nullableString("operator_name"),
      customer: try fields.nullable("customer") { value, path throws(JSONShapeError) in
        try CustomerRef(snapshot: value, path: path)
      },
      giftCards: try fields.addedLater("gift_cards", absent: []) { fields throws(JSONShapeError) in
        try fields.array("gift_cards") { value, path throws(JSONShapeError) in
          try IssuedGiftCard(json: value, path: path, currency: currency)
        }
      },
      promotions: try fields.addedLater("promotions", absent: []) { fields throws(JSONShapeError) in
        try fields.array("promotions") { value, path throws(JSONShapeError) in
          try Promotion(json: value, path: path, currency: currency)
        }
      })
    try fields.rejectUnknown()
  }
}

extension CompletedReturn {
  /// The return with every stored property, for a snapshot or the receipt archive. Amounts
  /// are in the return's own currency, written beside them.
  public var snapshotValue: JSONValue {
    .object([
      "receipt_number": .int(receiptNumber),
      "original_receipt": .int(originalReceipt),
      "day": .int(day),
      "at": at.snapshotValue,
      "lines": .array(lines.map(\.snapshotValue)),
      "refunds": .array(refunds.map(\.json)),
      "cash_rounding": cashRounding.snapshotValue,
      "reason": .string(reason),
      "header": header.snapshotValue,
      "currency": .string(currency.code),
      "operator_name": operatorName.snapshot(JSONValue.string),
      "customer": customer.snapshot(\.snapshotValue),
    ])
  }

  /// Reads a return written by `snapshotValue`; `path` names it in errors.
  public init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let currency = try fields.currency("currency")
    self.init(
      receiptNumber: try fields.int("receipt_number", in: SnapshotRange.positive),
      originalReceipt: try fields.int("original_receipt", in: SnapshotRange.positive),
      day: try fields.int("day", in: SnapshotRange.positive),
      at: try fields.timestamp("at"),
      lines: try fields.array("lines") { value, path throws(JSONShapeError) in
        try ReturnLine(snapshot: value, path: path, currency: currency)
      },
      refunds: try fields.array("refunds") { value, path throws(JSONShapeError) in
        try Tender(json: value, path: path, currency: currency)
      },
      cashRounding: try fields.money("cash_rounding", in: currency),
      reason: try fields.string("reason"),
      header: try fields.decoded("header") { value, path throws(JSONShapeError) in
        try ReceiptHeader(snapshot: value, path: path)
      },
      currency: currency,
      operatorName: try fields.nullableString("operator_name"),
      customer: try fields.nullable("customer") { value, path throws(JSONShapeError) in
        try CustomerRef(snapshot: value, path: path)
      })
    try fields.rejectUnknown()
  }
}

extension ReturnLine {
  var snapshotValue: JSONValue {
    .object([
      "line": .int(line),
      "sku": .string(sku),
      "name": .string(name),
      "quantity": .int(quantity),
      "unit_price": unitPrice.snapshotValue,
      "net": net.snapshotValue,
      "tax": tax.snapshotValue,
      "tax_class": .string(taxClass),
      "tax_rate": taxRate.json,
    ])
  }

  init(snapshot value: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(
      line: try fields.int("line", in: SnapshotRange.positive),
      sku: try fields.string("sku"),
      name: try fields.string("name"),
      quantity: try fields.int64("quantity", in: 1...Register.maximumQuantity),
      unitPrice: try fields.money("unit_price", in: currency),
      net: try fields.money("net", in: currency),
      tax: try fields.money("tax", in: currency),
      taxClass: try fields.string("tax_class"),
      taxRate: try fields.snapshotPercent("tax_rate"))
    try fields.rejectUnknown()
  }
}

extension ReceiptHeader {
  var snapshotValue: JSONValue {
    .object([
      "store_name": .string(storeName),
      "address": .array(address.map(JSONValue.string)),
      "phone": phone.snapshot(JSONValue.string),
      "footer": footer.snapshot(JSONValue.string),
      "width": .int(width),
      "tax_included": .bool(taxIncluded),
      "tax_per_line": .bool(taxPerLine),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    storeName = try fields.string("store_name")
    address = try fields.decoded("address") { value, path throws(JSONShapeError) in
      try [String](json: value, path: path)
    }
    phone = try fields.nullableString("phone")
    footer = try fields.nullableString("footer")
    let widths = StoreSettings.receiptWidths
    width = try fields.int("width", in: Int64(widths.lowerBound)...Int64(widths.upperBound))
    taxIncluded = try fields.bool("tax_included")
    taxPerLine = try fields.bool("tax_per_line")
    try fields.rejectUnknown()
  }
}

extension CustomerRef {
  var snapshotValue: JSONValue {
    .object(["id": .string(id), "name": .string(name)])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(id: try fields.string("id"), name: try fields.string("name"))
    try fields.rejectUnknown()
  }
}
