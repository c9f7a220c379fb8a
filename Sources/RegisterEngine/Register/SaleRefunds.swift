/// What a sale's returns give back: one rule for every return (docs/PRICING.md, *Returns*),
/// worked out over all of the sale's returns together, so that once every unit has come back
/// the refunds add up to exactly the net and the tax the sale charged, and never to more.
///
/// - **Net.** The refunds' net in all is what the returned units were charged (each line's net
///   × returned / sold, rounded half away from zero) less what the units kept now cost more
///   under the sale's own promotions, evaluated again on them (the saving they had on the
///   sale less the saving they get now); never less than was refunded before, never more than
///   the sale's net. A return refunds the increase, spread over its lines in proportion to
///   what their returned units were charged.
/// - **Tax.** In each tax group — a class at its rate (per-line rounding: a line) — the tax
///   refunded in all is the rate on the net refunded in all in the group, rounded once (or
///   contained in it, when prices include tax); never more than the sale's tax. The return
///   that brings back the sale's last units refunds whatever is left of both.
///
/// The figures depend on what was sold and what came back, not on how the units were rung up:
/// two scans of a product and one line of two refund the same.
struct SaleRefunds {
  /// A line that can come back, with what it was charged.
  struct Line {
    var number: Int
    var sku: String
    var quantity: Int64
    var unitPrice: Int64
    /// What the customer paid for the line before tax (tax included when prices include it).
    var net: Int64
    /// The line's share of the promotions' saving.
    var promotion: Int64
    /// Whether its units take part in promotions (no override, no line discount).
    var promoted: Bool
    /// Its tax group (an index into `groups`).
    var group: Int
  }

  /// A tax group: the rate its tax was worked out at and the tax it charged.
  struct Group {
    var rate: Percent
    var tax: Int64
  }

  let lines: [Line]
  let groups: [Group]
  let included: Bool
  let promotions: [Promotion]
  /// What the promotions saved on the sale.
  let promotionSaving: Int64
  /// The sale's net and tax (gift cards, which are not goods, left out).
  let net: Int64
  let tax: Int64
  /// Each line's part of the sale's tax as earlier registers refunded it (`estimate`).
  private let taxShares: [Int: Int64]

  init(_ sale: CompletedSale) throws(ArithmeticOverflow) {
    let totalsByLine = Dictionary(
      sale.totals.lines.map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
    let exempt = sale.order.taxExemption != nil
    var lines: [Line] = []
    var groups: [Group] = []
    var keys: [(taxClass: String, rate: Percent)] = []
    for line in sale.order.activeLines where !line.giftCard {
      guard let totals = totalsByLine[line.line] else { continue }
      // The rate the sale's tax was worked out at: none for a tax-exempt customer.
      let rate = exempt ? Percent.zero : line.taxRate
      let group: Int
      if sale.header.taxPerLine {
        group = groups.count
        groups.append(Group(rate: rate, tax: totals.tax))
      } else if let found = keys.firstIndex(where: { $0 == (line.taxClass, rate) }) {
        group = found
      } else {
        group = groups.count
        keys.append((line.taxClass, rate))
        let charged = sale.totals.taxLines.first { $0.taxClass == line.taxClass && $0.rate == rate }
        groups.append(Group(rate: rate, tax: charged?.tax ?? 0))
      }
      lines.append(
        Line(
          number: line.line, sku: line.sku, quantity: line.quantity,
          unitPrice: line.chargedUnitPrice.minorUnits, net: totals.net,
          promotion: totals.promotionDiscount,
          promoted: line.override == nil && line.discount == nil,
          group: group))
    }
    self.lines = lines
    self.groups = groups
    included = sale.header.taxIncluded
    promotions = sale.promotions
    promotionSaving = sale.totals.promotionDiscounts
    net = try Checked.sum(lines.map(\.net))
    tax = try Checked.sum(groups.map(\.tax))
    taxShares = Self.taxShares(of: sale)
  }

  /// What returning `requested` (line number → units) refunds on each of those lines, given
  /// the units `returned` before and what each line has had back (`refunded`).
  func refunds(
    returning requested: [(line: Int, quantity: Int64)], returned: [Int: Int64],
    refunded: [Int: LineRefund]
  ) throws(ArithmeticOverflow) -> [LineRefund] {
    var after = returned
    for request in requested {
      after[request.line] = try Checked.add(after[request.line] ?? 0, request.quantity)
    }
    let netBefore = try Checked.sum(lines.map { refunded[$0.number]?.net ?? 0 })
    let taxBefore = try Checked.sum(lines.map { refunded[$0.number]?.tax ?? 0 })
    let everything = lines.allSatisfy { (after[$0.number] ?? 0) >= $0.quantity }

    // The net: what the returned units were charged, less what the kept units now cost more.
    let owed: Int64
    if everything {
      owed = net
    } else {
      var target = try Checked.sum(
        lines.map { line throws(ArithmeticOverflow) in
          try Self.share(line.net, of: after[line.number] ?? 0, in: line.quantity)
        })
      if promotionSaving > 0 {
        target = try Checked.subtract(target, try keptCostMore(after))
      }
      owed = min(net, max(netBefore, target))
    }
    let netNow = max(0, try Checked.subtract(owed, netBefore))
    let members = try requested.map { request throws(ArithmeticOverflow) in
      guard let index = lines.firstIndex(where: { $0.number == request.line }) else {
        return (index: -1, charged: Int64(0), price: Int64(0))
      }
      let line = lines[index]
      let before = returned[line.number] ?? 0
      let charged = try Checked.subtract(
        try Self.share(
          line.net, of: try Checked.add(before, request.quantity), in: line.quantity),
        try Self.share(line.net, of: before, in: line.quantity))
      return (index, charged, try Checked.multiply(line.unitPrice, request.quantity))
    }
    let nets = try Self.spread(
      netNow, over: [members.map(\.charged), members.map(\.price), requested.map(\.quantity)])

    // The tax: each group's rate on the net the group has had back in all.
    var own: [Int64] = requested.map { _ in 0 }
    let touched = Set(members.map(\.index).filter { $0 >= 0 }.map { lines[$0].group })
    for group in touched.sorted() {
      let inGroup = members.indices.filter {
        members[$0].index >= 0 && lines[members[$0].index].group == group
      }
      let numbers = lines.filter { $0.group == group }.map(\.number)
      var groupNet = try Checked.sum(numbers.map { refunded[$0]?.net ?? 0 })
      groupNet = try Checked.add(groupNet, try Checked.sum(inGroup.map { nets[$0] }))
      let groupTaxBefore = try Checked.sum(numbers.map { refunded[$0]?.tax ?? 0 })
      let rate = groups[group].rate
      let due = included ? try rate.includedIn(groupNet) : try rate.of(groupNet)
      let increase = max(0, try Checked.subtract(due, groupTaxBefore))
      let parts = try Self.spread(
        increase, over: [inGroup.map { nets[$0] }, inGroup.map { members[$0].price }])
      for (member, part) in zip(inGroup, parts) { own[member] = part }
    }
    let taxLeft = max(0, try Checked.subtract(tax, taxBefore))
    let taxNow = everything ? taxLeft : min(taxLeft, try Checked.sum(own))
    let taxes = try Self.spread(taxNow, over: [own, nets, members.map(\.price)])
    return zip(nets, taxes).map { LineRefund(net: $0, tax: $1) }
  }

  /// How much more the units kept after `returned` cost now than they were charged: the
  /// saving their lines' promotion shares gave them on the sale, less what the sale's
  /// promotions save on them alone (negative when they now save more).
  private func keptCostMore(_ returned: [Int: Int64]) throws(ArithmeticOverflow) -> Int64 {
    var had: Int64 = 0
    var candidates: [PromotionEngine.Candidate] = []
    for line in lines {
      let back = returned[line.number] ?? 0
      had = try Checked.add(
        had,
        try Checked.subtract(
          line.promotion, try Self.share(line.promotion, of: back, in: line.quantity)))
      if line.promoted {
        candidates.append(
          PromotionEngine.Candidate(
            line: line.number, sku: line.sku, category: nil, unitPrice: line.unitPrice,
            quantity: max(0, line.quantity - back)))
      }
    }
    let now = try Checked.sum(
      PromotionEngine.best(candidates, promotions: promotions).map(\.saving))
    return try Checked.subtract(had, now)
  }

  /// What each line had had back by the time `returned` units had come back, as registers
  /// refunded before they kept it (a snapshot they wrote records the units and the total
  /// only): the returned units' part of the line's net and of its share of the sale's tax —
  /// which is what they refunded for a sale without promotions — and the difference from
  /// `refundedTotal`, what was paid back in all, taken up by the nets.
  func estimate(returned: [Int: Int64], refundedTotal: Int64) throws(ArithmeticOverflow)
    -> [Int: LineRefund]
  {
    var result: [Int: LineRefund] = [:]
    var numbers: [Int] = []
    for line in lines {
      let back = min(returned[line.number] ?? 0, line.quantity)
      guard back > 0 else { continue }
      result[line.number] = LineRefund(
        net: try Self.share(line.net, of: back, in: line.quantity),
        tax: try Self.share(taxShares[line.number] ?? 0, of: back, in: line.quantity))
      numbers.append(line.number)
    }
    let nets = numbers.map { result[$0]?.net ?? 0 }
    let taxes = numbers.map { result[$0]?.tax ?? 0 }
    let estimated = try Checked.add(
      try Checked.sum(nets), included ? 0 : try Checked.sum(taxes))
    let difference = try Checked.subtract(refundedTotal, estimated)
    let parts = try Self.spread(
      difference == .min ? 0 : abs(difference), over: [nets, taxes])
    for (number, part) in zip(numbers, parts) {
      guard var line = result[number] else { continue }
      line.net = max(
        0,
        difference < 0
          ? try Checked.subtract(line.net, part) : try Checked.add(line.net, part))
      result[number] = line
    }
    return result
  }

  /// `amount` spread over the members in proportion to the first list of weights that is not
  /// all zero (largest remainder first), in whole minor units that sum to it.
  private static func spread(
    _ amount: Int64, over weightLists: [[Int64]]
  ) throws(ArithmeticOverflow) -> [Int64] {
    let count = weightLists.first?.count ?? 0
    for weights in weightLists where weights.contains(where: { $0 > 0 }) {
      return try OrderTotals.allocate(amount, proportionallyTo: weights.map { max(0, $0) })
    }
    // Nothing to weigh by: it all goes to the first member.
    return (0..<count).map { $0 == 0 ? amount : 0 }
  }

  /// `total × count / whole`, rounded half away from zero: taken as share(after) −
  /// share(before), the parts of a line refunded one return at a time add up to the line.
  static func share(_ total: Int64, of count: Int64, in whole: Int64) throws(ArithmeticOverflow)
    -> Int64
  {
    guard whole > 0 else { return 0 }
    return try Checked.divideRoundingHalfAwayFromZero(Int128(total) * Int128(count), Int128(whole))
  }

  /// Each sold line's part of the sale's tax: its own tax when the store rounded per line,
  /// otherwise its class's tax spread over the class's lines in proportion to their amounts.
  private static func taxShares(of sale: CompletedSale) -> [Int: Int64] {
    var shares: [Int: Int64] = [:]
    if sale.header.taxPerLine {
      for line in sale.totals.lines { shares[line.line] = line.tax }
      return shares
    }
    let active = sale.order.activeLines
    let netByLine = Dictionary(
      sale.totals.lines.map { ($0.line, $0.net) }, uniquingKeysWith: { first, _ in first })
    for group in sale.totals.taxLines {
      let members = active.filter { $0.taxClass == group.taxClass && $0.taxRate == group.rate }
      let weights = members.map { netByLine[$0.line] ?? 0 }
      let parts =
        (try? OrderTotals.allocate(group.tax, proportionallyTo: weights)) ?? weights.map { _ in 0 }
      for (line, part) in zip(members, parts) { shares[line.line] = part }
    }
    return shares
  }
}
