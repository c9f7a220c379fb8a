import Testing

@testable import RegisterEngine

@Suite struct VoidLineTests {
  @Test func aVoidedLineStaysOnTheOrderButNoLongerCounts() throws {
    // JEANS 49.99 + 2 × TEE 15.00 = 79.99, tax 5.99925 → 6.00, total 85.99.
    // Voiding the jeans leaves 30.00 + tax 2.25 = 32.25.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let before = try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    #expect(before["total"] == "85.99")
    #expect(before["item_count"] == .int(3))

    let result = try lane.ok(Requests.VoidLine(line: 1))
    let lines = try #require(result["lines"]?.arrayValue)
    #expect(lines.map { $0["line"] } == [.int(1), .int(2)])
    #expect(lines[0]["voided"] == .bool(true))
    #expect(lines[0]["sku"] == "JEANS")
    #expect(lines[1]["voided"] == nil)
    #expect(result["item_count"] == .int(2))
    #expect(result["subtotal"] == "30.00")
    #expect(result["tax"] == "2.25")
    #expect(result["total"] == "32.25")
    #expect(result["balance_due"] == "32.25")
    #expect(lane.register.order.lines.map(\.voided) == [true, false])
    #expect(lane.register.order.activeLines.map(\.sku) == ["TEE"])
    #expect(lane.register.totals.itemCount == 2)
  }

  @Test func aVoidedLineHoldsNoStockAndIsNotSold() throws {
    // TEE has 3 in stock: a voided line of 2 leaves all 3 to sell.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.VoidLine(line: 1))
    #expect(try lane.service.catalogEntry("TEE")["available"] == .int(3))
    try lane.ok(Requests.Add(sku: "TEE", quantity: 3))
    // 3 × 15.00 = 45.00 + tax 3.375 → 3.38 = 48.38.
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("48.38"))))
    #expect(sale["status"] == "completed")
    #expect(lane.register.products["TEE"]?.stock == 0)
  }

  @Test func theReceiptShowsTheVoidedLine() throws {
    // 2 × TEE voided (30.00 not charged), GIFT 25.00 exempt: total 25.00.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.VoidLine(line: 1))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    #expect(sale["status"] == "completed")
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(text.contains(receiptColumns("2 x T-Shirt", "VOID")))
    #expect(text.contains("(voided, 30.00 not charged)"))
    #expect(!text.contains(receiptColumns("2 x T-Shirt", "30.00")))
    #expect(text.contains(receiptColumns("1 x Gift Card", "25.00")))
    #expect(text.contains(receiptColumns("TOTAL", "25.00")))
    #expect(text.contains(receiptColumns("Items", "1")))
    let receiptLines = try #require(sale["receipt"]?["receipt"]?["lines"]?.arrayValue)
    #expect(receiptLines.map { $0["voided"] } == [.bool(true), nil])
    // Nothing of the voided line was taken from stock.
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test(arguments: [
    #"{"op":"void_line","line":1}"#,
    #"{"op":"set_qty","line":1,"qty":2}"#,
    #"{"op":"remove","line":1}"#,
    #"{"op":"discount","line":1,"percent":"10","reason":"loyal"}"#,
    #"{"op":"override_price","line":1,"unit_price":"1.00","reason":"damaged"}"#,
  ])
  func aVoidedLineCannotBeVoidedAgainOrChanged(request: String) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.VoidLine(line: 1))
    let before = lane.snapshot
    let totals = lane.register.day.totals
    let reply = try lane.send(request)
    #expect(reply.errorCode == "line_voided")
    #expect(lane.snapshot == before)
    #expect(lane.register.day.totals == totals)
  }

  @Test func voidingAnUnknownLineIsRefused() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let before = lane.snapshot
    #expect(try lane.send(Requests.VoidLine(line: 2)).errorCode == "line_not_found")
    #expect(try lane.send(#"{"op":"void_line"}"#).errorCode == "bad_request")
    #expect(lane.snapshot == before)
  }

  @Test func theXReportCountsVoidedLines() throws {
    // Voided: JEANS 49.99 and 2 × TEE 30.00 → 2 lines, 79.99.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.VoidLine(line: 1))
    try lane.ok(Requests.VoidLine(line: 2))
    let reply = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(reply["report"])
    #expect(report["voided_lines"]?["count"] == .int(2))
    #expect(report["voided_lines"]?["amount"] == "79.99")
    #expect(report["voided_orders"]?["count"] == .int(0))
    let text = try #require(reply["text"]?.stringValue)
    #expect(text.contains(receiptColumns("Voided lines (2)", "79.99")))
  }

  @Test func voidingALineAfterPaymentStartedIsRefused() throws {
    // JEANS 49.99 + GIFT 25.00 + tax 3.75 = 78.74; 10.00 paid: the total may only go up.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    let before = lane.snapshot
    for line in [1, 2] {
      let reply = try lane.send(Requests.VoidLine(line: line))
      #expect(reply.errorCode == "order_has_tenders")
    }
    #expect(lane.snapshot == before)
    #expect(lane.register.day.totals.voidedLines == 0)
    #expect(lane.register.order.activeLines.count == 2)
  }
}

@Suite struct VoidOrderTests {
  @Test func voidingAnOrderReversesItsTenders() throws {
    // JEANS 49.99 + GIFT 25.00 + tax 3.75 = 78.74; 20.00 on the Visa, 10.00 in cash, then void.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("20.00"))))
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))

    let result = try lane.ok(Requests.Void(reason: "customer walked away"))
    #expect(result["voided_order_id"] == .int(1))
    // The reply is the new open order.
    #expect(result["order_id"] == .int(2))
    #expect(result["status"] == "open")
    #expect(result["lines"] == [])
    #expect(result["paid"] == "0.00")
    let reversed = try #require(result["reversed_tenders"]?.arrayValue)
    #expect(reversed.count == 2)
    #expect(reversed.first?["type"] == "card")
    #expect(reversed.first?["amount"] == "20.00")
    #expect(reversed.first?["card"]?["brand"] == "VISA")
    #expect(reversed.first?["card"]?["last4"] == "4242")
    #expect(reversed.last?["type"] == "cash")
    #expect(reversed.last?["amount"] == "10.00")
    #expect(reversed.last?["card"] == nil)
    #expect(!result.serialized.contains("4242424242424242"))
    #expect(lane.register.order.id == 2)
    #expect(lane.register.order.isEmpty)
    #expect(lane.register.receipts.isEmpty)

    let reply = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(reply["report"])
    #expect(report["sales_count"] == .int(0))
    #expect(report["tenders"] == [])
    #expect(report["voided_orders"]?["count"] == .int(1))
    #expect(report["voided_orders"]?["amount"] == "78.74")
    let reversals = try #require(report["reversed_tenders"]?.arrayValue)
    #expect(reversals.map { $0["type"] } == ["card VISA", "cash"])
    #expect(reversals.map { $0["count"] } == [.int(1), .int(1)])
    #expect(reversals.map { $0["amount"] } == ["20.00", "10.00"])
    let text = try #require(reply["text"]?.stringValue)
    #expect(text.contains(receiptColumns("Voided orders (1)", "78.74")))
    #expect(text.contains(receiptColumns("  reversed VISA card (1)", "20.00")))
    #expect(text.contains(receiptColumns("  reversed Cash (1)", "10.00")))
  }

  @Test func voidingAnOrderWithoutTendersReversesNothing() throws {
    // 2 × TEE 30.00 + tax 2.25 = 32.25.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    let result = try lane.ok(Requests.Void())
    #expect(result["voided_order_id"] == .int(1))
    #expect(result["reversed_tenders"] == [])
    #expect(lane.register.day.totals.voidedOrders == 1)
    #expect(lane.register.day.totals.voidedOrdersAmount == 3225)
    #expect(lane.register.day.totals.reversals.isEmpty)
    // The tees were never sold.
    #expect(lane.register.products["TEE"]?.stock == 3)
    #expect(try lane.service.catalogEntry("TEE")["available"] == .int(3))
  }

  @Test func voidingAnEmptyOrderIsRefused() throws {
    let lane = try TestLane()
    let before = lane.snapshot
    #expect(try lane.send(Requests.Void()).errorCode == "empty_order")
    // A line rung up and taken off again leaves nothing to void either.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Remove(line: 1))
    #expect(try lane.send(Requests.Void(reason: "oops")).errorCode == "empty_order")
    #expect(lane.register.order.id == before.order.id)
    #expect(lane.register.day.totals.voidedOrders == 0)
  }

  @Test func voidsReplayFromTheJournal() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.VoidLine(line: 2))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("5.00"))))
    try lane.ok(Requests.Void(reason: "card declined later"))
    let recovered = try Register.replaying(lane.scan().records)
    #expect(RegisterState(recovered) == RegisterState(lane.register))
    #expect(recovered.day.totals.voidedLines == 1)
    #expect(recovered.day.totals.voidedOrders == 1)
    #expect(
      recovered.day.totals.reversals == [TenderTotal(key: "card VISA", count: 1, amount: 500)])
  }
}

@Suite struct ParkTests {
  @Test func parkingSetsTheOrderAsideAndOpensANewOne() throws {
    // 2 × TEE 15.00 + JEANS 49.99 = 79.99, tax 6.00, total 85.99.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "JEANS"))
    let result = try lane.ok(Requests.Park(note: "blue bag, back at 3"))
    #expect(result["order_id"] == .int(2))
    #expect(result["status"] == "open")
    #expect(result["lines"] == [])
    let parked = try #require(result["parked"])
    #expect(parked["order_id"] == .int(1))
    #expect(parked["status"] == "parked")
    #expect(parked["note"] == "blue bag, back at 3")
    #expect(parked["parked_at"] == .string(testTime.iso8601))
    #expect(parked["total"] == "85.99")
    let lines = try #require(parked["lines"]?.arrayValue)
    #expect(lines.map { $0["sku"] } == ["TEE", "JEANS"])
    #expect(lines.map { $0["qty"] } == [.int(2), .int(1)])

    let list = try lane.ok(Requests.Parked())
    #expect(list["parked"] == .array([parked]))
    #expect(lane.register.parked.map(\.id) == [1])
    #expect(lane.register.parked.first?.note == "blue bag, back at 3")
    #expect(lane.register.order.id == 2)
    #expect(lane.register.order.isEmpty)
    // Parking sells nothing.
    #expect(lane.register.receipts.isEmpty)
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test func parkedOrdersAreListedOldestFirst() throws {
    let lane = try TestLane()
    #expect(try lane.ok(Requests.Parked())["parked"] == [])
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Park())
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Park(note: "second"))
    let list = try #require(try lane.ok(Requests.Parked())["parked"]?.arrayValue)
    #expect(list.map { $0["order_id"] } == [.int(1), .int(2)])
    #expect(list.map { $0["note"] } == [nil, "second"])
    #expect(list.map { $0["total"] } == ["53.74", "25.00"])
    #expect(lane.register.order.id == 3)
  }

  @Test func anEmptyOrderCannotBeParked() throws {
    let lane = try TestLane()
    #expect(try lane.send(Requests.Park(note: "nothing")).errorCode == "empty_order")
    // Only voided lines: nothing that counts.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.VoidLine(line: 1))
    let before = lane.snapshot
    #expect(try lane.send(Requests.Park()).errorCode == "empty_order")
    #expect(lane.snapshot == before)
    #expect(lane.register.parked.isEmpty)
  }

  @Test func anOrderWithTendersCannotBeParked() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    let before = lane.snapshot
    #expect(try lane.send(Requests.Park()).errorCode == "order_has_tenders")
    #expect(lane.snapshot == before)
    #expect(lane.register.parked.isEmpty)
  }

  @Test func parkedUnitsStayReserved() throws {
    // TEE has 3 in stock; a parked order holds 2, so the next order may take only 1.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Park())
    let tee = try lane.service.catalogEntry("TEE")
    #expect(tee["stock"] == .int(3))
    #expect(tee["available"] == .int(1))

    let before = lane.snapshot
    let refused = try lane.send(Requests.Add(sku: "TEE", quantity: 2))
    #expect(refused.errorCode == "out_of_stock")
    let message = try #require(refused["error"]?["message"]?.stringValue)
    #expect(message.contains("parked orders hold 2"))
    #expect(lane.snapshot == before)

    try lane.ok(Requests.Add(sku: "TEE", quantity: 1))
    #expect(try lane.service.catalogEntry("TEE")["available"] == .int(0))
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "out_of_stock")
    #expect(try lane.send(Requests.SetQty(line: 1, quantity: 2)).errorCode == "out_of_stock")
    #expect(lane.register.products["TEE"]?.stock == 3)

    // Selling the one leaves 2 in stock, both still held by the parked order.
    try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    #expect(lane.register.products["TEE"]?.stock == 2)
    #expect(try lane.service.catalogEntry("TEE")["available"] == .int(0))
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "out_of_stock")
  }
}

@Suite struct ResumeTests {
  @Test func anyConnectionMayResumeAParkedOrder() throws {
    // 2 × TEE 30.00, JEANS 49.99 less 10 % (5.00) = 44.99: 74.99 + tax 5.624... → 5.62 = 80.61.
    let lane = try TestLane()
    try lane.service.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.service.ok(Requests.Add(sku: "JEANS"))
    try lane.service.ok(
      Requests.Discount(line: 2, value: .percent(percent("10")), reason: "scuffed"))
    let order = lane.register.order
    let totals = lane.register.totals
    #expect(totals.total == 8061)
    let parkReply = try lane.service.send(Requests.Park(note: "fitting room"), from: 1)
    #expect(parkReply["ok"] == .bool(true))
    let parkedVersion = try #require(lane.register.parked.first?.version)

    let reply = try lane.service.send(Requests.Resume(orderID: 1), from: 2)
    #expect(reply["ok"] == .bool(true))
    let result = try #require(reply["result"])
    #expect(result["order_id"] == .int(1))
    #expect(result["status"] == "open")
    #expect(result["total"] == "80.61")
    let lines = try #require(result["lines"]?.arrayValue)
    #expect(lines.map { $0["unit_price"] } == ["15.00", "49.99"])
    #expect(lines.map { $0["discount_amount"] } == [nil, "5.00"])

    #expect(lane.register.order.id == 1)
    #expect(lane.register.order.lines == order.lines)
    #expect(lane.register.order.nextLine == order.nextLine)
    #expect(lane.register.totals == totals)
    #expect(lane.register.order.parkedAt == nil)
    #expect(lane.register.order.version > parkedVersion)
    #expect(parkedVersion > order.version)
    #expect(result["version"] == .int(lane.register.order.version))
    #expect(lane.register.parked.isEmpty)
    // A terminal still holding the version from before the park is told the order moved on.
    let stale = try lane.service.send(
      Requests.Remove(line: 1), envelope: RequestEnvelope(expectVersion: order.version), from: 1)
    #expect(stale.errorCode == "version_conflict")
    // The resumed order carries on: line numbers continue, and it can be paid.
    let added = try lane.ok(Requests.Add(sku: "GIFT"))
    #expect(added["lines"]?.arrayValue?.last?["line"] == .int(3))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("200.00"))))
    #expect(sale["status"] == "completed")
    #expect(sale["receipt"]?["receipt"]?["order_id"] == .int(1))
    #expect(lane.register.products["TEE"]?.stock == 1)
  }

  @Test func resumeIsRefusedWhileTheOpenOrderHasLines() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Park())
    try lane.ok(Requests.Add(sku: "GIFT"))
    let before = lane.snapshot
    let refused = try lane.send(Requests.Resume(orderID: 1))
    #expect(refused.errorCode == "order_not_empty")
    #expect(lane.snapshot == before)
    #expect(lane.register.parked.map(\.id) == [1])
    // Park the open order first, then the other comes back.
    try lane.ok(Requests.Park())
    let result = try lane.ok(Requests.Resume(orderID: 1))
    #expect(result["order_id"] == .int(1))
    #expect(result["lines"]?.arrayValue?.map { $0["sku"] } == ["JEANS"])
    #expect(lane.register.parked.map(\.id) == [2])
  }

  @Test(arguments: [7, 2, 0])
  func resumingAnOrderThatIsNotParkedIsRefused(orderID: Int) throws {
    // Order 1 is parked; order 2 is the open one; 7 and 0 never existed.
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Park())
    let before = lane.snapshot
    let reply = try lane.send(Requests.Resume(orderID: orderID))
    #expect(reply.errorCode == "order_not_found")
    #expect(lane.snapshot == before)
    #expect(lane.register.parked.map(\.id) == [1])
  }

  @Test func parkedOrdersSurviveAJournalReplay() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Park(note: "for later"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Park())
    let parked = lane.register.parked
    #expect(parked.map(\.id) == [1, 2])

    let recovered = try Register.replaying(lane.scan().records)
    #expect(recovered.parked == parked)
    #expect(RegisterState(recovered) == RegisterState(lane.register))

    let service = try lane.restarted()
    let list = try #require(try service.ok(Requests.Parked())["parked"]?.arrayValue)
    #expect(list.map { $0["order_id"] } == [.int(1), .int(2)])
    #expect(list.first?["note"] == "for later")
    // The reservation of the parked tees is back too: only 1 of 3 is free.
    #expect(try service.send(Requests.Add(sku: "TEE", quantity: 2)).errorCode == "out_of_stock")

    let result = try service.ok(Requests.Resume(orderID: 1))
    #expect(result["order_id"] == .int(1))
    #expect(result["total"] == "85.99")
    #expect(service.register.order.lines == parked[0].lines)
    #expect(service.register.parked.map(\.id) == [2])

    // And the resume itself replays.
    let again = try Register.replaying(lane.scan().records)
    #expect(again.parked == service.register.parked)
    #expect(RegisterState(again) == RegisterState(service.register))
  }
}
