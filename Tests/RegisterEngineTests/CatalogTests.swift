import RegisterServer
import Testing

@testable import RegisterEngine

/// The repository root, found from this file's path (Tests/RegisterEngineTests/CatalogTests.swift).
private let repositoryRoot: String = {
  var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
  parts.removeLast(3)
  return parts.joined(separator: "/")
}()

private let goodStore = """
  {"name": "Test Lane", "address": ["1 Main St"], "currency": "USD",
   "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"}}
  """

private func document(store: String = goodStore, products: String) -> String {
  "{\"store\": \(store), \"products\": [\(products)]}"
}

/// A valid product with SKU `sku`, plus `extra` members (which may repeat and so replace one).
private func product(_ sku: String = "P1", _ extra: String = "") -> String {
  let base = [
    ("sku", "\"\(sku)\""), ("name", "\"Plain Tee\""), ("description", "\"\""),
    ("category", "\"Tops\""), ("price", "\"20.00\""),
  ]
  var members: [String] = []
  for (key, value) in base where !extra.contains("\"\(key)\":") {
    members.append("\"\(key)\": \(value)")
  }
  if !extra.isEmpty { members.append(extra) }
  return "{" + members.joined(separator: ", ") + "}"
}

/// The good store with the first occurrence of `target` replaced.
private func store(replacing target: String, with replacement: String) -> String {
  goodStore.replacing(target, with: replacement, maxReplacements: 1)
}

private func parse(_ text: String) throws(CatalogError) -> Catalog {
  try CatalogFile.parse(Array(text.utf8), file: "test.json")
}

@Suite struct CatalogParseTests {
  @Test func goodCatalog() throws {
    let catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test.json")
    #expect(catalog.store.name == "Test Lane")
    #expect(catalog.store.address == ["1 Main St", "Springfield"])
    #expect(catalog.store.currency == .usd)
    #expect(catalog.store.tax.classes.map(\.name) == ["standard", "exempt"])
    #expect(catalog.store.tax.rate(of: "standard") == Percent(millionths: 7_500_000))
    #expect(catalog.store.tax.rate(of: "exempt") == .zero)
    #expect(catalog.store.tax.defaultClass == "standard")
    #expect(catalog.store.receiptWidth == 40)
    #expect(catalog.store.receiptFooter == "Thank you!")
    #expect(catalog.products.map(\.sku) == ["TEE", "JEANS", "GIFT", "HAT"])
    let tee = try #require(catalog.products.first)
    #expect(tee.name == "T-Shirt")
    #expect(tee.description == "Cotton tee")
    #expect(tee.category == "Tops")
    #expect(tee.price.minorUnits == 2000)
    #expect(tee.salePrice?.minorUnits == 1500)
    #expect(tee.unitPrice.minorUnits == 1500)
    #expect(tee.stock == 3)
    #expect(tee.taxClass == nil)
    #expect(catalog.products[1].stock == nil)
    #expect(catalog.products[1].unitPrice.minorUnits == 4999)
    #expect(catalog.products[2].taxClass == "exempt")
    #expect(catalog.products[3].stock == 0)
  }

  @Test func optionalProductFields() throws {
    let text = document(
      products: product(
        "P1",
        #""colors": ["red", "blue"], "image": "images/p1.jpg", "stock": 0, "tax_class": "exempt""#
      ))
    let item = try #require(try parse(text).products.first)
    #expect(item.colors == ["red", "blue"])
    #expect(item.image == "images/p1.jpg")
    #expect(item.stock == 0)
    #expect(item.taxClass == "exempt")
  }

  @Test func serializeRoundTrip() throws {
    let catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test.json")
    let bytes = CatalogFile.serialize(catalog)
    #expect(bytes.last == UInt8(ascii: "\n"))
    #expect(try CatalogFile.parse(bytes, file: "again.json") == catalog)
  }

  /// (products, what the message must name): the product by SKU, the field, and the problem.
  @Test(
    arguments: [
      (product("P1", #""price": 20.00"#), [#"product "P1""#, #"field "price""#, "decimal string"]),
      (product("P1", #""price": "-1.00""#), [#"product "P1""#, #"field "price""#, "negative"]),
      (
        product("P1", #""price": "1.999""#), [#"product "P1""#, #"field "price""#, "decimal place"]
      ),
      (product("P1", #""price": "abc""#), [#"product "P1""#, #"field "price""#, "not an amount"]),
      (
        product("P1", #""sale_price": "20.00""#),
        [#"product "P1""#, #"field "sale_price""#, "below the price 20.00"]
      ),
      (
        product("P1", #""sale_price": "25.00""#),
        [#"product "P1""#, #"field "sale_price""#, "below the price"]
      ),
      (
        product("P1", #""tax_class": "luxury""#),
        [#"product "P1""#, #"field "tax_class""#, #""luxury" is not a tax class"#]
      ),
      (product("P1", #""stock": -1"#), [#"product "P1""#, #"field "stock""#]),
      (product("P1", #""stock": 1.5"#), [#"product "P1""#, #"field "stock""#]),
      (product("P1", #""stock": "3""#), [#"product "P1""#, #"field "stock""#]),
      (product("P1", #""stock": 1000000001"#), [#"product "P1""#, #"field "stock""#]),
      (
        product("P1", #""colour": "red""#),
        [#"product "P1""#, #"field "colour""#, "is not a known field"]
      ),
      (
        #"{"sku": "P1", "description": "", "category": "Tops", "price": "1.00"}"#,
        [#"product "P1""#, #"field "name""#, "is required"]
      ),
      (product("P1", #""name": "  ""#), [#"product "P1""#, #"field "name""#, "empty"]),
      (
        #"{"sku": "P1", "name": "A", "description": "", "category": "Tops"}"#,
        [#"product "P1""#, #"field "price""#, "is required"]
      ),
      (
        #"{"name": "A", "description": "", "category": "Tops", "price": "1.00"}"#,
        ["products[0]", #"field "sku""#, "is required"]
      ),
      (product("bad sku"), [#"field "sku""#, "not a valid SKU"]),
      (
        product("P1") + ", " + product("P2") + ", " + product("P1"),
        [#"product "P1""#, "products[2]", "duplicate SKU", "products[0]"]
      ),
      (
        product("P1") + ", " + product("P2", #""price": 5"#),
        [#"product "P2""#, "products[1]", #"field "price""#]
      ),
    ] as [(String, [String])])
  func badProductNamesProductAndField(products: String, fragments: [String]) {
    let error = #expect(throws: CatalogError.self) { try parse(document(products: products)) }
    guard let error else { return }
    #expect(error.file == "test.json")
    #expect(error.description.hasPrefix("test.json: "))
    for fragment in fragments {
      #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
    }
  }

  @Test(
    arguments: [
      (document(store: #"{"name": "X"}"#, products: ""), ["store.currency", "is required"]),
      (
        document(
          store: store(replacing: #""currency": "USD""#, with: #""currency": "XYZ""#),
          products: ""),
        ["store.currency", "XYZ", "not a supported currency"]
      ),
      (
        document(
          store: store(replacing: #""currency": "USD""#, with: #""currency": 840"#),
          products: ""),
        ["store.currency"]
      ),
      (
        document(
          store: store(replacing: #""7.5""#, with: #""abc""#), products: ""),
        ["store.tax.classes.standard", "not a percentage"]
      ),
      (
        document(
          store: store(replacing: #""7.5""#, with: "7.5"), products: ""),
        ["store.tax.classes.standard", "decimal string"]
      ),
      (
        document(
          store: store(
            replacing: #""default_class": "standard""#, with: #""default_class": "luxury""#),
          products: ""),
        ["store.tax.default_class", "luxury"]
      ),
      (
        document(
          store: store(replacing: #""name": "Test Lane""#, with: #""name": "Test Lane", "x": 1"#),
          products: ""),
        ["store.x", "is not a known field"]
      ),
      (#"{"products": []}"#, ["store", "is required"]),
      (#"{"store": \#(goodStore)}"#, ["products", "is required"]),
      (#"{"store": \#(goodStore), "products": {}}"#, ["products", "array"]),
      (#"{"store": \#(goodStore), "products": [], "extra": 1}"#, ["extra", "not a known field"]),
      (#"[]"#, ["expected an object"]),
    ] as [(String, [String])])
  func badStoreOrDocument(text: String, fragments: [String]) {
    let error = #expect(throws: CatalogError.self) { try parse(text) }
    guard let error else { return }
    #expect(error.file == "test.json")
    for fragment in fragments {
      #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
    }
  }

  @Test func invalidJSONNamesLineAndColumn() {
    let text = "{\n  \"store\": {,\n}"
    let error = #expect(throws: CatalogError.self) { try parse(text) }
    #expect(error?.file == "test.json")
    #expect(
      error?.message.contains("not valid JSON at line 2, column 13") == true,
      "\(String(describing: error))")
  }

  @Test func invalidUTF8IsRefused() {
    let error = #expect(throws: CatalogError.self) {
      try CatalogFile.parse([0x7B, 0xFF, 0x7D], file: "bin.json")
    }
    #expect(error?.file == "bin.json")
    #expect(error?.message.contains("UTF-8") == true)
  }

  @Test func missingFileNamesTheFile() {
    let path = repositoryRoot + "/Data/no-such-catalog.json"
    let error = #expect(throws: CatalogError.self) { try CatalogFile.load(path) }
    #expect(error?.file == path)
    #expect(error?.description.hasPrefix(path) == true)
    #expect(error?.message.contains("cannot read") == true)
  }
}

@Suite struct ShippedCatalogTests {
  @Test func dataProductsJSONIsValidAndVaried() throws {
    let catalog = try CatalogFile.load(repositoryRoot + "/Data/products.json")
    let products = catalog.products
    #expect(products.count >= 20)
    #expect(catalog.store.currency == .usd)
    #expect(!catalog.store.name.isEmpty)
    #expect(!catalog.store.address.isEmpty)
    #expect(catalog.store.tax.rate(of: "standard") == Percent(millionths: 7_500_000))
    #expect(catalog.store.tax.rate(of: "exempt") == .zero)
    #expect(catalog.store.tax.defaultClass == "standard")
    #expect(products.contains { $0.salePrice != nil })
    #expect(products.contains { $0.stock == 0 })
    #expect(products.contains { $0.stock == nil })
    #expect(products.contains { ($0.stock ?? 0) > 0 && ($0.stock ?? 0) <= 3 })
    #expect(products.contains { $0.taxClass == "exempt" })
    #expect(products.allSatisfy { !$0.category.isEmpty })
    #expect(products.allSatisfy { product in product.salePrice.map { $0 < product.price } ?? true })
    #expect(Set(products.map(\.sku)).count == products.count)
  }

  @Test func dataProductsJSONRoundTrips() throws {
    let catalog = try CatalogFile.load(repositoryRoot + "/Data/products.json")
    let again = try CatalogFile.parse(CatalogFile.serialize(catalog), file: "round-trip.json")
    #expect(again == catalog)
  }
}

/// The store settings in a file of their own (`--store`), apart from a chain's catalog.
@Suite struct StoreFileTests {
  private func storeFile(_ text: String) throws(CatalogError) -> StoreSettings {
    try CatalogFile.parseStore(Array(text.utf8), file: "store.json")
  }

  private func catalog(_ text: String, store: StoreSettings) throws(CatalogError) -> Catalog {
    try CatalogFile.parse(Array(text.utf8), file: "products.json", store: store)
  }

  @Test func theShippedExampleStoreFileFitsTheShippedCatalog() throws {
    let catalog = try CatalogFile.load(
      repositoryRoot + "/Data/products.json", storePath: repositoryRoot + "/contrib/store.json")
    #expect(catalog.store.name == "Lane & Thread Outfitters, Lane 2")
    #expect(catalog.products.count > 10)
  }

  @Test func wrappedAndBareStoreFilesReadTheSame() throws {
    let bare = try storeFile(goodStore)
    let wrapped = try storeFile("{\"store\": \(goodStore)}")
    #expect(bare == wrapped)
    #expect(bare.name == "Test Lane")
  }

  @Test func aCatalogWithoutAStoreSectionTakesTheStoreFile() throws {
    let store = try storeFile(goodStore)
    let shop = try catalog("{\"products\": [\(product())]}", store: store)
    #expect(shop.store == store)
    #expect(shop.products.map(\.sku) == ["P1"])
    // Without a store file the section is required, and the message says how else to give it.
    #expect {
      try parse("{\"products\": [\(product())]}")
    } throws: { error in
      "\(error)".contains("store") && "\(error)".contains("file of their own")
    }
  }

  @Test func theLanesStoreFileWinsOverTheCatalogsSection() throws {
    let lane = try storeFile(store(replacing: "Test Lane", with: "Lane 7"))
    let shop = try catalog(document(products: product()), store: lane)
    #expect(shop.store.name == "Lane 7")
    #expect(
      shop == Catalog(store: lane, products: try parse(document(products: product())).products))
  }

  @Test func productsAreCheckedAgainstTheStoreFilesTaxClasses() throws {
    let lane = try storeFile(goodStore)
    #expect {
      try catalog(
        "{\"products\": [\(product("P9", "\"tax_class\": \"luxury\""))]}", store: lane)
    } throws: { error in
      "\(error)".contains("P9") && "\(error)".contains("tax_class")
    }
  }

  @Test(arguments: [
    ("[1]", "must be an object"),
    ("{\"store\": \(goodStore), \"products\": []}", "catalog file"),
    ("{\"name\": \"x\"}", "store"),
    ("{\"store\": ", "line 1"),
  ])
  func badStoreFilesAreRefusedWithTheFileNamed(text: String, fragment: String) {
    #expect {
      try storeFile(text)
    } throws: { error in
      "\(error)".contains("store.json") && "\(error)".contains(fragment)
    }
  }
}

/// The SKU check reads bytes; the rule is stated on characters. The two agree for every
/// character of the ASCII range and beyond it, alone, at the length limit and past it.
@Suite struct SKURuleTests {
  static let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")

  static func ruleSaysValid(_ sku: String) -> Bool {
    // Whatever its digits look like: "4242424242424242" and EAN-13 codes are SKUs.
    !sku.isEmpty && sku.count <= 32 && sku.allSatisfy { allowed.contains($0) }
  }

  static func checkSaysValid(_ sku: String) -> Bool {
    (try? validateSKU(sku, path: "sku")) != nil
  }

  @Test func theByteCheckAgreesWithTheCharacterRule() {
    var samples: [String] = ["", "A", String(repeating: "a", count: 32)]
    samples.append(String(repeating: "a", count: 33))
    samples.append(String(repeating: "é", count: 16))
    samples.append("4242424242424242")
    samples.append("SKU-4242-4242-4242-4242")
    for scalar in (0...0x7F).compactMap(Unicode.Scalar.init) + ["é", "\u{301}", "Ａ", "٣", "ß"] {
      let character = String(scalar)
      samples += [character, "A" + character, character + "1", "TEE" + character + "M"]
      samples.append(String(repeating: "a", count: 31) + character)
      samples.append(String(repeating: "a", count: 32) + character)
    }
    samples.append("e\u{301}")
    for sku in samples {
      #expect(Self.checkSaysValid(sku) == Self.ruleSaysValid(sku), "\(sku.debugDescription)")
    }
    #expect(samples.filter(Self.checkSaysValid).count > 100, "valid ones are among the samples")
  }
}

@Suite struct ProductListTests {
  static func product(_ sku: String, _ name: String, barcodes: [String] = []) throws -> Product {
    var product = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "t.json").products[0]
    product.sku = sku
    product.name = name
    product.barcodes = barcodes
    return product
  }

  /// Built from a list, each SKU found where it is listed; a SKU listed twice keeps its first
  /// place with the later product, and a barcode stays with the first product that has it.
  @Test func aListIsIndexedAndASKUListedTwiceIsReplacedInPlace() throws {
    let a = try Self.product("A", "first A", barcodes: ["036000291452"])
    let b = try Self.product("B", "B", barcodes: ["036000291452", "73513537"])
    let unique = ProductList([a, b])
    #expect(unique.all.map(\.sku) == ["A", "B"])
    #expect(unique["B"]?.name == "B")
    #expect(unique.product(barcode: try Barcode.parse("036000291452").get())?.sku == "A")
    #expect(unique.product(barcode: try Barcode.parse("73513537").get())?.sku == "B")
    let later = try Self.product("A", "second A")
    let twice = ProductList([a, b, later])
    #expect(twice.count == 2)
    #expect(twice.all.map(\.name) == ["second A", "B"])
    #expect(twice["A"]?.name == "second A")
    #expect(twice.product(barcode: try Barcode.parse("036000291452").get())?.sku == "B")
  }
}
