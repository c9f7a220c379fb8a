/// The register: catalog, orders, receipts, staff, customers, the day book and idempotency
/// keys, as a value.
///
/// Requests become a `Decision` in `decide` (which validates and never mutates); events change
/// state in `apply` (which cannot fail). Live operation, crash recovery and end-of-day replay all
/// go through `apply`, so the state — and every receipt — is the same however it was reached.
///
/// The state is split into parts, each a value type with its own `apply` that switches over
/// every event (an event that does not concern a part is listed in the case that does
/// nothing). `Register.apply` hands each event to every part.
public struct Register: Sendable {
  /// The store's settings, the products and the last catalog import.
  public internal(set) var catalog: StoreCatalog
  /// The open order with its totals, and the parked orders.
  public internal(set) var orders: Orders
  /// Completed sales and returns, and the receipt numbering.
  public internal(set) var ledger: ReceiptLedger
  /// The operators and who is signed in.
  public internal(set) var staff: Staff
  /// The customers.
  public internal(set) var customerBook: CustomerBook
  /// Gift card balances and customers' store credit.
  public internal(set) var storedValue: StoredValue
  /// The business day and the closed days.
  public internal(set) var dayBook: DayBook
  /// Idempotency keys of the current and the previous business day.
  public internal(set) var keys: KeyTable
  /// The receipt printer's jobs not yet printed.
  public internal(set) var printQueue: PrintQueue
  /// The sequence number of the last journal record applied (0 before any).
  public internal(set) var lastSequence: Int64
  /// The time of the last event applied.
  public internal(set) var lastActivity: Timestamp?

  /// An empty register; a `store_configured` and a `catalog_loaded` event bring it to life.
  public init() {
    catalog = StoreCatalog()
    orders = Orders()
    ledger = ReceiptLedger()
    staff = Staff()
    customerBook = CustomerBook()
    storedValue = StoredValue()
    dayBook = DayBook()
    keys = KeyTable()
    printQueue = PrintQueue()
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
    if current?.catalogBase != catalog.products || current?.promotions != catalog.promotions {
      events.append(.catalogLoaded(catalog.products, promotions: catalog.promotions))
    }
    return events
  }

  // MARK: - Apply

  /// Folds one event into the state, part by part. Never fails: `decide` has checked
  /// everything already. An event about an order or a day that is not the current one (which
  /// `decide` never makes) changes nothing but `lastSequence`. `sequence` is the event's
  /// journal sequence number, when it has one; `priced`, what `decideAndPrice` handed on for
  /// the request the event is part of (see `PricedOrder`).
  ///
  /// `deferringTotals` (a journal being replayed): the open order's totals are computed once
  /// before an event that reads them, not after each of its lines (see `Orders`); the caller
  /// calls `settleTotals()` when it is done applying.
  public mutating func apply(
    _ event: Event, at time: Timestamp, operatorID: String? = nil, sequence: Int64? = nil,
    priced: PricedOrder? = nil, deferringTotals: Bool = false
  ) {
    if let sequence { lastSequence = sequence }
    if !Orders.defersTotals(event) { orders.settleTotals(catalog: catalog) }
    guard orders.admits(event), dayBook.admits(event) else { return }
    // A sale or a return is built once, from the state the event finds, for every part that
    // records it.
    let (sale, refund) = receipts(completedBy: event, at: time, operatorID: operatorID)
    // The day book reads the open order as the event finds it, so the orders go last.
    dayBook.apply(
      event, at: time, order: orders.order, orderTotals: orders.totals, sale: sale,
      refund: refund, store: catalog.store, sequence: lastSequence)
    catalog.apply(event, sale: sale)
    ledger.apply(event, sale: sale, refund: refund)
    staff.apply(event, at: time, store: catalog.store)
    customerBook.apply(event)
    storedValue.apply(event, at: time, order: orders.order, sale: sale, refund: refund)
    keys.apply(event)
    printQueue.apply(event)
    orders.apply(
      event, at: time, catalog: catalog, priced: priced, deferringTotals: deferringTotals)
    lastActivity = time
  }

  /// Computes the open order's totals a replay left due (see `apply`).
  mutating func settleTotals() {
    orders.settleTotals(catalog: catalog)
  }

  /// The receipt `event` completes, built from the state it finds: the sale of the open order
  /// (at the version completing it leaves the order at), or a return of items of an earlier
  /// sale. Nil for every other event.
  private func receipts(
    completedBy event: Event, at time: Timestamp, operatorID: String?
  ) -> (CompletedSale?, CompletedReturn?) {
    switch event {
    case .saleCompleted(_, let receipt, let rounding, let change, let giftCards):
      var sold = orders.order
      sold.version += 1
      let customer = sold.customerID.flatMap { customerBook.customer($0) }
      let sale = CompletedSale(
        receiptNumber: receipt, day: day.number, at: time, order: sold, totals: orders.totals,
        cashRounding: rounding, change: change, header: ReceiptHeader(store: store),
        currency: store.currency, operatorName: staff.name(of: operatorID),
        customer: customer.map { CustomerRef(id: $0.id, name: $0.name) }, giftCards: giftCards,
        promotions: catalog.recordedPromotions(for: sold, applied: orders.totals.promotions))
      return (sale, nil)
    case .returnCompleted(let event):
      let refund = CompletedReturn(
        receiptNumber: event.receipt, originalReceipt: event.original, day: day.number, at: time,
        lines: event.lines, refunds: event.refunds, cashRounding: event.cashRounding,
        reason: event.reason, header: ReceiptHeader(store: store), currency: store.currency,
        operatorName: staff.name(of: operatorID), customer: ledger.sale(event.original)?.customer
      )
      return (nil, refund)
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderVoided, .orderParked, .orderResumed,
      .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached, .customerDetached,
      .wishlistAdded, .wishlistRemoved,
      .productAdded,
      .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale,
      .receiptEmailed, .dayClosed, .printQueued, .printDone:
      return (nil, nil)
    }
  }

  /// The receipts of `days` are in their archive files (written by the caller, on disk):
  /// they are read from there from now on instead of kept in memory. `reader`, when given,
  /// is what reads the files.
  public mutating func archiveReceipts(_ days: [ArchivedDay], reader: (any ReceiptArchiveReader)?) {
    ledger.archive(days, reader: reader)
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

  /// The name of an operator, for receipts (the id when unknown).
  func operatorName(_ id: String?) -> String? {
    staff.name(of: id)
  }
}

// MARK: - The parts' state, read as before the split

extension Register {
  public var store: StoreSettings { catalog.store }
  public var products: ProductList { catalog.products }
  /// The products as the catalog file had them when it was last imported.
  public var catalogBase: [Product] { catalog.catalogBase }
  /// The catalog file's promotions, as last imported.
  public var promotions: [Promotion] { catalog.promotions }
  public var order: Order { orders.order }
  /// Totals of the open order, kept current by `apply`.
  public var totals: OrderTotals { orders.totals }
  public var nextOrderID: Int { orders.nextOrderID }
  /// Orders set aside with `park`, oldest first.
  public var parked: [Order] { orders.parked }
  /// Completed sales by receipt number (those of archived days read from their files).
  public var receipts: ReceiptLookup<CompletedSale> {
    ReceiptLookup(book: ledger.sales, archive: ledger.archive) {
      if case .sale(let sale) = $0 { sale } else { nil }
    }
  }
  /// Returns by receipt number (numbers are shared with sales).
  public var returns: ReceiptLookup<CompletedReturn> {
    ReceiptLookup(book: ledger.returns, archive: ledger.archive) {
      if case .refund(let refund) = $0 { refund } else { nil }
    }
  }
  /// Per sale receipt: units returned so far, by line number.
  public var returnedQuantities: ChunkedDictionary<Int, [Int: Int64]> { ledger.returnedQuantities }
  /// Per sale receipt: what has been refunded so far, to each card and in cash.
  public var refunded: ChunkedDictionary<Int, RefundState> { ledger.refunded }
  public var nextReceiptNumber: Int { ledger.nextReceiptNumber }
  public var lastReceiptNumber: Int? { ledger.lastReceiptNumber }
  /// The business day (settable for tests that start from a given day's totals).
  public internal(set) var day: BusinessDay {
    get { dayBook.day }
    set { dayBook.day = newValue }
  }
  /// Z reports of the days already closed, by day number.
  public var closedDays: [Int: ClosedDay] { dayBook.closedDays }
  /// Operators in the order they were added.
  public var operators: [Operator] { staff.operators }
  /// Who is signed in at the register.
  public var signedIn: String? { staff.signedIn }
  public var customers: ChunkedArray<Customer> { customerBook.customers }
  public var nextCustomerNumber: Int { customerBook.nextCustomerNumber }
}

extension Register {
  /// Why the store's currency cannot become `currency` (nil: it can). Amounts are kept in minor
  /// units of the store's currency, so once the register holds any — a receipt, a closed day,
  /// the open day's totals or drawer, an order rung up or parked, a gift card or store credit,
  /// a product added or priced through the register (or its stock counted down by sales) —
  /// another currency would relabel every figure: 10.00 USD read as 10.00 EUR, or as ¥1000.
  public func currencyChangeRefusal(to currency: Currency) -> String? {
    guard currency != store.currency else { return nil }
    var holds: [String] = []
    if nextReceiptNumber > 1 { holds.append("receipts") }
    if !closedDays.isEmpty { holds.append("closed days") }
    if day.totals != DayTotals() { holds.append("the open day's totals") }
    if !order.isEmpty || !parked.isEmpty { holds.append("orders") }
    if !storedValue.giftCards.isEmpty || !storedValue.storeCredit.isEmpty {
      holds.append("gift cards or store credit")
    }
    if !products.all.elementsEqual(catalogBase) {
      holds.append("products changed through the register")
    }
    guard !holds.isEmpty else { return nil }
    return
      "the store's currency is \(store.currency.code), and the register holds amounts in it (\(holds.joined(separator: ", "))): it cannot become \(currency.code), as every amount is kept in minor units of the currency; keep \"currency\": \"\(store.currency.code)\", or start the new currency in a new data directory"
  }
}
