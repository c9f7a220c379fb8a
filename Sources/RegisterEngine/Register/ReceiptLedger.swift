/// The receipts: completed sales and returns (numbers shared), what has been returned and
/// refunded against each sale, and the receipt numbering.
public struct ReceiptLedger: Sendable, Equatable {
  /// Completed sales by receipt number.
  public internal(set) var sales: ReceiptBook<CompletedSale>
  /// Returns by receipt number (numbers are shared with sales).
  public internal(set) var returns: ReceiptBook<CompletedReturn>
  /// Per sale receipt: units returned so far, by line number.
  public internal(set) var returnedQuantities: [Int: [Int: Int64]]
  /// Per sale receipt: what has been refunded so far, to each card and in cash.
  public internal(set) var refunded: [Int: RefundState]
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
    case .returnCompleted(let event):
      guard let refund else { return }
      returns.append(refund)
      number(event.receipt)
      var quantities = returnedQuantities[event.original] ?? [:]
      for line in event.lines {
        quantities[line.line] = Checked.saturatingAdd(quantities[line.line] ?? 0, line.quantity)
      }
      returnedQuantities[event.original] = quantities
      var state = refunded[event.original] ?? RefundState()
      for tender in event.refunds {
        if let card = tender.card {
          state.cards[card] = Checked.saturatingAdd(
            state.cards[card] ?? 0, tender.amount.minorUnits)
        } else {
          state.cash = Checked.saturatingAdd(state.cash, tender.amount.minorUnits)
        }
      }
      state.cash = Checked.saturatingAdd(state.cash, -event.cashRounding.minorUnits)
      refunded[event.original] = state
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderVoided, .orderParked, .orderResumed,
      .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached, .productAdded,
      .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale,
      .receiptEmailed, .dayClosed:
      return
    }
  }

  /// Takes a receipt number: the next one is always past every number used.
  private mutating func number(_ receipt: Int) {
    lastReceiptNumber = receipt
    nextReceiptNumber = max(nextReceiptNumber, receipt + 1)
    assert(nextReceiptNumber > receipt, "a receipt number is never given twice")
  }
}

/// What has been refunded against one sale: per card (brand and last four) and in cash.
public struct RefundState: Sendable, Equatable {
  public var cards: [CardSummary: Int64] = [:]
  public var cash: Int64 = 0
}
