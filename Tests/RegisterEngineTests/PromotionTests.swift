import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The catalog of the promotion tests and of the worked examples in docs/PRICING.md
/// (7.5 % tax on everything but TEA, 5.5 %).
///
/// - TEES-3-FOR-30: 3 × TEE (12.00) for 30.00
/// - SOCKS-B2G1: of 3 SOCKS (5.00), the cheapest free
/// - ACC-ANY-2: any 2 of BELT (15.00), CAP (13.00), SOCKS for 18.00
/// - TOPS-WINTER: 20 % off Tops (TEE, TANK 8.00) from 2026-12-01 to 2026-12-31
let promotionCatalogJSON = """
  {
    "store": {
      "name": "Promo Lane", "address": [], "currency": "USD",
      "tax": {"classes": {"standard": "7.5", "reduced": "5.5"}, "default_class": "standard"}
    },
    "products": [
      {"sku": "TEE", "name": "T-Shirt", "description": "", "category": "Tops", "price": "12.00"},
      {"sku": "TANK", "name": "Tank Top", "description": "", "category": "Tops", "price": "8.00"},
      {"sku": "SOCKS", "name": "Socks", "description": "", "category": "Accessories",
       "price": "5.00"},
      {"sku": "BELT", "name": "Belt", "description": "", "category": "Accessories",
       "price": "15.00"},
      {"sku": "CAP", "name": "Cap", "description": "", "category": "Accessories",
       "price": "13.00"},
      {"sku": "JEANS", "name": "Jeans", "description": "", "category": "Bottoms",
       "price": "49.99"},
      {"sku": "TEA", "name": "Tea", "description": "", "category": "Food", "price": "4.20",
       "tax_class": "reduced"}
    ],
    "promotions": [
      {"id": "TEES-3-FOR-30", "name": "Tees 3 for 30.00", "kind": "quantity_price",
       "sku": "TEE", "quantity": 3, "price": "30.00"},
      {"id": "SOCKS-B2G1", "name": "Socks buy 2 get 1 free", "kind": "buy_get",
       "skus": ["SOCKS"], "buy": 2, "get": 1, "percent_off": "100"},
      {"id": "ACC-ANY-2", "name": "Any 2 accessories 18.00", "kind": "mix_match",
       "skus": ["BELT", "CAP", "SOCKS"], "quantity": 2, "price": "18.00"},
      {"id": "TOPS-WINTER", "name": "Winter 20% off tops", "kind": "category_percent",
       "category": "Tops", "percent": "20", "starts": "2026-12-01", "ends": "2026-12-31"}
    ]
  }
  """

/// 2026-12-10 12:00 at UTC−05:00: TOPS-WINTER is on.
let winterTime = Timestamp(epochMilliseconds: 1_796_922_000_000, utcOffsetSeconds: -18_000)

@Suite struct PromotionCatalogTests {
  static func parse(_ promotions: String) throws(CatalogError) -> Catalog {
    let json = promotionCatalogJSON.replacingPromotions(with: promotions)
    return try CatalogFile.parse(Array(json.utf8), file: "promo.json")
  }

  @Test func theCatalogReadsItsPromotions() throws {
    let catalog = try CatalogFile.parse(Array(promotionCatalogJSON.utf8), file: "promo.json")
    #expect(
      catalog.promotions.map(\.id) == ["TEES-3-FOR-30", "SOCKS-B2G1", "ACC-ANY-2", "TOPS-WINTER"])
    #expect(
      catalog.promotions[0].rule
        == .quantityPrice(quantity: 3, price: Money(minorUnits: 3000, currency: .usd)))
    #expect(catalog.promotions[1].rule == .buyGet(buy: 2, get: 1, percentOff: .hundred))
    #expect(catalog.promotions[3].starts == PromotionDate.parse("2026-12-01"))
    // The file written back reads the same.
    let again = try CatalogFile.parse(CatalogFile.serialize(catalog), file: "again.json")
    #expect(again == catalog)
  }

  static let badPromotions: [(String, String)] = [
    (
      #"{"id":"X","name":"X","kind":"half_price","sku":"TEE"}"#,
      #"promotion "X" (promotions[0]): field "kind""#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"TEE","quantity":3,"price":"30.00","colour":"red"}"#,
      #"field "colour": is not a known field"#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"TEE","quantity":3,"price":"30.001"}"#,
      #"field "price""#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"TEE","quantity":3,"price":30}"#,
      #"field "price""#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"NOPE","quantity":3,"price":"30.00"}"#,
      #"field "sku": no product has the SKU "NOPE""#
    ),
    (
      #"{"id":"X","name":"X","kind":"mix_match","skus":["TEE","NOPE"],"quantity":2,"price":"1.00"}"#,
      #"field "skus[1]": no product has the SKU "NOPE""#
    ),
    (
      #"{"id":"X","name":"X","kind":"category_percent","category":"Shoes","percent":"10"}"#,
      #"field "category": no product is in the category "Shoes""#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"TEE","quantity":0,"price":"1.00"}"#,
      #"field "quantity": must be from 1"#
    ),
    (
      #"{"id":"X","name":"X","kind":"buy_get","skus":["TEE"],"buy":2,"get":0}"#,
      #"field "get": must be from 1"#
    ),
    (
      #"{"id":"X","name":"X","kind":"buy_get","skus":["TEE"],"buy":2,"get":1,"percent_off":"0"}"#,
      #"field "percent_off": 0 must be more than 0"#
    ),
    (
      #"{"id":"X","name":"X","kind":"category_percent","category":"Tops","percent":"100.5"}"#,
      #"field "percent": 100.5 must be more than 0 and at most 100"#
    ),
    (
      #"{"id":"X","name":"X","kind":"category_percent","category":"Tops","percent":"10","starts":"2026-02-30"}"#,
      #"field "starts": "2026-02-30" is not a date"#
    ),
    (
      #"{"id":"X","name":"X","kind":"category_percent","category":"Tops","percent":"10","starts":"2026-12-02","ends":"2026-12-01"}"#,
      #"field "ends": 2026-12-01 is before the start 2026-12-02"#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"TEE","category":"Tops","quantity":3,"price":"1.00"}"#,
      #"not several"#
    ),
    (
      #"{"id":"X","name":"X","kind":"quantity_price","sku":"TEE","quantity":3,"price":"1.00"},{"id":"X","name":"Y","kind":"quantity_price","sku":"TEE","quantity":2,"price":"1.00"}"#,
      #"promotion "X" (promotions[1]): field "id": duplicate promotion id"#
    ),
  ]

  @Test(arguments: badPromotions)
  func aBadPromotionIsNamedWithItsField(promotion: String, expected: String) {
    do {
      _ = try Self.parse(promotion)
      Issue.record("accepted \(promotion)")
    } catch {
      #expect(error.message.contains(expected), "\(error.message)")
    }
  }

  @Test func datesAreRealDays() {
    #expect(PromotionDate.parse("2024-02-29") != nil)
    #expect(PromotionDate.parse("2026-02-29") == nil)
    #expect(PromotionDate.parse("2026-1-01") == nil)
    #expect(PromotionDate.parse("2026-12-31")?.text == "2026-12-31")
    #expect(PromotionDate(winterTime).text == "2026-12-10")
    // The store's local date: 2026-12-01 00:30 at UTC−05:00 is still 2026-11-30 in UTC.
    let justAfterMidnight = Timestamp(
      epochMilliseconds: 1_796_103_000_000, utcOffsetSeconds: -18_000)
    #expect(PromotionDate(justAfterMidnight).text == "2026-12-01")
  }

  @Test func promotionsAreJournaledWithTheCatalogAndReadBack() throws {
    let catalog = try CatalogFile.parse(Array(promotionCatalogJSON.utf8), file: "promo.json")
    let event = Event.catalogLoaded(catalog.products, promotions: catalog.promotions)
    let decoded = try Event.decode(type: event.type, data: event.data, currency: .usd)
    #expect(decoded == event)
    // A record written before promotions existed has none.
    let old = Event.catalogLoaded(catalog.products)
    #expect(old.data["promotions"] == nil)
    #expect(try Event.decode(type: old.type, data: old.data, currency: .usd) == old)
    // Changing only the promotions journals a new catalog_loaded.
    let register = Register(catalog: catalog, at: testTime)
    var edited = catalog
    edited.promotions.removeLast()
    #expect(
      Register.startupEvents(for: edited, current: register) == [
        .catalogLoaded(edited.products, promotions: edited.promotions)
      ])
    #expect(Register.startupEvents(for: catalog, current: register).isEmpty)
  }
}

extension TestLane {
  /// A lane on the catalog `json` whose clock starts at `time`.
  init(catalogJSON json: String, at time: Timestamp) throws {
    let catalog = try CatalogFile.parse(Array(json.utf8), file: "promo.json")
    clock = ManualClock(time)
    service = RegisterService(register: Register(catalog: catalog, at: time), clock: clock)
  }
}

extension String {
  /// The promotion catalog with its `promotions` array replaced by `[items]`.
  func replacingPromotions(with items: String) -> String {
    guard let start = range(of: "\"promotions\": [") else { return self }
    guard let end = self[start.upperBound...].range(of: "\n  ]\n}") else { return self }
    return String(self[..<start.upperBound]) + items + String(self[end.lowerBound...])
  }
}

/// The worked examples of docs/PRICING.md, "Promotions".
@Suite struct PromotionExampleTests {
  static func lane(at time: Timestamp = testTime) throws -> TestLane {
    try TestLane(catalogJSON: promotionCatalogJSON, at: time)
  }

  @Test func fourTeesTakeOneThreeForThirty() throws {
    let lane = try Self.lane()
    let order = try lane.ok(Requests.Add(sku: "TEE", quantity: 4))
    #expect(order["subtotal"] == "48.00")
    #expect(order["promotion_savings"] == "6.00")
    #expect(order["tax"] == "3.15")
    #expect(order["total"] == "45.15")
    let promotion = try #require(order["promotions"]?[0])
    #expect(promotion["id"] == "TEES-3-FOR-30")
    #expect(promotion["applications"] == .int(1))
    #expect(promotion["lines"]?[0]?["units"] == .int(3))
    #expect(order["lines"]?[0]?["promotion_discount"] == "6.00")
    #expect(order["lines"]?[0]?["net"] == "42.00")
  }

  @Test func theCheapestSockIsFreeAndTheSavingIsSpread() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.Add(sku: "SOCKS", quantity: 2))
    let order = try lane.ok(Requests.Add(sku: "SOCKS"))
    // 15.00 − 5.00 = 10.00, spread 10.00 : 5.00 over the two lines → 3.33 + 1.67 (the last
    // cent to the larger remainder).
    #expect(order["promotion_savings"] == "5.00")
    #expect(order["promotions"]?[0]?["id"] == "SOCKS-B2G1")
    #expect(order["lines"]?[0]?["promotion_discount"] == "3.33")
    #expect(order["lines"]?[1]?["promotion_discount"] == "1.67")
    #expect(order["total"] == "10.75")
  }

  @Test func theBestCombinationWins() throws {
    let lane = try Self.lane()
    // 4 socks, a belt and a cap: SOCKS-B2G1 on three socks (5.00) and ACC-ANY-2 on the belt
    // and the cap (28.00 − 18.00 = 10.00), the fourth sock at full price: 15.00. Putting the
    // belt with a sock instead (20.00 − 18.00 = 2.00) would save less.
    try lane.ok(Requests.Add(sku: "SOCKS", quantity: 4))
    try lane.ok(Requests.Add(sku: "BELT"))
    let order = try lane.ok(Requests.Add(sku: "CAP"))
    #expect(order["promotion_savings"] == "15.00")
    #expect(order["promotions"]?[0]?["id"] == "SOCKS-B2G1")
    #expect(order["promotions"]?[1]?["id"] == "ACC-ANY-2")
    // ACC-ANY-2's 10.00 spread 15 : 13 → 5.36 + 4.64.
    #expect(order["lines"]?[1]?["promotion_discount"] == "5.36")
    #expect(order["lines"]?[2]?["promotion_discount"] == "4.64")
    // Removing the cap: the belt goes with a sock (2.00) only when that beats leaving it,
    // and a fourth sock is free to join it: 5.00 + 2.00.
    let after = try lane.ok(Requests.Remove(line: 3))
    #expect(after["promotion_savings"] == "7.00")
  }

  @Test func theWinterPercentageAppliesBetweenItsDates() throws {
    // In March it is not on: three tees take the 3-for-30.
    let march = try Self.lane()
    let before = try march.ok(Requests.Add(sku: "TEE", quantity: 3))
    #expect(before["promotion_savings"] == "6.00")
    // In December 20 % off each tee (3 × 2.40 = 7.20) beats 3 for 30.00 (6.00).
    let december = try Self.lane(at: winterTime)
    try december.ok(Requests.Add(sku: "TANK"))
    let order = try december.ok(Requests.Add(sku: "TEE", quantity: 3))
    #expect(order["promotion_savings"] == "8.80")
    #expect(order["promotions"]?.arrayValue?.count == 1)
    #expect(order["promotions"]?[0]?["id"] == "TOPS-WINTER")
  }

  @Test func manualPricingWinsAndTheOrderDiscountComesAfter() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 3))
    let discounted = try lane.ok(
      Requests.Discount(line: 1, value: .percent(percent("10")), reason: "damaged"))
    // The line discount takes the line out of the promotion.
    #expect(discounted["promotions"] == nil)
    #expect(discounted["discount_total"] == "3.60")
    let back = try lane.ok(
      Requests.Discount(line: 1, value: .percent(percent("0")), reason: "undo"))
    #expect(back["promotion_savings"] == "6.00")
    // 10 % off the order applies to 30.00 after the promotion.
    let order = try lane.ok(Requests.Discount(value: .percent(percent("10")), reason: "staff"))
    #expect(order["discount_total"] == "3.00")
    #expect(order["total"] == .string(decimal(2700 + 203)))
  }

  @Test func afterPaymentStartsAPromotionMayNotLowerTheTotal() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    // A third tee would make 24.00 + 12.00 cost 30.00 — more than before, so it is taken.
    let third = try lane.ok(Requests.Add(sku: "TEE"))
    #expect(third["total"] == "32.25")
  }

  @Test func aProductMovedToAnotherCategoryLeavesACategoryPromotion() throws {
    let lane = try Self.lane(at: winterTime)
    let order = try lane.ok(Requests.Add(sku: "TANK"))
    #expect(order["promotion_savings"] == "1.60")
    try lane.ok(Requests.Park(note: "later"))
    // While it is parked the tank moves out of Tops: resumed, it is full price.
    try lane.ok(Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Basics"])))
    let resumed = try lane.ok(Requests.Resume(orderID: 1))
    #expect(resumed["promotions"] == nil)
    #expect(resumed["total"] == "8.60")
    // And back into Tops with the order open: the open order follows at once.
    try lane.ok(Requests.ProductUpdate(sku: "TANK", changes: JSONObject(["category": "Tops"])))
    #expect(lane.register.totals.promotionDiscounts == 160)
  }

  @Test func anAddThatWouldLowerThePaidForTotalIsRefused() throws {
    let cheap =
      #"{"id":"BELT-SOCKS","name":"Belt and socks 12.00","kind":"mix_match","#
      + #""skus":["BELT","SOCKS"],"quantity":2,"price":"12.00"}"#
    let lane = try TestLane(
      catalogJSON: promotionCatalogJSON.replacingPromotions(with: cheap), at: testTime)
    try lane.ok(Requests.Add(sku: "BELT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    // Socks would bring 15.00 down to 12.00 for both: refused, as any change that lowers
    // the total once payment has started.
    let socks = try lane.send(Requests.Add(sku: "SOCKS"))
    #expect(socks["error"]?["code"] == "order_has_tenders")
    #expect(lane.register.order.activeLines.count == 1)
  }
}

/// A brute force written apart from `PromotionEngine`: every way of putting single units
/// into applications, on small random orders, must find the same best saving.
@Suite struct PromotionReferenceTests {
  struct Unit {
    var sku: String
    var category: String
    var price: Int64
  }

  /// What one application saves, from the promotion's definition alone.
  static func referenceSaving(_ promotion: Promotion, _ prices: [Int64]) -> Int64 {
    func percentOf(_ amount: Int64, _ percent: Percent) -> Int64 {
      // amount × millionths / 100 000 000, rounded half up (amounts are positive).
      (amount * percent.millionths * 2 + 100_000_000) / 200_000_000
    }
    let total = prices.reduce(0, +)
    switch promotion.rule {
    case .quantityPrice(_, let price), .mixMatch(_, let price):
      return max(0, total - price.minorUnits)
    case .buyGet(_, let get, let percent):
      return percentOf(prices.sorted().prefix(Int(get)).reduce(0, +), percent)
    case .categoryPercent(let percent):
      return percentOf(total, percent)
    }
  }

  static func covers(_ promotion: Promotion, _ unit: Unit) -> Bool {
    switch promotion.scope {
    case .sku(let sku): unit.sku == sku
    case .skus(let skus): skus.contains(unit.sku)
    case .category(let category): unit.category == category
    }
  }

  static func size(_ promotion: Promotion) -> Int {
    switch promotion.rule {
    case .quantityPrice(let quantity, _), .mixMatch(let quantity, _): Int(quantity)
    case .buyGet(let buy, let get, _): Int(buy + get)
    case .categoryPercent: 1
    }
  }

  /// All subsets of `items` of `count` elements.
  static func subsets(_ items: [Int], _ count: Int) -> [[Int]] {
    if count == 0 { return [[]] }
    guard items.count >= count else { return [] }
    let head = items[0]
    let tail = Array(items.dropFirst())
    return subsets(tail, count - 1).map { [head] + $0 } + subsets(tail, count)
  }

  static func bruteForce(_ units: [Unit], _ promotions: [Promotion]) -> Int64 {
    guard let first = units.first else { return 0 }
    let rest = Array(units.dropFirst())
    var best = bruteForce(rest, promotions)
    for promotion in promotions where covers(promotion, first) {
      let eligible = rest.indices.filter { covers(promotion, rest[$0]) }
      for chosen in subsets(eligible, size(promotion) - 1) {
        let saving = referenceSaving(promotion, [first.price] + chosen.map { rest[$0].price })
        guard saving > 0 else { continue }
        let left = rest.indices.filter { !chosen.contains($0) }.map { rest[$0] }
        best = max(best, saving + bruteForce(left, promotions))
      }
    }
    return best
  }

  static func randomCase(_ random: inout SplitMix64) -> (
    [PromotionEngine.Candidate], [Unit], [Promotion]
  ) {
    let skus = ["A", "B", "C", "D"]
    let categories = ["A": "X", "B": "X", "C": "Y", "D": "Y"]
    let prices = Dictionary(uniqueKeysWithValues: skus.map { ($0, Int64(100 + random.below(900))) })
    var promotions: [Promotion] = []
    for index in 0..<(1 + random.below(3)) {
      let scope: Promotion.Scope =
        switch random.below(3) {
        case 0: .sku(random.pick(skus))
        case 1: .skus(skus.filter { _ in random.below(2) == 0 } + [random.pick(skus)]).unique
        default: .category(random.pick(["X", "Y"]))
        }
      let price = Money(minorUnits: Int64(100 + random.below(2000)), currency: .usd)
      let rule: Promotion.Rule =
        switch random.below(4) {
        case 0: .quantityPrice(quantity: Int64(1 + random.below(3)), price: price)
        case 1:
          .buyGet(
            buy: Int64(1 + random.below(2)), get: Int64(1 + random.below(2)),
            percentOff: Percent(millionths: Int64(1 + random.below(100)) * 1_000_000))
        case 2: .mixMatch(quantity: Int64(2 + random.below(2)), price: price)
        default:
          .categoryPercent(percent: Percent(millionths: Int64(1 + random.below(50)) * 1_000_000))
        }
      promotions.append(Promotion(id: "P\(index)", name: "P\(index)", rule: rule, scope: scope))
    }
    var candidates: [PromotionEngine.Candidate] = []
    var units: [Unit] = []
    for line in 1...(1 + random.below(4)) {
      let sku = random.pick(skus)
      let quantity = Int64(1 + random.below(3))
      guard units.count + Int(quantity) <= 8 else { break }
      let price = prices[sku] ?? 0
      let category = categories[sku] ?? ""
      candidates.append(
        PromotionEngine.Candidate(
          line: line, sku: sku, category: category, unitPrice: price, quantity: quantity))
      for _ in 0..<quantity {
        units.append(Unit(sku: sku, category: category, price: price))
      }
    }
    return (candidates, units, promotions)
  }

  @Test func theEngineFindsTheBestSavingOnRandomOrders() {
    for seed in UInt64(1)...400 {
      var random = SplitMix64(seed: seed)
      let (candidates, units, promotions) = Self.randomCase(&random)
      let applied = PromotionEngine.best(candidates, promotions: promotions)
      let saving = applied.reduce(0) { $0 + $1.saving }
      let expected = Self.bruteForce(units, promotions)
      #expect(saving == expected, "seed \(seed)")
      // Each promotion's shares sum to its saving, and no line gives more than its units.
      for promotion in applied {
        #expect(promotion.lines.reduce(0) { $0 + $1.saving } == promotion.saving, "seed \(seed)")
      }
      for candidate in candidates {
        let units = applied.flatMap(\.lines).filter { $0.line == candidate.line }
        #expect(units.reduce(0) { $0 + $1.units } <= candidate.quantity, "seed \(seed)")
        #expect(
          units.reduce(0) { $0 + $1.saving } <= candidate.unitPrice * candidate.quantity,
          "seed \(seed)")
      }
    }
  }

  @Test func largeOrdersStayBoundedAndSaveAtLeastTheGreedyPass() {
    // 200 tees and 200 tanks under two competing promotions: past the exact search's bound,
    // the best greedy order is taken, at once.
    let promotions = [
      Promotion(
        id: "Q", name: "Q",
        rule: .quantityPrice(quantity: 3, price: Money(minorUnits: 3000, currency: .usd)),
        scope: .sku("TEE")),
      Promotion(
        id: "P", name: "P", rule: .categoryPercent(percent: Percent(millionths: 10_000_000)),
        scope: .category("Tops")),
    ]
    let candidates = [
      PromotionEngine.Candidate(
        line: 1, sku: "TEE", category: "Tops", unitPrice: 1200, quantity: 200),
      PromotionEngine.Candidate(
        line: 2, sku: "TANK", category: "Tops", unitPrice: 800, quantity: 200),
    ]
    let applied = PromotionEngine.best(candidates, promotions: promotions)
    // 66 groups of 3 tees (6.00 each) beat 10 % (1.20 a tee); the two left and the tanks take 10 %.
    let expected: [Int64] = [39_600, 240 + 16_000]
    #expect(applied.map(\.saving) == expected)
  }
}

extension PromotionReferenceTests {
  @Test func aSearchPastItsBudgetFallsBackToTheGreedyPasses() {
    // 48 units at 12 prices and two competing promotions of 20 units each: too many ways to
    // fill an application for the exhaustive search's budget, so the greedy passes answer,
    // at once, and still find groups that save.
    let candidates = (1...12).map { line in
      PromotionEngine.Candidate(
        line: line, sku: "S\(line)", category: "X", unitPrice: Int64(100 + line), quantity: 4)
    }
    let promotions = [
      Promotion(
        id: "MIX", name: "MIX",
        rule: .mixMatch(quantity: 20, price: Money(minorUnits: 1000, currency: .usd)),
        scope: .category("X")),
      Promotion(
        id: "BOGO", name: "BOGO",
        rule: .buyGet(buy: 10, get: 10, percentOff: Percent(millionths: 50_000_000)),
        scope: .category("X")),
    ]
    let applied = PromotionEngine.best(candidates, promotions: promotions)
    let saving = applied.reduce(Int64(0)) { $0 + $1.saving }
    // Two groups of the 40 dearest units for 10.00 each (greedy takes MIX first).
    #expect(saving >= 2 * (20 * 100 - 1000))
    #expect(applied.flatMap(\.lines).reduce(Int64(0)) { $0 + $1.units } <= 48)
  }
}

extension Promotion.Scope {
  /// The SKU list without repeats (first kept).
  fileprivate var unique: Promotion.Scope {
    guard case .skus(let list) = self else { return self }
    var seen: Set<String> = []
    return .skus(list.filter { seen.insert($0).inserted })
  }
}

/// A promotional sale's receipt, its journal and snapshot, its returns and the day's report.
@Suite struct PromotionSaleTests {
  /// 4 tees (48.00 − 6.00), a belt and a cap (28.00 − 10.00): 60.00 + 4.50 tax = 64.50, paid
  /// with 100.00 cash. Receipt 1.
  static func sell(_ ok: (any RequestBody) throws -> JSONValue) throws -> JSONValue {
    _ = try ok(Requests.Add(sku: "TEE", quantity: 4))
    _ = try ok(Requests.Add(sku: "BELT"))
    _ = try ok(Requests.Add(sku: "CAP"))
    return try ok(Requests.Tender(.cash(amount: usd("100.00"))))
  }

  @Test func theReceiptPrintsEachPromotionAndItReplaysByteForByte() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    let done = try Self.sell { try lane.ok($0) }
    #expect(done["status"] == "completed")
    #expect(done["total"] == "64.50")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(text.contains(receiptRow("Subtotal", "76.00")))
    #expect(text.contains(receiptRow("Tees 3 for 30.00", "-6.00")))
    #expect(text.contains(receiptRow("Any 2 accessories 18.00", "-10.00")))
    #expect(text.contains(receiptRow("You saved", "16.00")))
    #expect(text.contains(receiptRow("TOTAL", "64.50")))
    let sale = try #require(lane.register.receipts[1])
    #expect(sale.promotions.map(\.id) == ["TEES-3-FOR-30", "ACC-ANY-2"])
    let receipt = try #require(done["receipt"]?["receipt"])
    #expect(receipt["promotion_savings"] == "16.00")
    #expect(receipt["promotions"]?[1]?["saving"] == "10.00")

    // The journal replays to the same receipt and state; so does a snapshot.
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.promotions == lane.register.promotions)
    #expect(ReceiptRenderer.text(try #require(replayed.receipts[1])) == text)
    #expect(RegisterState(replayed) == RegisterState(lane.register))
    let decoded = try Register(snapshot: lane.register.snapshotValue())
    #expect(decoded.promotions == lane.register.promotions)
    #expect(decoded.receipts[1] == sale)
    #expect(RegisterState(decoded) == RegisterState(lane.register))

    // The X report shows what the promotions saved.
    let report = try lane.ok(Requests.Report(kind: .x))
    let reportText = try #require(report["text"]?.stringValue)
    #expect(reportText.contains(receiptRow("Promotions", "-16.00")))
    #expect(reportText.contains(receiptRow("  TEES-3-FOR-30 (1)", "-6.00")))
    #expect(report["report"]?["promotion_discounts"] == "16.00")
    #expect(report["report"]?["net_sales"] == "60.00")
  }

  @Test func aReturnRefundsWhatWasPaidLessWhatTheKeptUnitsNowCost() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    _ = try Self.sell { try lane.ok($0) }
    // One tee back: the three kept still make 3 for 30.00, so the fourth comes back at its
    // full 12.00 + 0.90 tax.
    let first = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(first["receipt"]?["net"] == "12.00")
    #expect(first["receipt"]?["tax"] == "0.90")
    #expect(first["receipt"]?["total"] == "12.90")
    // The cap back: the belt kept costs its full 15.00 + 1.12 tax; of the 64.50 paid,
    // 32.25 + 16.12 is kept, so 16.13 is owed in all, 12.90 of it refunded already: 3.23.
    let second = try lane.ok(returnRequest(line: 3, qty: 1))
    #expect(second["receipt"]?["net"] == "3.00")
    #expect(second["receipt"]?["tax"] == "0.23")
    #expect(second["receipt"]?["total"] == "3.23")
    // Everything else back: the rest of the 64.50, never more.
    let rest = try lane.ok(
      Requests.Return(
        receipt: 1,
        lines: [ReturnRequestLine(line: 1, quantity: 3), ReturnRequestLine(line: 2, quantity: 1)],
        reason: "r"))
    #expect(rest["receipt"]?["total"] == .string(decimal(6450 - 1290 - 323)))
    // Replayed, the returns are the same.
    let replayed = try Register.replaying(lane.scan().records)
    #expect(RegisterState(replayed) == RegisterState(lane.register))
  }

  @Test func aReturnThatBreaksUpAPromotionMayRefundNothingYet() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    _ = try lane.ok(Requests.Add(sku: "SOCKS", quantity: 3))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.75"))))
    #expect(done["status"] == "completed")
    // Paid 10.00 + 0.75 for three socks; one back leaves two at 5.00 each: 10.75 − 10.75.
    let first = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(first["receipt"]?["total"] == "0.00")
    // The other two back: all 10.75.
    let second = try lane.ok(returnRequest(line: 1, qty: 2))
    #expect(second["receipt"]?["total"] == "10.75")
  }

  @Test func theExportKeepsThePromotionsAndReadsBack() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    try lane.ok(Requests.ProductRemove(sku: "CAP"))
    let exported = try #require(try lane.ok(Requests.CatalogExport())["catalog"])
    let catalog = try Catalog(json: exported)
    #expect(catalog.promotions.count == 4)
    // CAP is gone from the list of ACC-ANY-2, so the file reads back.
    #expect(catalog.promotions[2].scope == .skus(["BELT", "SOCKS"]))
  }

  @Test func aCatalogChangeLaterDoesNotChangeTheSaleOrItsReturns() throws {
    let lane = try JournalLane(catalogJSON: promotionCatalogJSON)
    _ = try Self.sell { try lane.ok($0) }
    let text = ReceiptRenderer.text(try #require(lane.register.receipts[1]))
    // The promotions are dropped from the catalog file.
    let edited = try CatalogFile.parse(
      Array(promotionCatalogJSON.replacingPromotions(with: "").utf8), file: "edited.json")
    try lane.service.commit(Register.startupEvents(for: edited, current: lane.register))
    #expect(lane.register.promotions.isEmpty)
    #expect(ReceiptRenderer.text(try #require(lane.register.receipts[1])) == text)
    let first = try lane.ok(returnRequest(line: 1, qty: 1))
    #expect(first["receipt"]?["total"] == "12.90")
    // A new order has no promotions.
    let order = try lane.ok(Requests.Add(sku: "TEE", quantity: 3))
    #expect(order["promotions"] == nil)
    #expect(order["subtotal"] == "36.00")
  }
}

extension JSONValue {
  /// The element at `index` of an array value.
  fileprivate subscript(index: Int) -> JSONValue? {
    guard let array = arrayValue, array.indices.contains(index) else { return nil }
    return array[index]
  }
}
