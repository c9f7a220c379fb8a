extension StoredValue {
  /// Gift cards in number order and store credit in customer-id order; amounts in minor units
  /// of the store currency.
  var snapshotValue: JSONValue {
    .object([
      "gift_cards": .array(giftCards.keys.sorted().compactMap { giftCards[$0]?.snapshotValue }),
      "store_credit": .array(
        storeCredit.keys.sorted().map { customer in
          .object([
            "customer_id": .string(customer), "balance": .int(storeCredit[customer] ?? 0),
          ])
        }),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    let cards = try fields.array("gift_cards") { value, path throws(JSONShapeError) in
      try GiftCard(snapshot: value, path: path)
    }
    for index in cards.indices.dropFirst() where cards[index - 1].number >= cards[index].number {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("gift_cards"), index),
        message: "gift cards must be in number order, each once")
    }
    giftCards = ChunkedDictionary(cards.map { ($0.number, $0) })
    let credits = try fields.array("store_credit") {
      value, path throws(JSONShapeError) -> (String, Int64) in
      var entry = try JSONFields(value, path: path)
      let customer = try entry.string("customer_id")
      let balance = try entry.int64("balance", in: SnapshotRange.amount)
      try entry.rejectUnknown()
      return (customer, balance)
    }
    for index in credits.indices.dropFirst() where credits[index - 1].0 >= credits[index].0 {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("store_credit"), index),
        message: "store credit must be in customer-id order, each once")
    }
    storeCredit = ChunkedDictionary(credits)
    try fields.rejectUnknown()
  }
}

extension GiftCard {
  /// Every stored property.
  var snapshotValue: JSONValue {
    .object([
      "number": .string(number),
      "issued_amount": .int(issuedAmount),
      "balance": .int(balance),
      "receipt": .int(receipt),
      "issued_day": .int(issuedDay),
      "issued_at": issuedAt.snapshotValue,
      "last_used_at": lastUsedAt.snapshot(\.snapshotValue),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let number = try fields.string("number")
    guard GiftCardNumber.isWellFormed(number) else {
      throw JSONShapeError(path: fields.pathOf("number"), message: "is not a gift card number")
    }
    self.init(
      number: number,
      issuedAmount: try fields.int64("issued_amount", in: SnapshotRange.amount),
      balance: try fields.int64("balance", in: SnapshotRange.amount),
      receipt: try fields.int("receipt", in: SnapshotRange.positive),
      issuedDay: try fields.int("issued_day", in: SnapshotRange.positive),
      issuedAt: try fields.timestamp("issued_at"),
      lastUsedAt: try fields.nullableTimestamp("last_used_at"))
    try fields.rejectUnknown()
  }
}
