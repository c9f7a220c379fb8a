import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A card tender for the whole balance, with an idempotency key.
func keyedCardTender(id: String, key: String, card: CardInput = testCard()) -> String {
  requestLine(
    Requests.Tender(.card(card, amount: nil)), envelope: RequestEnvelope(id: .string(id), key: key))
}

@Suite struct IdempotencyKeyTests {
  @Test func aRepeatedKeyGetsTheOriginalReplyAndChangesNothing() throws {
    let lane = try JournalLane()
    let first = try lane.send(#"{"id":1,"op":"add","sku":"JEANS","key":"add-1"}"#)
    #expect(first["ok"] == .bool(true))
    let order = lane.register.order
    let records = lane.scan().records.count
    let appends = lane.storage.appendCalls
    let sequence = lane.register.lastSequence

    let again = try lane.send(#"{"id":2,"op":"add","sku":"JEANS","key":"add-1"}"#)
    #expect(again["id"] == .int(2))
    #expect(again["ok"] == .bool(true))
    #expect(again["result"] == first["result"])
    #expect(lane.register.order == order)
    #expect(lane.register.order.version == order.version)
    #expect(lane.register.order.lines.count == 1)
    #expect(lane.scan().records.count == records)
    #expect(lane.storage.appendCalls == appends)
    #expect(lane.register.lastSequence == sequence)

    // The same request without the key is a new change: the key is what made it idempotent.
    try lane.ok(#"{"id":3,"op":"add","sku":"JEANS"}"#)
    #expect(lane.register.order.lines.count == 2)
  }

  @Test func aCompletingTenderRepeatedWithItsKeyChargesOnce() throws {
    // JEANS 49.99 + tax 3.75 = 53.74 on the Visa.
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let first = try lane.send(keyedCardTender(id: "pay", key: "pay-53.74"))
    let result = try #require(first["result"])
    #expect(result["status"] == "completed")
    #expect(result["receipt"]?["number"] == .int(1))
    let records = lane.scan().records.count

    // The terminal timed out and sends the same tender again.
    let again = try lane.send(keyedCardTender(id: "pay-retry", key: "pay-53.74"))
    #expect(again["id"] == "pay-retry")
    #expect(again["ok"] == .bool(true))
    #expect(again["result"] == result)
    #expect(lane.register.receipts.count == 1)
    #expect(lane.register.nextReceiptNumber == 2)
    #expect(lane.register.day.totals.salesCount == 1)
    #expect(lane.register.day.totals.tenders.map(\.count) == [1])
    #expect(lane.register.order.id == 2)
    #expect(lane.register.order.isEmpty)
    #expect(lane.scan().records.count == records)
    // Without the key the retry would have been refused against the new, empty order.
    let unkeyed = #"{"op":"tender","type":"card","card":\#(cardJSON())}"#
    #expect(try lane.send(unkeyed).errorCode == "empty_order")
  }

  @Test func aCashTenderWithChangeRepeatedWithItsKeyIsPaidOnce() throws {
    // GIFT 25.00 exempt, 40.00 cash: 15.00 change, once.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let tender = #"{"op":"tender","type":"cash","amount":"40.00","key":"cash-40"}"#
    let first = try lane.ok(tender)
    #expect(first["change_due"] == "15.00")
    let again = try lane.ok(tender)
    #expect(again == first)
    #expect(lane.register.day.totals.changeGiven == 1500)
    #expect(lane.register.day.totals.tenders.map(\.amount) == [4000])
    #expect(lane.register.receipts.count == 1)
  }

  @Test(arguments: [
    #"{"op":"add","sku":"GIFT","key":"k"}"#,
    #"{"op":"add","sku":"JEANS","qty":2,"key":"k"}"#,
    #"{"op":"remove","line":1,"key":"k"}"#,
    #"{"op":"void","key":"k"}"#,
  ])
  func aKeyReusedForAnotherRequestIsRefused(request: String) throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(key: "k"))
    let order = lane.register.order
    let records = lane.scan().records.count
    let reply = try lane.send(request)
    #expect(reply.errorCode == "key_reused")
    #expect(lane.register.order == order)
    #expect(lane.scan().records.count == records)
    // The key still answers its own request.
    let again = try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(key: "k"))
    #expect(again["lines"]?.arrayValue?.count == 1)
  }

  @Test func keysSurviveAJournalReplay() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let first = try lane.send(keyedCardTender(id: "1", key: "pay-before-crash"))
    #expect(first["result"]?["status"] == "completed")

    // registerd is killed and restarts from the journal; the terminal retries.
    let service = try lane.restarted()
    #expect(service.register.keys == lane.register.keys)
    let records = lane.scan().records.count
    let again = try service.send(keyedCardTender(id: "2", key: "pay-before-crash"))
    #expect(again["ok"] == .bool(true))
    #expect(again["result"] == first["result"])
    #expect(service.register.receipts.count == 1)
    #expect(service.register.order.isEmpty)
    #expect(service.register.day.totals.salesCount == 1)
    #expect(lane.scan().records.count == records)
    let reused = try service.send(
      Requests.Add(sku: "GIFT"), envelope: RequestEnvelope(key: "pay-before-crash"))
    #expect(reused.errorCode == "key_reused")
    #expect(service.register.order.isEmpty)
  }

  @Test func theKeyIsJournaledOnTheRequestsLastRecordWithoutCardData() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let start = lane.scan().records.count
    let reply = try lane.send(keyedCardTender(id: "t", key: "pay-7"))
    let records = Array(lane.scan().records.dropFirst(start))
    #expect(records.map(\.type) == ["tender_added", "sale_completed"])
    let first = try #require(records.first)
    let last = try #require(records.last)
    #expect(first.key == nil)
    #expect(first.more)
    #expect(!last.more)
    let key = try #require(last.key)
    #expect(key.key == "pay-7")
    #expect(key.reply == reply["result"])
    #expect(key.fingerprint.count == 64)
    #expect(key.fingerprint.allSatisfy { "0123456789abcdef".contains($0) })
    #expect(lane.register.keys["pay-7"]?.fingerprint == key.fingerprint)

    let journal = String(decoding: lane.storage.bytes, as: UTF8.self)
    let lines = journal.split(separator: "\n")
    #expect(lines.last?.contains(#""key":{"id":"pay-7","fingerprint":""#) == true)
    #expect(!journal.contains("4242424242424242"))
    #expect(!journal.contains(#""cvv""#))
    #expect(!journal.contains("exp_month"))
  }

  @Test func theFingerprintDependsOnNoHiddenCardDigits() throws {
    // Two Visa numbers ending 4242, with different CVVs: the kept fingerprint may only depend on
    // what the register is allowed to keep (last four, expiry, amount), so the second is taken
    // for a retry of the first and charges nothing.
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let first = try lane.send(keyedCardTender(id: "a", key: "pay"))
    let other = testCard("4111000000084242", cvv: "123")
    let records = lane.scan().records.count
    let again = try lane.send(keyedCardTender(id: "b", key: "pay", card: other))
    #expect(again["ok"] == .bool(true))
    #expect(again["result"] == first["result"])
    #expect(lane.scan().records.count == records)
    #expect(lane.register.receipts.count == 1)
  }

  @Test func theSameKeyWithAnotherCardIsRefused() throws {
    // The fingerprint holds no card number, but it still tells two cards apart.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(keyedCardTender(id: "a", key: "pay"))
    let amex = keyedCardTender(
      id: "b", key: "pay", card: testCard("378282246310005", cvv: "1234"))
    #expect(try lane.send(amex).errorCode == "key_reused")
    #expect(lane.register.receipts.count == 1)
    #expect(lane.register.day.totals.tenders.map(\.key) == ["card VISA"])
  }

  @Test func aRefusedRequestIsNotRemembered() throws {
    let lane = try JournalLane()
    let tender = keyedCardTender(id: "t", key: "retry-me")
    #expect(try lane.send(tender).errorCode == "empty_order")
    #expect(lane.register.keys["retry-me"] == nil)
    // Fixed: the same request with the same key now goes through.
    try lane.ok(Requests.Add(sku: "GIFT"))
    let reply = try lane.send(tender)
    #expect(reply["ok"] == .bool(true))
    #expect(reply["result"]?["status"] == "completed")
    #expect(lane.register.keys["retry-me"] != nil)
    #expect(lane.register.receipts.count == 1)
  }

  @Test func aConflictingRequestIsNotRememberedEither() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let stale = #"{"op":"add","sku":"JEANS","expect_version":0,"key":"add-jeans"}"#
    #expect(try lane.send(stale).errorCode == "version_conflict")
    #expect(lane.register.keys["add-jeans"] == nil)
    // Looked again and retried with the same key: it is a first attempt, not a repeat.
    let fresh = #"{"op":"add","sku":"JEANS","expect_version":1,"key":"add-jeans"}"#
    let reply = try lane.ok(fresh)
    #expect(reply["lines"]?.arrayValue?.count == 2)
    #expect(lane.register.keys["add-jeans"] != nil)
  }

  @Test func keysAreKeptForTheirDayAndTheNextThenDropped() throws {
    let lane = try JournalLane()
    let add = #"{"op":"add","sku":"GIFT","key":"day-1-add"}"#
    let first = try lane.ok(add)
    #expect(first["order_id"] == .int(1))
    try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    try lane.ok(Requests.CloseDay())

    // Day 2: the key still answers with the original reply and adds nothing.
    let again = try lane.ok(add)
    #expect(again == first)
    #expect(lane.register.order.lines.isEmpty)
    #expect(lane.register.keys["day-1-add"] != nil)
    let replayedDay2 = try Register.replaying(lane.scan().records)
    #expect(replayedDay2.keys == lane.register.keys)

    try lane.ok(Requests.CloseDay())
    // Day 3: the key is forgotten, so the same request is a new one.
    #expect(lane.register.keys["day-1-add"] == nil)
    let fresh = try lane.ok(add)
    #expect(fresh["order_id"] == .int(2))
    #expect(lane.register.order.lines.count == 1)
    #expect(lane.register.keys["day-1-add"] != nil)
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.keys == lane.register.keys)
  }
}

@Suite struct ExpectVersionTests {
  @Test func aChangeBasedOnTheCurrentVersionIsApplied() throws {
    let lane = try TestLane()
    #expect(try lane.ok(Requests.Order())["version"] == .int(0))
    let added = try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(expectVersion: 0))
    #expect(added["version"] == .int(1))
    let again = try lane.ok(Requests.Add(sku: "GIFT"), envelope: RequestEnvelope(expectVersion: 1))
    #expect(again["version"] == .int(2))
    #expect(lane.register.order.lines.count == 2)
  }

  @Test func aChangeBasedOnAnOldVersionIsAConflict() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    #expect(lane.register.order.version == 2)
    let before = lane.snapshot
    let reply = try lane.send(Requests.Remove(line: 1), envelope: RequestEnvelope(expectVersion: 1))
    #expect(reply.errorCode == "version_conflict")
    let data = try #require(reply["error"]?["data"])
    #expect(data["order_id"] == .int(1))
    #expect(data["version"] == .int(2))
    #expect(data["lines"]?.arrayValue?.count == 2)
    #expect(data == lane.register.orderJSON)
    #expect(lane.snapshot == before)
  }

  @Test func aStaleVersionIsAConflictForEveryKindOfChange() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let before = lane.snapshot
    for request in [
      #"{"op":"tender","type":"cash","amount":"100.00","expect_version":0}"#,
      #"{"op":"void","expect_version":0}"#,
      #"{"op":"park","expect_version":0}"#,
      #"{"op":"void_line","line":1,"expect_version":0}"#,
      #"{"op":"discount","percent":"10","reason":"x","expect_version":0}"#,
    ] {
      #expect(try lane.send(request).errorCode == "version_conflict", "\(request)")
    }
    #expect(lane.snapshot == before)
    #expect(lane.register.parked.isEmpty)
  }

  @Test func aRetryWithItsKeyIsAnsweredNotAConflict() throws {
    // The first attempt went through but its reply was lost; the retry carries the same
    // expect_version, which is now stale, and must still get the original reply.
    let lane = try TestLane()
    let request = #"{"op":"add","sku":"JEANS","expect_version":0,"key":"add-jeans"}"#
    let first = try lane.ok(request)
    let again = try lane.ok(request)
    #expect(again == first)
    #expect(lane.register.order.lines.count == 1)
  }

  @Test(arguments: [false, true])
  func twoClientsRacingOnOneVersionOnlyOneWins(swapped: Bool) throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    // Both terminals look at the order and see the same version.
    let reads = try parsedReplies(
      lane.service.process([incoming(1, #"{"op":"order"}"#), incoming(2, #"{"op":"order"}"#)]))
    let version = try #require(reads.first?["result"]?["version"]?.int64Value)
    #expect(reads.last?["result"]?["version"] == .int(version))

    // Both change it in the same instant.
    let changes = [
      incoming(1, #"{"id":"a","op":"set_qty","line":1,"qty":2,"expect_version":\#(version)}"#),
      incoming(2, #"{"id":"b","op":"remove","line":1,"expect_version":\#(version)}"#),
    ]
    let result = lane.service.process(swapped ? Array(changes.reversed()) : changes)
    let replies = try parsedReplies(result)
    #expect(replies.count == 2)
    #expect(replies.filter { $0["ok"] == .bool(true) }.count == 1)
    let winner = try #require(replies.first)
    let loser = try #require(replies.last)
    #expect(winner["ok"] == .bool(true))
    #expect(loser.errorCode == "version_conflict")
    #expect(loser["error"]?["data"]?["version"] == .int(version + 1))
    #expect(result.events.count == 1)
    if swapped {
      #expect(winner["id"] == "b")
      #expect(result.events.first?.event.type == "line_removed")
      #expect(lane.register.order.lines.isEmpty)
    } else {
      #expect(winner["id"] == "a")
      #expect(result.events.first?.event.type == "quantity_set")
      #expect(lane.register.order.lines.map(\.quantity) == [2])
      #expect(loser["error"]?["data"]?["lines"]?.arrayValue?.first?["qty"] == .int(2))
    }
  }

  @Test(arguments: [
    #"{"op":"park"}"#, #"{"op":"void"}"#, #"{"op":"tender","type":"cash","amount":"100.00"}"#,
  ])
  func aVersionSeenOnAnotherOrderIsAConflict(closing: String) throws {
    // Terminal A sees order 1 at some version. Terminal B parks, voids or completes it and
    // rings up items on order 2. A's change was based on order 1; it must not land on order 2,
    // an order A has never seen, whatever version order 2 has reached.
    let lane = try TestLane()
    try lane.service.send(Requests.Add(sku: "JEANS"), from: 1)
    try lane.service.send(Requests.Add(sku: "GIFT"), from: 1)
    let seen = try #require(try lane.service.send(Requests.Order(), from: 1)["result"])
    #expect(seen["order_id"] == .int(1))
    let version = try #require(seen["version"]?.int64Value)
    let stale = #"{"op":"remove","line":1,"expect_version":\#(version)}"#

    #expect(try lane.service.send(closing, from: 2)["ok"] == .bool(true))
    #expect(lane.register.order.id == 2)
    for sku in ["TEE", "JEANS", "GIFT", "JEANS"] {
      try lane.service.ok(Requests.Add(sku: sku))
      #expect(Int64(lane.register.order.version) != version)
      let before = lane.register.order
      let reply = try lane.service.send(stale, from: 1)
      #expect(reply.errorCode == "version_conflict")
      #expect(lane.register.order == before)
    }
    #expect(lane.register.order.lines.map(\.sku) == ["TEE", "JEANS", "GIFT", "JEANS"])
  }

  @Test func theFingerprintIgnoresTheOrderOfFields() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 2), envelope: RequestEnvelope(key: "k-order"))
    let again = try lane.send(
      Requests.Add(sku: "JEANS", quantity: 2), envelope: RequestEnvelope(key: "k-order"))
    #expect(again["ok"] == .bool(true))
    #expect(lane.register.order.lines.count == 1, "the same request in another order is a retry")
  }
}

/// register-cli's fresh keys are journaled as they are: a key that looks like a card number is
/// kept only as its digest, and register-cli's grouping keeps digit runs short.
@Suite struct FreshIdempotencyKeyTests {
  @Test func aKeyWhoseHexHoldsACardNumberIsStillAccepted() throws {
    // Plain hex of these bytes starts with 4242424242424242, a Luhn-valid card number.
    let bytes: [UInt8] = Array(repeating: 0x42, count: 8) + Array(repeating: 0xab, count: 8)
    let plain = hexString(bytes)
    #expect(CardNumberMask.containsCardNumber(plain))
    let lane = try TestLane()
    // Taken, whatever it holds (kept as its digest).
    try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(key: plain))
    #expect(lane.register.keys[IdempotencyKey.kept(plain)] != nil)

    let key = IdempotencyKey.make(bytes)
    #expect(key == "42424242_42424242_abababab_abababab")
    #expect(!CardNumberMask.containsCardNumber(key))
    try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(key: key))
    #expect(lane.register.order.lines.count == 2)
    #expect(lane.register.keys[key] != nil, "kept as it is")
  }

  @Test func keysWithLongDigitRunsNeverLookLikeACardNumber() {
    // Hex digits that are mostly decimal digits, so plain hex often has a Luhn-valid run of 12
    // to 19 digits. Every key keeps all 128 bits.
    var generator = SplitMix64(seed: 9)
    var plainRefused = 0
    for _ in 0..<2000 {
      let nibbles = (0..<32).map { _ in
        UInt8.random(in: 0..<8, using: &generator) == 0
          ? UInt8.random(in: 10...15, using: &generator)
          : UInt8.random(in: 0...9, using: &generator)
      }
      let bytes = stride(from: 0, to: 32, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
      if CardNumberMask.containsCardNumber(hexString(bytes)) { plainRefused += 1 }
      let key = IdempotencyKey.make(bytes)
      #expect(!CardNumberMask.containsCardNumber(key), "\(key)")
      #expect(key.split(separator: "_").joined() == hexString(bytes))
    }
    #expect(plainRefused > 20, "the sample must hold keys plain hex gets refused for")
    #expect(IdempotencyKey.make([]) == "")
    #expect(IdempotencyKey.make([0x01, 0x02, 0x03]) == "010203")
  }

  @Test func freshKeysDifferAndAreAccepted() throws {
    let lane = try TestLane()
    let first = IdempotencyKey.random(RegisterService.systemRandom)
    let second = IdempotencyKey.random(RegisterService.systemRandom)
    #expect(first != second)
    #expect(first.count == 35)
    try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(key: first))
    try lane.ok(Requests.Add(sku: "JEANS"), envelope: RequestEnvelope(key: second))
    #expect(lane.register.order.lines.count == 2)
  }
}
