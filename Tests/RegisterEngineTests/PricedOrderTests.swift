import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `decide` totals the order a request leads to; with promotions that is a search, and `apply`
/// takes those totals (`PricedOrder`) instead of searching again. These tests check that it
/// does take them, only when they are for the order it reaches, and that a register fed this
/// way ends exactly where one that totals every change itself does (replay).
@Suite struct PricedOrderTests {
  static func promotionRegister(at time: Timestamp = winterTime) throws -> Register {
    Register(
      catalog: try CatalogFile.parse(Array(promotionCatalogJSON.utf8), file: "promo.json"),
      at: time)
  }

  static func command(_ line: String, _ register: Register) throws -> any RequestBody {
    try RequestDecoder.decode(Array(line.utf8), currency: register.store.currency).body
  }

  @Test("the totals decide computed are the ones apply takes, without totalling again")
  func applyTakesTheCheckedTotals() throws {
    var register = try Self.promotionRegister(at: testTime)
    for sku in ["TEE", "TEE"] {
      let events = try register.decide(
        Self.command(#"{"op":"add","sku":"\#(sku)"}"#, register),
        context: CommandContext(now: testTime)
      ).accepted()
      for event in events { register.apply(event, at: testTime) }
    }
    let third = try Self.command(#"{"op":"add","sku":"TEE"}"#, register)
    let (decision, priced) = register.decideAndPrice(
      third, context: CommandContext(now: testTime))
    let events = try decision.accepted()
    let handedOn = try #require(priced)

    // What apply computes by itself (replay) is what decide handed on.
    var replayed = register
    for event in events { replayed.apply(event, at: testTime) }
    #expect(replayed.order == handedOn.order)
    #expect(replayed.totals == handedOn.totals)
    #expect(handedOn.totals.promotions.map(\.id) == ["TEES-3-FOR-30"])

    // Taken as given: totals marked so they could only have come from `priced`.
    var marked = handedOn
    marked.totals.total = 1
    var fed = register
    for event in events { fed.apply(event, at: testTime, priced: marked) }
    #expect(fed.totals.total == 1)

    // Not for another order: totalled as usual.
    var other = marked
    other.order.note = "another order"
    var checked = register
    for event in events { checked.apply(event, at: testTime, priced: other) }
    #expect(checked.totals == replayed.totals)
  }

  @Test("nothing is handed on without promotions, or when the events change the pricing")
  func notHandedOn() throws {
    let plain = Register(
      catalog: try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json"),
      at: testTime)
    let add = try Self.command(#"{"op":"add","sku":"TEE"}"#, plain)
    #expect(plain.decideAndPrice(add, context: CommandContext(now: testTime)).priced == nil)

    var register = try Self.promotionRegister()
    let tank = try register.decide(
      Self.command(#"{"op":"add","sku":"TANK"}"#, register),
      context: CommandContext(now: winterTime)
    ).accepted()
    for event in tank { register.apply(event, at: winterTime) }
    let update = try Self.command(
      #"{"op":"product_update","sku":"TANK","changes":{"category":"Basics"}}"#, register)
    let (decision, priced) = register.decideAndPrice(
      update, context: CommandContext(now: winterTime))
    #expect(try !decision.accepted().isEmpty)
    #expect(priced == nil)
  }

  @Test("a lane fed the handed-on totals ends where replay does, request after request")
  func sameAsReplay() throws {
    let lane = try TestLane(catalogJSON: promotionCatalogJSON, at: winterTime)
    var replayed = lane.register
    var generator = SplitMix64(seed: 20_261_126)
    let skus = ["TEE", "TANK", "SOCKS", "BELT", "CAP", "JEANS", "TEA"]
    var requests = 0
    while requests < 300 {
      let lines = lane.register.order.activeLines.map(\.line)
      let request: String
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<5:
        request = #"{"op":"add","sku":"\#(skus.randomElement(using: &generator) ?? "TEE")"}"#
      case 5..<7 where !lines.isEmpty:
        let line = lines.randomElement(using: &generator) ?? 1
        request =
          #"{"op":"set_qty","line":\#(line),"qty":\#(Int.random(in: 1...4, using: &generator))}"#
      case 7 where !lines.isEmpty:
        request = #"{"op":"remove","line":\#(lines.randomElement(using: &generator) ?? 1)}"#
      case 8 where !lines.isEmpty:
        request = #"{"op":"void_line","line":\#(lines.randomElement(using: &generator) ?? 1)}"#
      default:
        request = lines.count > 6 ? #"{"op":"void","reason":"start over"}"# : #"{"op":"order"}"#
      }
      let command = try Self.command(request, replayed)
      let decision = replayed.decide(command, context: CommandContext(now: winterTime))
      _ = try lane.send(request)
      for event in decision.events { replayed.apply(event, at: winterTime) }
      #expect(lane.register.order == replayed.order, "after \(request)")
      #expect(lane.register.totals == replayed.totals, "after \(request)")
      requests += 1
    }
    #expect(lane.register.ledger == replayed.ledger)
  }
}
