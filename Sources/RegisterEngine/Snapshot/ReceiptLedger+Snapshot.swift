extension ReceiptLedger {
  /// The ledger: every sale and return in full, what has been returned and refunded against
  /// each sale (in receipt order), and the receipt numbering. The one place the ledger is
  /// encoded: a field added to `ReceiptLedger` is added here and in `init(snapshot:path:)`.
  var snapshotValue: JSONValue {
    .object([
      "sales": .array(sales.values.map(\.snapshotValue)),
      "returns": .array(returns.values.map(\.snapshotValue)),
      "returned_quantities": .array(
        returnedQuantities.keys.sorted().map { receipt in
          let lines = returnedQuantities[receipt] ?? [:]
          return .object([
            "receipt": .int(receipt),
            "lines": .array(
              lines.keys.sorted().map { line in
                .object(["line": .int(line), "quantity": .int(lines[line] ?? 0)])
              }),
          ])
        }),
      "refunded": .array(
        refunded.keys.sorted().map { receipt in
          .object([
            "receipt": .int(receipt), "state": refunded[receipt]?.snapshotValue ?? .null,
          ])
        }),
      "next_receipt_number": .int(nextReceiptNumber),
      "last_receipt_number": lastReceiptNumber.snapshot { .int($0) },
      "archive": .array(
        archive.days.map { run in
          .object([
            "day": .int(run.day), "first": .int(run.first), "count": .int(run.count),
            "position": .int(run.position),
          ])
        }),
      "customer_receipts": .array(
        customerReceipts.keys.sorted().map { id in
          .object([
            "customer": .string(id),
            "receipts": .array((customerReceipts[id] ?? []).map { .int($0) }),
          ])
        }),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    let sold = try fields.array("sales") { value, path throws(JSONShapeError) in
      try CompletedSale(snapshot: value, path: path)
    }
    try requireIncreasing(sold.map(\.receiptNumber), path: fields.pathOf("sales"))
    let returned = try fields.array("returns") { value, path throws(JSONShapeError) in
      try CompletedReturn(snapshot: value, path: path)
    }
    try requireIncreasing(returned.map(\.receiptNumber), path: fields.pathOf("returns"))
    let saleNumbers = Set(sold.map(\.receiptNumber))
    for (index, refund) in returned.enumerated() where saleNumbers.contains(refund.receiptNumber) {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("returns"), index),
        message: "receipt \(refund.receiptNumber) is also a sale")
    }
    for sale in sold { sales.append(sale) }
    for refund in returned { returns.append(refund) }
    let quantities = try fields.array("returned_quantities") {
      value, path throws(JSONShapeError) -> (Int, [Int: Int64]) in
      var entry = try JSONFields(value, path: path)
      let receipt = try entry.int("receipt", in: SnapshotRange.positive)
      let lines = try entry.array("lines") {
        value, path throws(JSONShapeError) -> (Int, Int64) in
        var line = try JSONFields(value, path: path)
        let number = try line.int("line", in: SnapshotRange.positive)
        let quantity = try line.int64("quantity", in: SnapshotRange.count)
        try line.rejectUnknown()
        return (number, quantity)
      }
      try requireIncreasing(lines.map(\.0), path: entry.pathOf("lines"))
      try entry.rejectUnknown()
      return (receipt, Dictionary(lines, uniquingKeysWith: { first, _ in first }))
    }
    try requireIncreasing(quantities.map(\.0), path: fields.pathOf("returned_quantities"))
    returnedQuantities = Dictionary(quantities, uniquingKeysWith: { first, _ in first })
    let states = try fields.array("refunded") {
      value, path throws(JSONShapeError) -> (Int, RefundState) in
      var entry = try JSONFields(value, path: path)
      let receipt = try entry.int("receipt", in: SnapshotRange.positive)
      let state = try entry.decoded("state") { value, path throws(JSONShapeError) in
        try RefundState(snapshot: value, path: path)
      }
      try entry.rejectUnknown()
      return (receipt, state)
    }
    try requireIncreasing(states.map(\.0), path: fields.pathOf("refunded"))
    refunded = Dictionary(states, uniquingKeysWith: { first, _ in first })
    nextReceiptNumber = try fields.int("next_receipt_number", in: SnapshotRange.positive)
    lastReceiptNumber = try fields.nullableInt("last_receipt_number", in: SnapshotRange.positive)
    let archived = try fields.array("archive") {
      value, path throws(JSONShapeError) -> ArchivedDay in
      var entry = try JSONFields(value, path: path)
      let day = try entry.int("day", in: SnapshotRange.positive)
      let first = try entry.int("first", in: SnapshotRange.positive)
      let count = try entry.int("count", in: SnapshotRange.positive)
      let position = try entry.int("position", in: SnapshotRange.count)
      try entry.rejectUnknown()
      guard Int64(first) <= IntegerRanges.maximumCounter - Int64(count) else {
        throw JSONShapeError(path: entry.pathOf("count"), message: "runs past the largest number")
      }
      return ArchivedDay(day: day, first: first, count: count, position: position)
    }
    // Archived runs hold the oldest receipts: days do not go back, numbers increase across
    // runs and stay before every receipt still in memory.
    for index in archived.indices.dropFirst()
    where archived[index].day < archived[index - 1].day
      || archived[index].first <= archived[index - 1].last
    {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("archive"), index),
        message: "archived runs must follow one another in day and number order")
    }
    let kept = (sold.map(\.receiptNumber) + returned.map(\.receiptNumber)).min()
    if let kept, let last = archived.last, kept <= last.last {
      throw JSONShapeError(
        path: fields.pathOf("archive"), message: "receipt \(kept) is both archived and kept")
    }
    for day in archived { archive.append(day) }
    let customers = try fields.array("customer_receipts") {
      value, path throws(JSONShapeError) -> (String, [Int]) in
      var entry = try JSONFields(value, path: path)
      let id = try entry.string("customer")
      let numbers = try entry.array("receipts") { value, path throws(JSONShapeError) in
        try snapshotInt(value, path: path, in: SnapshotRange.positive)
      }
      try requireIncreasing(numbers, path: entry.pathOf("receipts"))
      try entry.rejectUnknown()
      return (id, numbers)
    }
    for index in customers.indices.dropFirst() where customers[index].0 <= customers[index - 1].0 {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("customer_receipts"), index),
        message: "customers must be in id order, each once")
    }
    customerReceipts = Dictionary(customers, uniquingKeysWith: { first, _ in first })
    // Receipt numbers are never given twice: every number used is before the next one.
    let highest = max(
      sold.last?.receiptNumber ?? 0, returned.last?.receiptNumber ?? 0, archive.lastNumber ?? 0)
    if max(highest, lastReceiptNumber ?? 0) >= nextReceiptNumber {
      throw JSONShapeError(
        path: fields.pathOf("next_receipt_number"),
        message: "receipt numbers up to \(max(highest, lastReceiptNumber ?? 0)) are used")
    }
    try fields.rejectUnknown()
  }
}

extension RefundState {
  /// The card refunds ordered by brand and last four, and the cash.
  var snapshotValue: JSONValue {
    .object([
      "cards": .array(
        cards.keys.sorted(by: Self.cardOrder).map { card in
          .object([
            "brand": .string(card.brand.rawValue), "last4": .string(card.last4),
            "amount": .int(cards[card] ?? 0),
          ])
        }),
      "others": .array(
        others.keys.sorted().map { key in
          .object(["key": .string(key), "amount": .int(others[key] ?? 0)])
        }),
      "cash": .int(cash),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    let entries = try fields.array("cards") {
      value, path throws(JSONShapeError) -> (CardSummary, Int64) in
      var entry = try JSONFields(value, path: path)
      let amount = try entry.int64("amount", in: SnapshotRange.amount)
      let brand = try entry.string("brand")
      let last4 = try entry.string("last4")
      try entry.rejectUnknown()
      // The card's own reader checks the brand and the four digits.
      let card = try CardSummary(
        json: .object(["brand": .string(brand), "last4": .string(last4)]), path: path)
      return (card, amount)
    }
    for index in entries.indices.dropFirst()
    where !Self.cardOrder(entries[index - 1].0, entries[index].0) {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("cards"), index),
        message: "cards must be in brand and last-four order, each once")
    }
    cards = Dictionary(entries, uniquingKeysWith: { first, _ in first })
    let others = try fields.addedLater("others", absent: []) {
      fields throws(JSONShapeError) in
      try fields.array("others") { value, path throws(JSONShapeError) -> (String, Int64) in
        var entry = try JSONFields(value, path: path)
        let key = try entry.string("key")
        let amount = try entry.int64("amount", in: SnapshotRange.amount)
        try entry.rejectUnknown()
        return (key, amount)
      }
    }
    for index in others.indices.dropFirst() where others[index - 1].0 >= others[index].0 {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("others"), index),
        message: "others must be in key order, each once")
    }
    self.others = Dictionary(uniqueKeysWithValues: others)
    cash = try fields.int64("cash", in: SnapshotRange.amount)
    try fields.rejectUnknown()
  }

  private static func cardOrder(_ lhs: CardSummary, _ rhs: CardSummary) -> Bool {
    (lhs.brand.rawValue, lhs.last4) < (rhs.brand.rawValue, rhs.last4)
  }
}
