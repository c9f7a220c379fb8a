import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A register behind the protocol, journaling into memory, with fixed "random" bytes (PIN
/// salts), so that two lanes sent the same lines give the same replies and records.
struct CodecLane {
  let storage = MemoryJournalStorage()
  let clock: ManualClock
  let journal: Journal
  let service: RegisterService

  /// A lane that continues `register`: its journal chain goes on from `lastSum`.
  init(register: Register, at time: Timestamp, lastSum: String) {
    clock = ManualClock(time)
    journal = Journal(storage: storage, lastSum: lastSum, lastSequence: register.lastSequence)
    service = RegisterService(
      register: register, clock: clock, random: { [UInt8](repeating: 7, count: $0) },
      journal: journal)
  }

  /// A new lane on the catalog `text`, started as registerd starts on an empty directory.
  init(catalog text: String) throws {
    self.init(register: Register(), at: testTime, lastSum: JournalRecord.genesis)
    let catalog = try CatalogFile.parse(Array(text.utf8), file: "codec.json")
    try service.commit(Register.startupEvents(for: catalog, current: nil))
  }

  var register: Register { service.register }

  /// The reply line to one request line.
  func handle(_ line: String) -> String { service.handle(line: line) }
}

/// Random histories with operators: sign-ins, wrong and right PINs (locks and their expiry),
/// approvals, unlocks, floats, keyed requests (repeated and reused keys) on top of the
/// cashier requests of `RandomHistory`.
enum StaffedHistory {
  /// The test catalog, with cheap PIN hashes.
  static let catalog = testCatalogJSON.replacingOccurrences(
    of: #""receipt_footer": "Thank you!""#,
    with: #""receipt_footer": "Thank you!", "pin_hash_iterations": 1000, "lockout_minutes": 5"#)

  /// The requests that staff the lane: a manager "mo" (PIN 9876) and a cashier "amy" (1234).
  static let opening = [
    #"{"op":"operator_add","operator_id":"mo","name":"Mo","role":"manager","pin":"9876"}"#,
    #"{"op":"sign_in","operator":"mo","pin":"9876"}"#,
    #"{"op":"operator_add","operator_id":"amy","name":"Amy","role":"cashier","pin":"1234"}"#,
    #"{"op":"sign_in","operator":"amy","pin":"1234"}"#,
  ]

  static func request(_ random: inout SplitMix64, register: Register) -> String {
    let who = random.pick(["amy", "mo"])
    let right = who == "amy" ? "1234" : "9876"
    let line: String
    // Nobody signed in (a lock or a sign-out): someone signs in again, half the time.
    let signIn = register.signedIn == nil && random.below(2) == 0
    switch signIn ? 0 : random.below(40) {
    case 0: line = #"{"op":"sign_in","operator":"\#(who)","pin":"\#(right)"}"#
    // Wrong PINs for amy come far more often than her right one, so runs of them lock her.
    case 1...4: line = #"{"op":"sign_in","operator":"amy","pin":"1111"}"#
    case 5: line = #"{"op":"sign_out"}"#
    case 6: line = #"{"op":"no_sale","approve":{"operator":"mo","pin":"1111"}}"#
    case 7: line = #"{"op":"no_sale","approve":{"operator":"mo","pin":"9876"}}"#
    case 8: line = #"{"op":"operator_unlock","operator_id":"\#(who)"}"#
    case 9: line = #"{"op":"float","amount":"\#(random.below(200)).00"}"#
    case 10: line = #"{"op":"operator_set_pin","operator_id":"amy","pin":"1234"}"#
    case 11: line = #"{"op":"close_day"}"#
    default: line = RandomHistory.request(&random, register: register)
    }
    // A quarter of the requests carry a key from a small set: some repeat a request, some
    // reuse a key for another request.
    guard random.below(4) == 0, line.hasSuffix("}") else { return line }
    return String(line.dropLast()) + #","key":"k\#(random.below(12))"}"#
  }

  /// Milliseconds to the next request: usually seconds, sometimes past a PIN lock.
  static func pause(_ random: inout SplitMix64) -> Int64 {
    random.below(10) == 0 ? Int64(6 * 60_000) : Int64(1 + random.below(90_000))
  }
}

/// What a history reached, over the states it went through (each lane runs through them
/// after a snapshot).
struct SnapshotCoverage {
  var closedDays = false
  var keys = false
  var lockedOperator = false
  var failedPINs = false
  var parked = false
  var returns = false
  var signedOut = false

  mutating func note(_ register: Register) {
    closedDays = closedDays || !register.closedDays.isEmpty
    keys = keys || register.keys.count > 0
    lockedOperator = lockedOperator || register.operators.contains { $0.locked }
    failedPINs = failedPINs || register.operators.contains { $0.failedAttempts > 0 }
    parked = parked || !register.parked.isEmpty
    returns = returns || !register.returns.isEmpty
    signedOut = signedOut || (!register.operators.isEmpty && register.signedIn == nil)
  }
}

@Suite struct SnapshotCodecTests {
  /// Encodes and decodes `register`, and checks that nothing was lost or changed: the decoded
  /// register is equal part by part, digests the same, and encodes to the same bytes.
  static func roundTrip(
    _ register: Register, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Register {
    let bytes = register.snapshotValue().serializedBytes
    let decoded = try Register(snapshot: try JSONParser.parse(bytes))
    #expect(decoded.catalog == register.catalog, sourceLocation: sourceLocation)
    #expect(decoded.orders == register.orders, sourceLocation: sourceLocation)
    #expect(decoded.ledger == register.ledger, sourceLocation: sourceLocation)
    #expect(decoded.staff == register.staff, sourceLocation: sourceLocation)
    #expect(decoded.customerBook == register.customerBook, sourceLocation: sourceLocation)
    #expect(decoded.dayBook == register.dayBook, sourceLocation: sourceLocation)
    #expect(decoded.keys == register.keys, sourceLocation: sourceLocation)
    #expect(decoded.lastSequence == register.lastSequence, sourceLocation: sourceLocation)
    #expect(decoded.lastActivity == register.lastActivity, sourceLocation: sourceLocation)
    #expect(decoded == register, sourceLocation: sourceLocation)
    #expect(
      RandomHistory.digest(decoded) == RandomHistory.digest(register),
      sourceLocation: sourceLocation)
    #expect(decoded.snapshotValue().serializedBytes == bytes, sourceLocation: sourceLocation)
    return decoded
  }

  /// Drives `count` requests from `random` into the lane, snapshotting every `every`: each
  /// snapshot is decoded into a second lane, and the next `every` requests go to both lanes,
  /// which must give the same replies, write the same journal records and end equal.
  static func drive(
    _ lane: CodecLane, random: inout SplitMix64, count: Int, every: Int,
    coverage: inout SnapshotCoverage,
    request: (inout SplitMix64, Register) -> String,
    pause: (inout SplitMix64) -> Int64 = { Int64(1 + $0.below(90_000)) }
  ) throws {
    var sent = 0
    while sent < count {
      let decoded = try roundTrip(lane.register)
      coverage.note(lane.register)
      let other = CodecLane(
        register: decoded, at: lane.clock.now(), lastSum: lane.journal.lastSum)
      let journalStart = lane.storage.bytes.count
      for _ in 0..<every {
        let step = pause(&random)
        lane.clock.advance(milliseconds: step)
        other.clock.advance(milliseconds: step)
        let line = request(&random, lane.register)
        let reply = lane.handle(line)
        #expect(other.handle(line) == reply, "\(line)")
        coverage.note(lane.register)
        sent += 1
      }
      #expect(other.register == lane.register)
      #expect(RandomHistory.digest(other.register) == RandomHistory.digest(lane.register))
      #expect(Array(lane.storage.bytes[journalStart...]) == other.storage.bytes)
    }
    coverage.note(lane.register)
  }

  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func cashierHistoriesSurviveASnapshot(seed: UInt64) throws {
    let lane = try CodecLane(catalog: testCatalogJSON)
    var random = SplitMix64(seed: seed)
    var coverage = SnapshotCoverage()
    try Self.drive(lane, random: &random, count: 400, every: 100, coverage: &coverage) {
      RandomHistory.request(&$0, register: $1)
    }
    #expect(coverage.closedDays && coverage.returns && coverage.parked)
    #expect(lane.register.receipts.count > 3)
  }

  @Test(arguments: [11, 12, 13] as [UInt64])
  func staffedHistoriesWithKeysAndLocksSurviveASnapshot(seed: UInt64) throws {
    let lane = try CodecLane(catalog: StaffedHistory.catalog)
    for line in StaffedHistory.opening {
      #expect(try JSONParser.parse(lane.handle(line))["ok"] == .bool(true), "\(line)")
    }
    var random = SplitMix64(seed: seed)
    var coverage = SnapshotCoverage()
    try Self.drive(
      lane, random: &random, count: 400, every: 50, coverage: &coverage,
      request: { StaffedHistory.request(&$0, register: $1) }, pause: StaffedHistory.pause)
    #expect(coverage.closedDays && coverage.keys && coverage.failedPINs)
    #expect(coverage.lockedOperator && coverage.signedOut)
    #expect(lane.register.receipts.count > 3)
  }

  @Test func aStartedRegisterSurvivesASnapshot() throws {
    let catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "t.json")
    _ = try Self.roundTrip(Register(catalog: catalog, at: testTime))
  }

  /// A return can take stock past what a catalog file may hold; the snapshot still reads.
  @Test func stockAboveTheCatalogFileLimitSurvives() throws {
    let lane = try CodecLane(catalog: testCatalogJSON)
    let limit = IntegerRanges.maximumStock
    let lines = [
      #"{"op":"stock_adjust","sku":"TEE","delta":\#(limit - 3),"reason":"count"}"#,
      #"{"op":"add","sku":"TEE"}"#,
      #"{"op":"tender","type":"cash","amount":"20.00"}"#,
      #"{"op":"stock_adjust","sku":"TEE","delta":1,"reason":"found one"}"#,
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"r"}"#,
    ]
    for line in lines {
      #expect(try JSONParser.parse(lane.handle(line))["ok"] == .bool(true), "\(line)")
    }
    #expect(lane.register.products["TEE"]?.stock == limit + 1)
    _ = try Self.roundTrip(lane.register)
  }

  /// A register whose last import differs from the live catalog in each way it can: a stock
  /// sold down (TEE), a product edited (JEANS), one removed (HAT), one untracked and
  /// untouched (GIFT).
  static func editedCatalogRegister() throws -> Register {
    let lane = try CodecLane(catalog: testCatalogJSON)
    let lines = [
      #"{"op":"add","sku":"TEE"}"#,
      #"{"op":"tender","type":"cash","amount":"20.00"}"#,
      #"{"op":"product_update","sku":"JEANS","changes":{"name":"Denim Jeans"}}"#,
      #"{"op":"product_remove","sku":"HAT"}"#,
    ]
    for line in lines {
      #expect(try JSONParser.parse(lane.handle(line))["ok"] == .bool(true), "\(line)")
    }
    return lane.register
  }

  /// A product as last imported is written in full only where the live catalog has changed
  /// more than its stock; otherwise as a reference to the live product, with the stock it
  /// was imported with (format 2). Either way it reads back the same.
  @Test func theLastImportIsWrittenByReferenceWhereOnlyStockMoved() throws {
    let register = try Self.editedCatalogRegister()
    #expect(register.products["TEE"]?.stock == 2)
    let snapshot = register.snapshotValue()
    #expect(snapshot["format"] == .int(2))
    let base = try #require(snapshot["catalog"]?["catalog_base"]?.arrayValue)
    let entries = Dictionary(
      uniqueKeysWithValues: base.map { entry in
        ((entry["sku"] ?? entry["as_live"])?.stringValue ?? "", entry)
      })
    #expect(entries["TEE"] == .object(["as_live": .string("TEE"), "stock": .int(3)]))
    #expect(entries["GIFT"] == .object(["as_live": .string("GIFT")]))
    #expect(entries["JEANS"]?["name"] == .string("Jeans"), "edited: in full, as imported")
    #expect(entries["HAT"]?["name"] == .string("Sold Out Hat"), "removed: in full")
    let decoded = try Self.roundTrip(register)
    #expect(decoded.catalogBase == register.catalogBase)
    #expect(decoded.catalogBase.first { $0.sku == "TEE" }?.stock == 3)
  }

  /// A format 1 snapshot (every product as last imported in full) still loads, to the same
  /// register.
  @Test func aFormatOneSnapshotStillLoads() throws {
    let register = try Self.editedCatalogRegister()
    var snapshot = register.snapshotValue()
    snapshot = SnapshotTree.replacing(snapshot, at: [.key("format")], with: .int(1))
    snapshot = SnapshotTree.replacing(
      snapshot, at: SnapshotTree.path("catalog.catalog_base"),
      with: .array(register.catalogBase.map(\.json)))
    #expect(try Register(snapshot: snapshot) == register)
  }

  /// A live product listed twice is refused, naming the second.
  @Test func aSKUListedTwiceIsRefused() throws {
    let snapshot = try Self.editedCatalogRegister().snapshotValue()
    var products = try #require(snapshot["catalog"]?["products"]?.arrayValue)
    let count = products.count
    products.append(products[0])
    let mutated = SnapshotTree.replacing(
      snapshot, at: SnapshotTree.path("catalog.products"), with: .array(products))
    do {
      _ = try Register(snapshot: mutated)
      Issue.record("a SKU listed twice was read")
    } catch {
      #expect(error.path == "catalog.products[\(count)]")
      #expect(error.message.contains("appears twice"))
    }
  }

  /// A reference to a live product the snapshot does not have is refused, naming where.
  @Test func aReferenceToNoLiveProductIsRefused() throws {
    let snapshot = try Self.editedCatalogRegister().snapshotValue()
    let base = try #require(snapshot["catalog"]?["catalog_base"]?.arrayValue)
    let index = try #require(base.firstIndex { $0["as_live"] != nil })
    for (entry, path) in [
      (#"{"as_live":"HAT","stock":1}"#, "catalog.catalog_base[\(index)].as_live"),
      (#"{"as_live":"TEE","stock":-1}"#, "catalog.catalog_base[\(index)].stock"),
      (#"{"as_live":"TEE","stock":null}"#, "catalog.catalog_base[\(index)].stock"),
      (#"{"as_live":7}"#, "catalog.catalog_base[\(index)].as_live"),
    ] {
      let mutated = SnapshotTree.replacing(
        snapshot, at: SnapshotTree.path("catalog.catalog_base[\(index)]"),
        with: try JSONParser.parse(Array(entry.utf8)))
      do {
        _ = try Register(snapshot: mutated)
        Issue.record("\(entry) was read")
      } catch {
        #expect(error.path == path, "\(entry): \(error)")
      }
    }
  }

  /// A receipt on its own, as the receipt archive stores it.
  @Test func receiptsHaveTheirOwnCodec() throws {
    let register = try Self.smallRegister()
    let sale = try #require(register.receipts.values.last)
    let refund = try #require(register.returns.values.last)
    let saleBytes = sale.snapshotValue.serializedBytes
    let readSale = try CompletedSale(snapshot: try JSONParser.parse(saleBytes), path: "sale")
    #expect(readSale == sale)
    #expect(readSale.snapshotValue.serializedBytes == saleBytes)
    let refundBytes = refund.snapshotValue.serializedBytes
    let readRefund = try CompletedReturn(
      snapshot: try JSONParser.parse(refundBytes), path: "return")
    #expect(readRefund == refund)
    #expect(readRefund.snapshotValue.serializedBytes == refundBytes)
    // A sale is not a return, and the path names where it went wrong.
    #expect(throws: JSONShapeError.self) {
      try CompletedReturn(snapshot: sale.snapshotValue, path: "archive[3]")
    }
    do {
      _ = try CompletedSale(snapshot: refund.snapshotValue, path: "archive[4]")
      Issue.record("a return read as a sale")
    } catch {
      #expect(error.path.hasPrefix("archive[4]"))
    }
  }

  // MARK: - Hostile snapshots

  /// A small register's snapshot: a sale, a return, a parked order, a closed day, a key.
  static func smallSnapshot() throws -> JSONValue {
    try smallRegister().snapshotValue()
  }

  /// The register `smallSnapshot` encodes.
  static func smallRegister() throws -> Register {
    let lane = try CodecLane(catalog: StaffedHistory.catalog)
    let lines =
      StaffedHistory.opening + [
        #"{"op":"add","sku":"TEE","key":"a1"}"#,
        #"{"op":"tender","type":"card","card":\#(cardJSON())}"#,
        #"{"op":"sign_in","operator":"amy","pin":"1234"}"#,
        #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"r","approve":{"operator":"mo","pin":"9876"}}"#,
        #"{"op":"sign_in","operator":"mo","pin":"9876"}"#,
        #"{"op":"close_day"}"#,
        #"{"op":"sign_in","operator":"mo","pin":"1111"}"#,
        #"{"op":"sign_in","operator":"amy","pin":"1234"}"#,
        #"{"op":"add","sku":"JEANS"}"#,
        #"{"op":"discount","amount":"1.00","reason":"r"}"#,
        #"{"op":"park","note":"later"}"#,
        #"{"op":"add","sku":"GIFT","key":"a2"}"#,
      ]
    for line in lines {
      lane.clock.advance(milliseconds: 1000)
      let reply = try JSONParser.parse(lane.handle(line))
      // Every line is accepted but the wrong PIN, which is still recorded.
      #expect((reply["ok"] == .bool(true)) != line.contains("1111"), "\(line) → \(reply)")
    }
    let register = lane.register
    #expect(!register.returns.isEmpty && !register.closedDays.isEmpty && !register.parked.isEmpty)
    #expect(register.keys.count > 0 && register.operators.contains { $0.failedAttempts > 0 })
    _ = try roundTrip(register)
    return register
  }

  /// True when the snapshot `value` is refused with a `JSONShapeError` (and does not trap) that
  /// names a real path: the placeholder a decode runs with first (`unbuiltPath`) never shows.
  static func refused(_ value: JSONValue) -> Bool {
    do {
      _ = try Register(snapshot: value)
      return false
    } catch {
      #expect(!error.path.contains(unbuiltPath), "\(error)")
      #expect(!error.description.contains(unbuiltPath), "\(error)")
      return true
    }
  }

  /// Paths are built only when a decode fails, and then in full: joining onto the placeholder
  /// builds nothing, and a failure is reported with the path the second run builds.
  @Test func pathsAreBuiltOnlyOnFailure() throws {
    #expect(joinPath(unbuiltPath, "ledger") == unbuiltPath)
    #expect(indexPath(unbuiltPath, 4120) == unbuiltPath)
    var runs: [String] = []
    let value = try withPathsOnFailure("ledger") { path throws(JSONShapeError) -> Int in
      runs.append(path)
      return 7
    }
    #expect(value == 7)
    #expect(runs == [unbuiltPath])
    runs = []
    do {
      _ = try withPathsOnFailure("ledger") { path throws(JSONShapeError) -> Int in
        runs.append(path)
        throw JSONShapeError(path: indexPath(joinPath(path, "refunded"), 3), message: "bad")
      }
      Issue.record("the failure was lost")
    } catch {
      #expect(error.path == "ledger.refunded[3]")
    }
    #expect(runs == [unbuiltPath, "ledger"])
  }

  @Test func everyTruncationIsRefused() throws {
    let bytes = try Self.smallSnapshot().serializedBytes
    for length in 0..<bytes.count {
      guard let value = try? JSONParser.parse(bytes[..<length]) else { continue }
      #expect(Self.refused(value), "a snapshot cut at byte \(length) was read")
    }
  }

  @Test func everyWrongTypeIsRefused() throws {
    let snapshot = try Self.smallSnapshot()
    var checked = 0
    for (path, value) in SnapshotTree.nodes(snapshot) where !SnapshotTree.isFreeForm(path) {
      let wrong: JSONValue =
        switch value {
        case .number: .string("1")
        case .null: .bool(true)
        case .string, .array, .object: .bool(true)
        case .bool: .number("1")
        }
      let mutated = SnapshotTree.replacing(snapshot, at: path, with: wrong)
      #expect(Self.refused(mutated), "\(SnapshotTree.describe(path)) as \(wrong.typeName)")
      checked += 1
    }
    #expect(checked > 300)
  }

  @Test func everyUnknownMemberIsRefused() throws {
    let snapshot = try Self.smallSnapshot()
    var checked = 0
    for (path, value) in SnapshotTree.nodes(snapshot) where !SnapshotTree.isFreeForm(path) {
      guard case .object(var object) = value else { continue }
      object["zz_unknown"] = .number("1")
      let mutated = SnapshotTree.replacing(snapshot, at: path, with: .object(object))
      #expect(Self.refused(mutated), "\(SnapshotTree.describe(path)) with an unknown member")
      checked += 1
    }
    #expect(checked > 50)
  }

  /// Every member the snapshot codec writes itself is required (the journal-shaped values it
  /// reuses — store settings, products, order lines, tenders, customers — keep their own
  /// optional members).
  /// Members added after the first snapshot format (gift cards, store tenders, tax
  /// exemption): a snapshot an older registerd wrote lacks them, and they read as what the
  /// register held then.
  static let addedLater: Set<String> = [
    "gift_cards_sold", "gift_cards_sold_amount", "tax_exemption", "gift_card_count", "gift_cards",
    "others", "stored_value", "promotions", "promotion_discounts", "promotion_discount",
    "wishlists", "print_queue", "operator_active_at", "line_refunds", "gift_cards_reloaded",
    "gift_cards_reloaded_amount",
  ]

  /// A snapshot an older registerd wrote (without the members added since) still loads, to the
  /// same register: an upgrade does not send start-up back to the whole journal.
  @Test func aSnapshotFromBeforeTheAddedMembersStillLoads() throws {
    let register = try Self.smallRegister()
    var snapshot = register.snapshotValue()
    var removed = 0
    // Deepest first, each object read from the tree as changed so far.
    for (path, _) in SnapshotTree.nodes(snapshot).reversed()
    where !SnapshotTree.isFreeForm(path) && !SnapshotTree.isJournalShaped(path) {
      guard case .object(var object)? = SnapshotTree.value(snapshot, at: path) else { continue }
      let present = object.keys.filter { Self.addedLater.contains($0) }
      guard !present.isEmpty else { continue }
      for key in present { object[key] = nil }
      snapshot = SnapshotTree.replacing(snapshot, at: path, with: .object(object))
      removed += present.count
    }
    #expect(removed >= 5, "\(removed) members removed")
    let left = SnapshotTree.nodes(snapshot).compactMap { $0.1.objectValue?.keys }.joined()
    #expect(!left.contains { Self.addedLater.contains($0) && $0 != "gift_cards" })
    let decoded = try Register(snapshot: snapshot)
    // An older snapshot does not know when the operator last made a change: nobody is signed
    // out for being idle until they make one.
    var expected = register
    expected.staff.operatorActiveAt = nil
    // What each line had back was not kept then: it reads as not known (the next return of
    // the sale works it out from the units and the total refunded).
    for receipt in register.refunded.keys { expected.ledger.refunded[receipt]?.lineRefunds = nil }
    #expect(decoded == expected)
  }

  @Test func everyMissingMemberIsRefused() throws {
    let snapshot = try Self.smallSnapshot()
    var checked = 0
    for (path, value) in SnapshotTree.nodes(snapshot)
    where !SnapshotTree.isFreeForm(path) && !SnapshotTree.isJournalShaped(path) {
      guard case .object(let object) = value else { continue }
      for key in object.keys where !Self.addedLater.contains(key) {
        var smaller = object
        smaller[key] = nil
        let mutated = SnapshotTree.replacing(snapshot, at: path, with: .object(smaller))
        #expect(Self.refused(mutated), "\(SnapshotTree.describe(path)) without \(key)")
        checked += 1
      }
    }
    #expect(checked > 200)
  }

  @Test func everyIntegerOutOfRangeOrNotWholeIsRefused() throws {
    let snapshot = try Self.smallSnapshot()
    var checked = 0
    for (path, value) in SnapshotTree.nodes(snapshot) where !SnapshotTree.isFreeForm(path) {
      guard case .number = value else { continue }
      for wrong in ["9223372036854775808", "-9223372036854775809", "1.5", "1e3"] {
        let mutated = SnapshotTree.replacing(snapshot, at: path, with: .number(wrong))
        #expect(Self.refused(mutated), "\(SnapshotTree.describe(path)) = \(wrong)")
      }
      checked += 1
    }
    #expect(checked > 100)
  }

  /// Values of the right type that are out of range or contradict the rest of the state are
  /// refused with the path of the member.
  @Test(arguments: [
    ("format", "3", "format"),
    ("last_sequence", "-1", "last_sequence"),
    ("orders.next_order_id", "1", "orders"),
    ("orders.order.version", "-1", "orders.order.version"),
    ("orders.order.next_line", "0", "orders.order.next_line"),
    ("ledger.next_receipt_number", "1", "ledger.next_receipt_number"),
    ("ledger.sales[0].receipt_number", "0", "ledger.sales[0].receipt_number"),
    ("ledger.returns[0].receipt_number", "1", "ledger.returns[0]"),
    ("ledger.returns[0].lines[0].quantity", "0", "ledger.returns[0].lines[0].quantity"),
    ("staff.operators[0].failed_attempts", "6", "staff.operators[0].failed_attempts"),
    ("day_book.day.number", "1", "day_book.closed_days"),
    ("catalog.products[0].stock", "-1", "catalog.products[0].stock"),
    ("day_book.day.totals.sales_count", "-1", "day_book.day.totals.sales_count"),
    ("ledger.sales[0].at.utc_offset_seconds", "86400", "ledger.sales[0].at.utc_offset_seconds"),
    (
      "ledger.sales[0].at.epoch_milliseconds", "253402300800000",
      "ledger.sales[0].at.epoch_milliseconds"
    ),
    ("ledger.sales[0].header.width", "200", "ledger.sales[0].header.width"),
    ("keys.days[0].day", "9", "keys.days[0].keys"),
  ])
  func contradictionsAreRefusedWithTheirPath(member: String, value: String, path: String) throws {
    let snapshot = try Self.smallSnapshot()
    let target = SnapshotTree.path(member)
    #expect(SnapshotTree.value(snapshot, at: target) != nil, "\(member) is in the snapshot")
    let mutated = SnapshotTree.replacing(snapshot, at: target, with: .number(value))
    do {
      _ = try Register(snapshot: mutated)
      Issue.record("\(member) = \(value) was read")
    } catch {
      #expect(error.path.hasPrefix(path), "\(error)")
    }
  }

  @Test func moneyIsReadInTheRightCurrency() throws {
    let snapshot = try Self.smallSnapshot()
    // Three decimals are not US dollars.
    let target = SnapshotTree.path("ledger.sales[0].change")
    let mutated = SnapshotTree.replacing(snapshot, at: target, with: .string("0.001"))
    #expect(Self.refused(mutated))
    let currency = SnapshotTree.path("ledger.sales[0].currency")
    #expect(Self.refused(SnapshotTree.replacing(snapshot, at: currency, with: .string("XXX"))))
  }

  // MARK: - Every stored property is encoded

  /// Fails when a stored property is added to a part (or a type a part holds) and the codec
  /// does not write it: each encoded object's members are the type's stored properties, in
  /// snake case.
  @Test func everyStoredPropertyIsEncoded() throws {
    let register = try Self.smallRegister()
    let sale = try #require(register.receipts.values.first)
    let refund = try #require(register.returns.values.first)
    let closed = try #require(register.closedDays.values.first)
    let person = try #require(register.operators.first)
    let refunded = try #require(register.refunded.values.first)
    let stored = try #require(register.keys.days.values.first?.values.first)
    let totals = try #require(sale.totals.lines.first)
    let taxLine = try #require(sale.totals.taxLines.first)
    let tenderTotal = try #require(register.closedDays.values.first?.totals.tenders.first)
    let customer = sale.customer ?? CustomerRef(id: "C1", name: "N")
    var checks: [(Any, JSONValue, Set<String>)] = [
      (register, register.snapshotValue(), ["format"]),
      (register.catalog, register.catalog.snapshotValue, []),
      (register.orders, register.orders.snapshotValue, []),
      (register.order, register.order.snapshotValue, []),
      (register.totals, register.totals.snapshotValue, []),
      (totals, totals.snapshotValue, []),
      (taxLine, taxLine.snapshotValue, []),
      (register.ledger, register.ledger.snapshotValue, []),
      (refunded, refunded.snapshotValue, []),
      (sale, sale.snapshotValue, []),
      (refund, refund.snapshotValue, []),
      (sale.header, sale.header.snapshotValue, []),
      (customer, customer.snapshotValue, []),
      (register.staff, register.staff.snapshotValue, []),
      (person, person.snapshotValue, []),
      (register.customerBook, register.customerBook.snapshotValue, []),
      (register.dayBook, register.dayBook.snapshotValue, []),
      (register.day, register.day.snapshotValue, []),
      (closed, closed.snapshotValue, []),
      (closed.totals, closed.totals.snapshotValue, []),
      (tenderTotal, tenderTotal.snapshotValue, []),
      (register.keys, register.keys.snapshotValue, []),
      (register.printQueue, register.printQueue.snapshotValue, []),
      (stored, stored.snapshotValue, []),
      (closed.closedAt, closed.closedAt.snapshotValue, []),
    ]
    if let line = refund.lines.first { checks.append((line, line.snapshotValue, [])) }
    // Never written: nil whenever anything reads the register (a replay computes the totals it
    // left due before it returns); indexes built from the list they index when it is read.
    let transient = [
      "\(Orders.self)": Set(["totals_due_at"]),
      "\(CustomerBook.self)": Set(["positions", "emails", "search"]),
    ]
    for (value, encoded, extra) in checks {
      let properties = Set(Mirror(reflecting: value).children.compactMap(\.label).map(Self.snake))
        .subtracting(transient["\(type(of: value))"] ?? [])
      let members = Set(encoded.objectValue?.keys ?? [])
      #expect(members == properties.union(extra), "\(type(of: value))")
    }
  }

  /// "nextOrderID" → "next_order_id".
  static func snake(_ name: String) -> String {
    var out = ""
    var previousLower = false
    for character in name {
      if character.isUppercase && previousLower { out.append("_") }
      previousLower = character.isLowercase || character.isNumber
      out.append(contentsOf: character.lowercased())
    }
    return out
  }
}

/// Walks a snapshot's JSON tree: every node with its path, and a copy with one node replaced.
enum SnapshotTree {
  enum Step: Equatable {
    case key(String)
    case index(Int)
  }

  static func nodes(_ value: JSONValue, at path: [Step] = []) -> [([Step], JSONValue)] {
    var result = [(path, value)]
    switch value {
    case .object(let object):
      for (key, member) in object.members { result += nodes(member, at: path + [.key(key)]) }
    case .array(let items):
      for (index, item) in items.enumerated() { result += nodes(item, at: path + [.index(index)]) }
    case .null, .bool, .number, .string:
      break
    }
    return result
  }

  static func replacing(_ value: JSONValue, at path: [Step], with new: JSONValue) -> JSONValue {
    guard let first = path.first else { return new }
    let rest = Array(path.dropFirst())
    switch (value, first) {
    case (.object(var object), .key(let key)):
      if let member = object[key] { object[key] = replacing(member, at: rest, with: new) }
      return .object(object)
    case (.array(var items), .index(let index)) where items.indices.contains(index):
      items[index] = replacing(items[index], at: rest, with: new)
      return .array(items)
    default:
      return value
    }
  }

  static func value(_ value: JSONValue, at path: [Step]) -> JSONValue? {
    var current = value
    for step in path {
      switch (current, step) {
      case (.object(let object), .key(let key)):
        guard let member = object[key] else { return nil }
        current = member
      case (.array(let items), .index(let index)) where items.indices.contains(index):
        current = items[index]
      default:
        return nil
      }
    }
    return current
  }

  /// "ledger.sales[0].at" as steps.
  static func path(_ text: String) -> [Step] {
    var steps: [Step] = []
    for part in text.split(separator: ".") {
      let pieces = part.split(separator: "[")
      steps.append(.key(String(pieces[0])))
      for index in pieces.dropFirst() { steps.append(.index(Int(index.dropLast()) ?? -1)) }
    }
    return steps
  }

  static func describe(_ path: [Step]) -> String {
    path.map {
      switch $0 {
      case .key(let key): ".\(key)"
      case .index(let index): "[\(index)]"
      }
    }.joined()
  }

  /// A stored reply, for which any JSON is valid.
  static func isFreeForm(_ path: [Step]) -> Bool {
    path.contains(.key("reply"))
  }

  /// The depth of a day's `keys` object in `path`, if the path goes through one.
  private static func keysTableDepth(_ path: [Step]) -> Int? {
    guard path.count >= 4, path[0] == .key("keys"), path[1] == .key("days"),
      path[3] == .key("keys")
    else { return nil }
    return 4
  }

  /// Values in the journal's shape, whose optional members may be left out: store settings,
  /// products, order lines, tenders, discounts, customers, a journal head, a day's key table.
  static func isJournalShaped(_ path: [Step]) -> Bool {
    let journalKeys: Set<String> = [
      "store", "products", "catalog_base", "customers", "tenders", "refunds", "discount",
      "journal_head",
    ]
    for (index, step) in path.enumerated() {
      guard case .key(let key) = step else { continue }
      if journalKeys.contains(key) { return true }
      // An order's lines (an order has a next_line; totals' lines and return lines are the
      // codec's own).
      if key == "lines", index > 0, path[index - 1] == .key("order") || isParked(path, index) {
        return true
      }
    }
    // A day's key table: its members are keys, not fields.
    return keysTableDepth(path) == path.count
  }

  private static func isParked(_ path: [Step], _ index: Int) -> Bool {
    index >= 2 && path[index - 2] == .key("parked")
  }
}
