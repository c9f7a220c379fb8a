import Testing

@testable import RegisterEngine

/// What one client can make the register hold is bounded: lines on an order, tenders on an
/// order, orders parked. At each bound the next request is refused with its own code and
/// changes nothing; below it, it is taken.
@Suite struct OrderBoundsTests {
  @Test func anOrderTakesAtMostItsLines() throws {
    let lane = try TestLane()
    for _ in 0..<Register.maximumLines { try lane.ok(Requests.Add(sku: "JEANS")) }
    // A voided line still counts: it stays on the order and its receipt.
    try lane.ok(Requests.VoidLine(line: 1))
    let before = lane.register.orders
    let refused = try lane.send(Requests.Add(sku: "JEANS"))
    #expect(refused.errorCode == "order_full")
    #expect(refused["error"]?["message"]?.stringValue?.contains("500 lines") == true)
    #expect(lane.register.orders == before)
    // The order can still be finished.
    try lane.ok(Requests.Tender(.cash(amount: usd("30000.00"))))
    try lane.ok(Requests.Add(sku: "JEANS"))
  }

  @Test func anOrderTakesAtMostItsTenders() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    for _ in 0..<Register.maximumTenders {
      try lane.ok(Requests.Tender(.cash(amount: usd("0.01"))))
    }
    let before = lane.register.orders
    let refused = try lane.send(Requests.Tender(.cash(amount: usd("0.01"))))
    #expect(refused.errorCode == "order_full")
    #expect(lane.register.orders == before)
    // Voiding it gives every tender back, and the next order takes tenders again.
    try lane.ok(Requests.Void(reason: "too many coins"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("0.01"))))
  }

  @Test func atMostSoManyOrdersAreParked() throws {
    let lane = try TestLane()
    for _ in 0..<Register.maximumParked {
      try lane.ok(Requests.Add(sku: "JEANS"))
      try lane.ok(Requests.Park())
    }
    try lane.ok(Requests.Add(sku: "JEANS"))
    let before = lane.register.orders
    let refused = try lane.send(Requests.Park())
    #expect(refused.errorCode == "parked_full")
    #expect(lane.register.orders == before)
    // Finishing one parked order makes room again.
    try lane.ok(Requests.Void(reason: "x"))
    try lane.ok(Requests.Resume(orderID: 1))
    try lane.ok(Requests.Void(reason: "x"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Park())
  }
}
