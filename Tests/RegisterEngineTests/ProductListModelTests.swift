import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `ProductList` against the plainest model of what it promises: an array of products in
/// catalog order, a SKU found by searching it, a barcode belonging to the first product that
/// lists it, a page the next products after a SKU. Random adds, edits (barcodes among them,
/// duplicates too) and removals, enough of them that the emptied slots are squeezed out
/// several times.
@Suite struct ProductListModelTests {
  /// An EAN-13 with its check digit, from twelve digits.
  static func ean13(_ number: Int) -> String {
    let text = String(number)
    let digits = String(repeating: "0", count: max(0, 12 - text.count)) + text
    let sum = digits.enumerated().reduce(0) { total, pair in
      total + (pair.element.wholeNumberValue ?? 0) * (pair.offset % 2 == 0 ? 1 : 3)
    }
    return digits + String((10 - sum % 10) % 10)
  }

  struct Model {
    var products: [Product] = []

    mutating func upsert(_ product: Product) {
      if let at = products.firstIndex(where: { $0.sku == product.sku }) {
        products[at] = product
      } else {
        products.append(product)
      }
    }

    mutating func remove(sku: String) {
      products.removeAll { $0.sku == sku }
    }

    func owner(of barcode: Barcode) -> String? {
      products.first { product in
        product.barcodes.contains { (try? Barcode.parse($0).get())?.key == barcode.key }
      }?.sku
    }

    func page(after sku: String?, limit: Int) -> (products: [Product], remaining: Int)? {
      var start = 0
      if let sku {
        guard let at = products.firstIndex(where: { $0.sku == sku }) else { return nil }
        start = at + 1
      }
      let end = min(products.count, start + limit)
      return (Array(products[start..<end]), products.count - end)
    }
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func aListDoesWhatThePlainModelDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let template = try ProductListTests.product("T", "template")
    let codes = (0..<40).map { Self.ean13(400_000_000_000 + $0) }
    var list = ProductList()
    var model = Model()
    var skuCount = 0
    func someProduct(sku: String, step: Int) -> Product {
      var product = template
      product.sku = sku
      product.name = "n\(step)"
      let barcodes = Int.random(in: 0..<4, using: &random)
      product.barcodes = (0..<barcodes).map { _ in codes.randomElement(using: &random)! }
      return product
    }
    func check(_ step: Int) throws {
      #expect(list.count == model.products.count, "step \(step)")
      #expect(Array(list.all) == model.products, "step \(step)")
      for code in codes.prefix(12) {
        let barcode = try Barcode.parse(code).get()
        #expect(list.product(barcode: barcode)?.sku == model.owner(of: barcode), "step \(step)")
      }
      let after =
        model.products.isEmpty || Bool.random(using: &random)
        ? nil : model.products.randomElement(using: &random)!.sku
      let limit = Int.random(in: 0..<300, using: &random)
      let page = list.page(after: after, limit: limit)
      let expected = model.page(after: after, limit: limit)
      #expect(page?.products == expected?.products, "step \(step)")
      #expect(page?.remaining == expected?.remaining, "step \(step)")
      #expect(list == ProductList(model.products), "step \(step)")
    }
    // Grows to about 6,000 products, shrinks to a few hundred, grows again: the emptied slots
    // are squeezed out on the way down.
    for step in 0..<24_000 {
      let growing = (step / 6_000) % 2 == 0
      let choice = Int.random(in: 0..<100, using: &random)
      if model.products.isEmpty || choice < (growing ? 60 : 15) {
        skuCount += 1
        let product = someProduct(sku: "S\(skuCount)", step: step)
        list.upsert(product)
        model.upsert(product)
      } else if choice < (growing ? 80 : 30) {
        let sku = model.products.randomElement(using: &random)!.sku
        let product = someProduct(sku: sku, step: step)
        list.upsert(product)
        model.upsert(product)
      } else {
        let sku = model.products.randomElement(using: &random)!.sku
        list.remove(sku: sku)
        model.remove(sku: sku)
        #expect(list[sku] == nil)
      }
      if step % 500 == 0 || step > 23_900 { try check(step) }
    }
    // A page after a SKU no longer listed says so.
    #expect(list.page(after: "S1_gone", limit: 5) == nil)
  }

  /// A removal, or a change of a product's barcodes, touches that product's slot and its
  /// own entries in the indexes, not the whole catalog: a copy kept from before (a group's
  /// checkpoint) still shares every other chunk and bucket. Rebuilding the indexes, as a
  /// removal did, would copy every bucket (and, at 100,000 products, hold every lane for
  /// about 0.1 s).
  @Test func aRemovalOrABarcodeChangeTouchesOnlyItsOwnEntries() throws {
    let template = try ProductListTests.product("T", "template")
    let products = (0..<5_000).map { number in
      var product = template
      product.sku = "P\(number)"
      product.barcodes = [Self.ean13(500_000_000_000 + number)]
      return product
    }
    let before = ProductList(products)
    var list = before
    list.remove(sku: "P1234")
    #expect(list.sharedChunks(with: before) == before.chunkCount - 1)
    #expect(list.sharedBuckets(with: before) == (index: 255, barcodes: 255))
    #expect(list.product(barcode: try Barcode.parse(Self.ean13(500_000_001_234)).get()) == nil)

    // A stock change copies the references of its chunk, not the products in it.
    list = before
    list.adjustStock(sku: "P300", by: -1)
    #expect(list.sharedProducts(with: before) == 4_999)
    #expect(list["P300"]?.stock == before["P300"]?.stock.map { $0 - 1 })

    var edited = products[77]
    edited.barcodes = [Self.ean13(600_000_000_000)]
    list = before
    list.upsert(edited)
    #expect(list.sharedChunks(with: before) == before.chunkCount - 1)
    let shared = list.sharedBuckets(with: before)
    #expect(shared.index == 256 && shared.barcodes >= 254)
    #expect(
      list.product(barcode: try Barcode.parse(Self.ean13(600_000_000_000)).get())?.sku == "P77")
  }
}
