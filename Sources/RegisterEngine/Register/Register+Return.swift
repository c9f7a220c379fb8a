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
    let alreadyReturned = returnedQuantities[receipt] ?? [:]
    let requested = try resolve(requested, on: sale, receipt: receipt, returned: alreadyReturned)
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
    case .cash:
      let others = Set(sale.order.tenders.filter { $0.type != .cash }.map(\.type.rawValue))
      guard others.isEmpty || store.cashRefunds else {
        throw RegisterError(
          .forbidden,
          "receipt \(receipt) was paid by \(others.sorted().map { $0.split(separator: "_").joined(separator: " ") }.joined(separator: ", ")) too; its refund goes back to what paid it (or to store credit) — this store does not refund such sales in cash (store setting cash_refunds)"
        )
      }
      (refunds, rounding) = try allocateRefund(total, to: sale, receipt: receipt, cashOnly: true)
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

  /// The lines a return names, by number: a line as given; an item (SKU or barcode) as the
  /// units still returnable of the sale's lines of that product, in the receipt's order, as
  /// many as asked. A line named twice (by number, or by number and item) is refused.
  private func resolve(
    _ requested: [ReturnRequestLine], on sale: CompletedSale, receipt: Int,
    returned alreadyReturned: [Int: Int64]
  ) throws(RegisterError) -> [(line: Int, quantity: Int64)] {
    var resolved: [(line: Int, quantity: Int64)] = []
    var named = Set<Int>()
    func take(_ line: Int, _ quantity: Int64) throws(RegisterError) {
      guard named.insert(line).inserted else {
        throw RegisterError(.badRequest, "each line may appear once in a return (line \(line))")
      }
      resolved.append((line, quantity))
    }
    for request in requested {
      switch request.item {
      case .line(let line):
        try take(line, request.quantity)
      case .code(let code):
        try checkQuantity(request.quantity)
        let sku = try skuOnReceipt(code, sale: sale, receipt: receipt)
        var left = request.quantity
        for line in sale.order.lines
        where line.sku == sku && !line.voided && !line.giftCard && !named.contains(line.line)
          && sale.totals.lines.contains(where: { $0.line == line.line })
        {
          let open = line.quantity - (alreadyReturned[line.line] ?? 0)
          guard open > 0, left > 0 else { continue }
          let units = min(open, left)
          try take(line.line, units)
          left -= units
        }
        guard left == 0 else {
          throw RegisterError(
            .returnExceedsSold,
            "receipt \(receipt) has \(request.quantity - left) unit(s) of \(id: sku) left to return, not \(request.quantity)"
          )
        }
      }
    }
    return resolved
  }

  /// The SKU of the sale's lines that `code` names: a SKU on the receipt as it is, a barcode of
  /// a product on it, or a SKU typed in another case when only one on the receipt matches.
  private func skuOnReceipt(_ code: String, sale: CompletedSale, receipt: Int)
    throws(RegisterError) -> String
  {
    let skus = sale.order.lines.filter { !$0.voided }.map(\.sku)
    if skus.contains(code) { return code }
    if case .success(let barcode) = Barcode.parse(code),
      let product = products.product(barcode: barcode), skus.contains(product.sku)
    {
      return product.sku
    }
    let folded = Set(
      skus.filter { code.utf8.allSatisfy { $0 < 0x80 } && $0.lowercased() == code.lowercased() })
    if folded.count == 1, let sku = folded.first { return sku }
    throw RegisterError(
      .lineNotFound,
      "receipt \(receipt) has no item \(id: code) (by SKU or barcode); it sold \(Set(skus).sorted().joined(separator: ", "))"
    )
  }

  /// The refund split over the sale's tenders: every tender but cash first (cards, terminal
  /// cards, gift cards, store credit, store tenders, in the order they were used), each up to
  /// what it paid less what was refunded to it before — a gift card or store credit gets its
  /// balance back; the rest in cash, rounded to the store's cash increment when it has one.
  /// `cashOnly`: all of it in cash (`refund_to: "cash"`).
  private func allocateRefund(
    _ total: Int64, to sale: CompletedSale, receipt: Int, cashOnly: Bool = false
  ) throws(RegisterError) -> ([Tender], Int64) {
    let state = refunded[receipt] ?? RefundState()
    var remaining = total
    var refunds: [Tender] = []
    // Each non-cash tender once (a card used twice is one), with what it paid in all.
    var paidBy: [(tender: Tender, paid: Int64)] = []
    for tender in sale.order.tenders where tender.type != .cash && !cashOnly {
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
