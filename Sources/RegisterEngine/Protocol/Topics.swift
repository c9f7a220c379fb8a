/// Live-event topics: a group name or an event type. A subscriber gets the events of the
/// topics it asked for (all of them when it named none).
public enum Topics {
  /// The groups and the event types in each.
  public static let groups: [String: Set<String>] = [
    "order": [
      "line_added", "line_removed", "quantity_set", "line_voided", "tender_added", "discount_set",
      "price_overridden", "order_voided", "order_parked", "order_resumed", "sale_completed",
      "customer_attached",
    ],
    "sale": ["sale_completed", "return_completed", "receipt_emailed"],
    "day": ["day_closed"],
    "catalog": [
      "store_configured", "catalog_loaded", "product_added", "product_updated", "product_removed",
      "stock_adjusted",
    ],
    "drawer": ["float_set", "paid_in", "paid_out", "no_sale", "day_closed"],
    "people": [
      "operator_added", "operator_removed", "operator_pin_set", "operator_unlocked", "pin_failed",
      "pin_accepted", "signed_in", "signed_out", "customer_added",
    ],
  ]

  /// Every event type there is.
  public static let eventTypes: Set<String> = groups.values.reduce(into: []) { $0.formUnion($1) }

  /// Expands topic names to event types; nil for an unknown name.
  public static func expand(_ names: [String]) -> Set<String>? {
    var types: Set<String> = []
    for name in names {
      if let group = groups[name] {
        types.formUnion(group)
      } else if eventTypes.contains(name) {
        types.insert(name)
      } else {
        return nil
      }
    }
    return types
  }

  /// The live-event line for a committed event.
  public static func line(for event: CommittedEvent) -> JSONValue {
    .object([
      "event": .string(event.event.type), "seq": .int(event.sequence),
      "at": .string(event.at.iso8601), "data": event.event.data,
    ])
  }
}
