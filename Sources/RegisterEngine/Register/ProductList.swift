/// The catalog's products in file order, with lookup by SKU and by barcode. Kept in chunked
/// storage (`ChunkedArray`, `ChunkedDictionary`): a sale's stock change or a product edit
/// copies one chunk of the list, not the whole catalog, while a copy of the register is held
/// (a snapshot being written, an export worked out off the loop).
///
/// Each product keeps its slot while it is listed. Removing one empties its slot, and changing
/// a product's barcodes touches only those barcodes, so neither costs a pass over the catalog:
/// with 100,000 products a `product_remove` was a rebuild of every index on the event loop,
/// about 80–110 ms for which every lane waited (and again at start-up, for each removal
/// replayed). The empty slots are squeezed out once they outnumber the products
/// (`compactionMinimum` at least), one pass for at least as many removals.
public struct ProductList: Sendable {
  /// The products in catalog order; nil where one was removed. Each is kept in a box of its
  /// own: the first change to a chunk after a copy (a snapshot's) copies 256
  /// references, not 256 products with every string and array in them (about 100,000
  /// instructions, which a sale's stock change paid on the event loop).
  private var slots = ChunkedArray<ProductBox?>()
  /// How many products each chunk of `slots` lists: where a product stands in the catalog's
  /// order without counting it out a slot at a time.
  private var listedInChunk: [Int] = []
  /// The slot of each SKU.
  private var index = ChunkedDictionary<String, Int>()
  /// The SKU each barcode (by its `Barcode.key`) belongs to. The catalog file and the
  /// product ops keep barcodes unique; should two products ever share one (a product added
  /// through the protocol, then the same code in an imported file), the one listed first keeps
  /// it, the same way after every restart.
  private var barcodeOwners = ChunkedDictionary<String, String>()
  /// How many listed products carry each barcode (by key): more than one only in that case.
  private var barcodeHolders = ChunkedDictionary<String, Int>()
  /// How many products are listed.
  public private(set) var count = 0

  /// Empty slots are kept until there are this many and more than products.
  static var compactionMinimum: Int { 4096 }
  private static var chunkShift: Int { ChunkedArray<ProductBox?>.chunkShift }

  public init(_ products: [Product] = []) {
    // Nearly always every SKU is new: the list is taken as it is and indexed in one pass. A
    // SKU listed twice is upserted as it comes, the later one replacing the earlier in its
    // place.
    var index = ChunkedDictionary<String, Int>()
    for (offset, product) in products.enumerated()
    where index.updateValue(offset, forKey: product.sku) != nil {
      for product in products { upsert(product) }
      return
    }
    self.slots = ChunkedArray(products.lazy.map { ProductBox($0) })
    self.index = index
    self.count = products.count
    let size = ChunkedArray<ProductBox?>.chunkSize
    self.listedInChunk = stride(from: 0, to: products.count, by: size).map {
      min(size, products.count - $0)
    }
    for (slot, product) in products.enumerated() where !product.barcodes.isEmpty {
      claimBarcodes(of: product, at: slot)
    }
  }

  /// The listed products in catalog order.
  public var all: ListedProducts { ListedProducts(slots: slots, count: count) }

  /// The product whose SKU is `sku`, byte for byte. The index is a `String` dictionary, which
  /// matches canonically equivalent text (a Kelvin sign for a "K"); such a look-alike names no
  /// product, so every event and receipt carries the SKU exactly as the catalog has it.
  public subscript(sku: String) -> Product? {
    slot(sku: sku).flatMap { slots[$0]?.product }
  }

  /// The slot of the product whose SKU is `sku` (byte for byte, as `self[sku]`).
  private func slot(sku: String) -> Int? {
    guard let slot = index[sku], let box = slots[slot], box.product.sku.hasSameBytes(as: sku)
    else { return nil }
    return slot
  }

  /// The product a scanned barcode belongs to.
  public func product(barcode: Barcode) -> Product? {
    barcodeOwners[barcode.key].flatMap { self[$0] }
  }

  /// At most `limit` products in catalog order from the one after `afterSKU` (nil: from the
  /// first), and how many follow them; nil when no product has SKU `afterSKU`.
  public func page(after afterSKU: String?, limit: Int) -> (products: [Product], remaining: Int)? {
    var next = 0
    var before = 0
    if let afterSKU {
      guard let slot = slot(sku: afterSKU) else { return nil }
      next = slot + 1
      before = listed(before: next)
    }
    let wanted = min(max(0, limit), count - before)
    var products: [Product] = []
    products.reserveCapacity(wanted)
    while products.count < wanted && next < slots.count {
      if let box = slots[next] { products.append(box.product) }
      next += 1
    }
    return (products, count - before - products.count)
  }

  /// How many products are listed in the slots before `slot`.
  private func listed(before slot: Int) -> Int {
    let chunk = slot >> Self.chunkShift
    var total = listedInChunk[..<chunk].reduce(0, +)
    for earlier in (chunk << Self.chunkShift)..<slot where slots[earlier] != nil { total += 1 }
    return total
  }

  /// Adds the product, or replaces the one with the same SKU in place.
  public mutating func upsert(_ product: Product) {
    if let slot = index[product.sku], let old = slots[slot]?.product {
      let changedBarcodes = old.barcodes != product.barcodes
      if changedBarcodes { releaseBarcodes(of: old, at: slot) }
      slots[slot] = ProductBox(product)
      if changedBarcodes { claimBarcodes(of: product, at: slot) }
    } else {
      let slot = slots.count
      slots.append(ProductBox(product))
      if slot >> Self.chunkShift == listedInChunk.count { listedInChunk.append(0) }
      listedInChunk[slot >> Self.chunkShift] += 1
      count += 1
      index[product.sku] = slot
      claimBarcodes(of: product, at: slot)
    }
  }

  /// Removes the product with this SKU, if any.
  public mutating func remove(sku: String) {
    guard let slot = index[sku], let product = slots[slot]?.product else { return }
    index.removeValue(forKey: product.sku)
    slots[slot] = nil
    listedInChunk[slot >> Self.chunkShift] -= 1
    count -= 1
    releaseBarcodes(of: product, at: slot)
    let empty = slots.count - count
    if empty >= Self.compactionMinimum && empty > count { self = ProductList(Array(all)) }
  }

  /// The distinct barcode keys of `product`'s barcodes that parse (one that does not is
  /// ignored, as the catalog file's checks would not have let it in).
  private static func barcodeKeys(of product: Product) -> [String] {
    var keys: [String] = []
    for text in product.barcodes {
      guard case .success(let barcode) = Barcode.parse(text), !keys.contains(barcode.key)
      else { continue }
      keys.append(barcode.key)
    }
    return keys
  }

  /// Counts the product at `slot` as carrying its barcodes, and makes it the owner of each
  /// that no product before it carries.
  private mutating func claimBarcodes(of product: Product, at slot: Int) {
    for key in Self.barcodeKeys(of: product) {
      barcodeHolders[key, default: 0] += 1
      if let owner = barcodeOwners[key], let ownerSlot = index[owner], ownerSlot < slot {
        continue
      }
      barcodeOwners[key] = product.sku
    }
  }

  /// Stops counting the product at `slot` (removed, or about to change its barcodes) as
  /// carrying its barcodes; a barcode it owned goes to the first other product that carries
  /// it, found by a pass over the catalog only when there is one.
  private mutating func releaseBarcodes(of product: Product, at slot: Int) {
    for key in Self.barcodeKeys(of: product) {
      let holders = (barcodeHolders[key] ?? 1) - 1
      barcodeHolders[key] = holders > 0 ? holders : nil
      guard let owner = barcodeOwners[key], owner.hasSameBytes(as: product.sku) else { continue }
      barcodeOwners[key] = nil
      guard holders > 0 else { continue }
      for (other, candidate) in slots.enumerated() where other != slot {
        if let candidate, Self.barcodeKeys(of: candidate.product).contains(key) {
          barcodeOwners[key] = candidate.product.sku
          break
        }
      }
    }
  }

  /// How many chunks of the list this one and `other` share (not copied), and how many it
  /// has: what a test reads to see that a change copied one chunk, not all of them.
  func sharedChunks(with other: ProductList) -> Int { slots.sharedChunks(with: other.slots) }
  var chunkCount: Int { slots.chunkCount }
  /// How many products this list and `other` hold in the same box, not copied.
  func sharedProducts(with other: ProductList) -> Int {
    zip(slots, other.slots).count { mine, theirs in
      guard let mine, let theirs else { return false }
      return mine === theirs
    }
  }
  /// How many buckets of the SKU index and of the barcode owners this one and `other` share.
  func sharedBuckets(with other: ProductList) -> (index: Int, barcodes: Int) {
    (index.sharedBuckets(with: other.index), barcodeOwners.sharedBuckets(with: other.barcodeOwners))
  }

  /// Changes a tracked product's stock by `delta` (untracked products are left alone).
  mutating func adjustStock(sku: String, by delta: Int64) {
    guard let slot = index[sku], var product = slots[slot]?.product, let stock = product.stock
    else { return }
    // `decide` keeps stock from 0 up (and returns cannot take it near the counters' limit); a
    // journal that says otherwise is clamped to what a snapshot holds, rather than allowed to
    // wrap, trap or leave a register whose snapshot would not read back.
    let (sum, overflow) = stock.addingReportingOverflow(delta)
    let range = 0...IntegerRanges.maximumCounter
    product.stock =
      overflow
      ? (delta < 0 ? range.lowerBound : range.upperBound)
      : min(max(sum, range.lowerBound), range.upperBound)
    slots[slot] = ProductBox(product)
  }
}

extension ProductList: Equatable {
  /// The same products in the same order (where removed ones left their slots does not count).
  public static func == (lhs: ProductList, rhs: ProductList) -> Bool {
    lhs.count == rhs.count && lhs.all.elementsEqual(rhs.all)
  }
}

/// The listed products of a `ProductList` in catalog order (the removed ones' slots skipped).
public struct ListedProducts: Sequence, Sendable, CustomStringConvertible {
  fileprivate let slots: ChunkedArray<ProductBox?>
  /// How many products there are.
  public let count: Int

  public var underestimatedCount: Int { count }

  public func makeIterator() -> Iterator { Iterator(slots: slots.makeIterator()) }

  public struct Iterator: IteratorProtocol {
    fileprivate var slots: IndexingIterator<ChunkedArray<ProductBox?>>

    public mutating func next() -> Product? {
      while let slot = slots.next() {
        if let box = slot { return box.product }
      }
      return nil
    }
  }

  /// As an `Array` of the same products writes itself.
  public var description: String { Array(self).description }
}

/// One product, shared by every copy of the list until it changes (then replaced whole).
final class ProductBox: Sendable {
  let product: Product

  init(_ product: Product) {
    self.product = product
  }
}
