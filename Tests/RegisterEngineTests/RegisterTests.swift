import Foundation
import Testing

@testable import RegisterEngine

@Suite struct RegisterOrderTests {
  @Test func eachAddAppendsANewLine() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let result = try lane.ok(Requests.Add(sku: "JEANS"))
    let lines = try #require(result["lines"]?.arrayValue)
    #expect(lines.count == 2)
    #expect(lines.map { $0["line"] } == [.int(1), .int(2)])
    #expect(lines.map { $0["qty"] } == [.int(1), .int(1)])
    #expect(lines.map { $0["sku"] } == ["JEANS", "JEANS"])
    #expect(result["item_count"] == .int(2))
    #expect(result["subtotal"] == "99.98")
    #expect(lane.register.order.lines.count == 2)
    #expect(lane.register.totals.itemCount == 2)
  }

  @Test func salePriceIsTheUnitPrice() throws {
    // 2 × T-shirt at the sale price 15.00 (regular 20.00) = 30.00; tax 30.00 × 7.5 % = 2.25.
    let lane = try TestLane()
    let result = try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    let line = try #require(result["lines"]?.arrayValue?.first)
    #expect(line["unit_price"] == "15.00")
    #expect(line["regular_price"] == "20.00")
    #expect(line["amount"] == "30.00")
    #expect(line["name"] == "T-Shirt")
    #expect(result["subtotal"] == "30.00")
    #expect(result["tax"] == "2.25")
    #expect(result["total"] == "32.25")
    #expect(result["balance_due"] == "32.25")
    #expect(result["status"] == "open")
    let stored = try #require(lane.register.order.lines.first)
    #expect(stored.unitPrice.minorUnits == 1500)
    #expect(stored.regularPrice.minorUnits == 2000)
    #expect(stored.isOnSale)
  }

  @Test func exemptAndStandardTotals() throws {
    // Jeans 49.99 standard → tax 3.74925 → 3.75; gift card 25.00 exempt → 0.00.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let result = try lane.ok(Requests.Add(sku: "GIFT"))
    #expect(result["subtotal"] == "74.99")
    #expect(result["tax"] == "3.75")
    #expect(result["total"] == "78.74")
    let taxes = try #require(result["taxes"]?.arrayValue)
    #expect(taxes.map { $0["class"] } == ["standard", "exempt"])
    #expect(taxes.map { $0["tax"] } == ["3.75", "0.00"])
  }

  @Test func stockCountsWhatTheOrderAlreadyHolds() throws {
    // TEE has 3 in stock.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    let before = lane.snapshot
    let refused = try lane.send(Requests.Add(sku: "TEE", quantity: 2))
    #expect(refused.errorCode == "out_of_stock")
    #expect(lane.snapshot == before)
    try lane.ok(Requests.Add(sku: "TEE", quantity: 1))
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "out_of_stock")
    #expect(lane.register.order.quantity(ofSKU: "TEE") == 3)
    // Stock is only taken when the sale completes.
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test func stockZeroIsOutOfStock() throws {
    let lane = try TestLane()
    let reply = try lane.send(Requests.Add(sku: "HAT"))
    #expect(reply.errorCode == "out_of_stock")
    #expect(lane.register.order.lines.isEmpty)
  }

  @Test func untrackedStockHasNoLimit() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 9999))
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 9999))
    #expect(lane.register.totals.itemCount == 19_998)
  }

  @Test(arguments: [
    (#"{"op":"add","sku":"JEANS","qty":0}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":-1}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":10000}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":1.5}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":1e2}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":99999999999999999999}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":"2"}"#, "bad_request"),
    (#"{"op":"add","sku":"JEANS","qty":true}"#, "bad_request"),
    (#"{"op":"add","sku":"JEANS","qty":[2]}"#, "bad_request"),
  ])
  func quantityMustBeAWholeNumberFromOneTo9999(request: String, code: String) throws {
    let lane = try TestLane()
    let reply = try lane.send(request)
    #expect(reply["ok"] == .bool(false))
    #expect(reply.errorCode == code)
    #expect(lane.register.order.lines.isEmpty)
  }

  @Test func quantityBoundsAreAccepted() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 1))
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 9999))
    #expect(lane.register.order.lines.map(\.quantity) == [1, 9999])
  }

  @Test func unknownSKU() throws {
    let lane = try TestLane()
    let reply = try lane.send(Requests.Add(sku: "NOPE"))
    #expect(reply.errorCode == "unknown_sku")
    #expect(reply["error"]?["message"]?.stringValue?.contains("NOPE") == true)
  }

  @Test func setQuantity() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    let result = try lane.ok(Requests.SetQty(line: 1, quantity: 3))
    #expect(result["lines"]?.arrayValue?.first?["qty"] == .int(3))
    #expect(result["subtotal"] == "45.00")
    try lane.ok(Requests.SetQty(line: 1, quantity: 1))
    #expect(lane.register.order.lines.first?.quantity == 1)
  }

  @Test func setQuantityBeyondStockIsRefused() throws {
    // TEE has 3: line 1 holds 1, line 2 holds 1; line 1 may go to 2 but not to 3.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Add(sku: "TEE"))
    let before = lane.snapshot
    #expect(try lane.send(Requests.SetQty(line: 1, quantity: 3)).errorCode == "out_of_stock")
    #expect(try lane.send(Requests.SetQty(line: 2, quantity: 4)).errorCode == "out_of_stock")
    #expect(lane.snapshot == before)
    try lane.ok(Requests.SetQty(line: 1, quantity: 2))
    #expect(lane.register.order.lines.map(\.quantity) == [2, 1])
  }

  @Test func removeLine() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    let result = try lane.ok(Requests.Remove(line: 1))
    #expect(result["lines"]?.arrayValue?.map { $0["sku"] } == ["GIFT"])
    #expect(result["total"] == "25.00")
    let before = lane.snapshot
    #expect(try lane.send(Requests.Remove(line: 1)).errorCode == "line_not_found")
    #expect(try lane.send(Requests.Remove(line: 99)).errorCode == "line_not_found")
    #expect(try lane.send(Requests.SetQty(line: 1, quantity: 2)).errorCode == "line_not_found")
    #expect(lane.snapshot == before)
    // Line numbers are never reused.
    let again = try lane.ok(Requests.Add(sku: "JEANS"))
    #expect(again["lines"]?.arrayValue?.map { $0["line"] } == [.int(2), .int(3)])
  }

  @Test func voidCancelsTheOrderAndItsTenders() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    let firstID = lane.register.order.id
    let result = try lane.ok(Requests.Void(reason: "customer left"))
    #expect(result["lines"]?.arrayValue == [])
    #expect(result["tenders"]?.arrayValue == [])
    #expect(result["total"] == "0.00")
    #expect(lane.register.order.id != firstID)
    #expect(lane.register.order.isEmpty)
    #expect(lane.register.receipts.isEmpty)
    #expect(try lane.send(Requests.Void()).errorCode == "empty_order")
  }
}

@Suite struct RegisterTenderTests {
  @Test func splitTenderCompletesTheSale() throws {
    // 2 × T-shirt 15.00 = 30.00 (tax 2.25) + gift card 25.00 (exempt): total 57.25.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "GIFT"))
    let firstOrder = lane.register.order.id
    let partial = try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    #expect(partial["status"] == "open")
    #expect(partial["paid"] == "20.00")
    #expect(partial["balance_due"] == "37.25")
    #expect(partial["receipt"] == nil)
    #expect(lane.register.receipts.isEmpty)

    // The card amount defaults to the balance, which completes the sale.
    let done = try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    #expect(done["status"] == "completed")
    #expect(done["order_id"] == .int(firstOrder))
    #expect(done["total"] == "57.25")
    #expect(done["paid"] == "57.25")
    #expect(done["balance_due"] == "0.00")
    #expect(done["change_due"] == "0.00")
    let tenders = try #require(done["tenders"]?.arrayValue)
    #expect(tenders.count == 2)
    #expect(tenders.first?["type"] == "cash")
    #expect(tenders.first?["amount"] == "20.00")
    #expect(tenders.last?["type"] == "card")
    #expect(tenders.last?["amount"] == "37.25")
    #expect(tenders.last?["card"] == .object(["brand": "VISA", "last4": "4242"]))
    #expect(done["receipt"]?["number"] == .int(1))
    #expect(done["receipt"]?["text"]?.stringValue?.contains("VISA ****4242") == true)
    #expect(done["receipt"]?["receipt"]?["total"] == "57.25")

    // Stock went down, a receipt exists, and a new empty order is open.
    #expect(lane.register.products["TEE"]?.stock == 1)
    #expect(lane.register.products["GIFT"]?.stock == nil)
    #expect(lane.register.lastReceiptNumber == 1)
    #expect(lane.register.receipts[1]?.totals.total == 5725)
    #expect(lane.register.order.isEmpty)
    #expect(lane.register.order.id != firstOrder)
    let open = try lane.ok(Requests.Order())
    #expect(open["status"] == "open")
    #expect(open["lines"]?.arrayValue == [])
    #expect(open["total"] == "0.00")
    #expect(open["order_id"] == .int(lane.register.order.id))

    // The stock taken by the sale is gone: only 1 TEE is left.
    #expect(try lane.send(Requests.Add(sku: "TEE", quantity: 2)).errorCode == "out_of_stock")
    try lane.ok(Requests.Add(sku: "TEE"))
  }

  @Test func receiptNumbersIncrease() throws {
    let lane = try TestLane()
    for expected in 1...3 {
      try lane.ok(Requests.Add(sku: "GIFT"))
      let done = try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
      #expect(done["status"] == "completed")
      #expect(done["receipt"]?["number"] == .int(expected))
      #expect(lane.register.lastReceiptNumber == expected)
    }
    #expect(lane.register.receipts.keys.sorted() == [1, 2, 3])
    #expect(lane.register.nextReceiptNumber == 4)
  }

  @Test func cashOverTheBalanceGivesChange() throws {
    // Jeans 49.99 + tax 3.75 = 53.74; 60.00 cash → 6.26 change.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    #expect(done["status"] == "completed")
    #expect(done["total"] == "53.74")
    #expect(done["paid"] == "60.00")
    #expect(done["change_due"] == "6.26")
    #expect(done["receipt"]?["receipt"]?["change"] == "6.26")
    #expect(lane.register.receipts[1]?.change.minorUnits == 626)
  }

  @Test func cashExactlyTheBalanceGivesNoChange() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let partial = try lane.ok(Requests.Tender(.cash(amount: usd("53.73"))))
    #expect(partial["status"] == "open")
    #expect(partial["balance_due"] == "0.01")
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("0.01"))))
    #expect(done["status"] == "completed")
    #expect(done["change_due"] == "0.00")
  }

  @Test func cardAmountOverTheBalanceIsRefused() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let before = lane.snapshot
    let reply = try lane.send(
      Requests.Tender(.card(testCard(), amount: usd("25.01"))))
    #expect(reply.errorCode == "tender_exceeds_balance")
    #expect(lane.snapshot == before)
  }

  @Test func partialCardThenCardForTheRest() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let partial = try lane.ok(
      Requests.Tender(.card(testCard(), amount: usd("10.00"))))
    #expect(partial["status"] == "open")
    #expect(partial["balance_due"] == "15.00")
    let amex = testCard("378282246310005", cvv: "7391")
    let done = try lane.ok(Requests.Tender(.card(amex, amount: nil)))
    #expect(done["status"] == "completed")
    let tenders = try #require(done["tenders"]?.arrayValue)
    #expect(tenders.map { $0["amount"] } == ["10.00", "15.00"])
    #expect(tenders.map { $0["card"]?["brand"] } == ["VISA", "AMEX"])
  }

  @Test func tenderOnAnEmptyOrderIsRefused() throws {
    let lane = try TestLane()
    let before = lane.snapshot
    let cash = try lane.send(Requests.Tender(.cash(amount: usd("5.00"))))
    #expect(cash.errorCode == "empty_order")
    let card = try lane.send(Requests.Tender(.card(testCard(), amount: nil)))
    #expect(card.errorCode == "empty_order")
    #expect(lane.snapshot == before)
  }

  @Test func cardExpiryThisMonthIsAcceptedLastMonthIsRefused() throws {
    // The clock says March 2026.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let lastMonth = testCard(month: 2, year: 2026)
    let reply = try lane.send(Requests.Tender(.card(lastMonth, amount: nil)))
    #expect(reply.errorCode == "card_expired")
    #expect(lane.register.order.tenders.isEmpty)
    let thisMonth = testCard(month: 3, year: 26)
    let done = try lane.ok(Requests.Tender(.card(thisMonth, amount: nil)))
    #expect(done["status"] == "completed")
  }

  @Test func decideThenApply() throws {
    let lane = try TestLane()
    var register = lane.register
    let context = CommandContext(now: testTime)
    let events = try register.decide(
      Requests.Add(sku: "TEE", quantity: 2), context: context
    ).accepted()
    #expect(events.count == 1)
    guard case .lineAdded(let orderID, let line) = events.first else {
      Issue.record("expected line_added, got \(events)")
      return
    }
    #expect(orderID == register.order.id)
    #expect(line.quantity == 2)
    #expect(line.unitPrice.minorUnits == 1500)
    // decide never mutates.
    #expect(register.order.lines.isEmpty)
    for event in events { register.apply(event, at: testTime) }
    #expect(register.order.lines == [line])
    #expect(register.totals.total == 3225)

    #expect(throws: RegisterError.self) {
      try register.decide(Requests.Add(sku: "TEE", quantity: 2), context: context).accepted()
    }
    let cash = TenderRequest.cash(amount: Money(minorUnits: 5000, currency: .usd))
    let paid = try register.decide(Requests.Tender(cash), context: context).accepted()
    #expect(paid.count == 2)
    guard case .saleCompleted(_, let receipt, _, let change, _) = paid.last else {
      Issue.record("expected sale_completed, got \(paid)")
      return
    }
    #expect(receipt == 1)
    #expect(change.minorUnits == 1775)
    for event in paid { register.apply(event, at: testTime) }
    #expect(register.products["TEE"]?.stock == 1)
    #expect(register.order.isEmpty)
  }
}

@Suite struct RegisterProtocolTests {
  /// Requests refused against an open order holding 2 × TEE (32.25) with 5.00 cash paid.
  @Test(arguments: [
    (#"{"op":"add","sku":"NOPE"}"#, "unknown_sku"),
    (#"{"op":"add","sku":"JEANS","qty":0}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":-1}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":10000}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":1.5}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"JEANS","qty":"2"}"#, "bad_request"),
    (#"{"op":"add","sku":"TEE","qty":2}"#, "out_of_stock"),
    (#"{"op":"add","sku":"HAT"}"#, "out_of_stock"),
    (#"{"op":"add"}"#, "bad_request"),
    (#"{"op":"add","sku":42}"#, "bad_request"),
    (#"{"op":"add","sku":"JEANS","qtty":2}"#, "bad_request"),
    (#"{"op":"set_qty","line":1,"qty":4}"#, "out_of_stock"),
    (#"{"op":"set_qty","line":1,"qty":0}"#, "invalid_quantity"),
    (#"{"op":"set_qty","line":9,"qty":1}"#, "line_not_found"),
    (#"{"op":"set_qty","line":1}"#, "bad_request"),
    (#"{"op":"remove","line":9}"#, "line_not_found"),
    (#"{"op":"remove","line":"1"}"#, "bad_request"),
    (#"{"op":"remove"}"#, "bad_request"),
    (#"{"op":"tender","type":"cash","amount":"-1.00"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"1.001"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"abc"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"99999999999999999999"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"1e3"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":""}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"0.00"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":20}"#, "bad_request"),
    (#"{"op":"tender","type":"cash","amount":20.00}"#, "bad_request"),
    (#"{"op":"tender","type":"cash"}"#, "bad_request"),
    (#"{"op":"tender","type":"cheque","amount":"1.00"}"#, "bad_request"),
    (#"{"op":"tender","type":"card"}"#, "bad_request"),
    (#"{"op":"tender","type":"card","amount":"-1.00","card":\#(cardJSON())}"#, "invalid_amount"),
    (#"{"op":"tender","type":"card","amount":"1.001","card":\#(cardJSON())}"#, "invalid_amount"),
    (
      #"{"op":"tender","type":"card","amount":"27.26","card":\#(cardJSON())}"#,
      "tender_exceeds_balance"
    ),
    (#"{"op":"tender","type":"card","amount":10,"card":\#(cardJSON())}"#, "bad_request"),
    (
      #"{"op":"tender","type":"card","card":\#(cardJSON(month: "2", year: "2026"))}"#,
      "card_expired"
    ),
    (#"{"op":"tender","type":"card","card":\#(cardJSON("4242424242424241"))}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":\#(cardJSON("4242"))}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":\#(cardJSON(cvv: "\"7391\""))}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":\#(cardJSON(cvv: "739"))}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":\#(cardJSON(month: "13"))}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":\#(cardJSON(month: "\"12\""))}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":{"number":"4242424242424242"}}"#, "invalid_card"),
    (#"{"op":"tender","type":"card","card":"4242424242424242"}"#, "invalid_card"),
    (#"{"op":"tender","type":"cash","amount":"5.00","card":\#(cardJSON())}"#, "bad_request"),
    (#"{"op":"order","extra":1}"#, "bad_request"),
    (#"{"op":"void","reason":""}"#, "bad_request"),
    (#"{"op":"receipt","number":99}"#, "receipt_not_found"),
    (#"{"op":"receipt"}"#, "receipt_not_found"),
    (#"{"op":"nope"}"#, "unknown_op"),
    (#"{"op":"ADD","sku":"JEANS"}"#, "unknown_op"),
    (#"{"sku":"JEANS"}"#, "bad_request"),
    (#"{"op":1}"#, "bad_request"),
    (#"{"op":null}"#, "bad_request"),
    (#"{"#, "bad_json"),
    (#"{"op":"order""#, "bad_json"),
    (#"not json"#, "bad_json"),
    (#"{'op':'order'}"#, "bad_json"),
    (#"{"op":"order"} {}"#, "bad_json"),
    (#"{"op":"order","op":"add"}"#, "bad_json"),
    (#"{"op":"add","sku":"JEANS",}"#, "bad_json"),
    ("", "bad_json"),
    ("[]", "bad_request"),
    ("[{\"op\":\"order\"}]", "bad_request"),
    ("42", "bad_request"),
    (#""order""#, "bad_request"),
    ("null", "bad_request"),
    ("true", "bad_request"),
  ])
  func refusedRequestsChangeNothing(request: String, code: String) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    let before = lane.snapshot
    let orderBefore = try lane.ok(Requests.Order())
    let reply = try lane.send(request)
    #expect(reply["ok"] == .bool(false))
    #expect(reply.errorCode == code, "\(reply.serialized)")
    #expect(reply["result"] == nil)
    let message = try #require(reply["error"]?["message"]?.stringValue)
    #expect(!message.isEmpty)
    #expect(!message.contains("4242424242424242"))
    #expect(lane.snapshot == before)
    #expect(try lane.ok(Requests.Order()) == orderBefore)
  }

  @Test func invalidUTF8IsBadJSON() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let before = lane.snapshot
    let lines: [[UInt8]] = [
      Array(#"{"op":"add","sku":"JE"#.utf8) + [0xFF] + Array(#""}"#.utf8),
      [0xC3, 0x28],
      [0xED, 0xA0, 0x80],  // an encoded surrogate
      [0xF8, 0x88, 0x80, 0x80, 0x80],
    ]
    let replies = lane.service.handle(lines.map { IncomingLine(connection: 3, bytes: $0) })
    #expect(replies.count == lines.count)
    for reply in replies {
      #expect(reply.connection == 3)
      let value = try JSONParser.parse(reply.line)
      #expect(value.errorCode == "bad_json", "\(reply.line)")
      #expect(value["id"] == .null)
    }
    #expect(lane.snapshot == before)
  }

  @Test func overlongLineIsLineTooLong() throws {
    let lane = try TestLane()
    let replies = lane.service.handle([IncomingLine(connection: 1, bytes: nil)])
    let value = try JSONParser.parse(try #require(replies.first).line)
    #expect(value.errorCode == "line_too_long")
    #expect(value["ok"] == .bool(false))
  }

  @Test func batchRepliesInOrder() throws {
    let lane = try TestLane()
    let lines = [
      #"{"id":1,"op":"add","sku":"JEANS"}"#, #"{"id":2,"op":"nope"}"#,
      #"{"id":3,"op":"add","sku":"GIFT"}"#,
    ]
    let replies = lane.service.handle(
      lines.enumerated().map { IncomingLine(connection: $0.offset, bytes: Array($0.element.utf8)) })
    let parsed = try replies.map { try JSONParser.parse($0.line) }
    #expect(replies.map(\.connection) == [0, 1, 2])
    #expect(parsed.map { $0["id"] } == [.int(1), .int(2), .int(3)])
    #expect(parsed.map { $0["ok"] } == [.bool(true), .bool(false), .bool(true)])
    #expect(parsed.last?["result"]?["lines"]?.arrayValue?.count == 2)
  }

  @Test(arguments: [
    "1", "\"abc\"", "null", "[1,{\"a\":2}]", "{\"k\":\"v\",\"n\":[]}", "1.5e3", "true", "-0",
    "\"\"", "123456789012345678901234567890",
  ])
  func idIsEchoed(id: String) throws {
    let lane = try TestLane()
    let expected = try JSONParser.parse(id)
    let success = try lane.send(#"{"id":\#(id),"op":"order"}"#)
    #expect(success["id"] == expected)
    #expect(success["ok"] == .bool(true))
    let failure = try lane.send(#"{"id":\#(id),"op":"nope"}"#)
    #expect(failure["id"] == expected)
    #expect(failure.errorCode == "unknown_op")
    let badField = try lane.send(#"{"op":"add","sku":"JEANS","id":\#(id),"zzz":1}"#)
    #expect(badField["id"] == expected)
    #expect(badField.errorCode == "bad_request")
    let mutation = try lane.send(#"{"op":"add","sku":"JEANS","id":\#(id)}"#)
    #expect(mutation["id"] == expected)
    #expect(mutation["ok"] == .bool(true))
  }

  @Test func replyShape() throws {
    let lane = try TestLane()
    let success = try lane.send(Requests.Order())
    #expect(success.objectValue?.keys == ["id", "ok", "result"])
    #expect(success["id"] == .null)
    let failure = try lane.send(#"{"op":"nope"}"#)
    #expect(failure.objectValue?.keys == ["id", "ok", "error"])
    #expect(failure["error"]?.objectValue?.keys == ["code", "message"])
  }

  @Test func hello() throws {
    let lane = try TestLane()
    let result = try lane.ok(Requests.Hello())
    #expect(result["protocol"] == .int(1))
    #expect(result["server"] == "registerd")
    #expect(result["currency"] == "USD")
  }

  @Test func catalogShowsEffectivePrices() throws {
    let lane = try TestLane()
    let result = try lane.ok(Requests.Catalog())
    let products = try #require(result["products"]?.arrayValue)
    #expect(products.map { $0["sku"] } == ["TEE", "JEANS", "GIFT", "HAT"])
    let tee = try #require(products.first)
    #expect(tee["unit_price"] == "15.00")
    #expect(tee["price"] == "20.00")
    #expect(tee["sale_price"] == "15.00")
    #expect(tee["stock"] == .int(3))
    #expect(tee["tax_class"] == "standard")
    #expect(tee["tax_rate"] == "7.5")
    #expect(products[1]["stock"] == .null)
    #expect(products[2]["tax_class"] == "exempt")
    #expect(products[2]["tax_rate"] == "0")
  }

  @Test func receiptOpReprints() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("30.00"))))
    let original = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(!original.contains("REPRINT"))
    let last = try lane.ok(Requests.Receipt())
    #expect(last["number"] == .int(1))
    #expect(last["text"]?.stringValue?.contains("*** REPRINT ***") == true)
    let byNumber = try lane.ok(Requests.Receipt(number: 1))
    #expect(byNumber == last)
    #expect(try lane.send(Requests.Receipt(number: 2)).errorCode == "receipt_not_found")
  }
}

@Suite struct CardPrivacyInRegisterTests {
  private static let secrets = [
    "4242424242424242", "4242 4242 4242 4242", "424242424242", "378282246310005", "7391",
    "739\"",
  ]

  private func expectNoSecrets(
    _ text: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for secret in Self.secrets {
      #expect(!text.contains(secret), "found \(secret)", sourceLocation: sourceLocation)
    }
  }

  @Test func repliesReceiptsAndStateNeverHoldTheCardNumberOrCVV() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    var replies: [String] = []
    let partial = #"{"op":"tender","type":"card","amount":"10.00","card":\#(cardJSON())}"#
    replies.append(lane.service.handle(line: partial))
    let amex = cardJSON("3782 8224 6310 005", cvv: "\"7391\"")
    replies.append(lane.service.handle(line: #"{"op":"tender","type":"card","card":\#(amex)}"#))
    replies.append(lane.service.handle(line: #"{"op":"receipt"}"#))
    for reply in replies { expectNoSecrets(reply) }
    let sale = try #require(lane.register.receipts[1])
    let text = ReceiptRenderer.text(sale)
    #expect(text.contains("VISA ****4242"))
    #expect(text.contains("AMEX ****0005"))
    expectNoSecrets(text)
    expectNoSecrets(sale.receiptJSON().serialized)
    expectNoSecrets(String(reflecting: lane.register))
    expectNoSecrets(String(reflecting: sale))
    #expect(
      sale.order.tenders.compactMap(\.card) == [
        CardSummary(brand: .visa, last4: "4242"), CardSummary(brand: .amex, last4: "0005"),
      ])
  }

  @Test(arguments: [
    cardJSON("4242424242424241"),
    cardJSON(month: "2", year: "2026"),
    cardJSON(cvv: "\"73\""),
    cardJSON(month: "\"4242424242424242\""),
    cardJSON(year: "\"4242424242424242\""),
    cardJSON(cvv: "4242424242424242"),
    cardJSON("4242424242424242x"),
    #"{"number":4242424242424242,"exp_month":12,"exp_year":2030,"cvv":"739"}"#,
    #"{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"739","x":1}"#,
  ])
  func refusedCardsAreNotEchoed(card: String) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let reply = lane.service.handle(line: #"{"op":"tender","type":"card","card":\#(card)}"#)
    let value = try JSONParser.parse(reply)
    #expect(value["ok"] == .bool(false))
    #expect(["invalid_card", "card_expired"].contains(value.errorCode ?? ""), "\(reply)")
    expectNoSecrets(reply)
    #expect(lane.register.order.tenders.isEmpty)
  }

  @Test(arguments: [
    #"{"op":"tender","type":"cash","amount":"4242424242424242"}"#,
    #"{"op":"tender","type":"cash","amount":"4242 4242 4242 4242"}"#,
    #"{"op":"tender","type":"cash","amount":"-4242424242424242"}"#,
  ])
  func aCardNumberTypedAsAnAmountIsNotEchoed(request: String) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let reply = try lane.send(request)
    #expect(reply.errorCode == "invalid_amount")
    #expect(!reply.serialized.contains("4242"), "\(reply.serialized)")
  }

  @Test func shortAmountsAreQuotedInTheError() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    let reply = try lane.send(#"{"op":"tender","type":"cash","amount":"12,50"}"#)
    #expect(reply["error"]?["message"]?.stringValue?.contains("\"12,50\"") == true)
  }

  @Test(arguments: [
    #"{"op":"add","sku":"JEANS","qty":null}"#,
    #"{"op":"add","sku":null}"#,
    #"{"op":"tender","type":"cash","amount":null}"#,
    #"{"op":"receipt","number":null}"#,
  ])
  func explicitNullIsATypeError(request: String) throws {
    let lane = try TestLane()
    let before = lane.snapshot
    let reply = try lane.send(request)
    #expect(reply.errorCode == "bad_request", "\(reply.serialized)")
    #expect(lane.snapshot == before)
  }

  @Test func theRequestFingerprintHoldsNoCardData() throws {
    let line =
      #"{"op":"tender","type":"card","card":{"number":"4242424242424242","exp_month":12,"#
      + #""exp_year":2030,"cvv":"739"},"key":"k1","id":9}"#
    let request = try #require(
      try RequestDecoder.decode(Array(line.utf8), currency: .usd).fingerprint)
    #expect(!request.contains("424242424242"))
    #expect(!request.contains("739"))
    #expect(!request.contains("k1"))
    let other = try RequestDecoder.decode(
      Array(line.replacingOccurrences(of: "4242424242424242", with: "4000056655665556").utf8),
      currency: .usd)
    #expect(other.fingerprint != request)
  }

  @Test func onceTenderedTheTotalCanOnlyGoUp() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 2))
    try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    let before = lane.snapshot
    for request in [
      #"{"op":"remove","line":1}"#, #"{"op":"set_qty","line":1,"qty":1}"#,
    ] {
      let reply = try lane.send(request)
      #expect(reply.errorCode == "order_has_tenders", "\(request)")
      #expect(lane.snapshot == before)
    }
    // Adding more, or raising a quantity, is fine: the balance grows.
    try lane.ok(Requests.SetQty(line: 1, quantity: 3))
    let added = try lane.ok(Requests.Add(sku: "GIFT"))
    // 3 × 49.99 = 149.97 + 7.5 % (11.24775 → 11.25) = 161.22 + 25.00 = 186.22; 20 paid.
    #expect(added["balance_due"] == "166.22")
  }

  @Test func removingALineCountsAsALineVoidInTheReport() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS", quantity: 2))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Remove(line: 1))
    let report = try lane.ok(Requests.Report(kind: .x))
    #expect(report["report"]?["voided_lines"]?["count"] == .int(1))
    #expect(report["report"]?["voided_lines"]?["amount"] == "99.98")
  }
}
