import RegisterTestSupport
import Testing

@testable import RegisterEngine

extension SplitMix64 {
  /// A number in `range` (the modulo bias is irrelevant at these sizes).
  fileprivate mutating func int(_ range: ClosedRange<Int64>) -> Int64 {
    let span = UInt64(range.upperBound - range.lowerBound) + 1
    return range.lowerBound + Int64(next() % span)
  }

  /// True `percent` times in a hundred.
  fileprivate mutating func chance(_ percent: Int64) -> Bool { int(0...99) < percent }
}

private let rateChoices = ["0", "5.5", "7.5", "8.875", "20"]
private let percentChoices = ["1", "5", "10", "12.5", "15", "33.333", "50", "99.999", "100"]

private func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }

private func percent(_ text: String) -> Percent {
  (try? Percent.parse(text)) ?? Percent(millionths: -1)
}

/// `numerator / denominator` rounded half up (both non-negative): the oracle the engine's half
/// away from zero must agree with on the amounts of a sale.
private func halfUp(_ numerator: Int64, _ denominator: Int64) -> Int64 {
  (2 * numerator + denominator) / (2 * denominator)
}

/// The oracle for `percent × amount / 100`.
private func percentOf(_ amount: Int64, _ rate: Percent) -> Int64 {
  halfUp(amount * rate.millionths, 100_000_000)
}

/// The oracle for the tax at `rate`: added on top, or contained in a gross amount.
private func taxOf(_ amount: Int64, _ rate: Percent, included: Bool) -> Int64 {
  included
    ? halfUp(amount * rate.millionths, 100_000_000 + rate.millionths)
    : percentOf(amount, rate)
}

/// The oracle for what settles `balance` in cash: half up to a multiple of `increment`.
private func cashDue(_ balance: Int64, increment: Int64?) -> Int64 {
  guard let increment, balance > 0 else { return balance }
  let remainder = balance % increment
  return remainder * 2 >= increment ? balance - remainder + increment : balance - remainder
}

private let modes: [(TaxRounding, Bool)] = [
  (.perTotal, false), (.perLine, false), (.perTotal, true), (.perLine, true),
]

/// 2 or 3 tax classes named c0, c1, c2 with random rates.
private func randomClasses(_ random: inout SplitMix64) -> [(name: String, rate: String)] {
  (0..<Int(random.int(2...3))).map { ("c\($0)", random.pick(rateChoices)) }
}

/// A random discount of `base`: none half the time, else a percentage or an amount up to it.
private func randomDiscount(_ random: inout SplitMix64, base: Int64) -> DiscountValue? {
  switch random.int(0...3) {
  case 0: return .percent(percent(random.pick(percentChoices)))
  case 1 where base > 0: return .amount(usd(random.int(1...base)))
  default: return nil
  }
}

/// A random order: 1–8 lines at 0.01–500.00, quantities 1–5, random classes and line
/// discounts, and sometimes an order discount no bigger than what the lines leave.
private func randomOrder(
  _ random: inout SplitMix64, classes: [(name: String, rate: String)]
) -> Order {
  var order = Order(id: 1)
  for number in 1...Int(random.int(1...8)) {
    let price = random.int(1...50_000)
    let quantity = random.int(1...5)
    let taxClass = random.pick(classes)
    let discount = randomDiscount(&random, base: price * quantity)
    order.lines.append(
      OrderLine(
        line: number, sku: "P\(number)", name: "Item \(number)", quantity: quantity,
        unitPrice: usd(price), regularPrice: usd(price), taxClass: taxClass.name,
        taxRate: percent(taxClass.rate),
        discount: discount.map { Discount(value: $0, reason: "random") }))
  }
  order.nextLine = order.lines.count + 1
  let left = order.lines.reduce(Int64(0)) { sum, line in
    let gross = line.unitPrice.minorUnits * line.quantity
    return sum + gross - lineDiscount(line.discount?.value, gross: gross)
  }
  if random.chance(60) {
    order.discount = randomDiscount(&random, base: left).map {
      Discount(value: $0, reason: "random")
    }
  }
  return order
}

private func lineDiscount(_ value: DiscountValue?, gross: Int64) -> Int64 {
  switch value {
  case .percent(let rate): percentOf(gross, rate)
  case .amount(let money): money.minorUnits
  case nil: 0
  }
}

/// 1–3 random promotions of every kind over the SKUs `randomOrder` uses (P1–P8).
private func randomPromotions(_ random: inout SplitMix64) -> PromotionContext {
  let skus = (1...8).map { "P\($0)" }
  var promotions: [Promotion] = []
  for index in 0..<Int(random.int(1...3)) {
    let list = skus.filter { _ in random.chance(40) }
    let scope: Promotion.Scope = list.isEmpty ? .sku(random.pick(skus)) : .skus(list)
    let price = usd(random.int(1...200_000))
    let rule: Promotion.Rule =
      switch random.int(0...3) {
      case 0: .quantityPrice(quantity: random.int(1...3), price: price)
      case 1:
        .buyGet(
          buy: random.int(1...2), get: random.int(1...2),
          percentOff: percent(random.pick(percentChoices)))
      case 2: .mixMatch(quantity: random.int(2...4), price: price)
      default: .categoryPercent(percent: percent(random.pick(percentChoices)))
      }
    promotions.append(Promotion(id: "R\(index)", name: "R\(index)", rule: rule, scope: scope))
  }
  return PromotionContext(promotions: promotions, category: { _ in nil })
}

/// Every rule the totals must keep, checked against the oracles; the broken ones, described.
private func violations(
  of totals: OrderTotals, _ order: Order, _ settings: TaxSettings
) -> [String] {
  var broken: [String] = []
  func check(_ holds: Bool, _ rule: @autoclosure () -> String) {
    if !holds { broken.append(rule()) }
  }
  let grosses = order.lines.map { $0.unitPrice.minorUnits * $0.quantity }
  let lineDiscounts = zip(order.lines, grosses).map { lineDiscount($0.discount?.value, gross: $1) }
  // Promotions: only lines without a discount take part, no line gives more than it is
  // worth, and the lines' shares add up to each promotion's saving and to the total.
  let promotionShares = totals.lines.map(\.promotionDiscount)
  for (index, line) in order.lines.enumerated() {
    check(
      promotionShares[index] >= 0
        && promotionShares[index] <= grosses[index] - lineDiscounts[index],
      "line \(line.line) promotion share within its amount")
    check(line.discount == nil || promotionShares[index] == 0, "a discounted line takes no part")
  }
  check(
    promotionShares.reduce(0, +) == totals.promotionDiscounts
      && totals.promotions.map(\.saving).reduce(0, +) == totals.promotionDiscounts,
    "Σ promotion shares = Σ promotion savings")
  for applied in totals.promotions {
    check(
      applied.lines.map(\.saving).reduce(0, +) == applied.saving, "\(applied.id) shares sum")
  }
  let before = zip(zip(grosses, lineDiscounts), promotionShares).map { $0.0 - $0.1 - $1 }
  let netSum = before.reduce(0, +)
  // An amount off the order is at most what the lines leave (`decide` refuses more).
  let orderDiscount = min(lineDiscount(order.discount?.value, gross: netSum), netSum)
  check(totals.lines.count == order.lines.count, "one LineTotals per line")
  check(totals.subtotal == grosses.reduce(0, +), "subtotal = Σ price × qty")
  check(totals.lines.map(\.gross) == grosses, "line gross = price × qty")
  check(totals.lines.map(\.lineDiscount) == lineDiscounts, "line discounts")
  check(totals.lineDiscounts == lineDiscounts.reduce(0, +), "Σ line discounts")
  check(totals.orderDiscount == orderDiscount, "order discount \(orderDiscount)")
  let shares = totals.lines.map(\.orderDiscount)
  check(shares.reduce(0, +) == totals.orderDiscount, "Σ shares = order discount")
  for (index, share) in shares.enumerated() where netSum > 0 {
    let floor = orderDiscount * before[index] / netSum
    check(share == floor || share == floor + 1, "share of line \(index + 1) proportional")
  }
  for (index, line) in totals.lines.enumerated() {
    check(line.net >= 0, "line \(line.line) net ≥ 0")
    check(line.net == before[index] - shares[index], "line \(line.line) net")
  }
  let nets = totals.lines.map(\.net)
  check(totals.tax == totals.taxLines.map(\.tax).reduce(0, +), "tax = Σ class taxes")
  check(totals.taxLines.map(\.basis).reduce(0, +) == nets.reduce(0, +), "Σ bases = Σ nets")
  let included = settings.pricesIncludeTax
  for taxLine in totals.taxLines {
    let members = order.lines.indices.filter { order.lines[$0].taxClass == taxLine.taxClass }
    let basis = members.map { nets[$0] }.reduce(0, +)
    check(taxLine.basis == basis, "basis of \(taxLine.taxClass)")
    switch settings.rounding {
    case .perTotal:
      check(
        taxLine.tax == taxOf(basis, taxLine.rate, included: included),
        "per total tax of \(taxLine.taxClass)")
    case .perLine:
      let lineTaxes = members.map { taxOf(nets[$0], taxLine.rate, included: included) }
      check(members.map { totals.lines[$0].tax } == lineTaxes, "line taxes of \(taxLine.taxClass)")
      check(taxLine.tax == lineTaxes.reduce(0, +), "per line tax of \(taxLine.taxClass)")
    }
  }
  let owed =
    totals.subtotal - totals.lineDiscounts - totals.promotionDiscounts - totals.orderDiscount
  if included {
    check(totals.total == owed, "total = Σ amounts − discounts − promotions (tax included)")
  } else {
    check(totals.total == owed + totals.tax, "total = Σ amounts − discounts − promotions + tax")
  }
  return broken
}

/// A catalog of 8 random products (0.01–500.00) over `classes`, in one tax mode, with cash
/// rounded to `increment` when given.
private func randomCatalogJSON(
  _ random: inout SplitMix64, classes: [(name: String, rate: String)],
  rounding: TaxRounding, inclusive: Bool, increment: String?
) -> (json: String, prices: [Int64]) {
  let prices = (1...8).map { _ in random.int(1...50_000) }
  let products = prices.enumerated().map { index, price in
    #"{"sku": "P\#(index)", "name": "Item \#(index)", "description": "", "category": "Test", "#
      + #""price": "\#(decimal(price))", "tax_class": "\#(random.pick(classes).name)"}"#
  }
  let classList = classes.map { #""\#($0.name)": "\#($0.rate)""# }.joined(separator: ", ")
  let cash = increment.map { #""cash_rounding": "\#($0)", "# } ?? ""
  let json = """
    {
      "store": {
        "name": "Random Lane", "currency": "USD", \(cash)
        "tax": {"classes": {\(classList)}, "default_class": "c0",
                "rounding": "\(rounding.rawValue)", "prices_include_tax": \(inclusive)}
      },
      "products": [\(products.joined(separator: ", "))]
    }
    """
  return (json, prices)
}

/// Sends a request that must succeed; a refusal is reported with the seed and the sale.
@discardableResult
private func ok(_ lane: TestLane, _ context: String, _ line: String) throws -> JSONValue {
  let reply = try lane.send(line)
  #expect(reply["ok"] == .bool(true), "\(context): \(line) → \(reply.serialized)")
  return try #require(reply["result"], "\(context)")
}

@Suite struct PricingPropertyTests {
  @Test(arguments: 0..<4)
  func totalsKeepEveryRuleForRandomOrders(mode: Int) throws {
    let (rounding, inclusive) = modes[mode]
    var failures = 0
    var promoted = 0
    for index in 0..<300 {
      let seed = UInt64(0x5EED_0000 + mode * 1000 + index)
      var random = SplitMix64(seed: seed)
      let classes = randomClasses(&random)
      let settings = TaxSettings(
        classes: classes.map { ($0.name, percent($0.rate)) }, defaultClass: "c0",
        rounding: rounding, pricesIncludeTax: inclusive)
      let order = randomOrder(&random, classes: classes)
      // Promotions on half the orders, drawn apart so the orders stay those of their seeds.
      var promotionRandom = SplitMix64(seed: seed ^ 0xA5A5)
      let promotions = index % 2 == 0 ? randomPromotions(&promotionRandom) : .none
      let totals = try OrderTotals.compute(order, tax: settings, promotions: promotions)
      let broken = violations(of: totals, order, settings)
      if totals.promotionDiscounts > 0 { promoted += 1 }
      // Per line and per total differ by at most half a cent per line and per class.
      let other = try OrderTotals.compute(
        order,
        tax: TaxSettings(
          classes: settings.classes, defaultClass: "c0",
          rounding: rounding == .perLine ? .perTotal : .perLine, pricesIncludeTax: inclusive),
        promotions: promotions)
      let spread = abs(totals.tax - other.tax) * 2
      let bound = Int64(order.lines.count + totals.taxLines.count)
      let label = "\(rounding.rawValue), inclusive \(inclusive)"
      #expect(
        broken.isEmpty && spread <= bound,
        "seed \(seed) (\(label)): \(broken), tax spread \(spread)"
      )
      if !broken.isEmpty || spread > bound {
        failures += 1
        if failures >= 3 { break }
      }
    }
    #expect(promoted >= 30, "promotions saved something on \(promoted) orders")
  }

  @Test(arguments: 0..<4, [nil, "0.05", "0.10"] as [String?])
  func randomSettlementsBalance(mode: Int, increment: String?) throws {
    let (rounding, inclusive) = modes[mode]
    let step: Int64? = increment.map { $0 == "0.05" ? 5 : 10 }
    let seed = UInt64(0xCA5B_0000 + mode * 100 + Int(step ?? 0))
    var random = SplitMix64(seed: seed)
    let classes = randomClasses(&random)
    let (json, prices) = randomCatalogJSON(
      &random, classes: classes, rounding: rounding, inclusive: inclusive, increment: increment)
    let lane = try TestLane(catalogJSON: json)
    var totalSum: Int64 = 0
    var roundingSum: Int64 = 0
    for sale in 1...30 {
      let context = "seed \(seed), sale \(sale)"
      var order = JSONValue.null
      for _ in 1...random.int(1...6) {
        let sku = Int(random.int(0...7))
        let quantity = random.int(1...5)
        order = try ok(lane, context, #"{"op":"add","sku":"P\#(sku)","qty":\#(quantity)}"#)
        let number = try #require(order["lines"]?.arrayValue?.last?["line"])
        switch random.int(0...3) {
        case 0:
          let rate = random.pick(percentChoices)
          order = try ok(
            lane, context,
            #"{"op":"discount","line":\#(number.serialized),"percent":"\#(rate)","reason":"r"}"#
          )
        case 1:
          let amount = decimal(random.int(1...prices[sku] * quantity))
          order = try ok(
            lane, context,
            #"{"op":"discount","line":\#(number.serialized),"amount":"\#(amount)","reason":"r"}"#)
        default: break
        }
      }
      let left = try cents(order["subtotal"]) - cents(order["discount_total"])
      switch random.int(0...3) {
      case 0:
        let rate = random.pick(percentChoices)
        order = try ok(lane, context, #"{"op":"discount","percent":"\#(rate)","reason":"r"}"#)
      case 1 where left > 0:
        let amount = decimal(random.int(1...left))
        order = try ok(lane, context, #"{"op":"discount","amount":"\#(amount)","reason":"r"}"#)
      default: break
      }
      // Σ line amounts − discounts (+ tax when prices exclude it) = total.
      let total = try cents(order["total"])
      let owed = try cents(order["subtotal"]) - cents(order["discount_total"])
      #expect(total == owed + (inclusive ? 0 : try cents(order["tax"])), "\(context)")

      let done = try settle(lane, total: total, increment: step, random: &random, context)
      let paid = try #require(done["tenders"]?.arrayValue).map { try cents($0["amount"]) }
      let change = try cents(done["change_due"])
      let cashRounding = try done["cash_rounding"].map { try cents($0) } ?? 0
      #expect(done["status"] == "completed", "\(context)")
      #expect(change >= 0, "\(context)")
      // Σ tenders − change = total + cash rounding, within half an increment.
      #expect(paid.reduce(0, +) - change == total + cashRounding, "\(context)")
      #expect(abs(cashRounding) * 2 <= (step ?? 0), "\(context): rounding \(cashRounding)")
      let receipt = try #require(done["receipt"]?["receipt"])
      #expect(try cents(receipt["amount_due"]) == total + cashRounding, "\(context)")
      #expect(try cents(receipt["cash_rounding"]) == cashRounding, "\(context)")
      totalSum += total
      roundingSum += cashRounding
    }
    // The day adds up the same way.
    let report = try #require(try ok(lane, "seed \(seed)", #"{"op":"report"}"#)["report"])
    let tendered = try #require(report["tenders"]?.arrayValue).map { try cents($0["amount"]) }
    let changeGiven = try cents(report["change_given"])
    #expect(try cents(report["total"]) == totalSum, "seed \(seed)")
    #expect(try cents(report["cash_rounding"]) == roundingSum, "seed \(seed)")
    #expect(tendered.reduce(0, +) - changeGiven == totalSum + roundingSum, "seed \(seed)")
  }

  /// Pays the open order of `total` in one of five random ways and returns the reply that
  /// completed it; checks the cash rounding of the cash that settles it against the oracle.
  private func settle(
    _ lane: TestLane, total: Int64, increment: Int64?, random: inout SplitMix64,
    _ context: String
  ) throws -> JSONValue {
    let card = cardJSON()
    // A store that rounds cash takes cash only in whole steps of its increment.
    let step = increment ?? 1
    var balance = total
    var strategy = random.int(0...4)
    // A card cannot pay nothing; an order discounted to zero is settled in cash.
    if balance == 0 { strategy = 0 }
    switch strategy {
    case 1 where balance >= 2:
      // Card for part, then cash.
      let part = random.int(1...balance - 1)
      try ok(
        lane, context,
        #"{"op":"tender","type":"card","amount":"\#(decimal(part))","card":\#(card)}"#)
      balance -= part
    case 2, 4:
      // Cash that does not settle (below the balance and below what cash would settle).
      let limit = min(balance, cashDue(balance, increment: increment)) - 1
      guard limit >= step else { break }
      let part = random.int(1...limit / step) * step
      let reply = try ok(
        lane, context, #"{"op":"tender","type":"cash","amount":"\#(decimal(part))"}"#)
      #expect(reply["status"] == "open", "\(context)")
      #expect(reply["cash_rounding"] == nil, "\(context)")
      balance -= part
      if strategy == 2 {
        // The card takes the exact rest: never rounded.
        let done = try ok(lane, context, #"{"op":"tender","type":"card","card":\#(card)}"#)
        #expect(done["cash_rounding"] == nil, "\(context)")
        return done
      }
    case 3:
      let done = try ok(lane, context, #"{"op":"tender","type":"card","card":\#(card)}"#)
      #expect(done["cash_rounding"] == nil, "\(context)")
      return done
    default: break
    }
    let due = cashDue(balance, increment: increment)
    let open = try ok(lane, context, #"{"op":"order"}"#)
    #expect(try cents(open["balance_due"]) == balance, "\(context)")
    if increment != nil {
      #expect(try cents(open["cash_due"]) == due, "\(context)")
    } else {
      #expect(open["cash_due"] == nil, "\(context)")
    }
    let extra = random.chance(30) ? 0 : random.int(0...5_000 / step) * step
    let done = try ok(
      lane, context, #"{"op":"tender","type":"cash","amount":"\#(decimal(due + extra))"}"#)
    let cashRounding = try done["cash_rounding"].map { try cents($0) } ?? 0
    #expect(cashRounding == due - balance, "\(context)")
    #expect(try cents(done["change_due"]) == extra, "\(context)")
    return done
  }
}
