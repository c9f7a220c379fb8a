import Foundation
import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A register on `testCatalogJSON` behind the protocol, journaling into memory, started the
/// way registerd starts on an empty data directory: the start-up events are journaled first.
struct JournalLane {
  let storage = MemoryJournalStorage()
  let clock = ManualClock(testTime)
  let catalog: Catalog
  let journal: Journal
  let service: RegisterService

  init() throws {
    catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
    journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
    service = RegisterService(register: Register(), clock: clock, journal: journal)
    service.rebuilds(from: storage)
    try service.commit(Register.startupEvents(for: catalog, current: nil))
  }

  var register: Register { service.register }

  @discardableResult
  func send(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.send(line, sourceLocation: sourceLocation)
  }

  @discardableResult
  func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.ok(line, sourceLocation: sourceLocation)
  }

  /// Every record in the journal, read back through the scanner.
  func scan() -> JournalScan { JournalScanner.scan(storage.bytes) }
}

extension RegisterService {
  /// Sends one request line and returns the parsed reply.
  @discardableResult
  func send(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    let text = handle(line: line)
    #expect(!text.contains("\n"), "a reply is one line", sourceLocation: sourceLocation)
    let reply = try JSONParser.parse(text)
    SchemaCheck.exchange(request: line, reply: reply, sourceLocation: sourceLocation)
    return reply
  }

  /// Sends a request that must succeed and returns its `result`.
  @discardableResult
  func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    let reply = try send(line, sourceLocation: sourceLocation)
    #expect(
      reply["ok"] == .bool(true), "\(line) → \(reply.serialized)", sourceLocation: sourceLocation)
    return try #require(reply["result"], sourceLocation: sourceLocation)
  }
}

/// Everything a register holds, comparable as a whole: what recovery must bring back exactly.
struct RegisterState: Equatable {
  var store: StoreSettings
  var products: ProductList
  var order: Order
  var totals: OrderTotals
  var nextOrderID: Int
  var nextReceiptNumber: Int
  var receipts: [CompletedSale]
  var lastReceiptNumber: Int?
  var day: BusinessDay
  var closedDays: [Int: ClosedDay]
  var catalogBase: [Product]
  var lastSequence: Int64
  var lastActivity: Timestamp?

  init(_ register: Register) {
    store = register.store
    products = register.products
    order = register.order
    totals = register.totals
    nextOrderID = register.nextOrderID
    nextReceiptNumber = register.nextReceiptNumber
    receipts = register.receipts.values
    lastReceiptNumber = register.lastReceiptNumber
    day = register.day
    closedDays = register.closedDays
    catalogBase = register.catalogBase
    lastSequence = register.lastSequence
    lastActivity = register.lastActivity
  }
}

/// The byte range of each line of `bytes`, newline included.
func lineRanges(_ bytes: [UInt8]) -> [Range<Int>] {
  var ranges: [Range<Int>] = []
  var start = 0
  for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
    ranges.append(start..<index + 1)
    start = index + 1
  }
  return ranges
}

/// `bytes` with the first occurrence of `original` inside line `number` (1-based) replaced.
func replacing(
  _ original: String, with replacement: String, inLine number: Int, of bytes: [UInt8]
) throws -> [UInt8] {
  let ranges = lineRanges(bytes)
  let range = try #require(ranges.indices.contains(number - 1) ? ranges[number - 1] : nil)
  let line = try replacing(original, with: replacement, in: Array(bytes[range]))
  var result = bytes
  result.replaceSubrange(range, with: line)
  return result
}
