import RegisterClient
import RegisterEngine
import RegisterServer
import Testing

/// Where a test client's request lines go and where its reply lines come from.
public protocol TestTransport: AnyObject {
  /// Sends one request line and returns its reply line.
  func exchange(_ line: String) throws -> String
}

/// A client for tests that sends typed requests and reads typed replies, over any transport:
/// in-process (`InProcessTransport`, a `RegisterService` with no socket) or a real registerd
/// (the end-to-end harness's). The same scenario runs on both and must get the same replies,
/// as Hummingbird's test framework runs one test against `.router` and `.live`.
public final class TestClient {
  public let transport: any TestTransport
  private var nextID = 1

  public init(_ transport: any TestTransport) {
    self.transport = transport
  }

  /// Sends `body` with a fresh numeric id (and the rest of `envelope`) and reads its reply.
  @discardableResult
  public func send(_ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope()) throws
    -> Reply
  {
    var envelope = envelope
    if envelope.id == .null {
      envelope.id = .int(nextID)
      nextID += 1
    }
    return try send(TypedRequest(body, envelope: envelope))
  }

  /// Sends `request` as it is and reads its reply.
  public func send(_ request: TypedRequest) throws -> Reply {
    let line = try transport.exchange(request.line)
    if let reply = try? JSONParser.parse(line) {
      SchemaCheck.exchange(request: request.line, reply: reply)
    }
    return try Reply(line: line)
  }

  /// Sends `body`, which must succeed, and returns its result.
  @discardableResult
  public func ok(_ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope()) throws
    -> JSONValue
  {
    let reply = try send(body, envelope: envelope)
    guard case .success(_, let result) = reply else {
      throw TestClientError("\(Swift.type(of: body).op.rawValue) was refused: \(reply)")
    }
    return result
  }
}

/// A request the test expected to succeed did not.
public struct TestClientError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The register in this process, behind the protocol but without a socket: set up as registerd
/// sets up a fresh data directory (an empty register that imports the catalog file), on a
/// fixed clock, without a journal.
public final class InProcessTransport: TestTransport {
  public let service: RegisterService

  /// A register importing the catalog file at `catalogPath`, at the fixed time `now`
  /// (as registerd's `REGISTERD_FIXED_TIME`).
  public init(catalogPath: String, now: Timestamp) throws {
    let catalog = try CatalogFile.load(catalogPath)
    service = RegisterService(register: Register(), clock: ManualClock(now))
    try service.commit(Register.startupEvents(for: catalog, current: nil))
  }

  public func exchange(_ line: String) throws -> String {
    service.handle(line: line)
  }
}

/// registerd over its socket, through the typed client's connection.
public final class SocketTransport: TestTransport {
  private let connection: RegisterConnection

  /// Connects to the registerd listening at `socketPath`.
  public init(socketPath: String) throws {
    connection = try RegisterConnection(socketPath: socketPath)
  }

  public func exchange(_ line: String) throws -> String {
    try connection.exchange(line)
  }
}
