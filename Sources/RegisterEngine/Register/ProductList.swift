/// The catalog's products in file order, with lookup by SKU. Kept in chunked storage
/// (`ChunkedArray`, `ChunkedDictionary`): a sale's stock change or a product edit copies one
/// chunk of the list, not the whole catalog, while the state before the group is held for a
/// rollback.
public struct ProductList: Sendable, Equatable {
  public private(set) var all = ChunkedArray<Product>()
  private var index = ChunkedDictionary<String, Int>()
  /// The SKU each barcode (by its `Barcode.key`) belongs to. The catalog file and the
  /// product ops keep barcodes unique; should two products ever share one (a product added
  /// through the protocol, then the same code in an imported file), the one listed first keeps
  /// it, the same way after every restart.
  private var barcodeOwners = ChunkedDictionary<String, String>()

  public init(_ products: [Product] = []) {
    // Nearly always every SKU is new: the list is taken as it is (no copy of each product)
    // and indexed in one pass. A SKU listed twice is upserted as it comes, the later one
    // replacing the earlier in its place.
    var index = ChunkedDictionary<String, Int>()
    for (offset, product) in products.enumerated()
    where index.updateValue(offset, forKey: product.sku) != nil {
      for product in products { upsert(product) }
      return
    }
    self.all = ChunkedArray(products)
    self.index = index
    for product in products where !product.barcodes.isEmpty { claimBarcodes(of: product) }
  }

  /// The product whose SKU is `sku`, byte for byte. The index is a `String` dictionary, which
  /// matches canonically equivalent text (a Kelvin sign for a "K"); such a look-alike names no
  /// product, so every event and receipt carries the SKU exactly as the catalog has it.
  public subscript(sku: String) -> Product? {
    position(sku: sku).map { all[$0] }
  }

  public var count: Int { all.count }

  /// Where the product whose SKU is `sku` (byte for byte, as `self[sku]`) is in `all`.
  public func position(sku: String) -> Int? {
    guard let position = index[sku], all[position].sku.hasSameBytes(as: sku) else { return nil }
    return position
  }

  /// The product a scanned barcode belongs to.
  public func product(barcode: Barcode) -> Product? {
    barcodeOwners[barcode.key].flatMap { self[$0] }
  }

  /// Adds the product, or replaces the one with the same SKU in place.
  public mutating func upsert(_ product: Product) {
    if let position = index[product.sku] {
      let changedBarcodes = all[position].barcodes != product.barcodes
      all[position] = product
      if changedBarcodes { rebuildBarcodeOwners() }
    } else {
      index[product.sku] = all.count
      all.append(product)
      claimBarcodes(of: product)
    }
  }

  /// Removes the product with this SKU, if any.
  public mutating func remove(sku: String) {
    guard let position = index[sku] else { return }
    let hadBarcodes = !all[position].barcodes.isEmpty
    all.remove(at: position)
    index.removeAll()
    for (offset, product) in all.enumerated() { index[product.sku] = offset }
    if hadBarcodes { rebuildBarcodeOwners() }
  }

  private mutating func claimBarcodes(of product: Product) {
    for text in product.barcodes {
      guard case .success(let barcode) = Barcode.parse(text),
        barcodeOwners[barcode.key] == nil
      else { continue }
      barcodeOwners[barcode.key] = product.sku
    }
  }

  private mutating func rebuildBarcodeOwners() {
    barcodeOwners.removeAll()
    for product in all { claimBarcodes(of: product) }
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
