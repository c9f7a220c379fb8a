/// The register's whole state as one JSON value, and back: what a snapshot file holds, so that
/// registerd can start from it plus the journal records after it instead of replaying the
/// whole journal.
///
/// Each part has one encoder and one decoder beside it (`StoreCatalog+Snapshot.swift`, ...), and
/// every stored property of every part is written, derived ones (totals) included: decoding
/// gives a register equal to the one encoded, and encoding that again gives the same bytes
/// (dictionaries are written as arrays or objects in sorted key order). Decoding is strict:
/// an unknown member, a missing one, a wrong type or an integer out of its range is a
/// `JSONShapeError` naming the path, never a trap.
extension Register {
  /// The snapshot format this code writes. Format 2 writes a product as last imported that
  /// the live catalog has, changed in stock alone, as a reference to the live product
  /// (`StoreCatalog.snapshotValue`); format 1 wrote every one in full.
  public static let snapshotFormat = 2
  /// The formats this code reads: its own, and the one before (an upgrade keeps starting from
  /// the snapshots the older registerd wrote).
  public static let readableSnapshotFormats: ClosedRange<Int64> = 1...2

  /// The whole state, as a snapshot.
  public func snapshotValue() -> JSONValue {
    .object([
      "format": .int(Self.snapshotFormat),
      "catalog": catalog.snapshotValue,
      "orders": orders.snapshotValue,
      "ledger": ledger.snapshotValue,
      "staff": staff.snapshotValue,
      "customer_book": customerBook.snapshotValue,
      "stored_value": storedValue.snapshotValue,
      "day_book": dayBook.snapshotValue,
      "keys": keys.snapshotValue,
      "print_queue": printQueue.snapshotValue,
      "last_sequence": .int(lastSequence),
      "last_activity": lastActivity.snapshot(\.snapshotValue),
    ])
  }

  /// The register a snapshot holds. Amounts of the open and parked orders are read in the
  /// store's currency; receipts and closed days carry their own.
  public init(snapshot value: JSONValue) throws(JSONShapeError) {
    try self.init(snapshot: value) { () throws(JSONShapeError) in
      try Register.snapshotCatalog(value)
    }
  }

  /// The catalog part of a snapshot alone (the largest part: a store's products, twice).
  public static func snapshotCatalog(_ value: JSONValue) throws(JSONShapeError) -> StoreCatalog {
    guard let member = value["catalog"] else {
      throw JSONShapeError(path: "catalog", message: "is required")
    }
    return try snapshotCatalog(member: member)
  }

  /// The catalog part of a snapshot from its own text (the state's `catalog` member, parsed
  /// apart: `SnapshotFile.decode(_:splittingCatalog:)`).
  public static func snapshotCatalog(text: ArraySlice<UInt8>) throws(JSONShapeError)
    -> StoreCatalog
  {
    let member: JSONValue
    do {
      member = try JSONParser.parse(text)
    } catch {
      throw JSONShapeError(path: "catalog", message: "not JSON (\(error.description))")
    }
    return try snapshotCatalog(member: member)
  }

  private static func snapshotCatalog(member: JSONValue) throws(JSONShapeError) -> StoreCatalog {
    try withPathsOnFailure("catalog") { path throws(JSONShapeError) in
      try StoreCatalog(snapshot: member, path: path)
    }
  }

  /// The members of a snapshot's state a reader may leave unparsed and read from their own
  /// text (`SnapshotFile.decode(_:splittingCatalog:decodeState:)`): the catalog, decoded on
  /// another thread (`snapshotCatalog(text:)`), and the ledger, the largest part that grows
  /// with the history, read without building its tree (`ReceiptLedger(snapshotText:)`).
  public static let stateMembersReadAsText: Set<String> = ["catalog", "ledger"]

  /// The register a snapshot holds, with its catalog part from `catalog`, which is called
  /// once the other parts are decoded: a caller may decode the catalog (`snapshotCatalog`) on
  /// another thread meanwhile, and give it here. `texts`: members of the state left unparsed
  /// (`null` in `value`) and given as their text, by key (`stateMembersReadAsText`).
  public init(
    snapshot value: JSONValue, texts: [String: ArraySlice<UInt8>] = [:],
    catalog decodeCatalog: () throws(JSONShapeError) -> StoreCatalog
  ) throws(JSONShapeError) {
    var fields = try JSONFields(value)
    let format = try fields.int64("format", in: SnapshotRange.count)
    guard Self.readableSnapshotFormats.contains(format) else {
      throw JSONShapeError(
        path: "format",
        message:
          "snapshot format \(format) is not one this registerd reads (1-\(Self.snapshotFormat))")
    }
    self.init()
    // The parts that grow with the register's history first (receipts carry their own
    // currency), then the catalog, whose currency the open and parked orders are read in.
    ledger = try fields.decoded("ledger") { value, path throws(JSONShapeError) in
      if let text = texts["ledger"] {
        // The state's members are nested two deep: in the snapshot, in its state.
        return try ReceiptLedger(snapshotText: text, depth: 2, path: path)
      }
      return try ReceiptLedger(snapshot: value, path: path)
    }
    staff = try fields.decoded("staff") { value, path throws(JSONShapeError) in
      try Staff(snapshot: value, path: path)
    }
    customerBook = try fields.decoded("customer_book") { value, path throws(JSONShapeError) in
      try CustomerBook(snapshot: value, path: path)
    }
    storedValue = try fields.addedLater("stored_value", absent: StoredValue()) {
      fields throws(JSONShapeError) in
      try fields.decoded("stored_value") { value, path throws(JSONShapeError) in
        try StoredValue(snapshot: value, path: path)
      }
    }
    dayBook = try fields.decoded("day_book") { value, path throws(JSONShapeError) in
      try DayBook(snapshot: value, path: path)
    }
    keys = try fields.decoded("keys") { value, path throws(JSONShapeError) in
      try KeyTable(snapshot: value, path: path)
    }
    // Snapshots written before the receipt printer have no print queue: none was queued.
    printQueue = try fields.addedLater("print_queue", absent: PrintQueue()) {
      fields throws(JSONShapeError) in
      try fields.decoded("print_queue") { value, path throws(JSONShapeError) in
        try PrintQueue(snapshot: value, path: path)
      }
    }
    _ = try fields.member("catalog")
    catalog = try decodeCatalog()
    let currency = catalog.store.currency
    orders = try fields.decoded("orders") { value, path throws(JSONShapeError) in
      try Orders(snapshot: value, path: path, currency: currency)
    }
    lastSequence = try fields.int64("last_sequence", in: SnapshotRange.count)
    lastActivity = try fields.nullableTimestamp("last_activity")
    try fields.rejectUnknown()
  }
}

extension Register: Equatable {
  /// Every part, the last sequence number and the last activity time.
  public static func == (lhs: Register, rhs: Register) -> Bool {
    lhs.catalog == rhs.catalog && lhs.orders == rhs.orders && lhs.ledger == rhs.ledger
      && lhs.staff == rhs.staff && lhs.customerBook == rhs.customerBook
      && lhs.storedValue == rhs.storedValue
      && lhs.dayBook == rhs.dayBook && lhs.keys == rhs.keys && lhs.printQueue == rhs.printQueue
      && lhs.lastSequence == rhs.lastSequence && lhs.lastActivity == rhs.lastActivity
  }
}
