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

  /// The ledger a snapshot's `ledger` member holds, read from its text: with `JSONReader`
  /// when the text is as the register writes it (the common case, and the fast one: no tree of
  /// a year's refunds is built), else as a tree, which accepts any member order and says what
  /// is wrong. `depth`: how deeply the member is nested in its document.
  init(snapshotText text: ArraySlice<UInt8>, depth: Int, path: String) throws(JSONShapeError) {
    if let ledger = Self.reading(text, depth: depth) {
      self = ledger
      return
    }
    let value: JSONValue
    do {
      value = try JSONParser.parse(text)
    } catch {
      throw JSONShapeError(path: path, message: "not JSON (\(error.description))")
    }
    try self.init(snapshot: value, path: path)
  }

  /// The ledger in `text` read by `JSONReader` alone: nil unless the text is as the register
  /// writes it and holds a valid ledger.
  static func reading(_ text: ArraySlice<UInt8>, depth: Int) -> ReceiptLedger? {
    guard let parts = JSONReader.read(text, depth: depth, { Parts(reading: &$0) }) else {
      return nil
    }
    return try? ReceiptLedger(parts, path: "")
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let sold = try fields.decoded("sales") { value, path throws(JSONShapeError) in
      try Self.sales(value, path: path)
    }
    let returned = try fields.decoded("returns") { value, path throws(JSONShapeError) in
      try Self.returns(value, path: path)
    }
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
      try entry.rejectUnknown()
      return (receipt, try Self.returnedLines(lines, path: entry.pathOf("lines")))
    }
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
    let next = try fields.int("next_receipt_number", in: SnapshotRange.positive)
    let last = try fields.nullableInt("last_receipt_number", in: SnapshotRange.positive)
    let archived = try fields.decoded("archive") { value, path throws(JSONShapeError) in
      try Self.archivedDays(value, path: path)
    }
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
    try fields.rejectUnknown()
    try self.init(
      Parts(
        sold: sold, returned: returned, quantities: quantities, states: states, next: next,
        last: last, archived: archived, customers: customers),
      path: path)
  }

  /// A ledger's members as read, before the checks that span them (`init(_:path:)`).
  fileprivate struct Parts {
    var sold: [CompletedSale]
    var returned: [CompletedReturn]
    var quantities: [(Int, [Int: Int64])]
    var states: [(Int, RefundState)]
    var next: Int
    var last: Int?
    var archived: [ArchivedDay]
    var customers: [(String, [Int])]
  }

  /// The ledger `parts` make, checked as a whole: keyed entries in increasing order, no receipt
  /// both a sale and a return, archived runs in order and before every receipt kept, and every
  /// number used before the next one.
  fileprivate init(_ parts: Parts, path: String) throws(JSONShapeError) {
    self.init()
    let pathOf = { (key: String) in joinPath(path, key) }
    try requireIncreasing(parts.sold.map(\.receiptNumber), path: pathOf("sales"))
    try requireIncreasing(parts.returned.map(\.receiptNumber), path: pathOf("returns"))
    let saleNumbers = Set(parts.sold.map(\.receiptNumber))
    for (index, refund) in parts.returned.enumerated()
    where saleNumbers.contains(refund.receiptNumber) {
      throw JSONShapeError(
        path: indexPath(pathOf("returns"), index),
        message: "receipt \(refund.receiptNumber) is also a sale")
    }
    for sale in parts.sold { sales.append(sale) }
    for refund in parts.returned { returns.append(refund) }
    try requireIncreasing(parts.quantities.map(\.0), path: pathOf("returned_quantities"))
    returnedQuantities = ChunkedDictionary(parts.quantities)
    try requireIncreasing(parts.states.map(\.0), path: pathOf("refunded"))
    refunded = ChunkedDictionary(parts.states)
    nextReceiptNumber = parts.next
    lastReceiptNumber = parts.last
    // Archived runs hold the oldest receipts: days do not go back, numbers increase across
    // runs and stay before every receipt still in memory.
    let archived = parts.archived
    for index in archived.indices.dropFirst()
    where archived[index].day < archived[index - 1].day
      || archived[index].first <= archived[index - 1].last
    {
      throw JSONShapeError(
        path: indexPath(pathOf("archive"), index),
        message: "archived runs must follow one another in day and number order")
    }
    let kept = (parts.sold.map(\.receiptNumber) + parts.returned.map(\.receiptNumber)).min()
    if let kept, let last = archived.last, kept <= last.last {
      throw JSONShapeError(
        path: pathOf("archive"), message: "receipt \(kept) is both archived and kept")
    }
    for day in archived { archive.append(day) }
    let customers = parts.customers
    for index in customers.indices.dropFirst() where customers[index].0 <= customers[index - 1].0 {
      throw JSONShapeError(
        path: indexPath(pathOf("customer_receipts"), index),
        message: "customers must be in id order, each once")
    }
    customerReceipts = ChunkedDictionary(customers)
    // Receipt numbers are never given twice: every number used is before the next one.
    let highest = max(
      parts.sold.last?.receiptNumber ?? 0, parts.returned.last?.receiptNumber ?? 0,
      archive.lastNumber ?? 0)
    if max(highest, lastReceiptNumber ?? 0) >= nextReceiptNumber {
      throw JSONShapeError(
        path: pathOf("next_receipt_number"),
        message: "receipt numbers up to \(max(highest, lastReceiptNumber ?? 0)) are used")
    }
  }

  /// What has been returned of one sale, by line: the lines in increasing order, each once.
  fileprivate static func returnedLines(
    _ lines: [(Int, Int64)], path: String
  ) throws(JSONShapeError) -> [Int: Int64] {
    try requireIncreasing(lines.map(\.0), path: path)
    return Dictionary(lines, uniquingKeysWith: { first, _ in first })
  }

  /// The sales kept in memory (those of days not archived yet).
  fileprivate static func sales(
    _ value: JSONValue, path: String
  ) throws(JSONShapeError) -> [CompletedSale] {
    try snapshotArray(value, path: path) { value, path throws(JSONShapeError) in
      try CompletedSale(snapshot: value, path: path)
    }
  }

  /// The returns kept in memory.
  fileprivate static func returns(
    _ value: JSONValue, path: String
  ) throws(JSONShapeError) -> [CompletedReturn] {
    try snapshotArray(value, path: path) { value, path throws(JSONShapeError) in
      try CompletedReturn(snapshot: value, path: path)
    }
  }

  /// The runs of archived receipts, day by day.
  fileprivate static func archivedDays(
    _ value: JSONValue, path: String
  ) throws(JSONShapeError) -> [ArchivedDay] {
    try snapshotArray(value, path: path) { value, path throws(JSONShapeError) -> ArchivedDay in
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
  }
}

extension ReceiptLedger.Parts {
  /// The members of a ledger as the register writes them, read in that order, with the same
  /// rules as `ReceiptLedger.init(snapshot:path:)` (nil at the first difference). The sales,
  /// returns and archive, few at any time, are read as trees by that reader's own decoders.
  fileprivate init?(reading reader: inout JSONReader) {
    guard reader.beginObject(), reader.member("sales"), let sales = reader.value(),
      let sold = try? ReceiptLedger.sales(sales, path: ""),
      reader.member("returns"), let returns = reader.value(),
      let returned = try? ReceiptLedger.returns(returns, path: ""),
      reader.member("returned_quantities"), let quantities = Self.quantities(&reader),
      reader.member("refunded"), let states = Self.states(&reader),
      reader.member("next_receipt_number"), let next = reader.int(in: SnapshotRange.positive),
      reader.member("last_receipt_number")
    else { return nil }
    var last: Int?
    if !reader.null() {
      guard let number = reader.int(in: SnapshotRange.positive) else { return nil }
      last = number
    }
    guard reader.member("archive"), let archive = reader.value(),
      let archived = try? ReceiptLedger.archivedDays(archive, path: ""),
      reader.member("customer_receipts"), let customers = Self.customers(&reader),
      reader.endObject()
    else { return nil }
    self.init(
      sold: sold, returned: returned, quantities: quantities, states: states, next: next,
      last: last, archived: archived, customers: customers)
  }

  /// `[{"receipt":R,"lines":[{"line":L,"quantity":Q},…]},…]`
  private static func quantities(_ reader: inout JSONReader) -> [(Int, [Int: Int64])]? {
    var entries: [(Int, [Int: Int64])] = []
    let read = reader.array { reader in
      var lines: [(Int, Int64)] = []
      guard reader.beginObject(), reader.member("receipt"),
        let receipt = reader.int(in: SnapshotRange.positive), reader.member("lines"),
        reader.array({ reader in
          guard reader.beginObject(), reader.member("line"),
            let line = reader.int(in: SnapshotRange.positive), reader.member("quantity"),
            let quantity = reader.int64(in: SnapshotRange.count), reader.endObject()
          else { return false }
          lines.append((line, quantity))
          return true
        }),
        reader.endObject(),
        let returned = try? ReceiptLedger.returnedLines(lines, path: "")
      else { return false }
      entries.append((receipt, returned))
      return true
    }
    return read ? entries : nil
  }

  /// `[{"receipt":R,"state":{"cards":[…],"others":[…],"cash":C,"line_refunds":…}},…]`
  private static func states(_ reader: inout JSONReader) -> [(Int, RefundState)]? {
    var entries: [(Int, RefundState)] = []
    let read = reader.array { reader in
      var cards: [(CardSummary, Int64)] = []
      var others: [(String, Int64)] = []
      guard reader.beginObject(), reader.member("receipt"),
        let receipt = reader.int(in: SnapshotRange.positive), reader.member("state"),
        reader.beginObject(), reader.member("cards"),
        reader.array({ reader in
          guard reader.beginObject(), reader.member("brand"), let brand = reader.string(),
            reader.member("last4"), let last4 = reader.string(), reader.member("amount"),
            let amount = reader.int64(in: SnapshotRange.amount), reader.endObject(),
            let card = try? CardSummary(brandName: brand, last4: last4, path: "")
          else { return false }
          cards.append((card, amount))
          return true
        }),
        reader.member("others"),
        reader.array({ reader in
          guard reader.beginObject(), reader.member("key"), let key = reader.string(),
            reader.member("amount"), let amount = reader.int64(in: SnapshotRange.amount),
            reader.endObject()
          else { return false }
          others.append((key, amount))
          return true
        }),
        reader.member("cash"), let cash = reader.int64(in: SnapshotRange.amount),
        reader.member("line_refunds"), let lines = Self.lineRefunds(&reader),
        reader.endObject(), reader.endObject(),
        let state = try? RefundState(
          cards: cards, others: others, cash: cash, lines: lines.known ? lines.entries : nil,
          path: "")
      else { return false }
      entries.append((receipt, state))
      return true
    }
    return read ? entries : nil
  }

  /// `null` (not known) or `[{"line":L,"net":N,"tax":T},…]`.
  private static func lineRefunds(
    _ reader: inout JSONReader
  ) -> (known: Bool, entries: [(Int, LineRefund)])? {
    if reader.null() { return (false, []) }
    var entries: [(Int, LineRefund)] = []
    let read = reader.array { reader in
      guard reader.beginObject(), reader.member("line"),
        let line = reader.int(in: SnapshotRange.positive), reader.member("net"),
        let net = reader.int64(in: SnapshotRange.amount), reader.member("tax"),
        let tax = reader.int64(in: SnapshotRange.amount), reader.endObject()
      else { return false }
      entries.append((line, LineRefund(net: net, tax: tax)))
      return true
    }
    return read ? (true, entries) : nil
  }

  /// `[{"customer":ID,"receipts":[R,…]},…]`
  private static func customers(_ reader: inout JSONReader) -> [(String, [Int])]? {
    var entries: [(String, [Int])] = []
    let read = reader.array { reader in
      var numbers: [Int] = []
      guard reader.beginObject(), reader.member("customer"), let id = reader.string(),
        reader.member("receipts"),
        reader.array({ reader in
          guard let number = reader.int(in: SnapshotRange.positive) else { return false }
          numbers.append(number)
          return true
        }),
        reader.endObject(), (try? requireIncreasing(numbers, path: "")) != nil
      else { return false }
      entries.append((id, numbers))
      return true
    }
    return read ? entries : nil
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
      "line_refunds": lineRefunds.snapshot { lines in
        .array(
          lines.keys.sorted().map { line in
            let refund = lines[line] ?? LineRefund(net: 0, tax: 0)
            return .object([
              "line": .int(line), "net": .int(refund.net), "tax": .int(refund.tax),
            ])
          })
      },
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let cards = try fields.array("cards") {
      value, path throws(JSONShapeError) -> (CardSummary, Int64) in
      var entry = try JSONFields(value, path: path)
      let brand = try entry.string("brand")
      let last4 = try entry.string("last4")
      let amount = try entry.int64("amount", in: SnapshotRange.amount)
      try entry.rejectUnknown()
      return (try CardSummary(brandName: brand, last4: last4, path: path), amount)
    }
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
    let cash = try fields.int64("cash", in: SnapshotRange.amount)
    // Absent from a snapshot of a register that did not keep them: unknown (nil).
    let lines = try fields.addedLater("line_refunds", absent: nil) {
      fields throws(JSONShapeError) -> [(Int, LineRefund)]? in
      try fields.nullable("line_refunds") { value, path throws(JSONShapeError) in
        try snapshotArray(value, path: path) {
          value, path throws(JSONShapeError) -> (Int, LineRefund) in
          var entry = try JSONFields(value, path: path)
          let line = try entry.int("line", in: SnapshotRange.positive)
          let net = try entry.int64("net", in: SnapshotRange.amount)
          let tax = try entry.int64("tax", in: SnapshotRange.amount)
          try entry.rejectUnknown()
          return (line, LineRefund(net: net, tax: tax))
        }
      }
    }
    try fields.rejectUnknown()
    try self.init(cards: cards, others: others, cash: cash, lines: lines, path: path)
  }

  /// The refunds of one sale: the cards in brand and last-four order and the other tenders in
  /// key order, each once.
  fileprivate init(
    cards: [(CardSummary, Int64)], others: [(String, Int64)], cash: Int64,
    lines: [(Int, LineRefund)]?, path: String
  ) throws(JSONShapeError) {
    self.init()
    for index in cards.indices.dropFirst() where !Self.cardOrder(cards[index - 1].0, cards[index].0)
    {
      throw JSONShapeError(
        path: indexPath(joinPath(path, "cards"), index),
        message: "cards must be in brand and last-four order, each once")
    }
    self.cards = Dictionary(cards, uniquingKeysWith: { first, _ in first })
    for index in others.indices.dropFirst() where others[index - 1].0 >= others[index].0 {
      throw JSONShapeError(
        path: indexPath(joinPath(path, "others"), index),
        message: "others must be in key order, each once")
    }
    self.others = Dictionary(uniqueKeysWithValues: others)
    self.cash = cash
    if let lines {
      try requireIncreasing(lines.map(\.0), path: joinPath(path, "line_refunds"))
      lineRefunds = Dictionary(lines, uniquingKeysWith: { first, _ in first })
    } else {
      lineRefunds = nil
    }
  }

  private static func cardOrder(_ lhs: CardSummary, _ rhs: CardSummary) -> Bool {
    (lhs.brand.rawValue, lhs.last4) < (rhs.brand.rawValue, rhs.last4)
  }
}
