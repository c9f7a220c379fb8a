import RegisterServer
import Testing

@testable import RegisterEngine

/// A catalog whose products list their stock at the chain's other stores, with a price-label
/// product and price-embedded barcodes on (prefix 22).
let chainCatalogJSON = """
  {
    "store": {
      "name": "Chain Lane", "address": [], "currency": "USD",
      "tax": {"classes": {"standard": "10", "exempt": "0"}, "default_class": "standard"},
      "price_barcode_prefixes": ["22"]
    },
    "products": [
      {"sku": "COAT", "name": "Wool Coat", "description": "", "category": "Coats",
       "price": "120.00", "stock": 1, "stores": {"Riverside": 4, "Downtown": 0}},
      {"sku": "SCARF", "name": "Scarf", "description": "", "category": "Accessories",
       "price": "18.00", "stock": 0, "stores": {"Riverside": 2}},
      {"sku": "SOCKS", "name": "Socks", "description": "", "category": "Accessories",
       "price": "6.00"},
      {"sku": "CHEESE", "name": "Deli Cheese", "description": "", "category": "Deli",
       "price": "0.00", "barcodes": ["2212345000005"]},
      {"sku": "GIFT", "name": "Gift Card", "description": "", "category": "Gift Cards",
       "price": "25.00", "gift_card": true, "barcodes": ["2299999000001"]}
    ]
  }
  """

/// Wishlists: a customer's products, kept across restarts, moved onto the order when bought.
@Suite struct WishlistTests {
  func lane() throws -> JournalLane {
    let lane = try JournalLane(catalogJSON: chainCatalogJSON)
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee"))
    try lane.ok(Requests.CustomerAdd(name: "Sam Roe"))
    return lane
  }

  @Test func addListAndRemoveWithAvailability() throws {
    let lane = try lane()
    let first = try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "COAT"))
    #expect(first["wishlist"]?["items"]?.arrayValue?.count == 1)
    // Any product, in stock or not.
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "SCARF"))
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "SOCKS"))
    let list = try lane.ok(Requests.Wishlist(customerID: "C1"))["wishlist"]
    #expect(list?["name"] == .string("Dana Lee"))
    let items = list?["items"]?.arrayValue ?? []
    #expect(items.map { $0["sku"] } == [.string("COAT"), .string("SCARF"), .string("SOCKS")])
    #expect(items[0]["available"] == .int(1))
    #expect(items[0]["in_stock"] == .bool(true))
    #expect(items[0]["stores"]?["Riverside"] == .int(4))
    #expect(items[1]["in_stock"] == .bool(false))
    #expect(items[1]["available"] == .int(0))
    // Untracked stock is always available.
    #expect(items[2]["in_stock"] == .bool(true))
    #expect(items[2]["available"] == nil)
    // Another customer's list is their own.
    let other = try lane.ok(Requests.Wishlist(customerID: "C2"))
    #expect(other["wishlist"]?["items"]?.arrayValue?.isEmpty == true)
    let removed = try lane.ok(Requests.WishlistRemove(customerID: "C1", sku: "SCARF"))
    #expect(
      removed["wishlist"]?["items"]?.arrayValue?.map { $0["sku"] } == [
        .string("COAT"), .string("SOCKS"),
      ])
    // Units held by the open order are not available to the wishlist either.
    try lane.ok(Requests.Add(sku: "COAT"))
    let held = try lane.ok(Requests.Wishlist(customerID: "C1"))
    #expect(held["wishlist"]?["items"]?.arrayValue?.first?["in_stock"] == .bool(false))
  }

  @Test func badRequestsAreRefusedAndChangeNothing() throws {
    let lane = try lane()
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "COAT"))
    let before = lane.register.customerBook
    let cases: [(String, String)] = [
      (#"{"op":"wishlist_add","customer_id":"C9","sku":"COAT"}"#, "customer_not_found"),
      (#"{"op":"wishlist_add","customer_id":"C1","sku":"NOPE"}"#, "unknown_sku"),
      (#"{"op":"wishlist_add","customer_id":"C1","sku":"COAT"}"#, "already_on_wishlist"),
      (#"{"op":"wishlist_remove","customer_id":"C1","sku":"SOCKS"}"#, "not_on_wishlist"),
      (#"{"op":"wishlist_remove","customer_id":"C9","sku":"COAT"}"#, "customer_not_found"),
      (#"{"op":"wishlist_to_order","customer_id":"C2","sku":"COAT"}"#, "not_on_wishlist"),
      (#"{"op":"wishlist","customer_id":"C9"}"#, "customer_not_found"),
      (#"{"op":"wishlist_add","customer_id":"C1"}"#, "bad_request"),
      (#"{"op":"wishlist_add","customer_id":1,"sku":"COAT"}"#, "bad_request"),
      (#"{"op":"wishlist_add","customer_id":"C1","sku":"COAT","extra":1}"#, "bad_request"),
    ]
    for (line, code) in cases {
      #expect(try lane.send(line).errorCode == code, "\(line)")
    }
    #expect(lane.register.customerBook == before)
  }

  @Test func aWishlistIsBounded() throws {
    let lane = try lane()
    for index in 0..<CustomerBook.maximumWishlist {
      try lane.ok(
        Requests.ProductAdd(
          product: .object([
            "sku": .string("P\(index)"), "name": "P", "description": "", "category": "C",
            "price": "1.00",
          ]))
      )
      try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "P\(index)"))
    }
    let full = try lane.send(Requests.WishlistAdd(customerID: "C1", sku: "COAT"))
    #expect(full.errorCode == "wishlist_full")
    #expect(lane.register.customerBook.wishlist("C1").count == CustomerBook.maximumWishlist)
  }

  @Test func toOrderMovesOneUnitAndAnUnavailableProductStays() throws {
    let lane = try lane()
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "COAT"))
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "SCARF"))
    let moved = try lane.ok(Requests.WishlistToOrder(customerID: "C1", sku: "COAT"))
    #expect(moved["lines"]?.arrayValue?.map { $0["sku"] } == [.string("COAT")])
    #expect(moved["total"] == .string("132.00"))
    #expect(moved["wishlist"]?["items"]?.arrayValue?.map { $0["sku"] } == [.string("SCARF")])
    let refused = try lane.send(Requests.WishlistToOrder(customerID: "C1", sku: "SCARF"))
    #expect(refused.errorCode == "out_of_stock")
    #expect(refused["error"]?["message"]?.stringValue?.contains("stays on C1's wishlist") == true)
    #expect(lane.register.customerBook.wishlist("C1") == ["SCARF"])
    #expect(lane.register.order.lines.count == 1)
    // The journal says where it went.
    let last = lane.scan().records.last { $0.type == "wishlist_removed" }
    #expect(last?.data["order_id"] == .int(lane.register.order.id))
  }

  @Test func aDiscontinuedProductStaysListedButCannotBeMoved() throws {
    let lane = try lane()
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "SOCKS"))
    try lane.ok(Requests.ProductRemove(sku: "SOCKS"))
    let list = try lane.ok(Requests.Wishlist(customerID: "C1"))
    #expect(list["wishlist"]?["items"]?.arrayValue?.first?["discontinued"] == .bool(true))
    let refused = try lane.send(Requests.WishlistToOrder(customerID: "C1", sku: "SOCKS"))
    #expect(refused.errorCode == "unknown_sku")
    // It can still be taken off.
    try lane.ok(Requests.WishlistRemove(customerID: "C1", sku: "SOCKS"))
  }

  @Test func wishlistsReplayAndSurviveASnapshot() throws {
    let lane = try lane()
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "COAT"))
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "SOCKS"))
    try lane.ok(Requests.WishlistAdd(customerID: "C2", sku: "SCARF"))
    try lane.ok(Requests.WishlistToOrder(customerID: "C1", sku: "SOCKS"))
    try lane.ok(Requests.WishlistRemove(customerID: "C2", sku: "SCARF"))
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.customerBook == lane.register.customerBook)
    #expect(replayed.customerBook.wishlists == ["C1": ["COAT"]])
    #expect(RegisterState(replayed) == RegisterState(lane.register))
    let bytes = lane.register.snapshotValue().serializedBytes
    let restored = try Register(snapshot: try JSONParser.parse(bytes))
    #expect(restored.customerBook == lane.register.customerBook)
    // A snapshot from before wishlists (no member) loads with none.
    guard case .object(var whole) = try JSONParser.parse(bytes),
      case .object(var book)? = whole["customer_book"]
    else {
      Issue.record("the snapshot has no customer_book")
      return
    }
    book["wishlists"] = nil
    whole["customer_book"] = .object(book)
    let older = try Register(snapshot: .object(whole))
    #expect(older.customerBook.wishlists.isEmpty)
    #expect(older.customers == lane.register.customers)
  }

  @Test func aSnapshotWithABadWishlistIsRefused() throws {
    let lane = try lane()
    try lane.ok(Requests.WishlistAdd(customerID: "C1", sku: "COAT"))
    let text = lane.register.snapshotValue().serialized
    for bad in [
      #"{"customer_id":"C9","skus":["COAT"]}"#, #"{"customer_id":"C1","skus":[]}"#,
      #"{"customer_id":"C1","skus":["COAT","COAT"]}"#,
    ] {
      let damaged = text.replacingOccurrences(
        of: #"{"customer_id":"C1","skus":["COAT"]}"#, with: bad)
      #expect(damaged != text)
      #expect(throws: JSONShapeError.self) {
        try Register(snapshot: try JSONParser.parse(damaged))
      }
    }
  }
}

/// A product's stock at the chain's other stores, and the `product` lookup.
@Suite struct ProductStoresTests {
  @Test func catalogAndProductShowOtherStores() throws {
    let lane = try JournalLane(catalogJSON: chainCatalogJSON)
    let catalog = try lane.ok(Requests.Catalog())
    let coat = catalog["products"]?.arrayValue?.first { $0["sku"] == .string("COAT") }
    #expect(coat?["stores"]?["Riverside"] == .int(4))
    #expect(coat?["stores"]?["Downtown"] == .int(0))
    let product = try lane.ok(Requests.ProductLookup(sku: "SCARF"))["product"]
    #expect(product?["available"] == .int(0))
    #expect(product?["stores"]?["Riverside"] == .int(2))
    // By a barcode it carries, too.
    let byCode = try lane.ok(Requests.ProductLookup(sku: "2212345000005"))
    #expect(byCode["product"]?["sku"] == .string("CHEESE"))
    #expect(try lane.send(Requests.ProductLookup(sku: "NOPE")).errorCode == "unknown_sku")
    #expect(try lane.send(#"{"op":"product"}"#).errorCode == "bad_request")
    // product_update changes the other stores' counts; the catalog export keeps them.
    try lane.ok(
      Requests.ProductUpdate(
        sku: "COAT", changes: JSONObject(["stores": .object(["Riverside": 3])])))
    let updated = try lane.ok(Requests.ProductLookup(sku: "COAT"))["product"]
    #expect(updated?["stores"]?.serialized == #"{"Riverside":3}"#)
    let export = try lane.ok(Requests.CatalogExport())
    let exported = export["catalog"]?["products"]?.arrayValue?.first {
      $0["sku"] == .string("COAT")
    }
    #expect(exported?["stores"]?["Riverside"] == .int(3))
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.products["COAT"]?.stores == [StoreStock(store: "Riverside", units: 3)])
  }

  @Test func badStoresAreRefusedNamingTheField() throws {
    let base = #"{"sku":"X","name":"X","description":"","category":"C","price":"1.00","stores":"#
    let cases: [(String, String)] = [
      (#"["Riverside"]"#, "expected an object"),
      (#"{"Riverside":-1}"#, "from 0 to"),
      (#"{"Riverside":"4"}"#, "expected an integer"),
      (#"{"Riverside":1.5}"#, "expected an integer"),
      (#"{"":1}"#, "must not be empty"),
      (#"{"Rive\u0001rside":1}"#, "control characters"),
    ]
    let lane = try JournalLane(catalogJSON: chainCatalogJSON)
    for (stores, message) in cases {
      let reply = try lane.send(#"{"op":"product_add","product":\#(base)\#(stores)}}"#)
      #expect(reply.errorCode == "invalid_product", "\(stores)")
      #expect(
        reply["error"]?["message"]?.stringValue?.contains(message) == true,
        "\(stores): \(reply.serialized)")
      #expect(
        reply["error"]?["message"]?.stringValue?.contains("stores") == true, "\(stores)")
    }
    var many = JSONObject()
    for index in 0...Product.maximumStores { many["Store \(index)"] = .int(1) }
    let tooMany = try lane.send(
      #"{"op":"product_add","product":\#(base)\#(JSONValue.object(many).serialized)}}"#)
    #expect(tooMany.errorCode == "invalid_product")
    #expect(lane.register.products["X"] == nil)
  }
}

/// Price-embedded barcodes: `PP IIIII VVVVV C`, the price on the label.
@Suite struct PriceBarcodeTests {
  @Test func theCodeReadsAsTheItemsBaseCodeAndItsPrice() {
    guard case .success(let code) = Barcode.parse("2212345012992") else {
      Issue.record("not a barcode")
      return
    }
    let embedded = code.priceEmbedded(prefixes: ["22"])
    #expect(embedded?.base.digits == "2212345000005")
    #expect(embedded?.price == 1299)
    // Another prefix, the item's own code (price zero), and an EAN-8 are not price codes.
    #expect(code.priceEmbedded(prefixes: ["23"]) == nil)
    if case .success(let base) = Barcode.parse("2212345000005") {
      #expect(base.priceEmbedded(prefixes: ["22"]) == nil)
    }
    if case .success(let short) = Barcode.parse("96385074") {
      #expect(short.priceEmbedded(prefixes: ["22"]) == nil)
    }
  }

  @Test func scanningALabelRingsTheItemUpAtTheLabelsPrice() throws {
    let lane = try JournalLane(catalogJSON: chainCatalogJSON)
    let first = try lane.ok(Requests.Scan(code: "2212345012992"))
    let line = first["lines"]?.arrayValue?.last
    #expect(line?["sku"] == .string("CHEESE"))
    #expect(line?["unit_price"] == .string("12.99"))
    // Two labels, two lines at their own prices; tax on both.
    let second = try lane.ok(Requests.Scan(code: "2212345005000"))
    #expect(
      second["lines"]?.arrayValue?.map { $0["unit_price"] } == [
        .string("12.99"), .string("5.00"),
      ])
    #expect(second["subtotal"] == .string("17.99"))
    #expect(second["tax"] == .string("1.80"))
    #expect(second["total"] == .string("19.79"))
    // The price is on the journaled line: a replay does not read the label again.
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    #expect(sale["receipt"]?["text"]?.stringValue?.contains("12.99") == true)
    let replayed = try Register.replaying(lane.scan().records)
    #expect(RegisterState(replayed) == RegisterState(lane.register))
  }

  @Test func labelsThatNameNothingOrTheWrongProductAreRefused() throws {
    let lane = try JournalLane(catalogJSON: chainCatalogJSON)
    let before = lane.register.order
    // Item 99999's code belongs to a gift card: not sold by a label.
    #expect(try lane.send(Requests.Scan(code: "2299999010000")).errorCode == "invalid_barcode")
    // No product has item 12345 under prefix 23, which is not a price prefix here anyway.
    #expect(try lane.send(Requests.Scan(code: "2312345009999")).errorCode == "unknown_barcode")
    // Prefix 22, an item nobody has.
    let unknown = try lane.send(Requests.Scan(code: "2200001001008"))
    #expect(unknown.errorCode == "unknown_barcode")
    #expect(unknown["error"]?["message"]?.stringValue?.contains("2200001000001") == true)
    #expect(lane.register.order == before)
  }

  @Test func withoutTheSettingALabelIsAnUnknownCode() throws {
    let plain = chainCatalogJSON.replacingOccurrences(
      of: #""price_barcode_prefixes": ["22"]"#, with: #""cash_rounding": "0.05""#)
    let lane = try JournalLane(catalogJSON: plain)
    #expect(try lane.send(Requests.Scan(code: "2212345012992")).errorCode == "unknown_barcode")
    // The item's own code still scans, at the catalog price.
    #expect(try lane.ok(Requests.Scan(code: "2212345000005"))["total"] == .string("0.00"))
  }

  @Test func badPrefixesAreRefusedAtStartUp() {
    for bad in [#"["19"]"#, #"["2"]"#, #"["22","22"]"#, #"[22]"#, #""22""#] {
      let text = chainCatalogJSON.replacingOccurrences(
        of: #""price_barcode_prefixes": ["22"]"#, with: #""price_barcode_prefixes": \#(bad)"#)
      #expect(throws: (any Error).self, "\(bad)") {
        try CatalogFile.parse(Array(text.utf8), file: "chain.json")
      }
    }
  }
}
