/// The store's settings and its live catalog: the products with their stock, and the catalog
/// file's products as last imported (what the next import is compared with).
public struct StoreCatalog: Sendable, Equatable {
  public internal(set) var store: StoreSettings
  public internal(set) var products: ProductList
  /// The products as the catalog file had them when it was last imported: what the next
  /// import is compared with, so that only what changed in the file since then is taken.
  public internal(set) var catalogBase: [Product]
  /// The promotions of the catalog file as last imported (journaled with `catalog_loaded`).
  public internal(set) var promotions: [Promotion]

  init() {
    store = StoreSettings(
      name: "", address: [], currency: .usd,
      tax: TaxSettings(classes: [("standard", .zero)], defaultClass: "standard"))
    products = ProductList()
    catalogBase = []
    promotions = []
  }

  /// The promotions that apply to `order` (those in force on the store's local date when it
  /// was opened, or at `time` when it has not been yet), and the categories of its products.
  func promotionContext(for order: Order, at time: Timestamp) -> PromotionContext {
    guard !promotions.isEmpty else { return .none }
    let day = PromotionDate(order.openedAt ?? time).days
    let products = products
    return PromotionContext(
      promotions: promotions.filter { $0.isActive(onDay: day) },
      category: { products[$0]?.category })
  }

  /// The definitions of the promotions that applied to `order`, for its receipt: a category
  /// becomes the list of the order's SKUs in it, so the record needs no catalog to re-evaluate.
  func recordedPromotions(for order: Order, applied: [AppliedPromotion]) -> [Promotion] {
    let ids = Set(applied.map(\.id))
    return promotions.filter { ids.contains($0.id) }.map { promotion in
      guard case .category(let category) = promotion.scope else { return promotion }
      var resolved = promotion
      var skus: [String] = []
      for line in order.activeLines
      where products[line.sku]?.category == category && !skus.contains(line.sku) {
        skus.append(line.sku)
      }
      resolved.scope = .skus(skus)
      return resolved
    }
  }

  /// Folds an event the register admits into the catalog. `sale` is the sale a
  /// `sale_completed` completes: its units leave the stock.
  mutating func apply(_ event: Event, sale: CompletedSale?) {
    switch event {
    case .storeConfigured(let settings):
      store = settings
    case .catalogLoaded(let list, let promotions):
      importCatalog(list)
      self.promotions = promotions
    case .productAdded(let product), .productUpdated(let product):
      products.upsert(product)
    case .productRemoved(let sku):
      products.remove(sku: sku)
    case .stockAdjusted(let sku, let delta, _):
      products.adjustStock(sku: sku, by: delta)
    case .saleCompleted:
      guard let sale else { return }
      for line in sale.order.activeLines {
        products.adjustStock(sku: line.sku, by: -line.quantity)
      }
    case .returnCompleted(let refund):
      for line in refund.lines {
        products.adjustStock(sku: line.sku, by: line.quantity)
      }
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .lineVoided, .orderVoided, .orderParked, .orderResumed, .operatorAdded, .operatorRemoved,
      .operatorPINSet, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut,
      .customerAdded, .customerAttached, .customerDetached, .wishlistAdded, .wishlistRemoved,
      .floatSet, .paidIn, .paidOut, .noSale,
      .receiptEmailed,
      .dayClosed, .printQueued, .printDone:
      return
    }
    assert(products.count == products.all.count)
  }

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
}
