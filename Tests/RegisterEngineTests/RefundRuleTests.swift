import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The trail shoes of Data/products.json (124.99, on sale at 99.99) under their buy 1 get 1
/// half price, beside a belt at full price; 7.5 % tax rounded per total.
let shoeCatalogJSON = """
  {
    "store": {
      "name": "Shoe Lane", "address": [], "currency": "USD",
      "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"}
    },
    "products": [
      {"sku": "SNK-RUN-10", "name": "Trail Running Shoes 10", "description": "",
       "category": "Shoes", "price": "124.99", "sale_price": "99.99"},
      {"sku": "BELT-LTH-M", "name": "Leather Belt, M", "description": "",
       "category": "Accessories", "price": "35.00"}
    ],
    "promotions": [
      {"id": "RUN-BOOT-B1G1", "name": "Shoes buy 1 get 1 half price", "kind": "buy_get",
       "skus": ["SNK-RUN-10"], "buy": 1, "get": 1, "percent_off": "50"}
    ]
  }
  """

/// The rule of docs/PRICING.md, *Returns*, on its worked example and on what registers wrote
/// before it.
@Suite struct RefundRuleTests {
  /// Two shoes (199.98 − 50.00 = 149.98) and the belt (35.00): 184.98 + 13.87 tax = 198.85.
  static func sellShoes(_ lane: JournalLane, asOneLine: Bool) throws {
    if asOneLine {
      try lane.ok(Requests.Add(sku: "SNK-RUN-10", quantity: 2))
    } else {
      try lane.ok(Requests.Add(sku: "SNK-RUN-10"))
      try lane.ok(Requests.Add(sku: "SNK-RUN-10"))
    }
    try lane.ok(Requests.Add(sku: "BELT-LTH-M"))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("200.00"))))
    #expect(sale["status"] == "completed")
    #expect(sale["total"] == "198.85")
    #expect(sale["tax"] == "13.87")
    #expect(sale["promotion_savings"] == "50.00")
  }

  @Test(arguments: [false, true])
  func theShoesComeBackOneAtATimeAsTheyWereCharged(asOneLine: Bool) throws {
    let lane = try JournalLane(catalogJSON: shoeCatalogJSON)
    try Self.sellShoes(lane, asOneLine: asOneLine)
    let second = asOneLine ? 1 : 2
    // One shoe back: the other, kept alone, costs its full 99.99, so 149.98 − 99.99 = 49.99
    // comes back, and the tax on it: 49.99 × 7.5 % = 3.749 → 3.75.
    let first = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(first["receipt"]?["net"] == "49.99")
    #expect(first["receipt"]?["tax"] == "3.75")
    #expect(first["receipt"]?["total"] == "53.74")
    // The other shoe: 149.98 back in all, tax 149.98 × 7.5 % = 11.2485 → 11.25 in all, 7.50
    // of it now. Exactly the net and tax charged on the two shoes: 161.23.
    let other = try lane.ok(returnRequest(line: second, qty: 1))
    #expect(other["receipt"]?["net"] == "99.99")
    #expect(other["receipt"]?["tax"] == "7.50")
    #expect(other["receipt"]?["total"] == "107.49")
    // The belt last: the sale's 198.85 comes back to the cent, net and tax each.
    let belt = try lane.ok(returnRequest(line: second + 1, qty: 1))
    #expect(belt["receipt"]?["net"] == "35.00")
    #expect(belt["receipt"]?["tax"] == "2.62")
    let returns = lane.register.returns.values
    #expect(returns.reduce(0) { $0 + $1.net.minorUnits } == 18498)
    #expect(returns.reduce(0) { $0 + $1.tax.minorUnits } == 1387)
    #expect(returns.reduce(0) { $0 + $1.total.minorUnits } == 19885)
    // Replayed, the returns are the same, and so is what each line has had back.
    let replayed = try Register.replaying(lane.scan().records)
    #expect(RegisterState(replayed) == RegisterState(lane.register))
    #expect(replayed.refunded[1] == lane.register.refunded[1])
  }

  @Test func theBeltKeptKeepsWhatIsLeftOfTheTax() throws {
    // Both shoes back at once: 161.23, the same as one at a time; the belt keeps 35.00 and
    // the 2.62 of tax left (13.87 − 11.25), not the 2.63 it would be charged on its own.
    let lane = try JournalLane(catalogJSON: shoeCatalogJSON)
    try Self.sellShoes(lane, asOneLine: false)
    let both = try lane.ok(
      Requests.Return(
        receipt: 1,
        lines: [ReturnRequestLine(line: 1, quantity: 1), ReturnRequestLine(line: 2, quantity: 1)],
        reason: "r")
    )
    #expect(both["receipt"]?["net"] == "149.98")
    #expect(both["receipt"]?["tax"] == "11.25")
    #expect(both["receipt"]?["total"] == "161.23")
  }

  /// A snapshot written before registers kept what each line had back: the next return of a
  /// sale partly returned then works it out from the units and the total refunded, exactly
  /// for a sale without promotions, and never gives back more than was charged.
  @Test func aSnapshotFromBeforeLineRefundsGoesOnFromTheUnitsReturned() throws {
    for promoted in [false, true] {
      let lane = try JournalLane(catalogJSON: promoted ? shoeCatalogJSON : testCatalogJSON)
      if promoted {
        try Self.sellShoes(lane, asOneLine: false)
      } else {
        try sellMixedOrder(lane.service)
      }
      try lane.ok(returnRequest(line: 1, qty: 1))
      var snapshot = lane.register.snapshotValue()
      snapshot = try #require(Self.removingLineRefunds(snapshot))
      let old = try Register(snapshot: snapshot)
      #expect(old.refunded[1]?.lineRefunds == nil)
      #expect(old.refunded[1]?.total == lane.register.refunded[1]?.total)
      let older = RegisterService(register: old, clock: lane.clock)
      // The rest of the sale, line by line, on both.
      let sale = try #require(lane.register.receipts[1])
      for line in sale.order.activeLines where !line.giftCard {
        let left = line.quantity - (lane.register.returnedQuantities[1]?[line.line] ?? 0)
        guard left > 0 else { continue }
        let now = try lane.ok(returnRequest(line: line.line, qty: Int(left)))
        let then = try older.ok(returnRequest(line: line.line, qty: Int(left)))
        if !promoted { #expect(then["receipt"]?["lines"] == now["receipt"]?["lines"]) }
      }
      #expect(older.register.refunded[1]?.lineRefunds != nil)
      for register in [lane.register, older.register] {
        let returns = register.returns.values
        let net = returns.reduce(0) { $0 + $1.net.minorUnits }
        let tax = returns.reduce(0) { $0 + $1.tax.minorUnits }
        #expect(net + tax == sale.totals.total - sale.totals.giftCards, "promoted \(promoted)")
        #expect(tax <= sale.totals.tax, "promoted \(promoted)")
      }
    }
  }

  /// The snapshot as a register that did not keep lines' refunds wrote it.
  static func removingLineRefunds(_ snapshot: JSONValue) -> JSONValue? {
    guard case .object(var root) = snapshot, case .object(var ledger)? = root["ledger"],
      case .array(let refunded)? = ledger["refunded"]
    else { return nil }
    ledger["refunded"] = .array(
      refunded.map { entry in
        guard case .object(var entry) = entry, case .object(var refund)? = entry["state"] else {
          return entry
        }
        refund["line_refunds"] = nil
        entry["state"] = .object(refund)
        return .object(entry)
      })
    root["ledger"] = .object(ledger)
    return .object(root)
  }
}
