/// The receipts: completed sales and returns (numbers shared), what has been returned and
/// refunded against each sale, and the receipt numbering.
///
/// Receipts are kept in memory until their day is closed and archived (`archive(_:)`, once
/// their day's archive file is on disk): from then on they are read from the file when asked
/// for, so a year of receipts does not live in memory. `sale(_:)` and `refund(_:)` find a
/// receipt wherever it is.
public struct ReceiptLedger: Sendable, Equatable {
  /// Completed sales by receipt number, of the days not archived.
  public internal(set) var sales: ReceiptBook<CompletedSale>
  /// Returns by receipt number (numbers are shared with sales), of the days not archived.
  public internal(set) var returns: ReceiptBook<CompletedReturn>
  /// The receipts of archived days: where they are.
  public internal(set) var archive = ReceiptArchive()
  /// Per customer id: the numbers of their receipts (sales and returns), in order.
  public internal(set) var customerReceipts = ChunkedDictionary<String, [Int]>()
  /// Per sale receipt: units returned so far, by line number.
  public internal(set) var returnedQuantities: ChunkedDictionary<Int, [Int: Int64]>
  /// Per sale receipt: what has been refunded so far, to each card and in cash.
  public internal(set) var refunded: ChunkedDictionary<Int, RefundState>
  public internal(set) var nextReceiptNumber: Int
  public internal(set) var lastReceiptNumber: Int?

  init() {
    sales = ReceiptBook()
    returns = ReceiptBook()
    returnedQuantities = [:]
    refunded = [:]
    nextReceiptNumber = 1
  }

  /// Folds an event the register admits into the ledger. `sale` and `refund` are the receipts
  /// a `sale_completed` or `return_completed` completes, built from the state it finds.
  mutating func apply(_ event: Event, sale: CompletedSale?, refund: CompletedReturn?) {
    switch event {
    case .saleCompleted:
      guard let sale else { return }
      sales.append(sale)
      number(sale.receiptNumber)
      if let customer = sale.customer {
        customerReceipts[customer.id, default: []].append(sale.receiptNumber)
      }
    case .returnCompleted(let event):
      guard let refund else { return }
      returns.append(refund)
      number(event.receipt)
      if let customer = refund.customer {
        customerReceipts[customer.id, default: []].append(refund.receiptNumber)
      }
      var quantities = returnedQuantities[event.original] ?? [:]
      var state = refunded[event.original] ?? RefundState()
      if state.lineRefunds == nil {
        // From a snapshot of a register that did not keep them: what they were, as near as
        // the units and the total refunded tell, from here on kept exactly.
        state.lineRefunds =
          self.sale(event.original).flatMap {
            try? SaleRefunds($0).estimate(returned: quantities, refundedTotal: state.total)
          } ?? [:]
      }
      var lines = state.lineRefunds ?? [:]
      for line in event.lines {
        let before = lines[line.line] ?? LineRefund(net: 0, tax: 0)
        lines[line.line] = LineRefund(
          net: Checked.saturatingAdd(before.net, line.net.minorUnits),
          tax: Checked.saturatingAdd(before.tax, line.tax.minorUnits))
      }
      state.lineRefunds = lines
      for line in event.lines {
        quantities[line.line] = Checked.saturatingAdd(quantities[line.line] ?? 0, line.quantity)
      }
      returnedQuantities[event.original] = quantities
      for tender in event.refunds {
        if tender.type == .card, let card = tender.card {
          state.cards[card] = Checked.saturatingAdd(
            state.cards[card] ?? 0, tender.amount.minorUnits)
        } else if let key = tender.refundKey {
          state.others[key] = Checked.saturatingAdd(
            state.others[key] ?? 0, tender.amount.minorUnits)
        } else {
          state.cash = Checked.saturatingAdd(state.cash, tender.amount.minorUnits)
        }
      }
      state.cash = Checked.saturatingAdd(state.cash, -event.cashRounding.minorUnits)
      refunded[event.original] = state
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderVoided, .orderParked, .orderResumed,
      .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached, .customerDetached,
      .wishlistAdded, .wishlistRemoved,
      .productAdded,
      .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale,
      .receiptEmailed, .dayClosed, .printQueued, .printDone:
      return
    }
  }

  /// The sale with this receipt number, in memory or archived.
  public func sale(_ number: Int) -> CompletedSale? {
    if let sale = sales[number] { return sale }
    if case .sale(let sale) = archive.receipt(number) { return sale }
    return nil
  }

  /// The return with this receipt number, in memory or archived.
  public func refund(_ number: Int) -> CompletedReturn? {
    if let refund = returns[number] { return refund }
    if case .refund(let refund) = archive.receipt(number) { return refund }
    return nil
  }

  /// Every receipt of business day `day`, sales and returns, in number order (an archived day's
  /// read from its file).
  public func receipts(ofDay day: Int) -> [ArchivedReceipt] {
    let archived = archive.receipts(ofDay: day)
    let kept =
      sales.values.filter { $0.day == day }.map(ArchivedReceipt.sale)
      + returns.values.filter { $0.day == day }.map(ArchivedReceipt.refund)
    return (archived + kept).sorted { $0.number < $1.number }
  }

  /// The receipts of closed days before `day` still kept in memory, by day, in number order:
  /// what the next archive writes.
  public func unarchivedDays(before day: Int) -> [(day: Int, receipts: [ArchivedReceipt])] {
    var byDay: [Int: [ArchivedReceipt]] = [:]
    for sale in sales.values where sale.day < day {
      byDay[sale.day, default: []].append(.sale(sale))
    }
    for refund in returns.values where refund.day < day {
      byDay[refund.day, default: []].append(.refund(refund))
    }
    return byDay.keys.sorted().map { day in
      (day, (byDay[day] ?? []).sorted { $0.number < $1.number })
    }
  }

  /// The receipts of `days` are in their archive files now: they are dropped from memory and
  /// read from the files from here on. Days must follow the ones archived before, and hold
  /// every receipt in memory up to their last number (as `unarchivedDays` gives them).
  public mutating func archive(_ days: [ArchivedDay], reader: (any ReceiptArchiveReader)?) {
    for run in days {
      guard run.count > 0, run.first > (archive.lastNumber ?? 0) else { continue }
      archive.append(run)
      sales.removeThrough(run.last)
      returns.removeThrough(run.last)
    }
    if let reader { archive.reader = reader }
  }

  /// Takes a receipt number: the next one is always past every number used.
  private mutating func number(_ receipt: Int) {
    lastReceiptNumber = receipt
    nextReceiptNumber = max(nextReceiptNumber, receipt + 1)
    assert(nextReceiptNumber > receipt, "a receipt number is never given twice")
  }
}

/// What has been refunded against one sale: per card (brand and last four), per other tender
/// (`Tender.refundKey`: a card-present card, a gift card, a customer's credit, a store
/// tender) and in cash; and per line, the net and tax its returns recorded.
public struct RefundState: Sendable, Equatable {
  public var cards: [CardSummary: Int64] = [:]
  public var others: [String: Int64] = [:]
  public var cash: Int64 = 0
  /// Per line number, the net and tax refunded on it in all. Nil only when the register was
  /// loaded from a snapshot written before these were kept, and the sale has had no return
  /// since: `SaleRefunds.estimate` stands in for them then.
  public var lineRefunds: [Int: LineRefund]? = [:]

  /// Everything paid back against the sale (cash as counted before rounding).
  public var total: Int64 {
    Checked.saturatingSum(Array(cards.values) + Array(others.values) + [cash])
  }
}

/// The net and tax refunded on one line of a sale.
public struct LineRefund: Sendable, Equatable {
  public var net: Int64
  public var tax: Int64

  public init(net: Int64, tax: Int64) {
    self.net = net
    self.tax = tax
  }
}
