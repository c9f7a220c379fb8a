import Testing

@testable import RegisterEngine

private func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }

private func rate(_ text: String) -> Percent {
  (try? Percent.parse(text)) ?? Percent(millionths: -1)
}

/// The classes of these tests, in the order the store lists them.
private let classRates: [(name: String, rate: String)] = [
  ("standard", "7.5"), ("vat", "20"), ("food", "5.5"), ("zero", "0"),
]

private func settings(_ rounding: TaxRounding, inclusive: Bool) -> TaxSettings {
  TaxSettings(
    classes: classRates.map { ($0.name, rate($0.rate)) }, defaultClass: "standard",
    rounding: rounding, pricesIncludeTax: inclusive)
}

private func percentOff(_ text: String) -> DiscountValue { .percent(rate(text)) }

private func amountOff(_ cents: Int64) -> DiscountValue { .amount(usd(cents)) }

/// A line as the register rings it up, at its class's rate.
private func line(
  _ number: Int, _ unitCents: Int64, quantity: Int64 = 1, _ taxClass: String = "standard",
  discount: DiscountValue? = nil
) -> OrderLine {
  let classRate = classRates.first { $0.name == taxClass }?.rate ?? "0"
  return OrderLine(
    line: number, sku: "SKU\(number)", name: "Item \(number)", quantity: quantity,
    unitPrice: usd(unitCents), regularPrice: usd(unitCents), taxClass: taxClass,
    taxRate: rate(classRate), discount: discount.map { Discount(value: $0, reason: "test") })
}

private func order(_ lines: [OrderLine], discount: DiscountValue? = nil) -> Order {
  var order = Order(id: 1)
  order.lines = lines
  order.nextLine = lines.count + 1
  order.discount = discount.map { Discount(value: $0, reason: "coupon") }
  return order
}

/// What one rounding mode gives: each line's own tax (per_line only; 0 under per_total), the
/// tax of each class in store order, and the total.
struct ModeExpectation: Sendable {
  var lineTaxes: [Int64]
  var classTaxes: [Int64]
  var total: Int64
}

/// An order and its totals worked by hand under both rounding modes. Bases, discounts and the
/// order-discount shares do not depend on the rounding mode.
struct PricingCase: Sendable, CustomTestStringConvertible {
  var name: String
  var inclusive = false
  var lines: [OrderLine]
  var orderDiscount: DiscountValue?
  var subtotal: Int64
  var lineDiscounts: [Int64]
  var shares: [Int64]
  /// Each class that has lines, in store order, with its basis (net of every discount).
  var bases: [(taxClass: String, basis: Int64)]
  var perLine: ModeExpectation
  var perTotal: ModeExpectation

  var testDescription: String { name }

  func expectation(_ rounding: TaxRounding) -> ModeExpectation {
    rounding == .perLine ? perLine : perTotal
  }
}

private let pricingCases: [PricingCase] = [
  // Three lines of 0.10, standard 7.5 %, prices exclusive.
  //   per line:  0.10 × 7.5 % = 0.0075 → 0.01 on each line; tax 0.03; total 0.33
  //   per total: 0.30 × 7.5 % = 0.0225 → 0.02;                 tax 0.02; total 0.32
  // The two modes differ by a cent.
  PricingCase(
    name: "per line and per total differ by a cent",
    lines: [line(1, 10), line(2, 10), line(3, 10)],
    subtotal: 30, lineDiscounts: [0, 0, 0], shares: [0, 0, 0], bases: [("standard", 30)],
    perLine: ModeExpectation(lineTaxes: [1, 1, 1], classTaxes: [3], total: 33),
    perTotal: ModeExpectation(lineTaxes: [0, 0, 0], classTaxes: [2], total: 32)),
  // 10.00 and 20.00 at 7.5 %:
  //   per line:  0.75 + 1.50 = 2.25
  //   per total: 30.00 × 7.5 % = 2.25
  // The modes agree; total 32.25.
  PricingCase(
    name: "per line and per total agree",
    lines: [line(1, 1000), line(2, 2000)],
    subtotal: 3000, lineDiscounts: [0, 0], shares: [0, 0], bases: [("standard", 3000)],
    perLine: ModeExpectation(lineTaxes: [75, 150], classTaxes: [225], total: 3225),
    perTotal: ModeExpectation(lineTaxes: [0, 0], classTaxes: [225], total: 3225)),
  // Mixed classes, exclusive: vat 20 %, food 5.5 %, zero 0 %.
  //   1: vat 12.49           per line 2.498 → 2.50
  //   2: vat 3 × 0.35 = 1.05 per line 0.21
  //   3, 4, 5: food 0.09     per line 0.00495 → 0.00 each
  //   6: zero 5.00           per line 0.00
  //   subtotal 12.49 + 1.05 + 0.27 + 5.00 = 18.81
  //   per line:  vat 2.71, food 0.00, zero 0.00; tax 2.71; total 21.52
  //   per total: vat 13.54 × 20 % = 2.708 → 2.71; food 0.27 × 5.5 % = 0.01485 → 0.01;
  //              zero 0.00; tax 2.72; total 21.53
  // This time per total is the higher one, by a cent (in the food class).
  PricingCase(
    name: "mixed classes with a 0 % class",
    lines: [
      line(1, 1249, "vat"), line(2, 35, quantity: 3, "vat"), line(3, 9, "food"),
      line(4, 9, "food"), line(5, 9, "food"), line(6, 500, "zero"),
    ],
    subtotal: 1881, lineDiscounts: [0, 0, 0, 0, 0, 0], shares: [0, 0, 0, 0, 0, 0],
    bases: [("vat", 1354), ("food", 27), ("zero", 500)],
    perLine: ModeExpectation(
      lineTaxes: [250, 21, 0, 0, 0, 0], classTaxes: [271, 0, 0], total: 2152),
    perTotal: ModeExpectation(
      lineTaxes: [0, 0, 0, 0, 0, 0], classTaxes: [271, 1, 0], total: 2153)),
  // Tax-inclusive, vat 20 % and food 5.5 %: tax = gross × r / (100 + r), rounded once.
  //   1: vat 12.00   12.00 × 20 / 120 = 2.00
  //   2: vat 0.10    0.10 × 20 / 120 = 0.01666… → 0.02
  //   3: vat 0.10    → 0.02
  //   4: food 2.11   2.11 × 5.5 / 105.5 = 0.11 exactly
  //   5: food 2 × 0.99 = 1.98   1.98 × 5.5 / 105.5 = 0.10322… → 0.10
  //   per line:  vat 2.04, food 0.21; tax 2.25
  //   per total: vat 12.20 × 20 / 120 = 2.0333… → 2.03; food 4.09 × 5.5 / 105.5 = 0.21322… → 0.21;
  //              tax 2.24
  // The total is the sum of the gross amounts in both modes: 16.29.
  PricingCase(
    name: "tax-inclusive 20 % and 5.5 %", inclusive: true,
    lines: [
      line(1, 1200, "vat"), line(2, 10, "vat"), line(3, 10, "vat"), line(4, 211, "food"),
      line(5, 99, quantity: 2, "food"),
    ],
    subtotal: 1629, lineDiscounts: [0, 0, 0, 0, 0], shares: [0, 0, 0, 0, 0],
    bases: [("vat", 1220), ("food", 409)],
    perLine: ModeExpectation(lineTaxes: [200, 2, 2, 11, 10], classTaxes: [204, 21], total: 1629),
    perTotal: ModeExpectation(lineTaxes: [0, 0, 0, 0, 0], classTaxes: [203, 21], total: 1629)),
  // Tax-inclusive 1.07 at 7.5 % and 5.00 at 0 %:
  //   1.07 × 7.5 / 107.5 = 0.07465… → 0.07 (extracted once).
  //   Rounding twice would give 0.08: net 1.07 / 1.075 = 0.99535… → 1.00, then
  //   1.00 × 7.5 % = 0.075 → 0.08.
  //   The 0 % class contains no tax. Total 6.07 (the gross) in both modes.
  PricingCase(
    name: "tax-inclusive extraction rounds once", inclusive: true,
    lines: [line(1, 107), line(2, 500, "zero")],
    subtotal: 607, lineDiscounts: [0, 0], shares: [0, 0],
    bases: [("standard", 107), ("zero", 500)],
    perLine: ModeExpectation(lineTaxes: [7, 0], classTaxes: [7, 0], total: 607),
    perTotal: ModeExpectation(lineTaxes: [0, 0], classTaxes: [7, 0], total: 607)),
  // Order discount of 1.00 over vat 10.00, food 10.00, zero 10.00 (exclusive):
  //   1.00 × 10 / 30 = 0.3333… each: 0.33 each, 0.01 left over; the remainders tie, so the
  //   earlier line takes it: shares 0.34, 0.33, 0.33 (sum 1.00).
  //   nets 9.66, 9.67, 9.67
  //   vat 9.66 × 20 % = 1.932 → 1.93; food 9.67 × 5.5 % = 0.53185 → 0.53; zero 0.00
  //   tax 2.46; total 30.00 − 1.00 + 2.46 = 31.46 (one line per class: both modes agree)
  PricingCase(
    name: "order discount amount, remainder tie to the earlier line",
    lines: [line(1, 1000, "vat"), line(2, 1000, "food"), line(3, 1000, "zero")],
    orderDiscount: amountOff(100),
    subtotal: 3000, lineDiscounts: [0, 0, 0], shares: [34, 33, 33],
    bases: [("vat", 966), ("food", 967), ("zero", 967)],
    perLine: ModeExpectation(lineTaxes: [193, 53, 0], classTaxes: [193, 53, 0], total: 3146),
    perTotal: ModeExpectation(lineTaxes: [0, 0, 0], classTaxes: [193, 53, 0], total: 3146)),
  // Order discount of 15 % over vat 19.99, vat 2 × 5.01 = 10.02, food 7.49, zero 2.50
  // (net sum 40.00 → discount 6.00, exclusive). Shares of 600 cents, 600 × net / 4000:
  //   1: 1199400 / 4000 = 299 rem 3400
  //   2:  601200 / 4000 = 150 rem 1200
  //   3:  449400 / 4000 = 112 rem 1400
  //   4:  150000 / 4000 =  37 rem 2000
  //   598 allocated; the 2 left go to the largest remainders (lines 1 and 4):
  //   shares 3.00, 1.50, 1.12, 0.38 (sum 6.00); nets 16.99, 8.52, 6.37, 2.12
  //   per total: vat 25.51 × 20 % = 5.102 → 5.10; food 6.37 × 5.5 % = 0.35035 → 0.35; zero 0
  //   per line:  vat 16.99 → 3.398 → 3.40, 8.52 → 1.704 → 1.70 (5.10); food 0.35; zero 0
  //   tax 5.45; total 40.00 − 6.00 + 5.45 = 39.45
  PricingCase(
    name: "order discount percent, largest remainders",
    lines: [
      line(1, 1999, "vat"), line(2, 501, quantity: 2, "vat"), line(3, 749, "food"),
      line(4, 250, "zero"),
    ],
    orderDiscount: percentOff("15"),
    subtotal: 4000, lineDiscounts: [0, 0, 0, 0], shares: [300, 150, 112, 38],
    bases: [("vat", 2551), ("food", 637), ("zero", 212)],
    perLine: ModeExpectation(
      lineTaxes: [340, 170, 35, 0], classTaxes: [510, 35, 0], total: 3945),
    perTotal: ModeExpectation(lineTaxes: [0, 0, 0, 0], classTaxes: [510, 35, 0], total: 3945)),
  // Tax-inclusive, order discount 2.00 over vat 12.00 and food 8.00:
  //   shares 2.00 × 12/20 = 1.20 and 0.80; nets 10.80 and 7.20
  //   vat 10.80 × 20 / 120 = 1.80; food 7.20 × 5.5 / 105.5 = 0.37535… → 0.38; tax 2.18
  //   total 20.00 − 2.00 = 18.00 (tax included)
  PricingCase(
    name: "tax-inclusive order discount", inclusive: true,
    lines: [line(1, 1200, "vat"), line(2, 800, "food")],
    orderDiscount: amountOff(200),
    subtotal: 2000, lineDiscounts: [0, 0], shares: [120, 80],
    bases: [("vat", 1080), ("food", 720)],
    perLine: ModeExpectation(lineTaxes: [180, 38], classTaxes: [180, 38], total: 1800),
    perTotal: ModeExpectation(lineTaxes: [0, 0], classTaxes: [180, 38], total: 1800)),
  // Line discounts, standard 7.5 %, exclusive:
  //   1: 2 × 19.99 = 39.98, 10 % → 3.998 → 4.00; net 35.98
  //   2: 3 × 5.00 = 15.00, 2.50 off; net 12.50
  //   3: 0.05, 10 % → 0.005 → 0.01 (half away from zero); net 0.04
  //   subtotal 55.03; line discounts 6.51; net 48.52
  //   per total: 48.52 × 7.5 % = 3.639 → 3.64
  //   per line:  35.98 → 2.6985 → 2.70; 12.50 → 0.9375 → 0.94; 0.04 → 0.003 → 0.00 (3.64)
  //   total 48.52 + 3.64 = 52.16
  PricingCase(
    name: "line discounts, percent and amount",
    lines: [
      line(1, 1999, quantity: 2, discount: percentOff("10")),
      line(2, 500, quantity: 3, discount: amountOff(250)),
      line(3, 5, discount: percentOff("10")),
    ],
    subtotal: 5503, lineDiscounts: [400, 250, 1], shares: [0, 0, 0],
    bases: [("standard", 4852)],
    perLine: ModeExpectation(lineTaxes: [270, 94, 0], classTaxes: [364], total: 5216),
    perTotal: ModeExpectation(lineTaxes: [0, 0, 0], classTaxes: [364], total: 5216)),
  // Line discounts and an order discount together, exclusive:
  //   1: standard 25.00, 20 % → 5.00; net 20.00
  //   2: food 2 × 12.50 = 25.00, 5.00 off; net 20.00
  //   3: standard 10.00; net 10.00
  //   order discount 0.07 over 20.00, 20.00, 10.00: 7 × 2000 / 5000 = 2 rem 4000 (twice),
  //   7 × 1000 / 5000 = 1 rem 2000; 2 left → lines 1 and 2 (tie, earlier first):
  //   shares 0.03, 0.03, 0.01; nets 19.97, 19.97, 9.99
  //   per total: standard 29.96 × 7.5 % = 2.247 → 2.25; food 19.97 × 5.5 % = 1.09835 → 1.10
  //   per line:  19.97 → 1.49775 → 1.50; 9.99 → 0.74925 → 0.75 (2.25); food 1.10
  //   tax 3.35; total 60.00 − 10.00 − 0.07 + 3.35 = 53.28
  PricingCase(
    name: "line discounts and an order discount",
    lines: [
      line(1, 2500, discount: percentOff("20")),
      line(2, 1250, quantity: 2, "food", discount: amountOff(500)),
      line(3, 1000),
    ],
    orderDiscount: amountOff(7),
    subtotal: 6000, lineDiscounts: [500, 500, 0], shares: [3, 3, 1],
    bases: [("standard", 2996), ("food", 1997)],
    perLine: ModeExpectation(lineTaxes: [150, 110, 75], classTaxes: [225, 110], total: 5328),
    perTotal: ModeExpectation(lineTaxes: [0, 0, 0], classTaxes: [225, 110], total: 5328)),
]

@Suite struct PricingTests {
  @Test(arguments: pricingCases, TaxRounding.allCases)
  func workedExample(_ example: PricingCase, rounding: TaxRounding) throws {
    let totals = try OrderTotals.compute(
      order(example.lines, discount: example.orderDiscount),
      tax: settings(rounding, inclusive: example.inclusive))
    let expected = example.expectation(rounding)
    #expect(totals.taxIncluded == example.inclusive)
    #expect(totals.subtotal == example.subtotal)
    #expect(
      totals.lines.map(\.gross) == example.lines.map { $0.unitPrice.minorUnits * $0.quantity })
    #expect(totals.lines.map(\.lineDiscount) == example.lineDiscounts)
    #expect(totals.lineDiscounts == example.lineDiscounts.reduce(0, +))
    #expect(totals.lines.map(\.orderDiscount) == example.shares)
    #expect(totals.orderDiscount == example.shares.reduce(0, +))
    #expect(totals.taxLines.map(\.taxClass) == example.bases.map(\.taxClass))
    #expect(totals.taxLines.map(\.basis) == example.bases.map(\.basis))
    #expect(totals.taxLines.map(\.tax) == expected.classTaxes)
    #expect(totals.lines.map(\.tax) == expected.lineTaxes)
    #expect(totals.tax == expected.classTaxes.reduce(0, +))
    #expect(totals.total == expected.total)
    // The bookkeeping identities hold in every case.
    let nets = totals.lines.map(\.net)
    #expect(nets.reduce(0, +) == totals.subtotal - totals.discountTotal)
    #expect(totals.taxLines.map(\.basis).reduce(0, +) == nets.reduce(0, +))
    if example.inclusive {
      #expect(totals.total == totals.subtotal - totals.discountTotal)
    } else {
      #expect(totals.total == totals.subtotal - totals.discountTotal + totals.tax)
    }
  }

  @Test func perLineAndPerTotalDifferByACentOnThreeDimes() throws {
    // The headline example, both modes side by side: 0.03 against 0.02.
    let dimes = order([line(1, 10), line(2, 10), line(3, 10)])
    let perLine = try OrderTotals.compute(dimes, tax: settings(.perLine, inclusive: false))
    let perTotal = try OrderTotals.compute(dimes, tax: settings(.perTotal, inclusive: false))
    #expect(perLine.tax == 3)
    #expect(perTotal.tax == 2)
    #expect(perLine.total - perTotal.total == 1)
  }

  @Test func anOrderPercentAppliesToTheAmountAfterLineDiscounts() throws {
    // 30.00 with 10.00 off line 1, then 10 % off the order: 10 % of 20.00 = 2.00 (not 3.00).
    // Shares 2.00 × 10/20 = 1.00 and 1.00; nets 9.00 and 9.00; tax 18.00 × 7.5 % = 1.35.
    // Total 30.00 − 10.00 − 2.00 + 1.35 = 19.35.
    let discounted = order(
      [line(1, 2000, discount: amountOff(1000)), line(2, 1000)], discount: percentOff("10"))
    let totals = try OrderTotals.compute(discounted, tax: settings(.perTotal, inclusive: false))
    #expect(totals.orderDiscount == 200)
    #expect(totals.lines.map(\.orderDiscount) == [100, 100])
    #expect(totals.lines.map(\.net) == [900, 900])
    #expect(totals.tax == 135)
    #expect(totals.total == 1935)
  }

  @Test func aHundredPercentOrderDiscountLeavesNothingToTax() throws {
    // 100 % of 12.34 (two classes): shares equal the nets, every net is 0, no tax, total 0.
    let free = order([line(1, 1000), line(2, 234, "food")], discount: percentOff("100"))
    for rounding in TaxRounding.allCases {
      for inclusive in [false, true] {
        let totals = try OrderTotals.compute(free, tax: settings(rounding, inclusive: inclusive))
        #expect(totals.orderDiscount == 1234)
        #expect(totals.lines.map(\.net) == [0, 0])
        #expect(totals.tax == 0)
        #expect(totals.total == 0)
      }
    }
  }

  @Test func voidedLinesTakeNoShareOfTheOrderDiscount() throws {
    // Lines 10.00 and 30.00 (voided): the 1.00 discount falls wholly on line 1.
    var withVoid = order([line(1, 1000), line(2, 3000)], discount: amountOff(100))
    withVoid.lines[1].voided = true
    let totals = try OrderTotals.compute(withVoid, tax: settings(.perTotal, inclusive: false))
    #expect(totals.lines.map(\.line) == [1])
    #expect(totals.lines.map(\.orderDiscount) == [100])
    // 9.00 × 7.5 % = 0.675 → 0.68; total 9.68.
    #expect(totals.total == 968)
  }

  @Test func aLineDiscountIsTakenOffTheOverriddenPrice() throws {
    // 49.99 overridden to 39.99, 10 % off: 3.999 → 4.00 (not 5.00); net 35.99;
    // tax 35.99 × 7.5 % = 2.69925 → 2.70; total 38.69.
    var overridden = line(1, 4999, discount: percentOff("10"))
    overridden.override = PriceOverride(unitPrice: usd(3999), reason: "price match")
    let totals = try OrderTotals.compute(
      order([overridden]), tax: settings(.perTotal, inclusive: false))
    #expect(totals.subtotal == 3999)
    #expect(totals.lineDiscounts == 400)
    #expect(totals.tax == 270)
    #expect(totals.total == 3869)
  }
}

@Suite struct AllocationTests {
  @Test(
    arguments: [
      // 1.00 over three equal weights: 33 each, 1 left, remainders tie → the first.
      (100, [1, 1, 1], [34, 33, 33]),
      // 2 over three equal weights: the first two.
      (2, [1, 1, 1], [1, 1, 0]),
      // A single unit over two equal weights goes to the earlier one.
      (1, [5, 5], [1, 0]),
      // Proportional, largest remainders (worked in the 15 % order-discount case above).
      (600, [1999, 1002, 749, 250], [300, 150, 112, 38]),
      // Exact proportions need no remainder: 6.00 over 3:2:1.
      (600, [300, 200, 100], [300, 200, 100]),
      // 10 over 0, 3, 0, 1: 7.5 and 2.5, the tie goes to the earlier weight; the zero weights
      // never take a share.
      (10, [0, 3, 0, 1], [0, 8, 0, 2]),
      // Nothing to spread.
      (0, [5, 7], [0, 0]),
      // All weights zero: nothing can be spread.
      (5, [0, 0], [0, 0]),
      // No weights at all.
      (5, [], []),
      // 10^15 × 10^15 does not fit in 64 bits; the products are taken in 128.
      (
        1_000_000_000_000_000, [1_000_000_000_000_000, 1_000_000_000_000_000],
        [500_000_000_000_000, 500_000_000_000_000]
      ),
    ] as [(Int64, [Int64], [Int64])])
  func allocate(amount: Int64, weights: [Int64], shares: [Int64]) throws {
    let result = try OrderTotals.allocate(amount, proportionallyTo: weights)
    #expect(result == shares)
    if weights.contains(where: { $0 > 0 }) {
      #expect(result.reduce(0, +) == amount)
    }
  }

  @Test func sharesAreWithinOneOfTheExactProportion() throws {
    // 1.00 over 1, 2, 3, … 9 (sum 45): each share is ⌊100 × w / 45⌋ or one more.
    let weights: [Int64] = Array(1...9)
    let shares = try OrderTotals.allocate(100, proportionallyTo: weights)
    #expect(shares.reduce(0, +) == 100)
    for (share, weight) in zip(shares, weights) {
      let floor = 100 * weight / 45
      #expect(share == floor || share == floor + 1, "weight \(weight): \(share)")
    }
    // Heavier weights never get less.
    #expect(shares == shares.sorted())
  }
}

/// A store with one product, a 0.10 dime at standard 7.5 %, in the given tax mode.
private func dimeStoreJSON(rounding: String, inclusive: Bool) -> String {
  """
  {
    "store": {
      "name": "Dime Lane", "currency": "USD",
      "tax": {"classes": {"standard": "7.5"}, "default_class": "standard",
              "rounding": "\(rounding)", "prices_include_tax": \(inclusive)}
    },
    "products": [
      {"sku": "DIME", "name": "Dime", "description": "", "category": "Test", "price": "0.10"}
    ]
  }
  """
}

@Suite struct TaxSettingsThroughTheProtocolTests {
  /// Three lines of 0.10 at 7.5 %, rung up through the protocol in each store mode:
  ///   exclusive, per line:  0.0075 → 0.01 × 3 = 0.03; total 0.33
  ///   exclusive, per total: 0.30 × 7.5 % = 0.0225 → 0.02; total 0.32
  ///   inclusive, per line:  0.10 × 7.5 / 107.5 = 0.00697… → 0.01 × 3 = 0.03; total 0.30
  ///   inclusive, per total: 0.30 × 7.5 / 107.5 = 0.02093… → 0.02; total 0.30
  @Test(
    arguments: [
      ("per_line", false, "0.03", "0.33"), ("per_total", false, "0.02", "0.32"),
      ("per_line", true, "0.03", "0.30"), ("per_total", true, "0.02", "0.30"),
    ] as [(String, Bool, String, String)])
  func theStoreSettingsChooseTheMode(
    rounding: String, inclusive: Bool, tax: String, total: String
  ) throws {
    let lane = try TestLane(catalogJSON: dimeStoreJSON(rounding: rounding, inclusive: inclusive))
    #expect(lane.register.store.tax.rounding.rawValue == rounding)
    #expect(lane.register.store.tax.pricesIncludeTax == inclusive)
    var result = JSONValue.null
    for _ in 1...3 { result = try lane.ok(Requests.Add(sku: "DIME")) }
    #expect(result["subtotal"] == "0.30")
    #expect(result["tax"] == .string(tax))
    #expect(result["tax_included"] == .bool(inclusive))
    #expect(result["total"] == .string(total))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("1.00"))))
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    let printed = text.split(separator: "\n").map(String.init)
    #expect(printed.contains(receiptRow("TOTAL", total)))
    // Inclusive receipts show the tax contained in the total, after it; exclusive ones add it.
    #expect(printed.contains(receiptRow("  incl. tax standard 7.5%", tax)) == inclusive)
    #expect(printed.contains(receiptRow("Tax standard 7.5%", tax)) == !inclusive)
  }

  @Test(
    arguments: [
      (#""rounding": "per_line""#, #""rounding": "per_item""#, "per_total"),
      (#""prices_include_tax": false"#, #""prices_include_tax": "yes""#, "prices_include_tax"),
      (#""currency": "USD","#, #""currency": "USD", "cash_rounding": "0.00","#, "cash_rounding"),
      (#""currency": "USD","#, #""currency": "USD", "cash_rounding": "-0.05","#, "cash_rounding"),
      (#""currency": "USD","#, #""currency": "USD", "cash_rounding": 0.05,"#, "cash_rounding"),
      (#""currency": "USD","#, #""currency": "USD", "cash_rounding": "0.005","#, "cash_rounding"),
      (#""standard": "7.5""#, #""standard": "101""#, "at most 100"),
    ] as [(String, String, String)])
  func badTaxAndCashSettingsAreRefusedAtStartUp(
    original: String, replacement: String, mentions: String
  ) throws {
    let good = dimeStoreJSON(rounding: "per_line", inclusive: false)
    let bad = good.replacingOccurrences(of: original, with: replacement)
    #expect(bad != good, "\(original) is not in the store")
    #expect(throws: CatalogError.self) {
      try CatalogFile.parse(Array(bad.utf8), file: "bad.json")
    }
    do {
      _ = try CatalogFile.parse(Array(bad.utf8), file: "bad.json")
    } catch {
      #expect(error.message.contains(mentions), "\(error.message)")
    }
  }
}
