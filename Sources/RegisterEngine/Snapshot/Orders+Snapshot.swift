extension Orders {
  /// The open order and its totals, the parked orders, their kept totals (by order id, in id
  /// order) and the next order id.
  var snapshotValue: JSONValue {
    assert(totalsDueAt == nil, "a replay settles the totals it leaves due before it returns")
    return .object([
      "order": order.snapshotValue,
      "totals": totals.snapshotValue,
      "parked": .array(parked.map(\.snapshotValue)),
      "parked_totals": .array(
        parkedTotals.keys.sorted().map { id in
          .object([
            "order_id": .int(id), "totals": parkedTotals[id]?.snapshotValue ?? .null,
          ])
        }),
      "next_order_id": .int(nextOrderID),
    ])
  }

  /// Reads the orders; their amounts are in `currency`, the store's.
  init(snapshot value: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    let decodeOrder = { (value: JSONValue, path: String) throws(JSONShapeError) -> Order in
      try Order(snapshot: value, path: path, currency: currency)
    }
    order = try fields.decoded("order", decodeOrder)
    totals = try fields.decoded("totals") { value, path throws(JSONShapeError) in
      try OrderTotals(snapshot: value, path: path)
    }
    parked = try fields.array("parked", decodeOrder)
    let kept = try fields.array("parked_totals") {
      value, path throws(JSONShapeError) -> (Int, OrderTotals) in
      var entry = try JSONFields(value, path: path)
      let id = try entry.int("order_id", in: SnapshotRange.positive)
      let totals = try entry.decoded("totals") { value, path throws(JSONShapeError) in
        try OrderTotals(snapshot: value, path: path)
      }
      try entry.rejectUnknown()
      return (id, totals)
    }
    try requireIncreasing(kept.map(\.0), path: fields.pathOf("parked_totals"))
    parkedTotals = Dictionary(kept, uniquingKeysWith: { first, _ in first })
    nextOrderID = try fields.int("next_order_id", in: SnapshotRange.positive)
    // Order ids are never reused: every order held was opened before the next id.
    for (index, held) in ([order] + parked).enumerated() where held.id >= nextOrderID {
      throw JSONShapeError(
        path: index == 0 ? fields.pathOf("order") : indexPath(fields.pathOf("parked"), index - 1),
        message: "order \(held.id) is not before next_order_id \(nextOrderID)")
    }
    try fields.rejectUnknown()
  }
}

extension Order {
  /// Every stored property; lines, tenders and the discount as journaled.
  var snapshotValue: JSONValue {
    .object([
      "id": .int(id),
      "version": .int(version),
      "lines": .array(lines.map(\.eventJSON)),
      "tenders": .array(tenders.map(\.json)),
      "discount": discount.snapshot(\.json),
      "customer_id": customerID.snapshot(JSONValue.string),
      "tax_exemption": taxExemption.snapshot(JSONValue.string),
      "note": note.snapshot(JSONValue.string),
      "next_line": .int(nextLine),
      "opened_at": openedAt.snapshot(\.snapshotValue),
      "parked_at": parkedAt.snapshot(\.snapshotValue),
    ])
  }

  /// Reads an order whose amounts are in `currency`.
  init(snapshot value: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(id: try fields.int("id", in: SnapshotRange.positive))
    version = try fields.int("version", in: SnapshotRange.count)
    lines = try fields.array("lines") { value, path throws(JSONShapeError) in
      try OrderLine(eventJSON: value, path: path, currency: currency)
    }
    var numbers: Set<Int> = []
    for (index, line) in lines.enumerated() where !numbers.insert(line.line).inserted {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("lines"), index), message: "line \(line.line) appears twice")
    }
    tenders = try fields.array("tenders") { value, path throws(JSONShapeError) in
      try Tender(json: value, path: path, currency: currency)
    }
    discount = try fields.nullable("discount") { value, path throws(JSONShapeError) in
      try Discount(json: value, path: path, currency: currency)
    }
    customerID = try fields.nullableString("customer_id")
    taxExemption = try fields.addedLater("tax_exemption", absent: nil) {
      fields throws(JSONShapeError) in try fields.nullableString("tax_exemption")
    }
    note = try fields.nullableString("note")
    nextLine = try fields.int("next_line", in: SnapshotRange.positive)
    if let last = numbers.max(), last >= nextLine {
      throw JSONShapeError(
        path: fields.pathOf("next_line"), message: "line \(last) is not before \(nextLine)")
    }
    openedAt = try fields.nullableTimestamp("opened_at")
    parkedAt = try fields.nullableTimestamp("parked_at")
    try fields.rejectUnknown()
  }
}

extension OrderTotals {
  /// Every stored property (derived, but kept as `apply` computed it).
  var snapshotValue: JSONValue {
    .object([
      "item_count": .int(itemCount),
      "subtotal": .int(subtotal),
      "line_discounts": .int(lineDiscounts),
      "order_discount": .int(orderDiscount),
      "tax": .int(tax),
      "tax_lines": .array(taxLines.map(\.snapshotValue)),
      "total": .int(total),
      "savings": .int(savings),
      "lines": .array(lines.map(\.snapshotValue)),
      "tax_included": .bool(taxIncluded),
      "gift_card_count": .int(giftCardCount),
      "gift_cards": .int(giftCards),
      "promotion_discounts": .int(promotionDiscounts),
      "promotions": .array(promotions.map(\.snapshotValue)),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    itemCount = try fields.int64("item_count", in: SnapshotRange.count)
    subtotal = try fields.int64("subtotal", in: SnapshotRange.amount)
    lineDiscounts = try fields.int64("line_discounts", in: SnapshotRange.amount)
    orderDiscount = try fields.int64("order_discount", in: SnapshotRange.amount)
    tax = try fields.int64("tax", in: SnapshotRange.amount)
    taxLines = try fields.array("tax_lines") { value, path throws(JSONShapeError) in
      try TaxLine(snapshot: value, path: path)
    }
    total = try fields.int64("total", in: SnapshotRange.amount)
    savings = try fields.int64("savings", in: SnapshotRange.amount)
    lines = try fields.array("lines") { value, path throws(JSONShapeError) in
      try LineTotals(snapshot: value, path: path)
    }
    taxIncluded = try fields.bool("tax_included")
    giftCardCount = try fields.addedLater("gift_card_count", absent: 0) {
      fields throws(JSONShapeError) in try fields.int64("gift_card_count", in: SnapshotRange.count)
    }
    giftCards = try fields.addedLater("gift_cards", absent: 0) { fields throws(JSONShapeError) in
      try fields.int64("gift_cards", in: SnapshotRange.amount)
    }
    promotionDiscounts = try fields.addedLater("promotion_discounts", absent: 0) {
      fields throws(JSONShapeError) in
      try fields.int64("promotion_discounts", in: SnapshotRange.amount)
    }
    promotions = try fields.addedLater("promotions", absent: []) { fields throws(JSONShapeError) in
      try fields.array("promotions") { value, path throws(JSONShapeError) in
        try AppliedPromotion(snapshot: value, path: path)
      }
    }
    try fields.rejectUnknown()
  }
}

extension LineTotals {
  var snapshotValue: JSONValue {
    .object([
      "line": .int(line),
      "gross": .int(gross),
      "line_discount": .int(lineDiscount),
      "order_discount": .int(orderDiscount),
      "net": .int(net),
      "tax": .int(tax),
      "promotion_discount": .int(promotionDiscount),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(
      line: try fields.int("line", in: SnapshotRange.positive),
      gross: try fields.int64("gross", in: SnapshotRange.amount),
      lineDiscount: try fields.int64("line_discount", in: SnapshotRange.amount),
      orderDiscount: try fields.int64("order_discount", in: SnapshotRange.amount),
      net: try fields.int64("net", in: SnapshotRange.amount),
      tax: try fields.int64("tax", in: SnapshotRange.amount),
      promotionDiscount: try fields.addedLater("promotion_discount", absent: 0) {
        fields throws(JSONShapeError) in
        try fields.int64("promotion_discount", in: SnapshotRange.amount)
      })
    try fields.rejectUnknown()
  }
}

extension AppliedPromotion {
  var snapshotValue: JSONValue {
    .object([
      "id": .string(id),
      "name": .string(name),
      "applications": .int(applications),
      "saving": .int(saving),
      "lines": .array(
        lines.map {
          .object(["line": .int($0.line), "units": .int($0.units), "saving": .int($0.saving)])
        }),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(
      id: try fields.string("id"),
      name: try fields.string("name"),
      applications: try fields.int64("applications", in: SnapshotRange.count),
      saving: try fields.int64("saving", in: SnapshotRange.amount),
      lines: try fields.array("lines") { value, path throws(JSONShapeError) in
        var share = try JSONFields(value, path: path)
        let result = AppliedPromotion.Share(
          line: try share.int("line", in: SnapshotRange.positive),
          units: try share.int64("units", in: SnapshotRange.count),
          saving: try share.int64("saving", in: SnapshotRange.amount))
        try share.rejectUnknown()
        return result
      })
    try fields.rejectUnknown()
  }
}

extension TaxLine {
  var snapshotValue: JSONValue {
    .object([
      "tax_class": .string(taxClass),
      "rate": rate.json,
      "basis": .int(basis),
      "tax": .int(tax),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(
      taxClass: try fields.string("tax_class"),
      rate: try fields.snapshotPercent("rate"),
      basis: try fields.int64("basis", in: SnapshotRange.amount),
      tax: try fields.int64("tax", in: SnapshotRange.amount))
    try fields.rejectUnknown()
  }
}
