/// Money the store owes its customers: gift cards by number and store credit by customer.
///
/// A gift-card or store-credit tender takes its amount off the balance when it is added to
/// the open order (so the same balance cannot pay twice), a void of the order puts it back,
/// a sale issues the gift cards it sold and loads the ones it reloaded, and a return refunded to a gift card or to store
/// credit adds to it.
public struct StoredValue: Sendable, Equatable {
  /// Every gift card issued, by number.
  public internal(set) var giftCards = ChunkedDictionary<String, GiftCard>()
  /// Store credit by customer id (customers with none are not listed).
  public internal(set) var storeCredit = ChunkedDictionary<String, Int64>()

  init() {}

  /// Folds an event the register admits into the balances. `order` is the open order as the
  /// event finds it; `sale` and `refund` are the receipts a `sale_completed` or
  /// `return_completed` completes.
  mutating func apply(
    _ event: Event, at time: Timestamp, order: Order, sale: CompletedSale?,
    refund: CompletedReturn?
  ) {
    switch event {
    case .tenderAdded(let orderID, let tender):
      guard orderID == order.id else { return }
      take(tender, at: time, sign: -1)
    case .orderVoided(let orderID, _, let reversed):
      guard orderID == order.id else { return }
      for tender in reversed { take(tender, at: time, sign: 1) }
    case .saleCompleted:
      guard let sale else { return }
      for card in sale.giftCards {
        giftCards[card.number] = GiftCard(
          number: card.number, issuedAmount: card.amount.minorUnits,
          balance: card.amount.minorUnits, receipt: sale.receiptNumber, issuedDay: sale.day,
          issuedAt: time)
      }
      // Reloads: the value goes onto the card when the sale that took payment for it completes.
      for line in sale.order.activeLines {
        guard let number = line.reloads, var card = giftCards[number] else { continue }
        let amount = Checked.saturatingMultiply(line.chargedUnitPrice.minorUnits, line.quantity)
        card.balance = Checked.saturatingAdd(card.balance, amount)
        card.lastUsedAt = time
        giftCards[number] = card
      }
    case .returnCompleted:
      guard let refund else { return }
      for tender in refund.refunds { take(tender, at: time, sign: 1) }
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .discountSet,
      .priceOverridden, .lineVoided, .orderParked, .orderResumed, .operatorAdded,
      .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn,
      .signedOut, .customerAdded, .customerAttached, .customerDetached, .wishlistAdded,
      .wishlistRemoved, .productAdded,
      .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale,
      .receiptEmailed, .dayClosed, .printQueued, .printDone:
      return
    }
  }

  /// Adds (`sign` 1) or takes (−1) a gift-card or store-credit tender's amount to or from its
  /// balance; other tenders change nothing.
  private mutating func take(_ tender: Tender, at time: Timestamp, sign: Int64) {
    let amount = Checked.saturatingMultiply(tender.amount.minorUnits, sign)
    switch tender.type {
    case .giftCard:
      guard let number = tender.giftCard, var card = giftCards[number] else { return }
      card.balance = Checked.saturatingAdd(card.balance, amount)
      card.lastUsedAt = time
      giftCards[number] = card
    case .storeCredit:
      guard let customer = tender.customerID else { return }
      let balance = Checked.saturatingAdd(storeCredit[customer] ?? 0, amount)
      storeCredit[customer] = balance == 0 ? nil : balance
    case .cash, .card, .cardPresent, .other:
      return
    }
  }
}
