// Derived from the cases of `Event` (Event.swift) by EventDeclarationTests, which fails
// when this file is not what they give; do not edit it. To write it again:
// REGISTER_WRITE_DERIVED=1 swift test --filter EventDeclarationTests

/// Every type of journal record and live event: one per case of `Event`, named on the
/// wire by the case's name in snake case. What else each type has (its topic groups, the
/// shape of its data) is declared in EventType.swift.
public enum EventType: String, CaseIterable, Sendable {
  case storeConfigured = "store_configured"
  case catalogLoaded = "catalog_loaded"
  case lineAdded = "line_added"
  case lineRemoved = "line_removed"
  case quantitySet = "quantity_set"
  case tenderAdded = "tender_added"
  case discountSet = "discount_set"
  case priceOverridden = "price_overridden"
  case saleCompleted = "sale_completed"
  case lineVoided = "line_voided"
  case orderVoided = "order_voided"
  case orderParked = "order_parked"
  case orderResumed = "order_resumed"
  case returnCompleted = "return_completed"
  case operatorAdded = "operator_added"
  case operatorRemoved = "operator_removed"
  case operatorPINSet = "operator_pin_set"
  case operatorUnlocked = "operator_unlocked"
  case pinFailed = "pin_failed"
  case pinAccepted = "pin_accepted"
  case signedIn = "signed_in"
  case signedOut = "signed_out"
  case customerAdded = "customer_added"
  case customerAttached = "customer_attached"
  case customerDetached = "customer_detached"
  case wishlistAdded = "wishlist_added"
  case wishlistRemoved = "wishlist_removed"
  case productAdded = "product_added"
  case productUpdated = "product_updated"
  case productRemoved = "product_removed"
  case stockAdjusted = "stock_adjusted"
  case floatSet = "float_set"
  case paidIn = "paid_in"
  case paidOut = "paid_out"
  case noSale = "no_sale"
  case receiptEmailed = "receipt_emailed"
  case dayClosed = "day_closed"
  case printQueued = "print_queued"
  case printDone = "print_done"
}

extension Event {
  /// The event's type.
  public var eventType: EventType {
    switch self {
    case .storeConfigured: .storeConfigured
    case .catalogLoaded: .catalogLoaded
    case .lineAdded: .lineAdded
    case .lineRemoved: .lineRemoved
    case .quantitySet: .quantitySet
    case .tenderAdded: .tenderAdded
    case .discountSet: .discountSet
    case .priceOverridden: .priceOverridden
    case .saleCompleted: .saleCompleted
    case .lineVoided: .lineVoided
    case .orderVoided: .orderVoided
    case .orderParked: .orderParked
    case .orderResumed: .orderResumed
    case .returnCompleted: .returnCompleted
    case .operatorAdded: .operatorAdded
    case .operatorRemoved: .operatorRemoved
    case .operatorPINSet: .operatorPINSet
    case .operatorUnlocked: .operatorUnlocked
    case .pinFailed: .pinFailed
    case .pinAccepted: .pinAccepted
    case .signedIn: .signedIn
    case .signedOut: .signedOut
    case .customerAdded: .customerAdded
    case .customerAttached: .customerAttached
    case .customerDetached: .customerDetached
    case .wishlistAdded: .wishlistAdded
    case .wishlistRemoved: .wishlistRemoved
    case .productAdded: .productAdded
    case .productUpdated: .productUpdated
    case .productRemoved: .productRemoved
    case .stockAdjusted: .stockAdjusted
    case .floatSet: .floatSet
    case .paidIn: .paidIn
    case .paidOut: .paidOut
    case .noSale: .noSale
    case .receiptEmailed: .receiptEmailed
    case .dayClosed: .dayClosed
    case .printQueued: .printQueued
    case .printDone: .printDone
    }
  }
}
