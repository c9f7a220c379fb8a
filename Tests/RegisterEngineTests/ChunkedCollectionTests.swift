import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `ChunkedArray` and `ChunkedDictionary` behave as `Array` and `Dictionary` do, and a change to
/// a copy copies one chunk or bucket, not the whole collection: what keeps a sale, a stock
/// count or a `customer_add` from copying the whole catalog or customer book while a copy of
/// the register is held (a snapshot being written, an export worked out off the loop).
@Suite struct ChunkedCollectionTests {
  @Test(arguments: [1, 2, 3])
  func anArrayDoesWhatAnArrayDoes(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var chunked = ChunkedArray<String>()
    var plain: [String] = []
    for step in 0..<6000 {
      let choice = Int.random(in: 0..<100, using: &random)
      if choice < 70 || plain.isEmpty {
        chunked.append("e\(step)")
        plain.append("e\(step)")
      } else if choice < 90 {
        let position = Int.random(in: 0..<plain.count, using: &random)
        chunked[position] = "set\(step)"
        plain[position] = "set\(step)"
      } else if choice < 99 {
        let position = Int.random(in: 0..<plain.count, using: &random)
        #expect(chunked[position] == plain[position])
      } else {
        chunked.removeAll()
        plain.removeAll()
      }
      #expect(chunked.count == plain.count)
      if step % 97 == 0 { #expect(Array(chunked) == plain) }
    }
    #expect(Array(chunked) == plain)
    #expect(chunked == ChunkedArray(plain))
    #expect(chunked.description == plain.description)
  }

  @Test func aChangedCopyCopiesOneChunk() {
    let original = ChunkedArray((0..<10_000).map { "product \($0)" })
    var copy = original
    #expect(copy.sharedChunks(with: original) == original.chunkCount)
    copy[5_000] = "changed"
    #expect(original[5_000] == "product 5000" && copy[5_000] == "changed")
    #expect(copy.sharedChunks(with: original) == original.chunkCount - 1)
    // Appending to a copy copies only the last chunk, which the new element joins.
    var grown = original
    grown.append("new")
    #expect(grown.sharedChunks(with: original) == original.chunkCount - 1)
    #expect(original.count == 10_000 && grown.count == 10_001)
  }

  @Test(arguments: [7, 8, 9])
  func aDictionaryDoesWhatADictionaryDoes(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var chunked = ChunkedDictionary<String, Int>()
    var plain: [String: Int] = [:]
    // Keys include canonically equivalent spellings: both must treat them as one key.
    let keys = (0..<800).map { "k\($0)" } + ["caf\u{E9}", "cafe\u{301}", "\u{212A}", "K"]
    for step in 0..<8000 {
      let key = keys[Int.random(in: 0..<keys.count, using: &random)]
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        chunked[key] = step
        plain[key] = step
      case 5..<7:
        chunked[key, default: 0] += 1
        plain[key, default: 0] += 1
      case 7..<9:
        #expect(chunked.removeValue(forKey: key) == plain.removeValue(forKey: key))
      default:
        chunked[key] = nil
        plain[key] = nil
      }
      #expect(chunked.count == plain.count)
      #expect(chunked[key] == plain[key])
    }
    #expect(chunked.isEmpty == plain.isEmpty)
    for key in keys { #expect(chunked[key] == plain[key]) }
    #expect(Set(chunked.keys) == Set(plain.keys))
    #expect(chunked.values.sorted() == plain.values.sorted())
    #expect(Dictionary(uniqueKeysWithValues: chunked.map { ($0.key, $0.value) }) == plain)
    #expect(chunked == ChunkedDictionary(plain.map { ($0.key, $0.value) }))
    var other = chunked
    other[keys[0]] = -1
    #expect(other != chunked)
    other.removeAll()
    #expect(other.isEmpty && other.count == 0 && !chunked.isEmpty)
  }

  struct Stop: Error {}

  @Test func aChangeThatThrowsMidwayIsStillCounted() {
    func bump(_ value: inout Int) throws {
      value += 1
      throw Stop()
    }
    var chunked: ChunkedDictionary<String, Int> = ["a": 1]
    #expect(throws: Stop.self) { try bump(&chunked["b", default: 0]) }
    #expect(chunked.count == 2 && chunked["b"] == 1)
    #expect(throws: Stop.self) { try bump(&chunked["a", default: 0]) }
    #expect(chunked.count == 2 && chunked["a"] == 2)
  }

  @Test func aChangedDictionaryCopyCopiesOneBucket() {
    let original = ChunkedDictionary((0..<10_000).map { ("C\($0)", $0) })
    #expect(original.filledBuckets == 256)
    var copy = original
    #expect(copy.sharedBuckets(with: original) == 256)
    copy["C5000"] = -1
    #expect(original["C5000"] == 5000 && copy["C5000"] == -1)
    #expect(copy.sharedBuckets(with: original) == 255)
    var grown = original
    grown["new"] = 1
    #expect(grown.sharedBuckets(with: original) == 255 && grown.count == 10_001)
    var shrunk = original
    shrunk.removeValue(forKey: "C1")
    #expect(shrunk.sharedBuckets(with: original) == 255 && shrunk.count == 9_999)
  }

  /// The register's own parts: a copy of the register held while the lane goes on (a snapshot
  /// being written, a `catalog_export` or `customer_history` worked out off the loop) and the
  /// register after a stock count, a product edit or a new customer share all but a chunk of
  /// the catalog and the customer book.
  @Test func aChangeCopiesAChunkOfTheCatalogAndTheCustomerBookNotAllOfThem() throws {
    let products = (1...5000).map {
      #"{"sku":"P\#($0)","name":"Product \#($0)","description":"","category":"Test","price":"1.00","stock":5}"#
    }.joined(separator: ",")
    let lane = try JournalLane(
      catalogJSON: #"""
        {"store":{"name":"Big","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},
         "products":[\#(products)]}
        """#)
    for number in 1...3000 {
      _ = try lane.ok(Requests.CustomerAdd(name: "Customer \(number)"))
    }
    let chunks = lane.service.register.products.chunkCount
    #expect(chunks == 20)

    var saved = lane.service.register
    _ = try lane.ok(Requests.StockAdjust(sku: "P2600", delta: 3, reason: "delivery"))
    #expect(lane.service.register.products["P2600"]?.stock == 8)
    #expect(saved.products["P2600"]?.stock == 5)
    #expect(lane.service.register.products.sharedChunks(with: saved.products) == chunks - 1)

    saved = lane.service.register
    _ = try lane.ok(Requests.ProductUpdate(sku: "P10", changes: JSONObject(["price": "2.00"])))
    #expect(lane.service.register.products.sharedChunks(with: saved.products) == chunks - 1)

    // A product removed: its slot emptied and its SKU's index bucket, nothing else copied.
    saved = lane.service.register
    _ = try lane.ok(Requests.ProductRemove(sku: "P11"))
    #expect(lane.service.register.products["P11"] == nil && saved.products["P11"] != nil)
    #expect(lane.service.register.products.sharedChunks(with: saved.products) == chunks - 1)
    #expect(lane.service.register.products.sharedBuckets(with: saved.products).index == 255)

    saved = lane.service.register
    let customers = saved.customers
    _ = try lane.ok(Requests.CustomerAdd(name: "One More"))
    let after = lane.service.register.customers
    #expect(after.count == customers.count + 1)
    #expect(after.sharedChunks(with: customers) == customers.chunkCount - 1)
    let search = lane.service.register.customerBook.sharedSearchPages(with: saved.customerBook)
    #expect(search.pages == 12 && search.shared == search.pages - 1)
    // The new customer is found, and the copy taken before it does not have it.
    #expect(lane.service.register.customerBook.find("one more").map(\.name) == ["One More"])
    #expect(saved.customerBook.find("one more").isEmpty)
  }
}
