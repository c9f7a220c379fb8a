/// The register: catalog, open order, completed receipts and the day's totals, as a value.
///
/// Requests become events in `decide` (which validates and never mutates); events change state
/// in `apply` (which cannot fail). Live operation, crash recovery and end-of-day replay all go
/// through `apply`, so the state — and every receipt — is the same however it was reached.
public struct Register: Sendable {
  public internal(set) var store: StoreSettings
  public internal(set) var products: ProductList
  public internal(set) var order: Order
  /// Totals of the open order, kept current by `apply`.
  public internal(set) var totals: OrderTotals
  public internal(set) var nextOrderID: Int
  public internal(set) var nextReceiptNumber: Int
  /// Completed sales by receipt number.
  public internal(set) var receipts: ReceiptBook<CompletedSale>
  public internal(set) var lastReceiptNumber: Int?
  public internal(set) var day: BusinessDay
  /// Z reports of the days already closed, by day number.
  public internal(set) var closedDays: [Int: ClosedDay]
  /// The products as the catalog file had them when it was last imported: what the next
  /// import is compared with, so that only what changed in the file since then is taken.
  public internal(set) var catalogBase: [Product]
  /// Orders set aside with `park`, oldest first.
  public internal(set) var parked: [Order]
  /// Returns by receipt number (numbers are shared with sales).
  public internal(set) var returns: ReceiptBook<CompletedReturn>
  /// Per sale receipt: units returned so far, by line number.
  public internal(set) var returnedQuantities: [Int: [Int: Int64]]
  /// Per sale receipt: what has been refunded so far, to each card and in cash.
  public internal(set) var refunded: [Int: RefundState]
  /// Idempotency keys of the current and the previous business day.
  public internal(set) var keys: KeyTable
  /// Operators in the order they were added.
  public internal(set) var operators: [Operator]
  /// Who is signed in at the register.
  public internal(set) var signedIn: String?
  public internal(set) var customers: [Customer]
  public internal(set) var nextCustomerNumber: Int
  /// The sequence number of the last journal record applied (0 before any).
  public internal(set) var lastSequence: Int64
  /// The time of the last event applied.
  public internal(set) var lastActivity: Timestamp?

  /// An empty register; a `store_configured` and a `catalog_loaded` event bring it to life.
  public init() {
    store = StoreSettings(
      name: "", address: [], currency: .usd,
      tax: TaxSettings(classes: [("standard", .zero)], defaultClass: "standard"))
    products = ProductList()
    order = Order(id: 1)
    totals = OrderTotals()
    nextOrderID = 2
    nextReceiptNumber = 1
    receipts = ReceiptBook()
    day = BusinessDay(number: 1)
    closedDays = [:]
    catalogBase = []
    parked = []
    returns = ReceiptBook()
    returnedQuantities = [:]
    refunded = [:]
    keys = KeyTable()
    operators = []
    customers = []
    nextCustomerNumber = 1
    lastSequence = 0
  }

  /// A register serving `catalog`, built by applying the start-up events, exactly as the daemon
  /// does on a first start.
  public init(catalog: Catalog, at time: Timestamp = Timestamp(epochMilliseconds: 0)) {
    self.init()
    for event in Register.startupEvents(for: catalog, current: nil) {
      apply(event, at: time)
    }
  }

  /// The events that import the catalog file into a register (in state `current`, nil for a new
  /// one): new store settings, and the products when the file changed since the register last
  /// imported it. The file is an import source, never written by the register: applying the
  /// products takes only what changed in the file since that import (see `importCatalog`), so
  /// edits made through the protocol and stock sold since are kept.
  public static func startupEvents(for catalog: Catalog, current: Register?) -> [Event] {
    var events: [Event] = []
    if current?.store != catalog.store { events.append(.storeConfigured(catalog.store)) }
    if current?.catalogBase != catalog.products { events.append(.catalogLoaded(catalog.products)) }
    return events
  }

  // MARK: - Apply

  /// Folds one event into the state. Never fails: `decide` has checked everything already.
  /// `sequence` is the event's journal sequence number, when it has one.
  public mutating func apply(
    _ event: Event, at time: Timestamp, operatorID: String? = nil, sequence: Int64? = nil
  ) {
    if let sequence { lastSequence = sequence }
    switch event {
    case .storeConfigured(let settings):
      store = settings
    case .catalogLoaded(let list):
      importCatalog(list)
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .customerAttached:
      recordInDayTotals(event)
      guard order.apply(event, at: time) else { return }
      if day.openedAt == nil { day.openedAt = time }
    case .saleCompleted(let orderID, let receipt, let rounding, let change):
      guard orderID == order.id else { return }
      completeSale(
        receipt: receipt, rounding: rounding, change: change, at: time, operatorID: operatorID)
    case .orderVoided(let orderID, _, _):
      guard orderID == order.id else { return }
      recordInDayTotals(event)
      if day.openedAt == nil { day.openedAt = time }
      openNextOrder()
    case .orderParked(let orderID, let note):
      guard orderID == order.id else { return }
      var set = order
      set.note = note
      set.parkedAt = time
      set.version += 1
      parked.append(set)
      openNextOrder()
    case .orderResumed(let orderID, let replacing):
      guard replacing == order.id, let index = parked.firstIndex(where: { $0.id == orderID }) else {
        return
      }
      let replacedVersion = order.version
      order = parked.remove(at: index)
      order.parkedAt = nil
      order.version = max(order.version, replacedVersion) + 1
    case .returnCompleted(let refund):
      completeReturn(refund, at: time, operatorID: operatorID)
    case .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded:
      applyPeople(event, at: time)
    case .productAdded(let product), .productUpdated(let product):
      products.upsert(product)
    case .productRemoved(let sku):
      products.remove(sku: sku)
    case .stockAdjusted(let sku, let delta, _):
      products.adjustStock(sku: sku, by: delta)
    case .floatSet:
      recordInDayTotals(event)
      if day.openedAt == nil { day.openedAt = time }
    case .paidIn, .paidOut, .noSale:
      recordInDayTotals(event)
    case .receiptEmailed:
      break
    case .dayClosed(let number, let counted, let head):
      guard number == day.number else { return }
      // Keys are remembered for the day they were used and the day after.
      keys.expire(before: number)
      closedDays[number] = ClosedDay(
        number: number, openedAt: day.openedAt, closedAt: time, totals: day.totals,
        countedCash: counted, sequence: lastSequence, journalHead: head,
        header: ReceiptHeader(store: store),
        currency: store.currency)
      day = BusinessDay(number: number + 1)
    }
    if case .saleCompleted = event, store.autoSignOut { signedIn = nil }
    lastActivity = time
    recomputeTotals()
  }

  private mutating func completeReturn(
    _ event: ReturnEvent, at time: Timestamp, operatorID: String?
  ) {
    let customer = receipts[event.original]?.customer
    let refund = CompletedReturn(
      receiptNumber: event.receipt, originalReceipt: event.original, day: day.number, at: time,
      lines: event.lines, refunds: event.refunds, cashRounding: event.cashRounding,
      reason: event.reason, header: ReceiptHeader(store: store), currency: store.currency,
      operatorName: operatorName(operatorID), customer: customer)
    returns.append(refund)
    lastReceiptNumber = event.receipt
    nextReceiptNumber = max(nextReceiptNumber, event.receipt + 1)
    var quantities = returnedQuantities[event.original] ?? [:]
    for line in event.lines {
      quantities[line.line] = Checked.saturatingAdd(quantities[line.line] ?? 0, line.quantity)
      products.adjustStock(sku: line.sku, by: line.quantity)
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
    if day.openedAt == nil { day.openedAt = time }
    recordInDayTotals(.returnCompleted(event), refund: refund)
  }

  /// Folds `event` into the day's totals. `decide` has refused any change the totals could
  /// not hold; should a journal that passed its checksums say otherwise, the totals are left as
  /// they were rather than wrapped or trapped on.
  private mutating func recordInDayTotals(
    _ event: Event, sale: CompletedSale? = nil, refund: CompletedReturn? = nil
  ) {
    var updated = day.totals
    do {
      try updated.apply(event, order: order, orderTotals: totals, sale: sale, refund: refund)
      day.totals = updated
    } catch {
      return
    }
  }

  /// Takes a new product list from the catalog file. A product's stock is kept as the register
  /// has it unless the file changed that product's stock since the register last saw the file.
  /// Imports the catalog file's products: only what changed in the file since the last import
  /// is taken. A product the file dropped is removed; a product new in the file, or changed in
  /// it, takes the file's fields — and its stock only when the file's stock figure itself
  /// changed (a count was entered), so units sold since the last import are not put back; a
  /// product the file did not change keeps the register's version (edits made through the
  /// protocol, stock sold down, a product removed).
  private mutating func importCatalog(_ file: [Product]) {
    let base = Dictionary(catalogBase.map { ($0.sku, $0) }, uniquingKeysWith: { first, _ in first })
    let listed = Set(file.map(\.sku))
    for old in catalogBase where !listed.contains(old.sku) {
      products.remove(sku: old.sku)
    }
    for var product in file {
      let before = base[product.sku]
      // Unchanged in the file: the register's version stands (even a removal).
      if before == product { continue }
      if let before, before.stock == product.stock, let current = products[product.sku] {
        product.stock = current.stock
      }
      products.upsert(product)
    }
    catalogBase = file
  }

  /// The name of an operator, for receipts (the id when unknown).
  func operatorName(_ id: String?) -> String? {
    guard let id else { return nil }
    return operators.first { $0.id == id }?.name ?? id
  }

  private mutating func applyPeople(_ event: Event, at time: Timestamp) {
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
      if operators[index].locked && !isLocked(operators[index], at: time) {
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
    case .customerAdded(let customer):
      customers.append(customer)
      if let number = Int(customer.id.dropFirst()), customer.id.hasPrefix("C"),
        number < IntegerRanges.maximumCounter
      {
        nextCustomerNumber = max(nextCustomerNumber, number + 1)
      }
    default:
      break
    }
  }

  private mutating func recomputeTotals() {
    // `decide` has proven the totals computable; keep the last good totals if a journal that
    // passed its checksums somehow says otherwise.
    if let computed = try? OrderTotals.compute(order, tax: store.tax) {
      totals = computed
    }
  }

  private mutating func completeSale(
    receipt: Int, rounding: Money, change: Money, at time: Timestamp, operatorID: String?
  ) {
    order.version += 1
    let customer = order.customerID.flatMap { id in customers.first { $0.id == id } }
    let sale = CompletedSale(
      receiptNumber: receipt, day: day.number, at: time, order: order, totals: totals,
      cashRounding: rounding, change: change, header: ReceiptHeader(store: store),
      currency: store.currency, operatorName: operatorName(operatorID),
      customer: customer.map { CustomerRef(id: $0.id, name: $0.name) })
    receipts.append(sale)
    lastReceiptNumber = receipt
    nextReceiptNumber = max(nextReceiptNumber, receipt + 1)
    for line in order.activeLines {
      products.adjustStock(sku: line.sku, by: -line.quantity)
    }
    if day.openedAt == nil { day.openedAt = time }
    recordInDayTotals(
      .saleCompleted(
        order: order.id, receipt: receipt, cashRounding: rounding, change: change),
      sale: sale)
    openNextOrder()
  }

  /// Opens a new order. Its version continues from the last one's, so that a version number
  /// never means two different orders (a stale `expect_version` cannot match by chance).
  private mutating func openNextOrder() {
    let version = order.version
    order = Order(id: nextOrderID)
    order.version = version + 1
    nextOrderID += 1
  }

  /// Remembers an idempotency key with the reply its request got.
  public mutating func remember(_ key: KeyRecord) {
    keys.insert(
      key.key,
      StoredKey(
        fingerprint: key.fingerprint, reply: key.reply, day: day.number, sequence: lastSequence))
  }

  /// Money in the store currency.
  func money(_ minorUnits: Int64) -> Money {
    Money(minorUnits: minorUnits, currency: store.currency)
  }
}

/// What has been refunded against one sale: per card (brand and last four) and in cash.
public struct RefundState: Sendable, Equatable {
  public var cards: [CardSummary: Int64] = [:]
  public var cash: Int64 = 0
}

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
///
/// Grouping by day also keeps keyed requests cheap while changes wait to be made durable: the
/// service's rollback checkpoint shares the closed days' keys and leaves out the open day's
/// (`checkpointCopy(openDay:)`), so the open day's table is never shared and a new key is
/// inserted in place instead of copying every key the day has seen.
public struct KeyTable: Sendable, Equatable {
  private var days: [Int: [String: StoredKey]] = [:]

  public init() {}

  /// The stored key, if it has not expired.
  public subscript(key: String) -> StoredKey? {
    for table in days.values {
      if let stored = table[key] { return stored }
    }
    return nil
  }

  /// How many keys are held.
  public var count: Int { days.values.reduce(0) { $0 + $1.count } }

  /// The business days whose keys are held.
  public var heldDays: [Int] { days.keys.sorted() }

  mutating func insert(_ key: String, _ stored: StoredKey) {
    days[stored.day, default: [:]][key] = stored
  }

  /// Forgets the keys of every day before `day`.
  mutating func expire(before day: Int) {
    for held in days.keys where held < day { days[held] = nil }
  }

  /// A copy for a rollback checkpoint: every day's keys but `openDay`'s, which the live table
  /// goes on changing (see `restoreOpenDay`).
  func checkpointCopy(openDay: Int) -> KeyTable {
    var copy = self
    copy.days[openDay] = nil
    return copy
  }

  /// Puts back, into a checkpoint copy, the keys of `openDay` that `live` holds from records
  /// up to `sequence`: the open day's keys as they were when the checkpoint was taken.
  mutating func restoreOpenDay(_ openDay: Int, from live: KeyTable, upTo sequence: Int64) {
    guard let table = live.days[openDay] else { return }
    days[openDay] = table.filter { $0.value.sequence <= sequence }
  }
}
