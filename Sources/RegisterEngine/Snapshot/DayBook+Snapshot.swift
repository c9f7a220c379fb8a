extension DayBook {
  /// The current business day and the closed days, in day order.
  var snapshotValue: JSONValue {
    .object([
      "day": day.snapshotValue,
      "closed_days": .array(closedDays.keys.sorted().compactMap { closedDays[$0]?.snapshotValue }),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    day = try fields.decoded("day") { value, path throws(JSONShapeError) in
      try BusinessDay(snapshot: value, path: path)
    }
    let closed = try fields.array("closed_days") { value, path throws(JSONShapeError) in
      try ClosedDay(snapshot: value, path: path)
    }
    try requireIncreasing(closed.map(\.number), path: fields.pathOf("closed_days"))
    if let last = closed.last, last.number >= day.number {
      throw JSONShapeError(
        path: fields.pathOf("closed_days"),
        message: "day \(last.number) is closed but the current day is \(day.number)")
    }
    closedDays = Dictionary(closed.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
    try fields.rejectUnknown()
  }
}

extension BusinessDay {
  var snapshotValue: JSONValue {
    .object([
      "number": .int(number),
      "opened_at": openedAt.snapshot(\.snapshotValue),
      "totals": totals.snapshotValue,
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(number: try fields.int("number", in: SnapshotRange.positive))
    openedAt = try fields.nullableTimestamp("opened_at")
    totals = try fields.decoded("totals") { value, path throws(JSONShapeError) in
      try DayTotals(snapshot: value, path: path)
    }
    try fields.rejectUnknown()
  }
}

extension ClosedDay {
  /// The Z report data; amounts in the day's own currency, written beside them.
  var snapshotValue: JSONValue {
    .object([
      "number": .int(number),
      "opened_at": openedAt.snapshot(\.snapshotValue),
      "closed_at": closedAt.snapshotValue,
      "totals": totals.snapshotValue,
      "counted_cash": countedCash.snapshot(\.snapshotValue),
      "sequence": .int(sequence),
      "journal_head": journalHead.snapshot(\.json),
      "header": header.snapshotValue,
      "currency": .string(currency.code),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let currency = try fields.currency("currency")
    self.init(
      number: try fields.int("number", in: SnapshotRange.positive),
      openedAt: try fields.nullableTimestamp("opened_at"),
      closedAt: try fields.timestamp("closed_at"),
      totals: try fields.decoded("totals") { value, path throws(JSONShapeError) in
        try DayTotals(snapshot: value, path: path)
      },
      countedCash: try fields.nullable("counted_cash") { value, path throws(JSONShapeError) in
        try Money(json: value, path: path, currency: currency, allowNegative: true)
      },
      sequence: try fields.int64("sequence", in: SnapshotRange.count),
      journalHead: try fields.nullable("journal_head") { value, path throws(JSONShapeError) in
        try JournalHead(json: value, path: path)
      },
      header: try fields.decoded("header") { value, path throws(JSONShapeError) in
        try ReceiptHeader(snapshot: value, path: path)
      },
      currency: currency)
    try fields.rejectUnknown()
  }
}

extension DayTotals {
  /// Every stored property; the lists by label keep their first-seen order.
  var snapshotValue: JSONValue {
    .object([
      "sales_count": .int(salesCount),
      "items_sold": .int(itemsSold),
      "gross": .int(gross),
      "line_discounts": .int(lineDiscounts),
      "order_discounts": .int(orderDiscounts),
      "savings": .int(savings),
      "overrides": .int(overrides),
      "override_reduction": .int(overrideReduction),
      "tax_by_class": .array(taxByClass.map(\.snapshotValue)),
      "tax": .int(tax),
      "total": .int(total),
      "cash_rounding": .int(cashRounding),
      "tenders": .array(tenders.map(\.snapshotValue)),
      "change_given": .int(changeGiven),
      "voided_orders": .int(voidedOrders),
      "voided_orders_amount": .int(voidedOrdersAmount),
      "voided_lines": .int(voidedLines),
      "voided_lines_amount": .int(voidedLinesAmount),
      "reversals": .array(reversals.map(\.snapshotValue)),
      "returns_count": .int(returnsCount),
      "returned_items": .int(returnedItems),
      "returns_net": .int(returnsNet),
      "returns_tax": .int(returnsTax),
      "returns_total": .int(returnsTotal),
      "refunds": .array(refunds.map(\.snapshotValue)),
      "refund_cash_rounding": .int(refundCashRounding),
      "float": .int(float),
      "paid_in": .int(paidIn),
      "paid_in_count": .int(paidInCount),
      "paid_out": .int(paidOut),
      "paid_out_count": .int(paidOutCount),
      "no_sales": .int(noSales),
      "first_receipt": firstReceipt.snapshot { .int($0) },
      "last_receipt": lastReceipt.snapshot { .int($0) },
      "gift_cards_sold": .int(giftCardsSold),
      "gift_cards_sold_amount": .int(giftCardsSoldAmount),
      "gift_cards_reloaded": .int(giftCardsReloaded),
      "gift_cards_reloaded_amount": .int(giftCardsReloadedAmount),
      "promotion_discounts": .int(promotionDiscounts),
      "promotions": .array(promotions.map(\.snapshotValue)),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let count = SnapshotRange.count
    let amount = SnapshotRange.amount
    let tenderTotals = { (value: JSONValue, path: String) throws(JSONShapeError) -> TenderTotal in
      try TenderTotal(snapshot: value, path: path)
    }
    self.init()
    salesCount = try fields.int("sales_count", in: count)
    itemsSold = try fields.int64("items_sold", in: amount)
    gross = try fields.int64("gross", in: amount)
    lineDiscounts = try fields.int64("line_discounts", in: amount)
    orderDiscounts = try fields.int64("order_discounts", in: amount)
    savings = try fields.int64("savings", in: amount)
    overrides = try fields.int("overrides", in: count)
    overrideReduction = try fields.int64("override_reduction", in: amount)
    taxByClass = try fields.array("tax_by_class") { value, path throws(JSONShapeError) in
      try TaxLine(snapshot: value, path: path)
    }
    tax = try fields.int64("tax", in: amount)
    total = try fields.int64("total", in: amount)
    cashRounding = try fields.int64("cash_rounding", in: amount)
    tenders = try fields.array("tenders", tenderTotals)
    changeGiven = try fields.int64("change_given", in: amount)
    voidedOrders = try fields.int("voided_orders", in: count)
    voidedOrdersAmount = try fields.int64("voided_orders_amount", in: amount)
    voidedLines = try fields.int("voided_lines", in: count)
    voidedLinesAmount = try fields.int64("voided_lines_amount", in: amount)
    reversals = try fields.array("reversals", tenderTotals)
    returnsCount = try fields.int("returns_count", in: count)
    returnedItems = try fields.int64("returned_items", in: amount)
    returnsNet = try fields.int64("returns_net", in: amount)
    returnsTax = try fields.int64("returns_tax", in: amount)
    returnsTotal = try fields.int64("returns_total", in: amount)
    refunds = try fields.array("refunds", tenderTotals)
    refundCashRounding = try fields.int64("refund_cash_rounding", in: amount)
    float = try fields.int64("float", in: amount)
    paidIn = try fields.int64("paid_in", in: amount)
    paidInCount = try fields.int("paid_in_count", in: count)
    paidOut = try fields.int64("paid_out", in: amount)
    paidOutCount = try fields.int("paid_out_count", in: count)
    noSales = try fields.int("no_sales", in: count)
    firstReceipt = try fields.nullableInt("first_receipt", in: SnapshotRange.positive)
    lastReceipt = try fields.nullableInt("last_receipt", in: SnapshotRange.positive)
    giftCardsSold = try fields.addedLater("gift_cards_sold", absent: 0) {
      fields throws(JSONShapeError) in
      try fields.int64("gift_cards_sold", in: count)
    }
    giftCardsSoldAmount = try fields.addedLater("gift_cards_sold_amount", absent: 0) {
      fields throws(JSONShapeError) in try fields.int64("gift_cards_sold_amount", in: amount)
    }
    giftCardsReloaded = try fields.addedLater("gift_cards_reloaded", absent: 0) {
      fields throws(JSONShapeError) in try fields.int64("gift_cards_reloaded", in: count)
    }
    giftCardsReloadedAmount = try fields.addedLater("gift_cards_reloaded_amount", absent: 0) {
      fields throws(JSONShapeError) in try fields.int64("gift_cards_reloaded_amount", in: amount)
    }
    promotionDiscounts = try fields.addedLater("promotion_discounts", absent: 0) {
      fields throws(JSONShapeError) in try fields.int64("promotion_discounts", in: amount)
    }
    promotions = try fields.addedLater("promotions", absent: []) {
      fields throws(JSONShapeError) in try fields.array("promotions", tenderTotals)
    }
    try fields.rejectUnknown()
  }
}

extension TenderTotal {
  var snapshotValue: JSONValue {
    .object(["key": .string(key), "count": .int(count), "amount": .int(amount)])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(
      key: try fields.string("key"),
      count: try fields.int("count", in: SnapshotRange.count),
      amount: try fields.int64("amount", in: SnapshotRange.amount))
    try fields.rejectUnknown()
  }
}
