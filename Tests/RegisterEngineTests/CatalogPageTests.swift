import Testing

@testable import RegisterEngine

/// `catalog` lists at most `limit` products (1000 unless the request says), in catalog order,
/// from the one after `after_sku`; `remaining` says how many follow a page that is not the
/// last. No reply lists a whole 100,000-product catalog at once.
@Suite struct CatalogPageTests {
  /// A lane whose catalog holds `count` products, P1 … P`count`.
  static func lane(products count: Int) throws -> JournalLane {
    let products = (1...count).map {
      #"{"sku":"P\#($0)","name":"Product \#($0)","description":"","category":"Test","price":"1.00"}"#
    }.joined(separator: ",")
    return try JournalLane(
      catalogJSON: #"""
        {"store":{"name":"Big","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},
         "products":[\#(products)]}
        """#)
  }

  static func skus(_ reply: JSONValue) -> [String] {
    (reply["products"]?.arrayValue ?? []).compactMap { $0["sku"]?.stringValue }
  }

  @Test func aLongCatalogComesPageByPageAndThePagesMakeTheWholeOfIt() throws {
    let lane = try Self.lane(products: 2345)
    var listed: [String] = []
    var pages: [JSONValue] = []
    var after: String?
    while true {
      let request =
        after.map { #"{"op":"catalog","after_sku":"\#($0)"}"# } ?? #"{"op":"catalog"}"#
      let page = try lane.ok(request)
      pages.append(page)
      listed += Self.skus(page)
      guard page["remaining"] != nil else { break }
      after = Self.skus(page).last
    }
    #expect(pages.count == 3)
    #expect(pages.map { Self.skus($0).count } == [1000, 1000, 345])
    #expect(pages.map { $0["remaining"] } == [.int(1345), .int(345), nil])
    #expect(listed == (1...2345).map { "P\($0)" })
    // Every page says whose catalog it is.
    #expect(pages.allSatisfy { $0["store"]?["name"] == "Big" })
    // After the last product: an empty page, and nothing remaining.
    let past = try lane.ok(Requests.Catalog(afterSKU: "P2345"))
    #expect(Self.skus(past).isEmpty && past["remaining"] == nil)
  }

  @Test func aLimitSetsThePageSize() throws {
    let lane = try Self.lane(products: 20)
    let page = try lane.ok(Requests.Catalog(limit: 7, afterSKU: "P3"))
    #expect(Self.skus(page) == (4...10).map { "P\($0)" })
    #expect(page["remaining"] == .int(10))
    let last = try lane.ok(Requests.Catalog(limit: 1000, afterSKU: "P10"))
    #expect(Self.skus(last) == (11...20).map { "P\($0)" } && last["remaining"] == nil)
  }

  @Test func aCatalogThatFitsInOnePageReadsAsBefore() throws {
    let lane = try JournalLane()
    let reply = try lane.ok(Requests.Catalog())
    #expect(reply.objectValue?.keys.sorted() == ["products", "store"])
    #expect(Self.skus(reply) == ["TEE", "JEANS", "GIFT", "HAT"])
  }

  @Test func aPageAfterAnSKUTheCatalogDoesNotHaveIsRefused() throws {
    let lane = try JournalLane()
    let before = lane.storage.bytes
    let reply = try lane.send(Requests.Catalog(afterSKU: "NOPE"))
    #expect(reply.errorCode == "unknown_sku", "\(reply.serialized)")
    // A look-alike of a SKU (canonically equal, other bytes) names no product.
    let kelvin = try lane.send("{\"op\":\"catalog\",\"after_sku\":\"HAT\u{212A}\"}")
    #expect(kelvin.errorCode == "unknown_sku")
    #expect(lane.storage.bytes == before, "nothing journaled")
  }

  @Test(arguments: [
    #""limit":0"#, #""limit":1001"#, #""limit":-5"#, #""limit":"7""#, #""limit":1.5"#,
    #""after_sku":7"#, #""after_sku":null"#, #""after_sku":["TEE"]"#,
  ])
  func aBadPageFieldIsABadRequest(_ member: String) throws {
    let lane = try JournalLane()
    let reply = try lane.send(#"{"op":"catalog",\#(member)}"#)
    #expect(reply.errorCode == "bad_request", "\(member): \(reply.serialized)")
  }
}
