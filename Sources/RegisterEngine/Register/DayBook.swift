/// The business day the register is in, with its running totals, and the Z reports of the
/// days already closed.
public struct DayBook: Sendable, Equatable {
  public internal(set) var day: BusinessDay
  /// Z reports of the days already closed, by day number.
  public internal(set) var closedDays: [Int: ClosedDay]

  init() {
    day = BusinessDay(number: 1)
    closedDays = [:]
  }

  /// False for a `day_closed` of a day that is not the current one: `decide` never makes one,
  /// and a journal that holds one is not followed.
  func admits(_ event: Event) -> Bool {
    switch event {
    case .dayClosed(let number, _, _):
      return number == day.number
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .saleCompleted, .lineVoided, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .customerAttached, .customerDetached, .wishlistAdded, .wishlistRemoved, .productAdded,
      .productUpdated, .productRemoved,
      .stockAdjusted, .floatSet,
      .paidIn, .paidOut, .noSale, .receiptEmailed, .printQueued, .printDone:
      return true
    }
  }

  /// Folds an event the register admits into the day. `order` and `orderTotals` are the open
  /// order as the event finds it; `sale` and `refund` the receipts a `sale_completed` or
  /// `return_completed` completes; `store` and `sequence` (the event's journal sequence
  /// number) go into a closed day's Z report.
  mutating func apply(
    _ event: Event, at time: Timestamp, order: Order, orderTotals: OrderTotals,
    sale: CompletedSale?, refund: CompletedReturn?, store: StoreSettings, sequence: Int64
  ) {
    switch event {
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .customerAttached, .customerDetached, .saleCompleted, .orderVoided,
      .returnCompleted, .floatSet:
      record(event, order: order, orderTotals: orderTotals, sale: sale, refund: refund)
      // The day opens with its first sale activity or the float.
      if day.openedAt == nil { day.openedAt = time }
    case .paidIn, .paidOut, .noSale:
      // One checked sum or one count each, written only once it fits (`DayTotals.apply`): folded
      // in place, without the copy `record` makes for events that change several totals.
      try? day.totals.apply(event, order: order, orderTotals: orderTotals)
    case .dayClosed(let number, let counted, let head):
      closedDays[number] = ClosedDay(
        number: number, openedAt: day.openedAt, closedAt: time, totals: day.totals,
        countedCash: counted, sequence: sequence, journalHead: head,
        header: ReceiptHeader(store: store), currency: store.currency)
      day = BusinessDay(number: number + 1)
      assert(day.totals == DayTotals(), "a new day starts with nothing")
    case .storeConfigured, .catalogLoaded, .orderParked, .orderResumed, .operatorAdded,
      .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn,
      .signedOut, .customerAdded, .productAdded, .productUpdated, .productRemoved, .stockAdjusted,
      .receiptEmailed, .wishlistAdded, .wishlistRemoved, .printQueued, .printDone:
      return
    }
  }

  /// Folds `event` into the day's totals. `decide` has refused any change the totals could
  /// not hold; should a journal that passed its checksums say otherwise, the totals are left as
  /// they were rather than wrapped or trapped on.
  private mutating func record(
    _ event: Event, order: Order, orderTotals: OrderTotals, sale: CompletedSale?,
    refund: CompletedReturn?
  ) {
    var updated = day.totals
    do {
      try updated.apply(event, order: order, orderTotals: orderTotals, sale: sale, refund: refund)
      day.totals = updated
    } catch {
      return
    }
  }
}
