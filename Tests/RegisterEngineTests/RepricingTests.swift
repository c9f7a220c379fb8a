import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// Once payment has started on an order, its total may only go up: not through the cashier's
/// changes (PromotionExampleTests, DiscountOverrideTests), and not through a change to what it is
/// priced with — a product's category moving it into a promotion, a catalog file that brings a
/// promotion or changes the tax settings. A change made through the protocol is refused; an
/// import of the catalog file (start-up, SIGHUP) waits until the order is done.
@Suite struct RepricingTests {
  /// The promotion catalog's file without ACC-ANY-2 (belt and cap are full price).
  static let withoutAccessoryDealJSON = promotionCatalogJSON.replacingPromotions(
    with: """

        {"id": "TEES-3-FOR-30", "name": "Tees 3 for 30.00", "kind": "quantity_price",
         "sku": "TEE", "quantity": 3, "price": "30.00"},
        {"id": "SOCKS-B2G1", "name": "Socks buy 2 get 1 free", "kind": "buy_get",
         "skus": ["SOCKS"], "buy": 2, "get": 1, "percent_off": "100"}
      """)
  static var withoutAccessoryDeal: Catalog {
    get throws { try CatalogFile.parse(Array(withoutAccessoryDealJSON.utf8), file: "promo.json") }
  }
  /// The promotion catalog as it is: any 2 of belt, cap, socks for 18.00.
  static var withAccessoryDeal: Catalog {
    get throws { try CatalogFile.parse(Array(promotionCatalogJSON.utf8), file: "promo.json") }
  }

  /// A lane on `withoutAccessoryDeal` with a belt and a cap on the order (28.00 + 7.5 % tax).
  static func beltAndCap() throws -> TestLane {
    let lane = try TestLane(catalogJSON: withoutAccessoryDealJSON, at: testTime)
    #expect(!lane.register.promotions.contains { $0.id == "ACC-ANY-2" })
    try lane.ok(Requests.Add(sku: "BELT"))
    let order = try lane.ok(Requests.Add(sku: "CAP"))
    #expect(order["total"] == "30.10")
    return lane
  }

  @Test("a product_update that would put a paid-for line into a promotion is refused")
  func productUpdateThatLowersAPaidOrder() throws {
    let lane = try TestLane(catalogJSON: promotionCatalogJSON, at: winterTime)
    try lane.ok(Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Basics"])))
    #expect(try lane.ok(Requests.Add(sku: "TANK"))["total"] == "8.60")
    try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    let before = lane.register
    // Back into Tops, 20 % off this month: the tank would cost 6.88, less than the 8.60
    // payment started on.
    let refused = try lane.send(
      Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Tops"])))
    #expect(refused["error"]?["code"] == "order_has_tenders", "\(refused)")
    let message = refused["error"]?["message"]?.stringValue ?? ""
    #expect(message.contains("order 1 from 8.60 to 6.88"), "\(message)")
    #expect(lane.register == before, "a refusal changes nothing")
    // Paid in full, the update goes through and the next order has the promotion.
    try lane.ok(Requests.Tender(.cash(amount: usd("3.60"))))
    try lane.ok(Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Tops"])))
    #expect(try lane.ok(Requests.Add(sku: "TANK"))["total"] == "6.88")
  }

  @Test("the same update on an order without tenders reprices it at once")
  func productUpdateRepricesAnUnpaidOrder() throws {
    let lane = try TestLane(catalogJSON: promotionCatalogJSON, at: winterTime)
    try lane.ok(Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Basics"])))
    try lane.ok(Requests.Add(sku: "TANK"))
    try lane.ok(Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Tops"])))
    #expect(lane.register.totals.total == 688)
  }

  @Test("an import that would lower a paid-for order waits until its sale is completed")
  func importWaitsForTheSale() throws {
    let deal = try Self.withAccessoryDeal
    let lane = try Self.beltAndCap()
    var imported: [[Event]] = []
    lane.service.onDeferredImport = { events, _ in imported.append(events) }
    try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    let outcome = lane.service.importCatalog(deal, into: lane.register)
    guard case .deferred(let order, let reason) = outcome else {
      Issue.record("expected the import to wait, got \(outcome)")
      return
    }
    #expect(order == 1)
    #expect(reason.contains("from 30.10 to 19.35"), "\(reason)")
    #expect(lane.service.deferredImport == deal)
    #expect(lane.register.totals.total == 3010)
    #expect(!lane.register.promotions.contains { $0.id == "ACC-ANY-2" })
    // Other requests leave it waiting while the order still has its tender.
    try lane.ok(Requests.PaidIn(amount: usd("1.00"), reason: "float top-up"))
    #expect(lane.service.deferredImport != nil)
    #expect(imported.isEmpty)
    // The sale completes at the price payment started on; the import follows at once.
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("10.10"))))
    #expect(sale["receipt"]?["receipt"]?["total"] == "30.10", "\(sale)")
    #expect(lane.service.deferredImport == nil)
    #expect(
      imported == [
        [
          .catalogLoaded(
            deal.products, promotions: deal.promotions)
        ]
      ])
    #expect(lane.register.promotions.contains { $0.id == "ACC-ANY-2" })
    try lane.ok(Requests.Add(sku: "BELT"))
    #expect(try lane.ok(Requests.Add(sku: "CAP"))["total"] == "19.35")
    // The completed sale's receipt is as it was paid.
    #expect(lane.register.receipts[1]?.totals.total == 3010)
  }

  @Test("a voided order releases a waiting import too")
  func importWaitsForTheVoid() throws {
    let deal = try Self.withAccessoryDeal
    let lane = try Self.beltAndCap()
    try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    guard
      case .deferred = lane.service.importCatalog(deal, into: lane.register)
    else {
      Issue.record("expected the import to wait")
      return
    }
    try lane.ok(Requests.Void(reason: "customer left"))
    #expect(lane.service.deferredImport == nil)
    #expect(lane.register.promotions.contains { $0.id == "ACC-ANY-2" })
  }

  @Test("an import that does not lower the paid-for order, or meets no tenders, is not held back")
  func importsThatNeedNotWait() throws {
    let deal = try Self.withAccessoryDeal
    let noDeal = try Self.withoutAccessoryDeal
    // No tenders: the open order is repriced at once (docs/PRICING.md).
    let unpaid = try Self.beltAndCap()
    let now = unpaid.service.importCatalog(deal, into: unpaid.register)
    guard case .changes(let events) = now else {
      Issue.record("expected the import now, got \(now)")
      return
    }
    unpaid.service.stageSystemEvents(events)
    #expect(unpaid.register.totals.total == 1935)

    // Tenders, and an import that takes a promotion away from other products: nothing the
    // order has paid for changes, so it is imported now.
    let paid = try Self.beltAndCap()
    try paid.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    var fewer = noDeal
    fewer.promotions.removeAll { $0.id == "TEES-3-FOR-30" }
    guard case .changes = paid.service.importCatalog(fewer, into: paid.register) else {
      Issue.record("expected the import now")
      return
    }
    #expect(paid.service.deferredImport == nil)
  }

  @Test("the file as read last counts: a later import replaces the one waiting")
  func aLaterImportReplacesTheWaitingOne() throws {
    let deal = try Self.withAccessoryDeal
    let noDeal = try Self.withoutAccessoryDeal
    let lane = try Self.beltAndCap()
    try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    _ = lane.service.importCatalog(deal, into: lane.register)
    #expect(lane.service.deferredImport != nil)
    // The file put back as the register has it: nothing to import, nothing waits.
    #expect(
      lane.service.importCatalog(noDeal, into: lane.register) == .unchanged)
    #expect(lane.service.deferredImport == nil)
    try lane.ok(Requests.Tender(.cash(amount: usd("10.10"))))
    #expect(!lane.register.promotions.contains { $0.id == "ACC-ANY-2" })
  }
}

/// A register's currency is fixed once it holds amounts: they are kept in minor units.
@Suite struct CurrencyChangeTests {
  static func catalog(_ currency: String) throws -> Catalog {
    try CatalogFile.parse(
      Array(testCatalogJSON.replacingOccurrences(of: #""USD""#, with: "\"\(currency)\"").utf8),
      file: "test-catalog.json")
  }

  @Test("a catalog file in another currency is refused once there is a sale, and changes nothing")
  func refusedAfterASale() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    let euros = try Self.catalog("EUR")
    #expect(euros.store.currency.code == "EUR")
    // Even an order only rung up holds amounts.
    guard case .refused(let reason) = lane.service.importCatalog(euros, into: lane.register) else {
      Issue.record("expected a refusal")
      return
    }
    #expect(reason.contains("currency is USD"), "\(reason)")
    #expect(reason.contains("cannot become EUR"), "\(reason)")
    try lane.ok(Requests.Tender(.cash(amount: usd("50.00"))))
    let before = lane.register
    #expect(
      lane.service.importCatalog(euros, into: lane.register)
        == .refused(reason: lane.register.currencyChangeRefusal(to: euros.store.currency) ?? ""))
    #expect(lane.register == before)
    #expect(lane.register.store.currency.code == "USD")
    // The same currency is imported as ever.
    var renamed = try Self.catalog("USD")
    renamed.store.name = "Renamed"
    guard case .changes = lane.service.importCatalog(renamed, into: lane.register) else {
      Issue.record("expected the import")
      return
    }
  }

  @Test("before any amount is recorded, the currency may still be set")
  func allowedWhenNothingIsHeld() throws {
    let lane = try TestLane()
    #expect(lane.register.currencyChangeRefusal(to: try Self.catalog("EUR").store.currency) == nil)
    guard
      case .changes(let events) = lane.service.importCatalog(
        try Self.catalog("EUR"), into: lane.register)
    else {
      Issue.record("expected the import")
      return
    }
    lane.service.stageSystemEvents(events)
    #expect(lane.register.store.currency.code == "EUR")
  }

  @Test("each kind of amount a register holds fixes its currency")
  func eachHolding() throws {
    let euro = try Self.catalog("EUR").store.currency
    for setup in [
      [#"{"op":"float","amount":"100.00"}"#],
      [#"{"op":"add","sku":"TEE"}"#, #"{"op":"park","note":"later"}"#],
      [#"{"op":"product_update","sku":"TEE","changes":{"price":"29.99"}}"#],
    ] {
      let lane = try TestLane()
      for line in setup { try lane.ok(line) }
      #expect(lane.register.currencyChangeRefusal(to: euro) != nil, "\(setup)")
    }
  }
}

/// The import that waited is journaled after the request that finished the order, as records
/// of its own: the request's idempotency key stays on the request's last record.
@Suite struct DeferredImportJournalTests {
  @Test("a keyed tender that completes the sale keeps its key; the import follows it")
  func keyStaysOnTheRequest() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let total = lane.register.totals.total
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    // Prices that include tax: the same jeans would come to less.
    let inclusive = try CatalogFile.parse(
      Array(
        testCatalogJSON.replacingOccurrences(
          of: #""default_class": "standard"}"#,
          with: #""default_class": "standard", "prices_include_tax": true}"#
        ).utf8), file: "test-catalog.json")
    #expect(inclusive.store.tax.pricesIncludeTax)
    guard case .deferred = lane.service.importCatalog(inclusive, into: lane.register) else {
      Issue.record("expected the import to wait")
      return
    }
    let rest = Money(minorUnits: total - 1000, currency: .usd).decimalString
    try lane.ok(
      Requests.Tender(.cash(amount: usd(rest))), envelope: RequestEnvelope(key: "pay-rest"))
    #expect(lane.register.store.tax.pricesIncludeTax)

    let records = lane.scan().records
    let keyed = try #require(records.lastIndex { $0.key?.key == "pay-rest" })
    let imported = try #require(records.lastIndex { $0.type == "store_configured" })
    #expect(records[keyed].type != "store_configured")
    #expect(imported > keyed, "the import comes after the request's records")
    #expect(records[keyed...].contains { $0.type == "sale_completed" })
    #expect(records[imported].key == nil)
    // Replayed, the journal gives the same register.
    let replayed = try Register.replaying(records)
    #expect(replayed.store == lane.register.store)
    #expect(replayed.receipts[1]?.totals == lane.register.receipts[1]?.totals)
  }
}
