/// What one line comes to, step by step.
public struct LineTotals: Sendable, Equatable {
  public var line: Int
  /// Unit price × quantity.
  public var gross: Int64
  public var lineDiscount: Int64
  /// This line's share of the order discount.
  public var orderDiscount: Int64
  /// gross − lineDiscount − promotionDiscount − orderDiscount: what the customer pays for the line (before tax
  /// when prices exclude tax, tax included when they include it).
  public var net: Int64
  /// The line's own tax when the store rounds per line; 0 otherwise.
  public var tax: Int64
  /// This line's share of the promotions' savings (before the order discount).
  public var promotionDiscount: Int64 = 0
}

/// The tax of one class on an order.
public struct TaxLine: Sendable, Equatable {
  public var taxClass: String
  public var rate: Percent
  /// The amount the rate was applied to (net of discounts; gross when tax is included).
  public var basis: Int64
  public var tax: Int64
}

/// An order's totals. All amounts in minor units of the store currency.
public struct OrderTotals: Sendable, Equatable {
  public var itemCount: Int64 = 0
  /// Σ unit price × quantity over the lines that count.
  public var subtotal: Int64 = 0
  public var lineDiscounts: Int64 = 0
  public var orderDiscount: Int64 = 0
  public var tax: Int64 = 0
  public var taxLines: [TaxLine] = []
  /// What is owed: subtotal − discounts (+ tax when prices exclude it).
  public var total: Int64 = 0
  /// What sale prices saved against regular prices.
  public var savings: Int64 = 0
  public var lines: [LineTotals] = []
  /// True when the tax is contained in the prices rather than added to them.
  public var taxIncluded = false
  /// Gift cards sold on the order: how many and what they are loaded with. They are in
  /// `total` (the customer pays for them) but not in the subtotal, discounts, tax or item
  /// count: a gift card is money held for the customer, not a sale.
  public var giftCardCount: Int64 = 0
  public var giftCards: Int64 = 0
  /// What the promotions saved in all, and each promotion that applied (catalog order).
  public var promotionDiscounts: Int64 = 0
  public var promotions: [AppliedPromotion] = []

  public init() {}

  public var discountTotal: Int64 { Checked.saturatingAdd(lineDiscounts, orderDiscount) }

  /// Computes the totals of `order` under the store's tax settings.
  ///
  /// Per-total rounding: each class's rate on the class's net amount, rounded half away from
  /// zero. Per-line rounding: each line's tax rounded, then summed. With tax-inclusive prices
  /// the tax is extracted from the gross once (rate / (100 + rate)), never rounded twice.
  ///
  /// Promotions (`promotions`) apply to the units of lines without an override or a line
  /// discount, at their charged unit price, in the combination that saves the most
  /// (`PromotionEngine`); each promotion's saving is spread over the lines whose units took
  /// part, and the order discount then applies to what is left.
  public static func compute(
    _ order: Order, tax settings: TaxSettings, promotions: PromotionContext = .none
  ) throws(ArithmeticOverflow) -> OrderTotals {
    var totals = OrderTotals()
    totals.taxIncluded = settings.pricesIncludeTax
    let lines = order.activeLines.filter { !$0.giftCard }
    var promotionShares: [Int: Int64] = [:]
    if !promotions.promotions.isEmpty {
      let candidates = lines.filter { $0.override == nil && $0.discount == nil }.map {
        PromotionEngine.Candidate(
          line: $0.line, sku: $0.sku, category: promotions.category($0.sku),
          unitPrice: $0.chargedUnitPrice.minorUnits, quantity: $0.quantity)
      }
      totals.promotions = PromotionEngine.best(candidates, promotions: promotions.promotions)
      for applied in totals.promotions {
        totals.promotionDiscounts = try Checked.add(totals.promotionDiscounts, applied.saving)
        for share in applied.lines {
          promotionShares[share.line] = try Checked.add(
            promotionShares[share.line] ?? 0, share.saving)
        }
      }
    }
    var nets: [Int64] = []
    for line in lines {
      let gross = try Checked.multiply(line.chargedUnitPrice.minorUnits, line.quantity)
      let lineDiscount = try line.discount?.amount(of: gross) ?? 0
      let promotionDiscount = promotionShares[line.line] ?? 0
      totals.itemCount = try Checked.add(totals.itemCount, line.quantity)
      totals.subtotal = try Checked.add(totals.subtotal, gross)
      totals.lineDiscounts = try Checked.add(totals.lineDiscounts, lineDiscount)
      if line.isOnSale {
        let saving = try Checked.multiply(
          try Checked.subtract(line.regularPrice.minorUnits, line.unitPrice.minorUnits),
          line.quantity)
        totals.savings = try Checked.add(totals.savings, saving)
      }
      let net = try Checked.subtract(try Checked.subtract(gross, lineDiscount), promotionDiscount)
      totals.lines.append(
        LineTotals(
          line: line.line, gross: gross, lineDiscount: lineDiscount, orderDiscount: 0,
          net: net, tax: 0, promotionDiscount: promotionDiscount))
      nets.append(net)
    }
    let netSum = try Checked.sum(nets)
    if let discount = order.discount {
      totals.orderDiscount = min(try discount.amount(of: netSum), netSum)
      let shares = try allocate(totals.orderDiscount, proportionallyTo: nets)
      for index in totals.lines.indices {
        totals.lines[index].orderDiscount = shares[index]
        totals.lines[index].net = try Checked.subtract(totals.lines[index].net, shares[index])
      }
    }
    // Tax per class, at the rate each line carries (the rate when it was rung up), classes in
    // the order the store lists them; a class the store no longer lists comes last. An order
    // of a tax-exempt customer is taxed at 0 in every class (its basis still shows per class).
    var groups: [(taxClass: String, rate: Percent, lines: [Int])] = []
    for (index, line) in lines.enumerated() {
      let rate = order.taxExemption == nil ? line.taxRate : .zero
      if let group = groups.firstIndex(where: { $0.taxClass == line.taxClass && $0.rate == rate }) {
        groups[group].lines.append(index)
      } else {
        groups.append((line.taxClass, rate, [index]))
      }
    }
    let rank = { (name: String) in settings.classes.firstIndex { $0.name == name } ?? Int.max }
    groups = groups.enumerated().sorted {
      (rank($0.element.taxClass), $0.offset) < (rank($1.element.taxClass), $1.offset)
    }.map(\.element)
    for group in groups {
      var basis: Int64 = 0
      var classTax: Int64 = 0
      for index in group.lines {
        let net = totals.lines[index].net
        basis = try Checked.add(basis, net)
        if settings.rounding == .perLine {
          let tax = try lineTax(net, rate: group.rate, included: settings.pricesIncludeTax)
          totals.lines[index].tax = tax
          classTax = try Checked.add(classTax, tax)
        }
      }
      if settings.rounding == .perTotal {
        classTax = try lineTax(basis, rate: group.rate, included: settings.pricesIncludeTax)
      }
      totals.taxLines.append(
        TaxLine(taxClass: group.taxClass, rate: group.rate, basis: basis, tax: classTax))
      totals.tax = try Checked.add(totals.tax, classTax)
    }
    let netTotal = try Checked.subtract(
      try Checked.subtract(
        try Checked.subtract(totals.subtotal, totals.lineDiscounts), totals.promotionDiscounts),
      totals.orderDiscount)
    totals.total = settings.pricesIncludeTax ? netTotal : try Checked.add(netTotal, totals.tax)
    for line in order.activeLines where line.giftCard {
      let amount = try Checked.multiply(line.chargedUnitPrice.minorUnits, line.quantity)
      totals.giftCardCount = try Checked.add(totals.giftCardCount, line.quantity)
      totals.giftCards = try Checked.add(totals.giftCards, amount)
      totals.lines.append(
        LineTotals(
          line: line.line, gross: amount, lineDiscount: 0, orderDiscount: 0, net: amount, tax: 0))
    }
    totals.total = try Checked.add(totals.total, totals.giftCards)
    return totals
  }

  private static func lineTax(
    _ amount: Int64, rate: Percent, included: Bool
  ) throws(ArithmeticOverflow) -> Int64 {
    included ? try rate.includedIn(amount) : try rate.of(amount)
  }

  /// Splits `amount` over `weights` in proportion, in whole minor units that sum exactly to
  /// `amount` (largest remainder first; ties go to the earlier line).
  public static func allocate(
    _ amount: Int64, proportionallyTo weights: [Int64]
  ) throws(ArithmeticOverflow) -> [Int64] {
    let total = try Checked.sum(weights)
    guard total > 0 else { return weights.map { _ in 0 } }
    var shares: [Int64] = []
    var remainders: [(index: Int, remainder: Int128)] = []
    var allocated: Int64 = 0
    for (index, weight) in weights.enumerated() {
      let product = Int128(amount) * Int128(weight)
      let share = product / Int128(total)
      guard let exact = Int64(exactly: share) else { throw ArithmeticOverflow() }
      shares.append(exact)
      allocated = try Checked.add(allocated, exact)
      remainders.append((index, product % Int128(total)))
    }
    var left = try Checked.subtract(amount, allocated)
    let order = remainders.sorted {
      $0.remainder != $1.remainder ? $0.remainder > $1.remainder : $0.index < $1.index
    }
    var cursor = 0
    while left > 0 && !order.isEmpty {
      shares[order[cursor % order.count].index] += 1
      left -= 1
      cursor += 1
    }
    return shares
  }
}
