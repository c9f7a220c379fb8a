extension Register {
  /// Refunds items of an earlier sale: never more of a line than was sold minus what was
  /// already returned; the net and tax `SaleRefunds` works out over all the sale's returns;
  /// paid back to the cards it was paid with (each up to what it was charged, less earlier
  /// refunds), the rest in cash.
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
    let alreadyReturned = returnedQuantities[receipt] ?? [:]
    var returned: [ReturnLine] = []
    for request in requested {
      guard let line = sale.order.lines.first(where: { $0.line == request.line }), !line.voided,
        sale.totals.lines.contains(where: { $0.line == request.line })
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
      returned.append(
        ReturnLine(
          line: line.line, sku: line.sku, name: line.name, quantity: request.quantity,
          unitPrice: line.chargedUnitPrice, net: money(0), tax: money(0),
          taxClass: line.taxClass, taxRate: line.taxRate))
    }
    do {
      let rule = try SaleRefunds(sale)
      let state = refunded[receipt] ?? RefundState()
      let before =
        try state.lineRefunds
        ?? rule.estimate(returned: alreadyReturned, refundedTotal: state.total)
      let amounts = try rule.refunds(
        returning: requested.map { ($0.line, $0.quantity) }, returned: alreadyReturned,
        refunded: before)
      for (index, amount) in zip(returned.indices, amounts) {
        returned[index].net = money(amount.net)
        returned[index].tax = money(amount.tax)
      }
    } catch {
      throw RegisterError.overflow("the refund")
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
}
