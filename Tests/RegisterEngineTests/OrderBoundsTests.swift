import Testing

@testable import RegisterEngine

/// What one client can make the register hold is bounded: lines on an order, tenders on an
/// order, orders parked. At each bound the next request is refused with its own code and
/// changes nothing; below it, it is taken.
@Suite struct OrderBoundsTests {
  @Test func anOrderTakesAtMostItsLines() throws {
    let lane = try TestLane()
    for _ in 0..<Register.maximumLines { try lane.ok(#"{"op":"add","sku":"JEANS"}"#) }
    // A voided line still counts: it stays on the order and its receipt.
    try lane.ok(#"{"op":"void_line","line":1}"#)
    let before = lane.register.orders
    let refused = try lane.send(#"{"op":"add","sku":"JEANS"}"#)
    #expect(refused.errorCode == "order_full")
    #expect(refused["error"]?["message"]?.stringValue?.contains("500 lines") == true)
    #expect(lane.register.orders == before)
    // The order can still be finished.
    try lane.ok(#"{"op":"tender","type":"cash","amount":"30000.00"}"#)
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
  }

  @Test func anOrderTakesAtMostItsTenders() throws {
    let lane = try TestLane()
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    for _ in 0..<Register.maximumTenders {
      try lane.ok(#"{"op":"tender","type":"cash","amount":"0.01"}"#)
    }
    let before = lane.register.orders
    let refused = try lane.send(#"{"op":"tender","type":"cash","amount":"0.01"}"#)
    #expect(refused.errorCode == "order_full")
    #expect(lane.register.orders == before)
    // Voiding it gives every tender back, and the next order takes tenders again.
    try lane.ok(#"{"op":"void","reason":"too many coins"}"#)
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"cash","amount":"0.01"}"#)
  }

  @Test func atMostSoManyOrdersAreParked() throws {
    let lane = try TestLane()
    for _ in 0..<Register.maximumParked {
      try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
      try lane.ok(#"{"op":"park"}"#)
    }
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    let before = lane.register.orders
    let refused = try lane.send(#"{"op":"park"}"#)
    #expect(refused.errorCode == "parked_full")
    #expect(lane.register.orders == before)
    // Finishing one parked order makes room again.
    try lane.ok(#"{"op":"void","reason":"x"}"#)
    try lane.ok(#"{"op":"resume","order_id":1}"#)
    try lane.ok(#"{"op":"void","reason":"x"}"#)
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"park"}"#)
  }
}
