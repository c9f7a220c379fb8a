import Testing

@testable import RegisterEngine

/// The hot reply path writes some replies straight to bytes or from a rendering kept between
/// changes; these tests hold it to the same bytes as the `JSONValue` trees it replaces.
@Suite struct ReplyPathTests {
  /// The reference the fast formatter replaced: digits, then a point inserted.
  private func referenceFormat(_ value: Int64, fractionDigits: Int) -> String {
    var digits = String(value.magnitude)
    if fractionDigits > 0 {
      if digits.count <= fractionDigits {
        digits = String(repeating: "0", count: fractionDigits - digits.count + 1) + digits
      }
      digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fractionDigits))
    }
    return value < 0 ? "-" + digits : digits
  }

  @Test(arguments: [0, 1, 2, 3, 4])
  func moneyFormatMatchesTheReference(fractionDigits: Int) {
    var values: [Int64] = [0, 1, -1, 9, 10, 99, 100, 101, -100, 12_345, .max, .min, .max - 1]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      values.append(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator))
      values.append(Int64.random(in: -1000...1000, using: &generator))
    }
    for value in values {
      #expect(
        Money.format(value, fractionDigits: fractionDigits)
          == referenceFormat(value, fractionDigits: fractionDigits), "\(value)")
    }
  }

  @Test func anObjectLiteralKeepsItsOrderAndLeavesOutNil() {
    let value = JSONValue.object(["b": 1, "a": nil, "c": "x", "a2": .null])
    #expect(value.serialized == #"{"b":1,"c":"x","a2":null}"#)
    #expect(value["c"] == "x")
    #expect(value["a"] == nil)
  }

  @Test func aLargeObjectFindsEveryKeyAndRemovesInOrder() {
    var object = JSONObject()
    for index in 0..<100 { object["k\(index)"] = .int(index) }
    #expect(object.count == 100)
    for index in 0..<100 { #expect(object["k\(index)"] == .int(index)) }
    object["k50"] = nil
    object["k3"] = nil
    object["k99"] = .string("last")
    #expect(object.count == 98)
    #expect(object["k50"] == nil)
    #expect(object["k51"] == .int(51))
    #expect(object.keys.prefix(4) == ["k0", "k1", "k2", "k4"])
    #expect(object.keys.last == "k99")
    #expect(object["k99"] == "last")
    // Down below the index threshold and up again.
    for index in 10..<100 { object["k\(index)"] = nil }
    #expect(object.keys == ["k0", "k1", "k2", "k4", "k5", "k6", "k7", "k8", "k9"])
    for index in 200..<230 { object["k\(index)"] = .int(index) }
    #expect(object["k229"] == .int(229))
    #expect(object["k4"] == .int(4))
  }

  @Test func fieldsBeyondSixtyFourAreTrackedForUnknownMemberChecks() throws {
    var object = JSONObject()
    for index in 0..<70 { object["f\(index)"] = .int(index) }
    var fields = try JSONFields(.object(object))
    for index in 0..<70 where index != 66 { _ = fields.raw("f\(index)") }
    #expect(throws: JSONShapeError(path: "f66", message: "is not a known field")) {
      try fields.rejectUnknown()
    }
    _ = fields.raw("f66")
    try fields.rejectUnknown()
  }

  /// The `order` reply is rendered once per change: after every kind of change — to the
  /// order, to the store settings it is priced with — it must be the state's view again.
  @Test func theOrderReplyFollowsEveryChange() throws {
    let lane = try TestLane()
    func expectCurrent(_ sourceLocation: SourceLocation = #_sourceLocation) throws {
      let reply = try lane.ok(Requests.Order())
      #expect(reply == lane.register.orderJSON, sourceLocation: sourceLocation)
    }
    try expectCurrent()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try expectCurrent()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try expectCurrent()
    try lane.ok(Requests.SetQty(line: 2, quantity: 1))
    try expectCurrent()
    // A change that is not to the order: the store's settings (cash rounding shows cash_due).
    var store = lane.register.store
    store.cashRounding = Money(minorUnits: 5, currency: store.currency)
    lane.service.stageSystemEvents([.storeConfigured(store)])
    lane.service.flush()
    let reply = try lane.ok(Requests.Order())
    #expect(reply["cash_due"] != nil)
    try expectCurrent()
    try lane.ok(Requests.Tender(.cash(amount: usd("100.00"))))
    try expectCurrent()
  }

  @Test func helloWrittenDirectlyHasTheDocumentedMembersInOrder() throws {
    let lane = try TestLane()
    let line = lane.service.handle(line: #"{"id":7,"op":"hello"}"#)
    let reply = try JSONParser.parse(line)
    #expect(reply.objectValue?.keys == ["id", "ok", "result"])
    let result = try #require(reply["result"]?.objectValue)
    #expect(
      result.keys == [
        "protocol", "server", "version", "store", "currency", "day", "journal_seq", "read_only",
        "ops",
      ])
    #expect(result["store"] == "Test Lane")
    #expect(result["read_only"] == false)
    #expect(result["ops"] == .array(RequestDecoder.opNames.map(JSONValue.string)))
    // The bytes are what writing the same value gives.
    #expect(line == reply.serialized)
    // Without an id (the envelope's start is then shared too), for hello and the order.
    for request in [#"{"op":"hello"}"#, #"{"op":"order"}"#, #"{"id":"x","op":"order"}"#] {
      let text = lane.service.handle(line: request)
      let parsed = try JSONParser.parse(text)
      #expect(text == parsed.serialized)
      #expect(parsed.objectValue?.keys == ["id", "ok", "result"])
      #expect(parsed["ok"] == true)
    }
  }

  /// `hello` is rendered once and reused until something it shows changes: the register's
  /// state, the journal's counters (which change when a group is written, not when the state
  /// does) or the storage state.
  @Test func helloFollowsTheJournalAndTheState() throws {
    let lane = try JournalLane()
    let first = try lane.ok(Requests.Hello())
    #expect(try lane.ok(Requests.Hello()) == first)
    try lane.ok(Requests.Add(sku: "JEANS"))
    let second = try lane.ok(Requests.Hello())
    #expect(second["journal_seq"] == .int(lane.register.lastSequence))
    #expect(second["journal"]?["records"] == .int(lane.journal.recordsWritten))
    #expect(second["journal"]?["fsyncs"] == .int(lane.journal.batchesWritten))
    #expect(second["journal"]?["records"] != first["journal"]?["records"])
    // A group written with no change to the register's state since hello was last asked:
    // the journal's counters alone change, and hello must show them.
    let line = { (text: String) in IncomingLine(connection: 1, bytes: Array(text.utf8)) }
    lane.service.submit([line(#"{"op":"add","sku":"TEE"}"#), line(#"{"op":"hello"}"#)])
    lane.service.flush()
    let held = lane.service.takeReleasable().replies
    #expect(held.count == 2)
    let afterWrite = try lane.ok(Requests.Hello())
    #expect(afterWrite["journal"]?["records"] == .int(lane.journal.recordsWritten))
    #expect(afterWrite["journal"]?["fsyncs"] == .int(lane.journal.batchesWritten))
  }

  /// The drawer moves answer with bytes written directly (no tree) unless the request has a
  /// key, whose stored reply is a tree: both forms carry the same members, in the documented
  /// order, with the drawer's real figures, and a keyed retry gets the same result again.
  @Test func drawerRepliesWrittenDirectlyMatchTheKeyedTreeAndTheFigures() throws {
    let lane = try JournalLane()
    let direct = lane.service.handle(line: #"{"op":"paid_in","amount":"12.34","reason":"float"}"#)
    let keyedRequest = #"{"op":"paid_out","amount":"0.34","reason":"milk","key":"k-1"}"#
    let keyed = lane.service.handle(line: keyedRequest)
    let again = lane.service.handle(line: keyedRequest)
    let noSale = lane.service.handle(line: #"{"op":"no_sale","reason":"change"}"#)
    for text in [direct, keyed, again, noSale] {
      let parsed = try JSONParser.parse(text)
      #expect(text == parsed.serialized, "the bytes are what writing the tree gives")
      #expect(parsed["ok"] == true)
      let drawer = try #require(parsed["result"]?["drawer"]?.objectValue)
      #expect(
        drawer.keys == [
          "float", "cash_taken", "change_given", "cash_refunds", "paid_in", "paid_in_count",
          "paid_out", "paid_out_count", "no_sales", "day", "expected_cash",
        ])
    }
    let first = try JSONParser.parse(direct)["result"]?["drawer"]
    #expect(first?["paid_in"] == "12.34" && first?["paid_in_count"] == .int(1))
    #expect(first?["expected_cash"] == "12.34" && first?["paid_out"] == "0.00")
    let out = try JSONParser.parse(keyed)["result"]?["drawer"]
    #expect(out?["paid_out"] == "0.34" && out?["expected_cash"] == "12.00")
    #expect(again == keyed, "a keyed retry gets the stored reply")
    let last = try JSONParser.parse(noSale)["result"]?["drawer"]
    #expect(last?["no_sales"] == .int(1) && last?["day"] == .int(lane.register.day.number))
    #expect(last?["paid_out_count"] == .int(1), "the retry changed nothing")
  }
}
