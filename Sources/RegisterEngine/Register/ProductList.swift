/// The catalog's products in file order, with lookup by SKU.
public struct ProductList: Sendable, Equatable {
  public private(set) var all: [Product] = []
  private var index: [String: Int] = [:]

  public init(_ products: [Product] = []) {
    for product in products { upsert(product) }
  }

  public subscript(sku: String) -> Product? {
    index[sku].map { all[$0] }
  }

  public var count: Int { all.count }

  /// Adds the product, or replaces the one with the same SKU in place.
  public mutating func upsert(_ product: Product) {
    if let position = index[product.sku] {
      all[position] = product
    } else {
      index[product.sku] = all.count
      all.append(product)
    }
  }

  /// Removes the product with this SKU, if any.
  public mutating func remove(sku: String) {
    guard let position = index[sku] else { return }
    all.remove(at: position)
    index = [:]
    for (offset, product) in all.enumerated() { index[product.sku] = offset }
  }

  /// Changes a tracked product's stock by `delta` (untracked products are left alone).
  mutating func adjustStock(sku: String, by delta: Int64) {
    guard let position = index[sku], let stock = all[position].stock else { return }
    // `decide` keeps stock within range; a journal that says otherwise is clamped rather than
    // allowed to wrap or trap.
    let (sum, overflow) = stock.addingReportingOverflow(delta)
    all[position].stock = overflow ? (delta < 0 ? Int64.min : Int64.max) : sum
  }
}
