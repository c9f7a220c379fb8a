import RegisterClient
import RegisterEngine
import RegisterServer
import Testing

/// Where a test client's request lines go and where its reply lines come from.
public protocol TestTransport: AnyObject {
  /// Sends one request line and returns its reply line.
  func exchange(_ line: String) throws -> String

  /// Another connection to the same register (a second lane, a display).
  func connect() throws -> any TestTransport
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

  /// A client on another connection to the same register.
  public func connect() throws -> TestClient {
    TestClient(try transport.connect())
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
    try send(line: request.line)
  }

  /// Sends a request line as it is, for a request no typed request can build (a member
  /// missing, two that exclude each other, a number out of range), and reads its reply.
  @discardableResult
  public func send(line: String) throws -> Reply {
    let reply = try transport.exchange(line)
    if let value = try? JSONParser.parse(reply) {
      SchemaCheck.exchange(request: line, reply: value)
    }
    return try Reply(line: reply)
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

  /// Sends `body`, which must be refused with `code`, and returns the error (nil when it was
  /// not refused).
  @discardableResult
  public func refused(
    _ body: any RequestBody, _ code: ErrorCode, envelope: RequestEnvelope = RequestEnvelope(),
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ReplyError? {
    let reply = try send(body, envelope: envelope)
    #expect(
      reply.error?.code == code, "\(Swift.type(of: body).op.rawValue) → \(reply)",
      sourceLocation: sourceLocation)
    return reply.error
  }

  /// Sends the request line `line`, which must be refused with `code`, and returns the error.
  @discardableResult
  public func refused(
    line: String, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ReplyError? {
    let reply = try send(line: line)
    #expect(reply.error?.code == code, "\(line) → \(reply)", sourceLocation: sourceLocation)
    return reply.error
  }
}

/// A request the test expected to succeed did not.
public struct TestClientError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The register in this process, behind the protocol but without a socket: set up as registerd
/// sets up a fresh data directory (an empty register that imports the catalog file), on a
/// fixed clock, without a journal. Each `connect()` is another connection to the same
/// register.
public final class InProcessTransport: TestTransport {
  public let service: RegisterService
  /// The connection number the service sees this transport's lines on.
  public let connection: Int
  /// The connection number the next `connect()` takes (shared by every connection).
  private let connections: Counter

  /// A register importing the catalog file at `catalogPath`, at the fixed time `now`
  /// (as registerd's `REGISTERD_FIXED_TIME`).
  public convenience init(catalogPath: String, now: Timestamp) throws {
    try self.init(catalog: try CatalogFile.load(catalogPath), now: now)
  }

  /// A register importing `catalog`, at the fixed time `now`.
  public init(catalog: Catalog, now: Timestamp) throws {
    service = RegisterService(register: Register(), clock: ManualClock(now))
    try service.commit(Register.startupEvents(for: catalog, current: nil))
    connection = 1
    connections = Counter(next: 2)
  }

  private init(service: RegisterService, connection: Int, connections: Counter) {
    self.service = service
    self.connection = connection
    self.connections = connections
  }

  public func exchange(_ line: String) throws -> String {
    service.handle(line: line, connection: connection)
  }

  public func connect() throws -> any TestTransport {
    let number = connections.next
    connections.next += 1
    return InProcessTransport(service: service, connection: number, connections: connections)
  }

  /// The next connection number, shared by the connections to one register.
  private final class Counter {
    var next: Int
    init(next: Int) { self.next = next }
  }
}

/// registerd over its socket: one connection, with a receive timeout so that a reply that
/// never comes fails the test instead of hanging it.
public final class SocketTransport: TestTransport {
  private let socketPath: String
  private let connection: LineConnection

  /// Connects to the registerd listening at `socketPath`.
  public init(socketPath: String) throws {
    self.socketPath = socketPath
    connection = try LineConnection(path: socketPath)
    connection.setReceiveTimeout(milliseconds: 10_000)
  }

  public func exchange(_ line: String) throws -> String {
    guard let reply = try connection.request(line) else {
      throw TestClientError("registerd closed the connection instead of answering \(line)")
    }
    return reply
  }

  public func connect() throws -> any TestTransport {
    try SocketTransport(socketPath: socketPath)
  }
}
