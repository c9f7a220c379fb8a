// What each type of event is beside its name: the topic groups a subscriber names to get it,
// its lookup by name and the shape of its data. The types themselves, and each event's, are
// derived from `Event`'s cases (EventType+Derived.swift).

extension EventType {
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

extension EventType {
  /// The event's `data` on the wire (the journal record's data; see docs/JOURNAL.md).
  public var data: WireType {
    let order = WireField.required("order_id", .integer(), "the order")
    let line = WireField.required("line", .integer(), "the line's number")
    let open = WireType.object([], open: true)
    switch self {
    case .storeConfigured: return .ref("store_settings")
    case .catalogLoaded:
      return .object(
        [
          .required("products", .array(.ref("catalog_product")), "the catalog's products"),
          .optional("promotions", .array(open), "its promotions"),
        ], open: true)
    case .lineAdded:
      return .object([order, .required("line", .object([], open: true), "the line")], open: true)
    case .lineRemoved, .lineVoided: return .object([order, line], open: true)
    case .quantitySet:
      return .object([order, line, .required("qty", .integer(), "the quantity")], open: true)
    case .tenderAdded:
      return .object([order, .required("tender", .ref("tender"), "the payment")], open: true)
    case .discountSet:
      return .object(
        [
          order, .optional("line", .integer(), "the line (none: the order)"),
          .required("discount", .nullable(open), "the discount (null: cleared)"),
        ], open: true)
    case .priceOverridden:
      return .object(
        [
          order, line, .required("unit_price", .money, "the price charged"),
          .required("reason", .text, "why"),
        ], open: true)
    case .saleCompleted:
      return .object(
        [
          order, .required("receipt", .integer(), "the receipt's number"),
          .required("cash_rounding", .money, "cash rounding"),
          .required("change", .money, "change given"),
          .optional("gift_cards", .array(open), "gift cards issued (numbers masked)"),
        ], open: true)
    case .orderVoided:
      return .object(
        [
          order, .optional("reason", .text, "why"),
          .required("reversed_tenders", .array(.ref("tender")), "payments reversed"),
        ], open: true)
    case .orderParked:
      return .object([order, .optional("note", .text, "the note")], open: true)
    case .orderResumed:
      return .object(
        [order, .required("replacing", .integer(), "the order it replaced")], open: true)
    case .returnCompleted:
      return .object([.required("receipt", .integer(), "the refund's receipt")], open: true)
    case .operatorAdded:
      return .object([.required("id", .text, "the operator")], open: true)
    case .operatorRemoved, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut,
      .operatorPINSet:
      return .object([.required("operator_id", .text, "the operator")], open: true)
    case .customerAdded: return .ref("customer")
    case .customerAttached:
      return .object(
        [
          order, .required("customer_id", .text, "the customer"),
          .optional("tax_exempt", .text, "their exemption certificate"),
        ], open: true)
    case .customerDetached: return .object([order], open: true)
    case .wishlistAdded, .wishlistRemoved:
      return .object(
        [
          .required("customer_id", .text, "the customer"), .required("sku", .text, "the product"),
          .optional("order_id", .integer(), "the order it went onto"),
        ], open: true)
    case .productAdded, .productUpdated: return .ref("catalog_product")
    case .productRemoved: return .object([.required("sku", .text, "the product")], open: true)
    case .stockAdjusted:
      return .object(
        [
          .required("sku", .text, "the product"), .required("delta", .integer(), "units added"),
          .required("reason", .text, "why"),
        ], open: true)
    case .floatSet: return .object([.required("amount", .money, "the float")], open: true)
    case .paidIn, .paidOut:
      return .object(
        [.required("amount", .money, "how much"), .required("reason", .text, "why")], open: true)
    case .noSale: return .object([.optional("reason", .text, "why")], open: true)
    case .receiptEmailed:
      return .object(
        [
          .required("receipt", .integer(), "the receipt"), .required("to", .text, "the address"),
          .required("message_id", .text, "the message"),
        ], open: true)
    case .dayClosed:
      return .object(
        [
          .required("day", .integer(), "the day closed"),
          .optional("counted_cash", .money, "the cash counted"),
          .optional("journal_head", open, "the journal's head at closing"),
        ], open: true)
    case .printQueued: return .ref("print_job")
    case .printDone: return .object([.required("job", .integer(), "the job")], open: true)
    }
  }
}
