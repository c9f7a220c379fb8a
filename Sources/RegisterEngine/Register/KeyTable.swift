/// An idempotency key's request fingerprint and the reply the request got.
public struct StoredKey: Sendable, Equatable {
  public var fingerprint: String
  public var reply: JSONValue
  /// The business day the key was used in.
  public var day: Int
  /// The journal sequence number of the request's last record.
  public var sequence: Int64 = 0
}

/// The idempotency keys the register remembers, grouped by the business day they were used in.
///
/// A key is found in O(1) (one hash lookup per day held, and at most two days are held). Keys
/// expire when the day after the one they were used in is closed (`expire(before:)`, driven by
/// the journaled `day_closed`, so a replay expires exactly the same keys), and an expired day's
/// keys are dropped from memory as a whole.
public struct KeyTable: Sendable, Equatable {
  /// The keys by the business day they were used in (internal for the snapshot codec).
  /// A key is its exact bytes (`ExactText`): keys that differ in their bytes are different
  /// keys even when Swift's `String` would call them equal ("café" composed and decomposed).
  var days: [Int: [ExactText: StoredKey]] = [:]

  public init() {}

  /// The stored key, if it has not expired.
  public subscript(key: String) -> StoredKey? {
    let exact = ExactText(key)
    for table in days.values {
      if let stored = table[exact] { return stored }
    }
    return nil
  }

  /// How many keys are held.
  public var count: Int { days.values.reduce(0) { $0 + $1.count } }

  /// The business days whose keys are held.
  public var heldDays: [Int] { days.keys.sorted() }

  /// Folds an event the register admits into the table: closing a day forgets the keys of the
  /// day before it (keys are remembered for the day they were used and the day after).
  mutating func apply(_ event: Event) {
    switch event {
    case .dayClosed(let number, _, _):
      expire(before: number)
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .saleCompleted, .lineVoided, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .customerAttached, .customerDetached, .wishlistAdded, .wishlistRemoved, .productAdded,
      .productUpdated, .productRemoved,
      .stockAdjusted, .floatSet,
      .paidIn, .paidOut, .noSale, .receiptEmailed, .printQueued, .printDone:
      return
    }
  }

  mutating func insert(_ key: String, _ stored: StoredKey) {
    days[stored.day, default: [:]][ExactText(key)] = stored
  }

  /// Forgets the keys of every day before `day`.
  mutating func expire(before day: Int) {
    for held in days.keys where held < day { days[held] = nil }
  }
}
