extension Register {
  /// Refunds items of an earlier sale: never more of a line than was sold minus what was
  /// already returned; each unit at the sale's own price, discounts and tax; paid back to the
  /// cards it was paid with (each up to what it was charged, less earlier refunds), the rest in
  /// cash.
  func decideReturn(
    receipt: Int, lines requested: [ReturnRequestLine], reason: String,
    refundTo: RefundDestination = .tenders
  ) throws(RegisterError) -> Event {
    guard let sale = receipts[receipt] else {
      if returns[receipt] != nil {
        throw RegisterError(
          .receiptNotFound,
          "receipt \(receipt) is itself a return; return items against the sale's receipt")
      }
      throw RegisterError(.receiptNotFound, "there is no receipt \(receipt)")
    }
    guard !requested.isEmpty else {
      throw RegisterError(.badRequest, "lines must list at least one {line, qty} to return")
    }
    let lineNumbers = requested.map(\.line)
    guard Set(lineNumbers).count == lineNumbers.count else {
      throw RegisterError(.badRequest, "each line may appear once in a return")
    }
    let totalsByLine = Dictionary(uniqueKeysWithValues: sale.totals.lines.map { ($0.line, $0) })
    let taxByLine = Self.taxShares(of: sale)
    let alreadyReturned = returnedQuantities[receipt] ?? [:]
    var returned: [ReturnLine] = []
    for request in requested {
      guard let line = sale.order.lines.first(where: { $0.line == request.line }), !line.voided,
        let lineTotals = totalsByLine[request.line]
      else {
        throw RegisterError(
          .lineNotFound, "receipt \(receipt) has no line \(request.line) that was sold")
      }
      guard !line.giftCard else {
        // Its number may already be spent, or handed on: a gift card is money, not goods.
        throw RegisterError(
          .notReturnable,
          "line \(request.line) of receipt \(receipt) is a gift card; gift cards cannot be returned"
        )
      }
      try checkQuantity(request.quantity)
      let before = alreadyReturned[request.line] ?? 0
      guard before + request.quantity <= line.quantity else {
        let left = line.quantity - before
        throw RegisterError(
          .returnExceedsSold,
          "line \(request.line) of receipt \(receipt) sold \(line.quantity), \(before) already returned; at most \(left) can be returned"
        )
      }
      let tax = taxByLine[request.line] ?? 0
      let net: Int64
      let lineTax: Int64
      do {
        net =
          try Self.share(lineTotals.net, of: before + request.quantity, in: line.quantity)
          - Self.share(lineTotals.net, of: before, in: line.quantity)
        lineTax =
          try Self.share(tax, of: before + request.quantity, in: line.quantity)
          - Self.share(tax, of: before, in: line.quantity)
      } catch {
        throw RegisterError.overflow("the refund")
      }
      returned.append(
        ReturnLine(
          line: line.line, sku: line.sku, name: line.name, quantity: request.quantity,
          unitPrice: line.chargedUnitPrice, net: money(net), tax: money(lineTax),
          taxClass: line.taxClass, taxRate: line.taxRate))
    }
    if !sale.totals.promotions.isEmpty {
      // Promotions applied: what the customer keeps is priced again under them.
      let refunds: [Int: (net: Int64, tax: Int64)]
      do {
        refunds = try promotionRefunds(
          sale: sale, receipt: receipt, requested: requested, alreadyReturned: alreadyReturned,
          taxByLine: taxByLine)
      } catch {
        throw RegisterError.overflow("the refund")
      }
      for index in returned.indices {
        let refund = refunds[returned[index].line] ?? (0, 0)
        returned[index].net = money(refund.net)
        returned[index].tax = money(refund.tax)
      }
    }
    let total: Int64
    do {
      let net = try Checked.sum(returned.map(\.net.minorUnits))
      total =
        sale.header.taxIncluded
        ? net : try Checked.add(net, Checked.sum(returned.map(\.tax.minorUnits)))
    } catch {
      throw RegisterError.overflow("the refund")
    }
    let refunds: [Tender]
    let rounding: Int64
    switch refundTo {
    case .tenders:
      (refunds, rounding) = try allocateRefund(total, to: sale, receipt: receipt)
    case .storeCredit(let named):
      guard let customer = named ?? sale.customer?.id else {
        throw RegisterError(
          .customerNotFound,
          "receipt \(receipt) has no customer; name the one to credit with customer_id")
      }
      guard customerBook.customer(customer) != nil else {
        throw RegisterError(.customerNotFound, "no customer \(customer)")
      }
      refunds = [Tender(type: .storeCredit, amount: money(total), customerID: customer)]
      rounding = 0
    }
    return .returnCompleted(
      ReturnEvent(
        receipt: nextReceiptNumber, original: receipt, lines: returned, refunds: refunds,
        cashRounding: money(rounding), reason: reason))
  }

  /// The refund split over the sale's tenders: every tender but cash first (cards, terminal
  /// cards, gift cards, store credit, store tenders, in the order they were used), each up to
  /// what it paid less what was refunded to it before — a gift card or store credit gets its
  /// balance back; the rest in cash, rounded to the store's cash increment when it has one.
  private func allocateRefund(
    _ total: Int64, to sale: CompletedSale, receipt: Int
  ) throws(RegisterError) -> ([Tender], Int64) {
    let state = refunded[receipt] ?? RefundState()
    var remaining = total
    var refunds: [Tender] = []
    // Each non-cash tender once (a card used twice is one), with what it paid in all.
    var paidBy: [(tender: Tender, paid: Int64)] = []
    for tender in sale.order.tenders where tender.type != .cash {
      if let index = paidBy.firstIndex(where: {
        $0.tender.type == tender.type && $0.tender.card == tender.card
          && $0.tender.refundKey == tender.refundKey
      }) {
        paidBy[index].paid = Checked.saturatingAdd(paidBy[index].paid, tender.amount.minorUnits)
      } else {
        paidBy.append((tender, tender.amount.minorUnits))
      }
    }
    for (tender, paid) in paidBy where remaining > 0 {
      let before =
        tender.type == .card
        ? tender.card.map { state.cards[$0] ?? 0 } ?? 0
        : tender.refundKey.map { state.others[$0] ?? 0 } ?? 0
      let take = min(paid - before, remaining)
      guard take > 0 else { continue }
      refunds.append(tender.refund(of: money(take)))
      remaining -= take
    }
    var rounding: Int64 = 0
    if remaining > 0 {
      // Cash is rounded cumulatively over the sale's returns (what has been handed back in all
      // equals the rounded total of the exact shares), so several small returns never pay out
      // more, or less, than one return of everything would.
      let exactBefore = state.cash
      let (exactAfter, overflow) = exactBefore.addingReportingOverflow(remaining)
      guard !overflow else { throw RegisterError.overflow("the refund") }
      let cash = try cashDue(exactAfter) - cashDue(exactBefore)
      rounding = cash - remaining
      if cash > 0 { refunds.append(Tender(type: .cash, amount: money(cash))) }
    }
    return (refunds, rounding)
  }

  /// Each returned line's refund (net, tax) from a sale promotions applied to. Over the
  /// sale's returns, the customer gets back what they paid less what the units they keep cost
  /// when the sale's own promotions (as recorded on it) are evaluated again on them: this
  /// return refunds that figure less what was refunded before, never less than nothing (a
  /// return that breaks up a promotion may refund nothing until the rest comes back), and so
  /// never more than was paid. Line and order discounts are kept per unit, as in any return.
  /// The refund is spread over the returned lines by how much less their units now cost, and
  /// split into net and tax in the proportion each line was paid in.
  private func promotionRefunds(
    sale: CompletedSale, receipt: Int, requested: [ReturnRequestLine],
    alreadyReturned: [Int: Int64], taxByLine: [Int: Int64]
  ) throws(ArithmeticOverflow) -> [Int: (net: Int64, tax: Int64)] {
    let lines = sale.order.activeLines.filter { !$0.giftCard }
    let totalsByLine = Dictionary(
      sale.totals.lines.map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
    var sold: [Int: Int64] = [:]
    for line in lines { sold[line.line] = line.quantity }
    var before = sold
    for (line, count) in alreadyReturned { before[line] = max(0, (before[line] ?? 0) - count) }
    var after = before
    for request in requested {
      after[request.line] = max(0, (after[request.line] ?? 0) - request.quantity)
    }
    let included = sale.header.taxIncluded
    // What the kept units of each line cost, tax included.
    func amounts(_ kept: [Int: Int64]) throws(ArithmeticOverflow) -> [Int: Int64] {
      var promotionShares: [Int: Int64] = [:]
      if kept != sold {
        let candidates = lines.filter { $0.override == nil && $0.discount == nil }.map {
          PromotionEngine.Candidate(
            line: $0.line, sku: $0.sku, category: nil,
            unitPrice: $0.chargedUnitPrice.minorUnits, quantity: kept[$0.line] ?? 0)
        }
        for applied in PromotionEngine.best(candidates, promotions: sale.promotions) {
          for share in applied.lines {
            promotionShares[share.line] = try Checked.add(
              promotionShares[share.line] ?? 0, share.saving)
          }
        }
      }
      var result: [Int: Int64] = [:]
      for line in lines {
        guard let totals = totalsByLine[line.line] else { continue }
        let net: Int64
        if kept == sold {
          net = totals.net
        } else {
          let others = try Checked.subtract(
            totals.gross, try Checked.add(totals.lineDiscount, totals.orderDiscount))
          net = max(
            0,
            try Checked.subtract(
              try Self.share(others, of: kept[line.line] ?? 0, in: line.quantity),
              promotionShares[line.line] ?? 0))
        }
        let tax = try Self.share(taxByLine[line.line] ?? 0, of: net, in: totals.net)
        result[line.line] = included ? net : try Checked.add(net, tax)
      }
      return result
    }
    let paid = try Checked.sum(Array(try amounts(sold).values))
    let now = try amounts(before)
    let later = try amounts(after)
    let state = refunded[receipt] ?? RefundState()
    let refundedBefore = try Checked.sum(
      Array(state.cards.values) + Array(state.others.values) + [state.cash])
    let owed = try Checked.subtract(paid, try Checked.sum(Array(later.values)))
    let refund = max(0, try Checked.subtract(owed, refundedBefore))
    var weights = try requested.map { request throws(ArithmeticOverflow) in
      max(0, try Checked.subtract(now[request.line] ?? 0, later[request.line] ?? 0))
    }
    if weights.allSatisfy({ $0 == 0 }) {
      weights = requested.map { request in
        let unit = lines.first { $0.line == request.line }?.chargedUnitPrice.minorUnits ?? 0
        return Checked.saturatingMultiply(unit, request.quantity)
      }
    }
    let parts = try OrderTotals.allocate(refund, proportionallyTo: weights)
    var result: [Int: (net: Int64, tax: Int64)] = [:]
    for (request, part) in zip(requested, parts) {
      let net = totalsByLine[request.line]?.net ?? 0
      let tax = taxByLine[request.line] ?? 0
      if included {
        result[request.line] = (part, try Self.share(tax, of: part, in: net))
      } else {
        let taxPart = try Self.share(tax, of: part, in: try Checked.add(net, tax))
        result[request.line] = (try Checked.subtract(part, taxPart), taxPart)
      }
    }
    return result
  }

  /// `total × count / of`, rounded half away from zero. Refunding units one return at a time
  /// as share(after) − share(before) makes partial returns add up exactly to the whole line.
  static func share(_ total: Int64, of count: Int64, in whole: Int64) throws(ArithmeticOverflow)
    -> Int64
  {
    guard whole > 0 else { return 0 }
    return try Checked.divideRoundingHalfAwayFromZero(Int128(total) * Int128(count), Int128(whole))
  }

  /// Each sold line's part of the sale's tax: its own tax when the store rounded per line,
  /// otherwise its class's tax spread over the class's lines in proportion to their amounts.
  static func taxShares(of sale: CompletedSale) -> [Int: Int64] {
    var shares: [Int: Int64] = [:]
    if sale.header.taxPerLine {
      for line in sale.totals.lines { shares[line.line] = line.tax }
      return shares
    }
    let active = sale.order.activeLines
    let netByLine = Dictionary(uniqueKeysWithValues: sale.totals.lines.map { ($0.line, $0.net) })
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
