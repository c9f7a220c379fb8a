import Foundation
import RegisterClient
import RegisterEngine
import RegisterTestSupport
import Testing

/// The two transports of the test client: the register in this process (no socket) and a
/// real registerd (as Hummingbird's `.router` and `.live`). A scenario suite runs each of its
/// tests on both with `@Test(arguments: Transport.allCases)`.
enum Transport: String, CaseIterable, CustomStringConvertible {
  case inProcess
  case live

  var description: String { rawValue }
}

/// Runs `scenario` with a test client on `transport`, against a fresh register on `catalog`
/// (JSON text; nil: the repository's Data/products.json) at the harness's fixed time.
@discardableResult
func run<Result>(
  _ transport: Transport, catalog: String? = nil, _ scenario: (TestClient) throws -> Result
) throws -> Result {
  try run(transport, catalog: catalog, scenario, afterwards: { _, _ in })
}

/// Runs `scenario` as `run(_:catalog:_:)` does; on `.live`, `afterwards` is then given the
/// daemon and what the scenario returned, for what only the process has (its data directory,
/// its log, a replay of its journal).
@discardableResult
func run<Result>(
  _ transport: Transport, catalog: String? = nil, _ scenario: (TestClient) throws -> Result,
  afterwards: (Daemon, Result) throws -> Void
) throws -> Result {
  switch transport {
  case .inProcess:
    let now = try #require(Timestamp.parse(fixedTime))
    let parsed =
      try catalog.map { try CatalogFile.parse(Array($0.utf8), file: "products.json") }
      ?? CatalogFile.load(Binaries.repository.appendingPathComponent("Data/products.json").path)
    return try scenario(TestClient(try InProcessTransport(catalog: parsed, now: now)))
  case .live:
    let daemon = try Daemon(catalog: catalog)
    defer { daemon.cleanup() }
    let result = try scenario(TestClient(try SocketTransport(socketPath: daemon.socketPath)))
    try afterwards(daemon, result)
    return result
  }
}

/// The card `visa` is the JSON of: a Visa that passes every check at the harness's time.
let visaCard = CardInput(
  number: "4242424242424242", expiryMonth: 12, expiryYear: 2030, cvv: "123")
