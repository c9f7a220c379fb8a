extension CustomerBook {
  /// The customers, as journaled, the number the next one gets, and the wishlists (by
  /// customer id, in id order, so that the same book always writes the same bytes).
  var snapshotValue: JSONValue {
    .object([
      "customers": .array(customers.map(\.json)),
      "next_customer_number": .int(nextCustomerNumber),
      "wishlists": .array(
        wishlists.keys.sorted().map { id in
          .object([
            "customer_id": .string(id),
            "skus": .array((wishlists[id] ?? []).map(JSONValue.string)),
          ])
        }),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    setCustomers(
      try fields.array("customers") { value, path throws(JSONShapeError) in
        try Customer(eventJSON: value, path: path)
      })
    nextCustomerNumber = try fields.int("next_customer_number", in: SnapshotRange.positive)
    // Wishlists came after the first snapshot format: an older snapshot has none.
    let entries = try fields.addedLater("wishlists", absent: []) {
      fields throws(JSONShapeError) in
      try fields.array("wishlists") { value, path throws(JSONShapeError) -> (String, [String]) in
        var entry = try JSONFields(value, path: path)
        let id = try entry.string("customer_id")
        let skus = try entry.array("skus") { value, path throws(JSONShapeError) in
          try String(json: value, path: path)
        }
        try entry.rejectUnknown()
        guard !skus.isEmpty, skus.count <= Self.maximumWishlist, Set(skus).count == skus.count
        else {
          throw JSONShapeError(
            path: path,
            message: "a wishlist holds 1 to \(Self.maximumWishlist) products, each once")
        }
        return (id, skus)
      }
    }
    for (index, entry) in entries.enumerated() {
      guard customer(entry.0) != nil, wishlists[entry.0] == nil else {
        throw JSONShapeError(
          path: indexPath(fields.pathOf("wishlists"), index),
          message: "names no customer, or one already listed")
      }
      wishlists[entry.0] = entry.1
    }
    try fields.rejectUnknown()
  }
}
