import Testing

@testable import RegisterEngine

/// `gift_card_reload`: value loaded onto a card already issued, as a line of a sale.
@Suite struct GiftCardReloadTests {
  static func reload(_ number: String, _ amount: String) -> Requests.GiftCardReload {
    Requests.GiftCardReload(number: number, amount: usd(amount))
  }

  @Test func theCardHoldsTheValueOnceTheSaleCompletes() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    let order = try lane.ok(Self.reload(number, "30.00"))
    let line = try #require(order["lines"]?.at(0))
    #expect(line["sku"] == .string(Register.giftCardReloadSKU))
    #expect(line["reloads"] == .string(GiftCardNumber.masked(number)))
    #expect(line["gift_card"] == true)
    #expect(order["gift_cards"] == "30.00")
    #expect(order["tax"] == "0.00")
    #expect(order["total"] == "30.00")
    // Not yet: the card is loaded by the sale, not by the line.
    #expect(try lane.balance(number) == "25.00")
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("30.00"))))
    #expect(try lane.balance(number) == "55.00")
    // No new card is issued for a reload; the receipt shows the line, the card masked.
    #expect(sale["receipt"]?["receipt"]?["gift_cards"] == nil)
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(text.contains("Gift card reload ****\(number.suffix(4))"))
    #expect(!text.contains(GiftCardNumber.grouped(number)), "a reload never prints the number")
    // The journal gives the same balances back.
    #expect(try lane.replayed().storedValue == lane.register.storedValue)
  }

  @Test func aVoidedOrderLoadsNothing() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Self.reload(number, "20.00"))
    try lane.ok(Requests.Void(reason: "changed mind"))
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Tender(.cash(amount: usd("21.50"))))
    #expect(try lane.balance(number) == "25.00")
  }

  @Test func refusalsChangeNothing() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    // An unknown card, a number that is no card's, an amount out of the open-amount bounds.
    try lane.refused(Self.reload("6001234567890128", "20.00"), "gift_card_not_found")
    try lane.refused(Self.reload("1234", "20.00"), "gift_card_not_found")
    try lane.refused(Self.reload(number, "4.99"), "invalid_amount")
    try lane.refused(Self.reload(number, "500.01"), "invalid_amount")
    try lane.refused(
      #"{"op":"gift_card_reload","number":"\#(number)","amount":20}"#, "bad_request")
    try lane.refused(#"{"op":"gift_card_reload","number":"\#(number)"}"#, "bad_request")
    #expect(lane.register.order.lines.isEmpty)
    // The line is one load: no quantity, discount or price override changes it.
    try lane.ok(Self.reload(number, "20.00"))
    try lane.refused(Requests.SetQty(line: 1, quantity: 2), "invalid_quantity")
    try lane.refused(
      Requests.Discount(line: 1, value: .amount(usd("1.00")), reason: "x"),
      "invalid_discount")
    try lane.refused(
      Requests.OverridePrice(line: 1, unitPrice: usd("1.00"), reason: "x"), "invalid_amount")
    // Nor is a gift card paid with a gift card.
    try lane.refused(
      Requests.Tender(.giftCard(number: number, amount: nil)), "gift_card_for_gift_card")
    #expect(lane.register.order.lines.count == 1)
    #expect(lane.register.order.lines[0].quantity == 1)
  }

  @Test func aReloadIsNotReturnable() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Self.reload(number, "20.00"))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    let receipt = try #require(sale["receipt"]?["number"]?.int64Value.map { Int($0) })
    try lane.refused(
      Requests.Return(
        receipt: receipt, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "x"),
      "not_returnable")
    #expect(try lane.balance(number) == "45.00")
  }

  @Test func theReportsCountReloadsOnALineOfTheirOwn() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Self.reload(number, "40.00"))
    try lane.ok(Requests.Tender(.cash(amount: usd("61.50"))))
    let result = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(result["report"])
    // Sales are the tee only; the card sold and the reload are money held, apart.
    #expect(report["gross"] == "20.00")
    #expect(report["gift_cards"]?["sold"]?["count"] == .int(1))
    #expect(report["gift_cards"]?["sold"]?["amount"] == "25.00")
    #expect(report["gift_cards"]?["reloaded"]?["count"] == .int(1))
    #expect(report["gift_cards"]?["reloaded"]?["amount"] == "40.00")
    let text = try #require(result["text"]?.stringValue)
    #expect(text.contains("Gift cards reloaded (1)"))
    // The Z report and the snapshot of the closed day keep them.
    let closed = try lane.ok(Requests.CloseDay())
    #expect(closed["report"]?["gift_cards"]?["reloaded"]?["amount"] == "40.00")
    let day = try #require(lane.register.closedDays.values.first)
    #expect(day.totals.giftCardsReloadedAmount == 4000)
    let snapshot = try Register(snapshot: lane.register.snapshotValue())
    #expect(snapshot.closedDays.values.first?.totals == day.totals)
    // The back-office export has the reload in its own column of the day's row.
    var exporter = BackOfficeExporter(lane: "L")
    var rows: [BackOfficeRow] = []
    for record in lane.scan().records { rows += try exporter.apply(record) }
    let zRow = try #require(rows.first { $0.table == .zReports })
    let column = try #require(
      BackOfficeTable.zReports.columns.firstIndex(of: "gift_cards_reloaded"))
    #expect(zRow.values[column] == .decimal("40.00"))
  }

  @Test func aDayWithoutReloadsReportsAsBefore() throws {
    let lane = try TenderLane.tenders()
    _ = try lane.sellGiftCards()
    let result = try lane.ok(Requests.Report(kind: .x))
    #expect(result["report"]?["gift_cards"]?["reloaded"] == nil)
    let text = try #require(result["text"]?.stringValue)
    #expect(!text.contains("reloaded"))
  }
}
