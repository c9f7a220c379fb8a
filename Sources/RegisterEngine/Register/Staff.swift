/// The operators and who is signed in.
public struct Staff: Sendable, Equatable {
  /// Operators in the order they were added.
  public internal(set) var operators: [Operator]
  /// Who is signed in at the register.
  public internal(set) var signedIn: String?
  /// When the operator signed in last made a change (signing in included): the journaled time
  /// of their last record, from which the store's `operator_idle_minutes` are counted. Nil
  /// when nobody is signed in.
  public internal(set) var operatorActiveAt: Timestamp?

  init() {
    operators = []
  }

  /// Folds an event the register admits into the staff. `store` gives the lockout time and
  /// whether a sale signs the operator out.
  mutating func apply(_ event: Event, at time: Timestamp, store: StoreSettings) {
    applyToOperators(event, at: time, store: store)
    switch event {
    case .printDone, .catalogLoaded, .storeConfigured:
      // Made by the register itself (a printer, a reload), not by the operator.
      break
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .saleCompleted, .lineVoided, .orderVoided, .orderParked, .orderResumed, .returnCompleted,
      .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached, .customerDetached,
      .wishlistAdded, .wishlistRemoved, .productAdded, .productUpdated, .productRemoved,
      .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale, .receiptEmailed, .dayClosed,
      .printQueued:
      operatorActiveAt = signedIn == nil ? nil : time
    }
  }

  /// True when the operator signed in has been idle for the store's `operator_idle_minutes`
  /// at `now` (and so is signed out by the next change asked for).
  func isIdle(at now: Timestamp, store: StoreSettings) -> Bool {
    guard signedIn != nil, store.operatorIdleMinutes > 0, let operatorActiveAt else { return false }
    let limit = Int64(store.operatorIdleMinutes) * 60_000
    let (idle, overflow) = now.epochMilliseconds.subtractingReportingOverflow(
      operatorActiveAt.epochMilliseconds)
    return !overflow && idle >= limit
  }

  private mutating func applyToOperators(_ event: Event, at time: Timestamp, store: StoreSettings) {
    switch event {
    case .operatorAdded(let person):
      operators.removeAll { $0.id == person.id }
      operators.append(person)
    case .operatorRemoved(let id):
      operators.removeAll { $0.id == id }
      if signedIn == id { signedIn = nil }
    case .operatorPINSet(let id, let pin):
      guard let index = operators.firstIndex(where: { $0.id == id }) else { return }
      operators[index].pin = pin
      operators[index].failedAttempts = 0
    case .operatorUnlocked(let id), .pinAccepted(let id):
      // A right PIN resets the count and ends an expired lock, as an unlock does.
      guard let index = operators.firstIndex(where: { $0.id == id }) else { return }
      operators[index].clearLock()
    case .pinFailed(let id):
      guard let index = operators.firstIndex(where: { $0.id == id }) else { return }
      // A wrong PIN after the lock expired starts a new count (the event time decides, so
      // replay agrees with what the register did live).
      if operators[index].locked
        && !Self.isLocked(operators[index], at: time, lockoutMinutes: store.lockoutMinutes)
      {
        operators[index].clearLock()
      }
      operators[index].failedAttempts = min(
        operators[index].failedAttempts + 1, Operator.attemptsBeforeLock)
      if operators[index].failedAttempts >= Operator.attemptsBeforeLock && !operators[index].locked
      {
        operators[index].locked = true
        operators[index].lockedAt = time
      }
      if operators[index].locked && signedIn == id { signedIn = nil }
    case .signedIn(let id):
      signedIn = id
      if let index = operators.firstIndex(where: { $0.id == id }) {
        operators[index].clearLock()
      }
    case .signedOut(let id):
      if signedIn == id { signedIn = nil }
    case .saleCompleted:
      if store.autoSignOut { signedIn = nil }
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderVoided, .orderParked, .orderResumed,
      .returnCompleted, .customerAdded, .customerAttached, .customerDetached, .wishlistAdded,
      .wishlistRemoved, .productAdded,
      .productUpdated,
      .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale, .receiptEmailed,
      .dayClosed, .printQueued, .printDone:
      return
    }
  }

  /// The name of an operator, for receipts (the id when unknown).
  func name(of id: String?) -> String? {
    guard let id else { return nil }
    return operators.first { $0.id == id }?.name ?? id
  }

  /// When `person`'s lock ends: `lockoutMinutes` after the journaled time of the wrong PIN
  /// that locked them (nil: not locked, or locked with no time — until unlocked).
  static func lockExpiry(of person: Operator, lockoutMinutes: Int) -> Timestamp? {
    guard person.locked, let lockedAt = person.lockedAt else { return nil }
    let (millis, overflow) = Int64(lockoutMinutes).multipliedReportingOverflow(by: 60_000)
    let (end, later) = lockedAt.epochMilliseconds.addingReportingOverflow(millis)
    guard !overflow && !later else { return nil }
    return Timestamp(epochMilliseconds: end, utcOffsetSeconds: lockedAt.utcOffsetSeconds)
  }

  /// True while `person` is locked at `now`: locked by wrong PINs and the lock has not expired.
  static func isLocked(_ person: Operator, at now: Timestamp, lockoutMinutes: Int) -> Bool {
    guard person.locked else { return false }
    guard person.lockedAt != nil,
      let expiry = lockExpiry(of: person, lockoutMinutes: lockoutMinutes)
    else {
      // Locked with no usable time: only an unlock ends it.
      return true
    }
    return now < expiry
  }
}
