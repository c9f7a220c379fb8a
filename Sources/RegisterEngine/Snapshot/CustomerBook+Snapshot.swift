extension CustomerBook {
  /// The customers, as journaled, and the number the next one gets.
  var snapshotValue: JSONValue {
    .object([
      "customers": .array(customers.map(\.json)),
      "next_customer_number": .int(nextCustomerNumber),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    customers = try fields.array("customers") { value, path throws(JSONShapeError) in
      try Customer(eventJSON: value, path: path)
    }
    nextCustomerNumber = try fields.int("next_customer_number", in: SnapshotRange.positive)
    try fields.rejectUnknown()
  }
}
