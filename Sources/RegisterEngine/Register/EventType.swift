/// Every type of journal record and live event, declared once: `Event.eventType` names each
/// event's, `Event.decode` switches over them exhaustively, and the live-event topic groups
/// (`Topics`) come from `topics`.
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

  /// The topic groups a subscriber can name to get this type of event.
  public var topics: [String] {
    switch self {
    case .storeConfigured, .catalogLoaded, .productAdded, .productUpdated, .productRemoved,
      .stockAdjusted:
      ["catalog"]
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .orderVoided, .orderParked, .orderResumed, .customerAttached, .customerDetached:
      ["order"]
    case .saleCompleted:
      ["order", "sale"]
    case .returnCompleted, .receiptEmailed:
      ["sale"]
    case .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded, .wishlistAdded, .wishlistRemoved:
      ["people"]
    case .floatSet, .paidIn, .paidOut, .noSale:
      ["drawer"]
    case .dayClosed:
      ["day", "drawer"]
    case .printQueued, .printDone:
      ["printer"]
    }
  }
}

extension EventType {
  /// Every event type by its name, found from the name's bytes (`ShortTextTable`): a record's
  /// type is looked up for every record read.
  private static let byName = ShortTextTable(cases: EventType.self)

  /// The event type named `name` in a record.
  static func named(_ name: String) -> EventType? { byName.named(name) }
}
