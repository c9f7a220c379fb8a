import Testing

@testable import RegisterEngine

/// A replay computes the open order's totals once, before anything reads them, instead of
/// after each of its lines (`Orders.apply(_:at:catalog:priced:deferringTotals:)`). What it
/// gives must be what the live register had, wherever the journal ends and however it is cut
/// into pieces.
@Suite struct ReplayDeferredTotalsTests {
  /// Lines, quantities, discounts, an override, a void, a customer, a park and a resume,
  /// tenders and a completed sale, on a catalog with promotions, ending with an open order.
  static let requests = [
    #"{"op":"add","sku":"TEE","qty":2}"#,
    #"{"op":"add","sku":"SOCKS","qty":3}"#,
    #"{"op":"set_qty","line":1,"qty":3}"#,
    #"{"op":"discount","line":2,"percent":"10","reason":"scuffed"}"#,
    #"{"op":"add","sku":"CAP"}"#,
    #"{"op":"override_price","line":3,"unit_price":"9.00","reason":"display model"}"#,
    #"{"op":"park","note":"back soon"}"#,
    #"{"op":"add","sku":"BELT"}"#,
    #"{"op":"add","sku":"TEA","qty":2}"#,
    #"{"op":"void_line","line":1}"#,
    #"{"op":"park","note":"second"}"#,
    #"{"op":"resume","order_id":1}"#,
    #"{"op":"discount","amount":"1.00","reason":"order"}"#,
    #"{"op":"remove","line":3}"#,
    #"{"op":"tender","type":"cash","amount":"5.00"}"#,
    #"{"op":"tender","type":"cash","amount":"100.00"}"#,
    #"{"op":"add","sku":"JEANS"}"#,
    #"{"op":"add","sku":"TEE","qty":3}"#,
  ]

  @Test func aJournalEndingAnywhereReplaysToTheLiveOrdersAndTotals() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    var states: [(sequence: Int64, orders: Orders, state: RegisterState)] = []
    for request in Self.requests {
      try lane.ok(request)
      let register = lane.register
      states.append((register.lastSequence, register.orders, RegisterState(register)))
    }
    // The history is what the test means it to be: a completed sale, and an open order with
    // lines (whose totals a replay must not leave due) at the end.
    #expect(lane.register.receipts.values.count == 1)
    #expect(lane.register.order.lines.count == 2)
    #expect(lane.register.orders.parked.count == 1)
    #expect(lane.register.totals.total > 0)

    let records = lane.scan().records
    for (sequence, orders, state) in states {
      let replayed = try Register.replaying(records.prefix { $0.sequence <= sequence })
      #expect(replayed.orders == orders, "replayed through record \(sequence)")
      #expect(RegisterState(replayed) == state, "replayed through record \(sequence)")
    }
  }

  @Test func aJournalReplayedInTwoPiecesGivesTheSameTotals() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    for request in Self.requests { try lane.ok(request) }
    let records = lane.scan().records
    for cut in 0...records.count {
      var register = Register()
      try register.replay(records[..<cut])
      // The first piece's totals are settled when it ends: nothing is left due to a reader.
      #expect(register.orders.totalsDueAt == nil)
      try register.replay(records[cut...])
      #expect(register.orders == lane.register.orders, "cut before record \(cut + 1)")
    }
  }
}
