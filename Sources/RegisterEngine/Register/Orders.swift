/// The register's orders: the open order with its totals, the parked orders with theirs, and
/// the id the next order gets.
///
/// Totals are computed once per change, here in `apply`, and never by readers: the open
/// order's when it changes, a parked order's when it is parked (it cannot change while parked),
/// and all of them again when the store's tax settings change.
public struct Orders: Sendable, Equatable {
  /// The order being rung up.
  public internal(set) var order: Order
  /// Totals of the open order.
  public internal(set) var totals: OrderTotals
  /// Orders set aside with `park`, oldest first.
  public internal(set) var parked: [Order]
  /// Totals of the parked orders, by order id.
  public internal(set) var parkedTotals: [Int: OrderTotals]
  /// The id the next order opened gets.
  public internal(set) var nextOrderID: Int
  /// While a journal is replayed, the time of the last change to the open order whose totals
  /// are not computed yet (see `apply(_:at:catalog:priced:deferringTotals:)`); nil whenever
  /// anything reads the register.
  private(set) var totalsDueAt: Timestamp?

  init() {
    order = Order(id: 1)
    totals = OrderTotals()
    parked = []
    parkedTotals = [:]
    nextOrderID = 2
  }

  /// False for an event about an order that is not the open one (or not parked), or about a
  /// line the order does not have: `decide` never makes one, and a journal that holds one is
  /// not followed (the register applies such an event to no part).
  func admits(_ event: Event) -> Bool {
    switch event {
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .customerAttached, .customerDetached:
      return order.admits(event)
    case .saleCompleted(let orderID, _, _, _, _), .orderVoided(let orderID, _, _),
      .orderParked(let orderID, _):
      return orderID == order.id
    case .orderResumed(let orderID, let replacing):
      return replacing == order.id && parked.contains { $0.id == orderID }
    case .storeConfigured, .catalogLoaded, .returnCompleted, .operatorAdded, .operatorRemoved,
      .operatorPINSet, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut,
      .customerAdded, .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet,
      .paidIn, .paidOut, .noSale, .receiptEmailed, .dayClosed, .wishlistAdded, .wishlistRemoved,
      .printQueued, .printDone:
      return true
    }
  }

  /// True for the events whose totals a replay may compute later (`deferringTotals`): they
  /// change the open order and nothing that computing its totals reads, and no part of the
  /// register reads the open order's totals when it applies them.
  static func defersTotals(_ event: Event) -> Bool {
    switch event {
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .customerAttached, .customerDetached:
      return true
    case .storeConfigured, .catalogLoaded, .saleCompleted, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn,
      .paidOut, .noSale, .receiptEmailed, .dayClosed, .wishlistAdded, .wishlistRemoved,
      .printQueued, .printDone:
      return false
    }
  }

  /// Computes the open order's totals deferred by a replay (nothing when none are due). The
  /// events since the change they are due for changed neither the catalog nor the time the
  /// promotions are taken at, so the totals are the ones computing them at each change gives.
  mutating func settleTotals(catalog: StoreCatalog) {
    guard let time = totalsDueAt else { return }
    totalsDueAt = nil
    recomputeTotals(catalog: catalog, at: time)
  }

  /// Folds an event the register admits into the orders. `catalog` is the store's catalog
  /// with the event applied: its tax settings and promotions are in force. `priced`: the
  /// totals `decide` computed for the order the request's events lead to, taken when the order
  /// reaches it. `deferringTotals` (a journal being replayed): a change to the open order's
  /// lines, tenders or customer leaves its totals due, to be computed once before anything
  /// reads them (`settleTotals`), instead of after every line of an order.
  mutating func apply(
    _ event: Event, at time: Timestamp, catalog: StoreCatalog, priced: PricedOrder? = nil,
    deferringTotals: Bool = false
  ) {
    assert(totalsDueAt == nil || Self.defersTotals(event), "due totals are settled first")
    switch event {
    case .storeConfigured, .catalogLoaded:
      // New tax settings or promotions change every order's totals.
      recomputeTotals(catalog: catalog, at: time)
      for parkedOrder in parked {
        if let computed = try? OrderTotals.compute(
          parkedOrder, tax: catalog.store.tax,
          promotions: catalog.promotionContext(for: parkedOrder, at: time))
        {
          parkedTotals[parkedOrder.id] = computed
        }
      }
    case .productAdded, .productUpdated, .productRemoved:
      // A product's category decides which promotions its lines take part in.
      if !catalog.promotions.isEmpty { recomputeTotals(catalog: catalog, at: time) }
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .customerAttached, .customerDetached:
      guard order.apply(event, at: time) else { return }
      if let priced, priced.order == order {
        totals = priced.totals
        totalsDueAt = nil
      } else if deferringTotals {
        totalsDueAt = time
      } else {
        recomputeTotals(catalog: catalog, at: time)
      }
    case .saleCompleted:
      // The completed sale's receipt holds the order at this version (see
      // `Register.receipts(completedBy:at:operatorID:)`).
      order.version += 1
      openNextOrder(catalog: catalog, at: time)
    case .orderVoided:
      openNextOrder(catalog: catalog, at: time)
    case .orderParked(_, let note):
      var set = order
      set.note = note
      set.parkedAt = time
      set.version += 1
      parked.append(set)
      // Parking does not change what the order comes to.
      parkedTotals[set.id] = totals
      openNextOrder(catalog: catalog, at: time)
    case .orderResumed(let orderID, _):
      guard let index = parked.firstIndex(where: { $0.id == orderID }) else { return }
      let replacedVersion = order.version
      order = parked.remove(at: index)
      order.parkedAt = nil
      order.version = max(order.version, replacedVersion) + 1
      // With promotions, a product's category may have changed while it was parked.
      if let kept = parkedTotals.removeValue(forKey: orderID), catalog.promotions.isEmpty {
        totals = kept
      } else {
        recomputeTotals(catalog: catalog, at: time)
      }
      assert(order.version > replacedVersion, "a version never means two orders")
    case .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale, .receiptEmailed, .dayClosed,
      .wishlistAdded, .wishlistRemoved,
      .printQueued, .printDone:
      return
    }
    assert(parked.count == parkedTotals.count, "every parked order has its totals")
    assert(order.id < nextOrderID, "order ids are never reused")
  }

  private mutating func recomputeTotals(catalog: StoreCatalog, at time: Timestamp) {
    // `decide` has proven the totals computable; keep the last good totals if a journal that
    // passed its checksums somehow says otherwise.
    if let computed = try? OrderTotals.compute(
      order, tax: catalog.store.tax, promotions: catalog.promotionContext(for: order, at: time))
    {
      totals = computed
    }
  }

  /// Opens a new order. Its version continues from the last one's, so that a version number
  /// never means two different orders (a stale `expect_version` cannot match by chance).
  private mutating func openNextOrder(catalog: StoreCatalog, at time: Timestamp) {
    let version = order.version
    order = Order(id: nextOrderID)
    order.version = version + 1
    nextOrderID += 1
    recomputeTotals(catalog: catalog, at: time)
    assert(order.isEmpty, "a new order starts empty")
  }

  /// Units of `sku` held by parked orders.
  func parkedQuantity(ofSKU sku: String) -> Int64 {
    parked.reduce(Int64(0)) { $0 + $1.quantity(ofSKU: sku) }
  }
}
