/// Live-event topics: a group name or an event type. A subscriber gets the events of the
/// topics it asked for (all of them when it named none).
public enum Topics {
  /// The groups and the event types in each (from `EventType.topics`).
  public static let groups: [String: Set<String>] = EventType.allCases.reduce(into: [:]) {
    groups, type in
    for group in type.topics { groups[group, default: []].insert(type.rawValue) }
  }

  /// Every event type there is.
  public static let eventTypes: Set<String> = Set(EventType.allCases.map(\.rawValue))

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

  /// The live-event line for a committed event: its journal data, with gift card numbers
  /// masked (`publicData`).
  public static func line(for event: CommittedEvent) -> JSONValue {
    line(type: event.event.type, sequence: event.sequence, at: event.at, data: event.event.data)
  }

  /// The live-event line for a record of type `type` with journal data `data` (an event made
  /// durable now, or one read back from the journal for a subscriber catching up): the one
  /// place a line is shaped and its data masked.
  public static func line(type: String, sequence: Int64, at: Timestamp, data: JSONValue)
    -> JSONValue
  {
    .object([
      "event": .string(type), "seq": .int(sequence), "at": .string(at.iso8601),
      "data": publicData(data),
    ])
  }

  /// An event's journal data as a subscriber gets it: a customer display or any other
  /// listener sees a gift card (sold, tendered, refunded to, given back by a void) by its last
  /// four digits only, as receipts print it (`GiftCardNumber.masking`).
  public static func publicData(_ data: JSONValue) -> JSONValue {
    GiftCardNumber.masking(data)
  }
}
