import RegisterServer
import Testing

@testable import RegisterEngine

/// What a test sends requests through (a lane, or a service itself): request lines in, parsed
/// replies out. Scenario tests build typed requests, as a client does, and send them with the
/// overloads below; raw lines are for tests of the wire format itself.
protocol RequestLane {
  /// Sends one request line and returns the parsed reply.
  @discardableResult
  func send(_ line: String, sourceLocation: SourceLocation) throws -> JSONValue

  /// Sends a request line that must succeed and returns its `result`.
  @discardableResult
  func ok(_ line: String, sourceLocation: SourceLocation) throws -> JSONValue
}

extension RequestLane {
  /// Sends a typed request, in `envelope`, as a client builds it.
  @discardableResult
  func send(
    _ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope(),
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> JSONValue {
    try send(envelope.line(for: body), sourceLocation: sourceLocation)
  }

  /// Sends a typed request, in `envelope`, that must succeed and returns its `result`.
  @discardableResult
  func ok(
    _ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope(),
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> JSONValue {
    try ok(envelope.line(for: body), sourceLocation: sourceLocation)
  }

  /// Sends a request line that must be refused with `code`; returns the message.
  @discardableResult
  func refused(
    _ line: String, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let reply = try send(line, sourceLocation: sourceLocation)
    #expect(
      reply.errorCode == code, "\(line) → \(reply.serialized)", sourceLocation: sourceLocation)
    return reply["error"]?["message"]?.stringValue ?? ""
  }

  /// Sends a typed request that must be refused with `code`; returns the message.
  @discardableResult
  func refused(
    _ body: any RequestBody, _ code: String, envelope: RequestEnvelope = RequestEnvelope(),
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    try refused(envelope.line(for: body), code, sourceLocation: sourceLocation)
  }
}

extension RegisterService: RequestLane {}
extension TestLane: RequestLane {}
extension JournalLane: RequestLane {}

/// An amount in US dollars (the test stores' currency) from its decimal text, "20.00". A
/// negative amount can be written, for the requests that must be refused for one.
func usd(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Money {
  do {
    return try Money.parse(text, currency: .usd, allowNegative: true)
  } catch {
    Issue.record("\(text) is no amount: \(error)", sourceLocation: sourceLocation)
    return .zero(.usd)
  }
}

/// A percentage from its decimal text, "12.5".
func percent(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Percent {
  do {
    return try Percent.parse(text)
  } catch {
    Issue.record("\(text) is no percentage: \(error)", sourceLocation: sourceLocation)
    return .zero
  }
}

/// Card data as keyed; by default a Visa that passes every check on `testTime` (the typed form
/// of `cardJSON`).
func testCard(
  _ number: String = "4242424242424242", month: Int = 12, year: Int = 2030, cvv: String = "739"
) -> CardInput {
  CardInput(number: number, expiryMonth: month, expiryYear: year, cvv: cvv)
}

/// The request line a client sends for `body` in `envelope`: for a table that holds typed
/// requests among raw lines, and for the service's entry points below the lane.
func requestLine(_ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope()) -> String {
  envelope.line(for: body)
}

extension JSONObject {
  /// An object of `members`, in order (a JSON `null` is `.null`).
  init(_ members: KeyValuePairs<String, JSONValue>) {
    self.init(capacity: members.count)
    for (key, value) in members { self[key] = value }
  }
}
