import Testing

@testable import RegisterEngine

/// Rings up and pays the sale most return tests start from; it gets receipt 1.
///
///     line  item               gross  line disc.  order disc.    net   tax share
///     1     3 × TEE @ 15.00    45.00  10 % 4.50        1.75    38.75      2.91
///     2     JEANS               49.99          -        2.17    47.82      3.58
///     3     GIFT (exempt)       25.00          -        1.08    23.92      0.00
///
/// The order discount of 5.00 is spread over the nets 40.50, 49.99 and 25.00 (115.49) in
/// proportion: 1.7534, 2.1642, 1.0823 → 1.75 + 2.16 + 1.08 = 4.99, and the last cent goes to the
/// largest remainder (line 2) → 2.17. Tax 7.5 % on the standard nets 38.75 + 47.82 = 86.57 is
/// 6.49275 → 6.49, spread over lines 1 and 2 in proportion: 2.9051, 3.5849 → 2.90 + 3.58, the
/// last cent to line 1 → 2.91. Total 110.49 + 6.49 = 116.98: 20.00 on the Visa ending 4242,
/// then 100.00 in cash for the 96.98 left, 3.02 change.
@discardableResult
func sellMixedOrder(
  _ service: RegisterService, sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONValue {
  try service.ok(Requests.Add(sku: "TEE", quantity: 3), sourceLocation: sourceLocation)
  try service.ok(Requests.Add(sku: "JEANS"), sourceLocation: sourceLocation)
  try service.ok(Requests.Add(sku: "GIFT"), sourceLocation: sourceLocation)
  try service.ok(
    Requests.Discount(line: 1, value: .percent(percent("10")), reason: "loyalty"),
    sourceLocation: sourceLocation)
  try service.ok(
    Requests.Discount(value: .amount(usd("5.00")), reason: "coupon"), sourceLocation: sourceLocation
  )
  try service.ok(
    Requests.Tender(.card(testCard(), amount: usd("20.00"))),
    sourceLocation: sourceLocation)
  let sale = try service.ok(
    Requests.Tender(.cash(amount: usd("100.00"))), sourceLocation: sourceLocation)
  #expect(sale["status"] == "completed", sourceLocation: sourceLocation)
  #expect(sale["receipt"]?["number"] == .int(1), sourceLocation: sourceLocation)
  #expect(sale["total"] == "116.98", sourceLocation: sourceLocation)
  #expect(sale["tax"] == "6.49", sourceLocation: sourceLocation)
  #expect(sale["change_due"] == "3.02", sourceLocation: sourceLocation)
  return sale
}

/// A return request of `qty` units of `line` of receipt `receipt`.
func returnRequest(receipt: Int = 1, line: Int, qty: Int, reason: String = "changed mind")
  -> String
{
  #"{"op":"return","receipt":\#(receipt),"lines":[{"line":\#(line),"qty":\#(qty)}],"#
    + #""reason":"\#(reason)"}"#
}

/// The Visa of `cardJSON()` as the register keeps it.
let visa4242 = CardSummary(brand: .visa, last4: "4242")

@Suite struct ReturnTests {
  @Test func partialReturnsOfALineAddUpToTheLineExactly() throws {
    // Line 1: net 38.75 and tax 2.91 for 3 units; each return refunds share(after) −
    // share(before), rounded half away from zero:
    //   1st unit: net 38.75 × 1/3 = 12.9167 → 12.92, tax 2.91 × 1/3 = 0.97 → 13.89
    //   2nd unit: 38.75 × 2/3 = 25.8333 → 25.83 − 12.92 = 12.91, tax 1.94 − 0.97 = 0.97 → 13.88
    //   3rd unit: 38.75 − 25.83 = 12.92, tax 2.91 − 1.94 = 0.97 → 13.89
    // 13.89 + 13.88 + 13.89 = 41.66 = 38.75 + 2.91.
    // Refunds go to the Visa first, up to the 20.00 it paid: 13.89; then 6.11 + 7.77 cash; then
    // 13.89 cash.
    let lane = try TestLane()
    try sellMixedOrder(lane.service)
    #expect(lane.register.products["TEE"]?.stock == 0)

    let first = try lane.ok(returnRequest(line: 1, qty: 1, reason: "too small"))
    #expect(first["number"] == .int(2))
    let firstReceipt = try #require(first["receipt"])
    #expect(firstReceipt["net"] == "12.92")
    #expect(firstReceipt["tax"] == "0.97")
    #expect(firstReceipt["total"] == "13.89")
    #expect(firstReceipt["item_count"] == .int(1))
    let firstLines = try #require(firstReceipt["lines"]?.arrayValue)
    #expect(firstLines.count == 1)
    #expect(firstLines.first?["line"] == .int(1))
    #expect(firstLines.first?["sku"] == "TEE")
    #expect(firstLines.first?["unit_price"] == "15.00")
    let firstRefunds = try #require(firstReceipt["refunds"]?.arrayValue)
    #expect(firstRefunds.count == 1)
    #expect(firstRefunds.first?["type"] == "card")
    #expect(firstRefunds.first?["amount"] == "13.89")
    #expect(firstRefunds.first?["card"]?["brand"] == "VISA")
    #expect(firstRefunds.first?["card"]?["last4"] == "4242")
    #expect(lane.register.products["TEE"]?.stock == 1)

    let second = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(second["number"] == .int(3))
    #expect(second["receipt"]?["net"] == "12.91")
    #expect(second["receipt"]?["tax"] == "0.97")
    #expect(second["receipt"]?["total"] == "13.88")
    let secondRefunds = try #require(second["receipt"]?["refunds"]?.arrayValue)
    #expect(secondRefunds.map { $0["type"] } == ["card", "cash"])
    #expect(secondRefunds.map { $0["amount"] } == ["6.11", "7.77"])
    #expect(secondRefunds.first?["card"]?["last4"] == "4242")
    #expect(lane.register.products["TEE"]?.stock == 2)

    let third = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(third["number"] == .int(4))
    #expect(third["receipt"]?["net"] == "12.92")
    #expect(third["receipt"]?["tax"] == "0.97")
    #expect(third["receipt"]?["total"] == "13.89")
    let thirdRefunds = try #require(third["receipt"]?["refunds"]?.arrayValue)
    #expect(thirdRefunds.map { $0["type"] } == ["cash"])
    #expect(thirdRefunds.map { $0["amount"] } == ["13.89"])
    #expect(lane.register.products["TEE"]?.stock == 3)

    let returns = lane.register.returns.values
    #expect(returns.map(\.receiptNumber) == [2, 3, 4])
    #expect(returns.map(\.originalReceipt) == [1, 1, 1])
    #expect(returns.reduce(0) { $0 + $1.net.minorUnits } == 3875)
    #expect(returns.reduce(0) { $0 + $1.tax.minorUnits } == 291)
    #expect(returns.reduce(0) { $0 + $1.total.minorUnits } == 4166)
    #expect(lane.register.returnedQuantities[1] == [1: 3])
    // Per line, the net and tax of the three returns together: exactly the line's.
    #expect(
      lane.register.refunded[1]
        == RefundState(
          cards: [visa4242: 2000], cash: 2166, lineRefunds: [1: LineRefund(net: 3875, tax: 291)]))
    // Nothing more of the line can come back.
    let refused = try lane.send(returnRequest(line: 1, qty: 1))
    #expect(refused.errorCode == "return_exceeds_sold")
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test func aWholeSaleReturnedAtOnceRefundsItsTotal() throws {
    // All three lines: 38.75 + 47.82 + 23.92 = 110.49 net, 2.91 + 3.58 = 6.49 tax → 116.98,
    // the sale's total: 20.00 back on the Visa, 96.98 in cash.
    let lane = try TestLane()
    try sellMixedOrder(lane.service)
    let request =
      #"{"op":"return","receipt":1,"lines":[{"line":3,"qty":1},{"line":1,"qty":3},"#
      + #"{"line":2,"qty":1}],"reason":"order cancelled"}"#
    let result = try lane.ok(request)
    let receipt = try #require(result["receipt"])
    #expect(receipt["lines"]?.arrayValue?.map { $0["line"] } == [.int(3), .int(1), .int(2)])
    #expect(receipt["lines"]?.arrayValue?.map { $0["net"] } == ["23.92", "38.75", "47.82"])
    #expect(receipt["lines"]?.arrayValue?.map { $0["tax"] } == ["0.00", "2.91", "3.58"])
    #expect(receipt["net"] == "110.49")
    #expect(receipt["tax"] == "6.49")
    #expect(receipt["total"] == "116.98")
    #expect(receipt["item_count"] == .int(5))
    #expect(receipt["refunds"]?.arrayValue?.map { $0["amount"] } == ["20.00", "96.98"])
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test func aReturnNeverExceedsWhatWasSoldLessWhatCameBack() throws {
    let lane = try TestLane()
    try sellMixedOrder(lane.service)

    let tooMany = try lane.send(returnRequest(line: 1, qty: 4))
    #expect(tooMany.errorCode == "return_exceeds_sold")
    let message = try #require(tooMany["error"]?["message"]?.stringValue)
    #expect(message.contains("at most 3 can be returned"))

    try lane.ok(returnRequest(line: 1, qty: 2))
    let overTheRest = try lane.send(returnRequest(line: 1, qty: 2))
    #expect(overTheRest.errorCode == "return_exceeds_sold")
    let restMessage = try #require(overTheRest["error"]?["message"]?.stringValue)
    #expect(restMessage.contains("2 already returned"))
    #expect(restMessage.contains("at most 1 can be returned"))

    // One line over the limit refuses the whole request: line 2 is not returned either.
    let before = lane.snapshot
    let mixed = try lane.send(
      #"{"op":"return","receipt":1,"lines":[{"line":2,"qty":1},{"line":1,"qty":2}],"#
        + #""reason":"both"}"#)
    #expect(mixed.errorCode == "return_exceeds_sold")
    #expect(lane.snapshot == before)
    #expect(lane.register.returnedQuantities[1] == [1: 2])
    #expect(lane.register.returns.count == 1)

    try lane.ok(returnRequest(line: 1, qty: 1))
    try lane.ok(returnRequest(line: 2, qty: 1))
    for line in [1, 2] {
      let reply = try lane.send(returnRequest(line: line, qty: 1))
      #expect(reply.errorCode == "return_exceeds_sold")
      #expect(reply["error"]?["message"]?.stringValue?.contains("at most 0") == true)
    }
    #expect(lane.register.returnedQuantities[1] == [1: 3, 2: 1])
    #expect(lane.register.returns.count == 3)
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test func limitsRefundsAndStockCarryOverAJournalReplay() throws {
    // The same three one-unit returns as above, with a restart after each of the first two.
    let lane = try JournalLane()
    try sellMixedOrder(lane.service)
    let first = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(first["receipt"]?["refunds"]?.arrayValue?.map { $0["amount"] } == ["13.89"])
    #expect(lane.register.products["TEE"]?.stock == 1)

    let service = try lane.restarted()
    // Stock restored once: replaying the sale and the return gives 1, not 2.
    #expect(service.register.products["TEE"]?.stock == 1)
    #expect(service.register.returnedQuantities == lane.register.returnedQuantities)
    #expect(service.register.refunded == lane.register.refunded)
    #expect(service.register.returns == lane.register.returns)
    #expect(service.register.nextReceiptNumber == 3)
    let tooMany = try service.send(returnRequest(line: 1, qty: 3))
    #expect(tooMany.errorCode == "return_exceeds_sold")
    #expect(tooMany["error"]?["message"]?.stringValue?.contains("at most 2") == true)
    // The Visa has 6.11 left after the replayed 13.89.
    let second = try service.ok(returnRequest(line: 1, qty: 1))
    #expect(second["number"] == .int(3))
    let refunds = try #require(second["receipt"]?["refunds"]?.arrayValue)
    #expect(refunds.map { $0["type"] } == ["card", "cash"])
    #expect(refunds.map { $0["amount"] } == ["6.11", "7.77"])
    #expect(service.register.products["TEE"]?.stock == 2)

    let again = try lane.restarted()
    #expect(again.register.products["TEE"]?.stock == 2)
    #expect(again.register.returnedQuantities[1] == [1: 2])
    #expect(again.register.returns.count == 2)
    let overTheRest = try again.send(returnRequest(line: 1, qty: 2))
    #expect(overTheRest.errorCode == "return_exceeds_sold")
    #expect(overTheRest["error"]?["message"]?.stringValue?.contains("at most 1") == true)
    let third = try again.ok(returnRequest(line: 1, qty: 1))
    #expect(third["number"] == .int(4))
    #expect(third["receipt"]?["total"] == "13.89")
    #expect(third["receipt"]?["refunds"]?.arrayValue?.map { $0["type"] } == ["cash"])
    #expect(again.register.products["TEE"]?.stock == 3)
    #expect(try again.send(returnRequest(line: 1, qty: 1)).errorCode == "return_exceeds_sold")

    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.products["TEE"]?.stock == 3)
    #expect(replayed.returns == again.register.returns)
    #expect(
      replayed.refunded[1]
        == RefundState(
          cards: [visa4242: 2000], cash: 2166, lineRefunds: [1: LineRefund(net: 3875, tax: 291)]))
    #expect(RegisterState(replayed) == RegisterState(again.register))
  }

  @Test func aCardOnlySaleIsRefundedToThatCard() throws {
    // JEANS 49.99 + tax 3.75 = 53.74, all on a Mastercard ending 4444.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let card = testCard("5555555555554444")
    let sale = try lane.ok(Requests.Tender(.card(card, amount: nil)))
    #expect(sale["status"] == "completed")

    let result = try lane.ok(returnRequest(line: 1, qty: 1, reason: "defect"))
    let refunds = try #require(result["receipt"]?["refunds"]?.arrayValue)
    #expect(refunds.count == 1)
    #expect(refunds.first?["type"] == "card")
    #expect(refunds.first?["amount"] == "53.74")
    #expect(refunds.first?["card"]?["brand"] == "MASTERCARD")
    #expect(refunds.first?["card"]?["last4"] == "4444")
    let text = try #require(result["text"]?.stringValue)
    #expect(text.contains(receiptColumns("MASTERCARD ****4444 refund", "-53.74")))
    #expect(!result.serialized.contains("5555555555554444"))
    let mastercard = CardSummary(brand: .mastercard, last4: "4444")
    #expect(
      lane.register.refunded[1]
        == RefundState(
          cards: [mastercard: 5374], cash: 0, lineRefunds: [1: LineRefund(net: 4999, tax: 375)]))

    let report = try #require(try lane.ok(Requests.Report(kind: .x))["report"])
    let byType = try #require(report["returns"]?["refunds"]?.arrayValue)
    #expect(byType.map { $0["type"] } == ["card MASTERCARD"])
    #expect(byType.map { $0["amount"] } == ["53.74"])
  }

  @Test func refundsGoToEachCardUpToWhatItPaid() throws {
    // GIFT 25.00 × 3 = 75.00 exempt: 10.00 on the Visa, 30.00 on the Mastercard, 35.00 cash.
    // Returning 2 (50.00): Visa 10.00, Mastercard 30.00, cash 10.00. The last one (25.00): the
    // cards are used up, all in cash.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT", quantity: 3))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("10.00"))))
    let mastercard = testCard("5555555555554444")
    try lane.ok(Requests.Tender(.card(mastercard, amount: usd("30.00"))))
    try lane.ok(Requests.Tender(.cash(amount: usd("35.00"))))

    let first = try lane.ok(returnRequest(line: 1, qty: 2))
    let refunds = try #require(first["receipt"]?["refunds"]?.arrayValue)
    #expect(refunds.map { $0["card"]?["last4"] } == ["4242", "4444", nil])
    #expect(refunds.map { $0["amount"] } == ["10.00", "30.00", "10.00"])
    let last = try lane.ok(returnRequest(line: 1, qty: 1))
    let lastRefunds = try #require(last["receipt"]?["refunds"]?.arrayValue)
    #expect(lastRefunds.map { $0["type"] } == ["cash"])
    #expect(lastRefunds.map { $0["amount"] } == ["25.00"])
  }

  @Test func aReturnGetsItsOwnReceiptFromTheSaleSequence() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))

    let result = try lane.ok(returnRequest(line: 1, qty: 1, reason: "wrong size"))
    #expect(result["number"] == .int(3))
    let text = try #require(result["text"]?.stringValue)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.drop { $0 == " " } == "RETURN" })
    #expect(lines.contains { $0.hasPrefix("Receipt 3 ") })
    #expect(lines.contains(receiptColumns("Refund for receipt 1", "Day 1")))
    #expect(text.contains("Reason: wrong size"))
    #expect(lines.contains(receiptColumns("1 x Gift Card", "-25.00")))
    #expect(lines.contains(receiptColumns("REFUND", "-25.00")))
    #expect(lines.contains(receiptColumns("Cash refund", "-25.00")))
    #expect(lines.contains(receiptColumns("Items returned", "1")))
    #expect(!text.contains("REPRINT"))
    let receipt = try #require(result["receipt"])
    #expect(receipt["kind"] == "return")
    #expect(receipt["number"] == .int(3))
    #expect(receipt["original_receipt"] == .int(1))
    #expect(receipt["reason"] == "wrong size")
    #expect(receipt["day"] == .int(1))
    #expect(receipt["reprint"] == nil)
    #expect(lane.register.lastReceiptNumber == 3)

    // The next sale continues the sequence.
    try lane.ok(Requests.Add(sku: "GIFT"))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    #expect(sale["receipt"]?["number"] == .int(4))

    // The receipt op reprints the return.
    let reprint = try lane.ok(Requests.Receipt(number: 3))
    #expect(reprint["number"] == .int(3))
    #expect(reprint["receipt"]?["kind"] == "return")
    #expect(reprint["receipt"]?["reprint"] == .bool(true))
    let reprinted = try #require(reprint["text"]?.stringValue)
    #expect(reprinted.contains("*** REPRINT ***"))
    #expect(reprinted.contains(receiptColumns("Refund for receipt 1", "Day 1")))
    #expect(try lane.ok(Requests.Receipt(number: 1))["receipt"]?["kind"] == "sale")
  }

  @Test func aReturnReceiptOrAnUnknownReceiptCannotBeReturnedAgainst() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT", quantity: 2))
    try lane.ok(Requests.Tender(.cash(amount: usd("50.00"))))
    try lane.ok(returnRequest(line: 1, qty: 1))
    let before = lane.snapshot
    let ofReturn = try lane.send(returnRequest(receipt: 2, line: 1, qty: 1))
    #expect(ofReturn.errorCode == "receipt_not_found")
    #expect(ofReturn["error"]?["message"]?.stringValue?.contains("itself a return") == true)
    for receipt in [0, 3, 99] {
      let reply = try lane.send(returnRequest(receipt: receipt, line: 1, qty: 1))
      #expect(reply.errorCode == "receipt_not_found")
    }
    #expect(lane.snapshot == before)
    #expect(lane.register.returns.count == 1)
  }

  @Test(arguments: [
    (#"{"op":"return","receipt":1,"lines":[{"line":9,"qty":1}],"reason":"x"}"#, "line_not_found"),
    (#"{"op":"return","receipt":1,"lines":[{"line":1,"qty":0}],"reason":"x"}"#, "invalid_quantity"),
    (
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":-1}],"reason":"x"}"#, "invalid_quantity"
    ),
    (
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1},{"line":1,"qty":1}],"reason":"x"}"#,
      "bad_request"
    ),
    (#"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}]}"#, "bad_request"),
    (#"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":""}"#, "bad_request"),
    (#"{"op":"return","receipt":1,"lines":[],"reason":"x"}"#, "bad_request"),
    (#"{"op":"return","receipt":1,"reason":"x"}"#, "bad_request"),
    (#"{"op":"return","lines":[{"line":1,"qty":1}],"reason":"x"}"#, "bad_request"),
    (#"{"op":"return","receipt":1,"lines":[{"line":1}],"reason":"x"}"#, "bad_request"),
    (
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1,"price":"1.00"}],"reason":"x"}"#,
      "bad_request"
    ),
  ])
  func aBadReturnIsRefusedAndChangesNothing(request: String, code: String) throws {
    let lane = try TestLane()
    try sellMixedOrder(lane.service)
    let before = lane.snapshot
    let reply = try lane.send(request)
    #expect(reply["ok"] == .bool(false))
    #expect(reply.errorCode == code)
    #expect(lane.snapshot == before)
    #expect(lane.register.returns.isEmpty)
    #expect(lane.register.returnedQuantities.isEmpty)
    #expect(lane.register.refunded.isEmpty)
    #expect(lane.register.day.totals.returnsCount == 0)
  }

  @Test func aVoidedLineOfTheSaleCannotBeReturned() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.VoidLine(line: 1))
    try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    let before = lane.snapshot
    #expect(try lane.send(returnRequest(line: 1, qty: 1)).errorCode == "line_not_found")
    #expect(lane.snapshot == before)
    #expect(lane.register.products["TEE"]?.stock == 3)
    try lane.ok(returnRequest(line: 2, qty: 1))
  }

  @Test func aSaleOfAClosedDayIsReturnedOnTheNewDay() throws {
    // Day 1 sells receipt 1 and closes. On day 2: 2 of line 1 (net 38.75 × 2/3 = 25.8333 →
    // 25.83, tax 2.91 × 2/3 = 1.94) and line 3 (23.92, no tax): net 49.75, tax 1.94, total
    // 51.69: 20.00 back on the Visa, 31.69 in cash.
    let lane = try TestLane()
    try sellMixedOrder(lane.service)
    try lane.ok(Requests.CloseDay())
    #expect(lane.register.day.number == 2)
    // The new day's drawer starts with a float; without cash in it a cash refund is refused
    // (insufficient_cash).
    try lane.ok(Requests.SetFloat(amount: usd("100.00")))

    let request =
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":2},{"line":3,"qty":1}],"#
      + #""reason":"came back next day"}"#
    let result = try lane.ok(request)
    #expect(result["number"] == .int(2))
    let receipt = try #require(result["receipt"])
    #expect(receipt["day"] == .int(2))
    #expect(receipt["net"] == "49.75")
    #expect(receipt["tax"] == "1.94")
    #expect(receipt["total"] == "51.69")
    #expect(lane.register.products["TEE"]?.stock == 2)

    let reply = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(reply["report"])
    #expect(report["day"] == .int(2))
    #expect(report["sales_count"] == .int(0))
    #expect(report["total"] == "0.00")
    let returns = try #require(report["returns"])
    #expect(returns["count"] == .int(1))
    #expect(returns["items"] == .int(3))
    #expect(returns["net"] == "49.75")
    #expect(returns["tax"] == "1.94")
    #expect(returns["total"] == "51.69")
    #expect(returns["cash_rounding"] == "0.00")
    let refunds = try #require(returns["refunds"]?.arrayValue)
    #expect(refunds.map { $0["type"] } == ["card VISA", "cash"])
    #expect(refunds.map { $0["count"] } == [.int(1), .int(1)])
    #expect(refunds.map { $0["amount"] } == ["20.00", "31.69"])
    #expect(report["first_receipt"] == .int(2))
    let text = try #require(reply["text"]?.stringValue)
    #expect(text.contains(receiptColumns("Returns (1)", "-51.69")))
    #expect(text.contains(receiptColumns("  items returned", "3")))
    #expect(text.contains(receiptColumns("  tax refunded", "-1.94")))
    #expect(text.contains(receiptColumns("  refund VISA card (1)", "-20.00")))
    #expect(text.contains(receiptColumns("  refund Cash (1)", "-31.69")))

    // Day 1's Z report is as it was closed: no returns.
    let z = try #require(try lane.ok(Requests.Report(kind: .z, day: 1))["report"])
    #expect(z["returns"]?["count"] == .int(0))
    #expect(z["sales_count"] == .int(1))
  }
}

/// A store whose shelf prices include 7.5 % tax.
let taxInclusiveCatalogJSON = """
  {
    "store": {
      "name": "Inclusive Lane", "address": [], "currency": "USD",
      "tax": {"classes": {"standard": "7.5"}, "default_class": "standard",
              "prices_include_tax": true}
    },
    "products": [
      {"sku": "MUG", "name": "Mug", "description": "", "category": "Gifts", "price": "9.99",
       "stock": 5}
    ]
  }
  """

/// A store that rounds cash to 0.05, with tax-exempt items at 10.03 and 10.01.
let nickelCatalogJSON = """
  {
    "store": {
      "name": "Nickel Lane", "address": [], "currency": "USD", "cash_rounding": "0.05",
      "tax": {"classes": {"exempt": "0"}, "default_class": "exempt"}
    },
    "products": [
      {"sku": "P3", "name": "Item 3", "description": "", "category": "Test", "price": "10.03"},
      {"sku": "P1", "name": "Item 1", "description": "", "category": "Test", "price": "10.01"}
    ]
  }
  """

@Suite struct ReturnStoreSettingsTests {
  @Test func aTaxInclusiveRefundIsTheNetWithTheTaxContained() throws {
    // 3 × MUG 9.99 = 29.97 with the tax inside: 29.97 × 7.5 / 107.5 = 2.0909 → 2.09.
    // Return 1: net 9.99, tax 2.09 / 3 = 0.6967 → 0.70, refund 9.99 (not 10.69).
    // Return 2: net 19.98, tax 2.09 − 0.70 = 1.39, refund 19.98. 9.99 + 19.98 = 29.97.
    let lane = try TestLane(lifecycleCatalog: taxInclusiveCatalogJSON)
    try lane.ok(Requests.Add(sku: "MUG", quantity: 3))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("29.97"))))
    #expect(sale["total"] == "29.97")
    #expect(sale["tax"] == "2.09")
    #expect(lane.register.products["MUG"]?.stock == 2)

    let first = try lane.ok(returnRequest(line: 1, qty: 1))
    let receipt = try #require(first["receipt"])
    #expect(receipt["tax_included"] == .bool(true))
    #expect(receipt["net"] == "9.99")
    #expect(receipt["tax"] == "0.70")
    #expect(receipt["total"] == "9.99")
    #expect(receipt["refunds"]?.arrayValue?.map { $0["amount"] } == ["9.99"])
    let text = try #require(first["text"]?.stringValue)
    #expect(text.contains(receiptColumns("REFUND", "-9.99")))
    #expect(text.contains(receiptColumns("  incl. tax standard 7.5%", "-0.70")))
    #expect(lane.register.products["MUG"]?.stock == 3)

    let second = try lane.ok(returnRequest(line: 1, qty: 2))
    #expect(second["receipt"]?["net"] == "19.98")
    #expect(second["receipt"]?["tax"] == "1.39")
    #expect(second["receipt"]?["total"] == "19.98")
    #expect(lane.register.products["MUG"]?.stock == 5)
    #expect(lane.register.day.totals.returnsTotal == 2997)
    #expect(lane.register.day.totals.returnsTax == 209)
  }

  @Test(arguments: [
    // 10.03 was paid as 10.05 in cash: 10.05 goes back, rounding +0.02.
    ("P3", "10.03", "10.05", "0.02"),
    // 10.01 was paid as 10.00 in cash: 10.00 goes back, rounding −0.01.
    ("P1", "10.01", "10.00", "-0.01"),
  ])
  func aCashRefundIsRoundedAndTheRoundingRecorded(
    sku: String, total: String, cash: String, rounding: String
  ) throws {
    let lane = try TestLane(lifecycleCatalog: nickelCatalogJSON)
    try lane.ok(Requests.Add(sku: sku))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    #expect(sale["status"] == "completed")
    #expect(sale["cash_rounding"] == .string(rounding))

    let result = try lane.ok(returnRequest(line: 1, qty: 1))
    let receipt = try #require(result["receipt"])
    #expect(receipt["total"] == .string(total))
    #expect(receipt["cash_rounding"] == .string(rounding))
    let refunds = try #require(receipt["refunds"]?.arrayValue)
    #expect(refunds.map { $0["type"] } == ["cash"])
    #expect(refunds.map { $0["amount"] } == [.string(cash)])
    let text = try #require(result["text"]?.stringValue)
    let printed = rounding.hasPrefix("-") ? String(rounding.dropFirst()) : "-" + rounding
    #expect(text.contains(receiptColumns("Cash rounding", printed)))
    #expect(text.contains(receiptColumns("Cash refund", "-" + cash)))
    // What is owed on the sale is tracked exactly; the rounding is only in the cash handed back.
    let exact = try Money.parse(total, currency: .usd).minorUnits
    #expect(
      lane.register.refunded[1]
        == RefundState(cards: [:], cash: exact, lineRefunds: [1: LineRefund(net: exact, tax: 0)]))

    let report = try #require(try lane.ok(Requests.Report(kind: .x))["report"])
    #expect(report["returns"]?["cash_rounding"] == .string(rounding))
    #expect(report["returns"]?["total"] == .string(total))
    #expect(report["returns"]?["refunds"]?.arrayValue?.map { $0["amount"] } == [.string(cash)])
  }

  @Test func cashRefundsRoundCumulativelyOverSeveralReturns() throws {
    // 3 × 10.03 = 30.09 paid as 30.10 in cash. Returned one at a time, the exact cash shares
    // add up 10.03, 20.06, 30.09; rounded: 10.05, 20.05, 30.10; so the refunds are 10.05, then
    // 10.00, then 10.05 — 30.10 in all, exactly the cash taken (not 3 × 10.05 = 30.15).
    let lane = try TestLane(lifecycleCatalog: nickelCatalogJSON)
    try lane.ok(Requests.Add(sku: "P3", quantity: 3))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("40.00"))))
    #expect(sale["change_due"] == "9.90")
    var handedBack: [JSONValue] = []
    for _ in 0..<3 {
      let result = try lane.ok(returnRequest(line: 1, qty: 1))
      handedBack.append(result["receipt"]?["refunds"]?.arrayValue?.first?["amount"] ?? .null)
    }
    #expect(handedBack == ["10.05", "10.00", "10.05"])
    #expect(lane.register.day.totals.cashRefunds == 3010)
  }
}
