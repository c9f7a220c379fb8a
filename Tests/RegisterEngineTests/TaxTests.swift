import Testing

@testable import RegisterEngine

private func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }

private func rate(_ text: String) -> Percent {
  (try? Percent.parse(text)) ?? Percent(millionths: -1)
}

/// Standard 7.5 %, a reduced 5 % class, and exempt 0 %, as the store lists them.
private func taxSettings(
  rounding: TaxRounding = .perTotal, pricesIncludeTax: Bool = false
) -> TaxSettings {
  TaxSettings(
    classes: [("standard", rate("7.5")), ("reduced", rate("5")), ("exempt", .zero)],
    defaultClass: "standard", rounding: rounding, pricesIncludeTax: pricesIncludeTax)
}

/// A line as the register would ring it up: the class's rate from `taxSettings()`.
private func line(
  _ number: Int, _ unitCents: Int64, quantity: Int64 = 1, taxClass: String = "standard",
  regularCents: Int64? = nil, voided: Bool = false
) -> OrderLine {
  let rates = ["standard": rate("7.5"), "reduced": rate("5"), "exempt": Percent.zero]
  return OrderLine(
    line: number, sku: "SKU\(number)", name: "Item \(number)", quantity: quantity,
    unitPrice: usd(unitCents), regularPrice: usd(regularCents ?? unitCents), taxClass: taxClass,
    taxRate: rates[taxClass] ?? .zero, voided: voided)
}

private func order(_ lines: [OrderLine]) -> Order {
  var order = Order(id: 1)
  order.lines = lines
  order.nextLine = lines.count + 1
  return order
}

@Suite struct TaxTests {
  /// One standard-class line: (unit price in cents, tax in cents, total in cents).
  @Test(
    arguments: [
      // 0.10 × 7.5 % = 0.0075 → 0.01 (three quarters of a cent rounds up)
      (10, 1, 11),
      // 0.06 × 7.5 % = 0.0045 → 0.00 (under half a cent rounds down)
      (6, 0, 6),
      // 1.00 × 7.5 % = 0.075 → 0.08 (exactly half a cent rounds away from zero)
      (100, 8, 108),
      // 0.20 × 7.5 % = 0.015 → 0.02 (exactly half)
      (20, 2, 22),
      // 10.00 × 7.5 % = 0.75 exactly
      (1000, 75, 1075),
      // 14.99 × 7.5 % = 1.12425 → 1.12
      (1499, 112, 1611),
      // 0.01 × 7.5 % = 0.00075 → 0.00
      (1, 0, 1),
    ] as [(Int64, Int64, Int64)])
  func singleLineHalfCentEdges(unitCents: Int64, tax: Int64, total: Int64) throws {
    let totals = try OrderTotals.compute(order([line(1, unitCents)]), tax: taxSettings())
    #expect(totals.subtotal == unitCents)
    #expect(totals.tax == tax)
    #expect(totals.total == total)
    #expect(totals.taxLines.count == 1)
    #expect(totals.taxLines.first?.basis == unitCents)
    #expect(totals.taxLines.first?.tax == tax)
  }

  @Test func taxIsRoundedOnTheClassSubtotalNotPerLine() throws {
    // Two lines of 0.06: per line 0.0045 + 0.0045 would round to 0.00 + 0.00, but the class
    // subtotal is 0.12 × 7.5 % = 0.009 → 0.01.
    let twoLines = order([line(1, 6), line(2, 6)])
    let totals = try OrderTotals.compute(twoLines, tax: taxSettings())
    #expect(totals.subtotal == 12)
    #expect(totals.tax == 1)
    #expect(totals.total == 13)
    #expect(
      totals.taxLines == [TaxLine(taxClass: "standard", rate: rate("7.5"), basis: 12, tax: 1)])
  }

  @Test func perLineRoundingWhenTheStoreAsksForIt() throws {
    // Same order with per-line rounding: 0.0045 → 0.00 on each line.
    let twoLines = order([line(1, 6), line(2, 6)])
    let totals = try OrderTotals.compute(twoLines, tax: taxSettings(rounding: .perLine))
    #expect(totals.tax == 0)
    #expect(totals.total == 12)
    #expect(totals.lines.map(\.tax) == [0, 0])
  }

  @Test func eachClassIsRoundedSeparatelyThenSummed() throws {
    // standard: 0.10 × 7.5 % = 0.0075 → 0.01
    // reduced:  0.10 × 5 %   = 0.005  → 0.01
    // Sum 0.02 (rounding the unrounded sum 0.0125 once would give 0.01).
    let mixed = order([line(1, 10), line(2, 10, taxClass: "reduced")])
    let totals = try OrderTotals.compute(mixed, tax: taxSettings())
    #expect(totals.tax == 2)
    #expect(totals.total == 22)
    #expect(
      totals.taxLines == [
        TaxLine(taxClass: "standard", rate: rate("7.5"), basis: 10, tax: 1),
        TaxLine(taxClass: "reduced", rate: rate("5"), basis: 10, tax: 1),
      ])
  }

  @Test func standardAndExemptClasses() throws {
    // 2 × T-shirt on sale at 15.00 (regular 20.00) = 30.00 standard → 30.00 × 7.5 % = 2.25
    // 1 × gift card 25.00 exempt → 0.00
    // 3 × socks 1.99 = 5.97 standard
    // standard basis 35.97 × 7.5 % = 2.69775 → 2.70; subtotal 60.97; total 63.67
    let mixed = order([
      line(1, 1500, quantity: 2, regularCents: 2000),
      line(2, 2500, taxClass: "exempt"),
      line(3, 199, quantity: 3),
    ])
    let totals = try OrderTotals.compute(mixed, tax: taxSettings())
    #expect(totals.itemCount == 6)
    #expect(totals.subtotal == 6097)
    #expect(totals.tax == 270)
    #expect(totals.total == 6367)
    #expect(
      totals.taxLines == [
        TaxLine(taxClass: "standard", rate: rate("7.5"), basis: 3597, tax: 270),
        TaxLine(taxClass: "exempt", rate: .zero, basis: 2500, tax: 0),
      ])
    // Sale price saving: (20.00 − 15.00) × 2.
    #expect(totals.savings == 1000)
    #expect(totals.lines.map(\.gross) == [3000, 2500, 597])
  }

  @Test func taxClassesFollowTheStoreOrderNotTheLineOrder() throws {
    let mixed = order([line(1, 500, taxClass: "exempt"), line(2, 1000)])
    let totals = try OrderTotals.compute(mixed, tax: taxSettings())
    #expect(totals.taxLines.map(\.taxClass) == ["standard", "exempt"])
    #expect(totals.tax == 75)
    #expect(totals.total == 1575)
  }

  @Test func saleUnitPriceIsWhatIsCharged() throws {
    // Regular 20.00, sale 15.00, qty 3: subtotal 45.00, tax 45.00 × 7.5 % = 3.375 → 3.38.
    let sale = order([line(1, 1500, quantity: 3, regularCents: 2000)])
    let totals = try OrderTotals.compute(sale, tax: taxSettings())
    #expect(totals.subtotal == 4500)
    #expect(totals.tax == 338)
    #expect(totals.total == 4838)
    #expect(totals.savings == 1500)
  }

  @Test func voidedLinesDoNotCount() throws {
    let withVoid = order([line(1, 1000), line(2, 5000, quantity: 2, voided: true)])
    let totals = try OrderTotals.compute(withVoid, tax: taxSettings())
    #expect(totals.itemCount == 1)
    #expect(totals.subtotal == 1000)
    #expect(totals.tax == 75)
    #expect(totals.total == 1075)
  }

  @Test func emptyOrderTotalsAreZero() throws {
    let totals = try OrderTotals.compute(Order(id: 1), tax: taxSettings())
    #expect(totals.itemCount == 0)
    #expect(totals.subtotal == 0)
    #expect(totals.tax == 0)
    #expect(totals.total == 0)
    #expect(totals.taxLines.isEmpty)
  }

  @Test func taxIncludedPricesExtractTheTaxOnce() throws {
    // Gross 10.75 + 2 × 0.10 = 10.95, all standard. The tax inside it is extracted once from
    // the class total: 10.95 × 7.5 / 107.5 = 0.76395… → 0.76. The total stays 10.95.
    let inclusive = order([line(1, 1075), line(2, 10, quantity: 2)])
    let totals = try OrderTotals.compute(inclusive, tax: taxSettings(pricesIncludeTax: true))
    #expect(totals.taxIncluded)
    #expect(totals.subtotal == 1095)
    #expect(totals.tax == 76)
    #expect(totals.total == 1095)
  }

  @Test func overflowIsAnErrorNotAWrap() {
    let huge = order([line(1, Int64.max / 2, quantity: 3)])
    #expect(throws: ArithmeticOverflow()) { try OrderTotals.compute(huge, tax: taxSettings()) }
    let twoBig = order([line(1, Int64.max / 2 + 1), line(2, Int64.max / 2 + 1)])
    #expect(throws: ArithmeticOverflow()) { try OrderTotals.compute(twoBig, tax: taxSettings()) }
  }
}
