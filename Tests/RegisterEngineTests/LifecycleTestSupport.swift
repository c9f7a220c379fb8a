import RegisterServer
import Testing

@testable import RegisterEngine

// Helpers for the sale-lifecycle tests (voids, park and resume, returns, idempotency keys,
// versions and live events).

extension JournalLane {
  /// registerd after a restart: the register rebuilt by replaying this lane's journal, behind a
  /// new service that appends to the same journal.
  func restarted(sourceLocation: SourceLocation = #_sourceLocation) throws -> RegisterService {
    let scan = scan()
    #expect(scan.isIntact, sourceLocation: sourceLocation)
    let register = try Register.replaying(scan.records)
    let journal = Journal(storage: storage, lastSum: scan.lastSum, lastSequence: scan.lastSequence)
    let service = RegisterService(register: register, clock: clock, journal: journal)
    service.rebuilds(from: storage)
    return service
  }
}

extension TestLane {
  /// A lane on the catalog `json` (instead of `testCatalogJSON`), on the same fixed clock.
  init(lifecycleCatalog json: String) throws {
    let catalog = try CatalogFile.parse(Array(json.utf8), file: "lifecycle-catalog.json")
    clock = ManualClock(testTime)
    service = RegisterService(register: Register(catalog: catalog, at: testTime), clock: clock)
  }
}

extension RegisterService {
  /// Sends one line from `connection` and returns the parsed reply.
  @discardableResult
  func send(_ line: String, from connection: Int) throws -> JSONValue {
    try JSONParser.parse(handle(line: line, connection: connection))
  }

  /// Sends a typed request from `connection` and returns the parsed reply.
  @discardableResult
  func send(
    _ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope(), from connection: Int
  ) throws -> JSONValue {
    try send(requestLine(body, envelope: envelope), from: connection)
  }

  /// The catalog entry of `sku`, as the `catalog` op shows it.
  func catalogEntry(_ sku: String) throws -> JSONValue {
    let catalog = try ok(Requests.Catalog())
    let products = try #require(catalog["products"]?.arrayValue)
    return try #require(products.first { $0["sku"] == .string(sku) })
  }
}

/// A request line arriving on `connection`.
func incoming(_ connection: Int, _ line: String) -> IncomingLine {
  IncomingLine(connection: connection, bytes: Array(line.utf8))
}

/// The replies of a batch, parsed, in order.
func parsedReplies(_ result: BatchResult) throws -> [JSONValue] {
  try result.replies.map { try JSONParser.parse($0.line) }
}

/// `left` and `right` on one 40-column receipt line, as `TextLayout.columns` prints a pair that
/// fits.
func receiptColumns(_ left: String, _ right: String, width: Int = 40) -> String {
  left + String(repeating: " ", count: width - left.count - right.count) + right
}
