/// One request line as it arrived, tagged with the connection it came from.
public struct IncomingLine: Sendable {
  public var connection: Int
  /// The line without its newline, or `nil` when the line was too long and has been dropped.
  public var bytes: [UInt8]?
  /// PIN hashing done for this line off the event loop (see `RegisterService.pinWork(for:)`).
  public var prepared: PreparedPINs?

  public init(connection: Int, bytes: [UInt8]?, prepared: PreparedPINs? = nil) {
    self.connection = connection
    self.bytes = bytes
    self.prepared = prepared
  }
}

/// One reply line, for the connection that asked.
public struct OutgoingReply: Sendable {
  public var connection: Int
  /// The serialized reply as UTF-8, without a trailing newline, in pieces.
  public var pieces: ReplyPieces
  /// When the request was a successful `subscribe`: what the connection now listens to.
  public var subscription: Subscription?

  /// The serialized reply as UTF-8, in one piece.
  public var bytes: [UInt8] {
    var bytes: [UInt8] = []
    pieces.append(to: &bytes)
    return bytes
  }

  /// The serialized reply as text.
  public var line: String { String(decoding: bytes, as: UTF8.self) }
}

/// A serialized reply as up to three pieces written one after the other: the start of its
/// envelope, a result encoded once and shared by every reply that carries it (a cached
/// `hello` or `order`: shared, not copied per reply), and the envelope's end. A reply made
/// whole is its `head` alone.
public struct ReplyPieces: Sendable {
  var head: [UInt8]
  var shared: [UInt8] = []
  var tail: [UInt8] = []

  /// The reply's bytes when they are one array already (nil: in pieces), to be sent from
  /// their own storage.
  public var whole: [UInt8]? { shared.isEmpty && tail.isEmpty ? head : nil }

  /// The reply's length in bytes.
  public var count: Int { head.count + shared.count + tail.count }

  /// Appends the reply's bytes to `output`.
  public func append(to output: inout [UInt8]) {
    output.append(contentsOf: head)
    if !shared.isEmpty { output.append(contentsOf: shared) }
    if !tail.isEmpty { output.append(contentsOf: tail) }
  }
}

/// A connection's live-event subscription: the event types it wants (nil: all) and the last
/// sequence number it has been sent (or said it has seen).
public struct Subscription: Sendable, Equatable {
  public var topics: Set<String>?
  public var cursor: Int64
  /// The id of the `subscribe` request, for a refusal the daemon sends in its reply's place
  /// (`history_archived`) without reading its own reply back.
  public var requestID: JSONValue = .null

  public init(topics: Set<String>?, cursor: Int64) {
    self.topics = topics
    self.cursor = cursor
  }

  public func wants(_ type: String) -> Bool { topics?.contains(type) ?? true }
}

/// What one batch produced: a reply per line, and the events that became durable (for live
/// subscribers), in journal order.
public struct BatchResult: Sendable {
  public var replies: [OutgoingReply]
  public var events: [CommittedEvent]
}

/// What a request's reply carries as its result.
enum ReplyResult {
  case value(JSONValue)
  /// JSON text already encoded (a reply written straight to bytes).
  case encoded([UInt8])
  /// A successful `subscribe`: the result, and what the connection now listens to.
  case subscribed(Subscription, JSONValue)
  /// A read whose work grows with the store (every product, every receipt of a customer):
  /// worked out from a copy of the state, away from the event loop when the daemon has a
  /// thread for it (see `RegisterService.computesRepliesAway`).
  case computed(@Sendable () -> Result<JSONValue, RegisterError>)
}

/// A reply line serialized when it was made (the state it describes may change before it is
/// sent), and the subscription it starts (a `subscribe`).
struct SerializedReply {
  var pieces: ReplyPieces
  var subscription: Subscription?
  /// Set while the reply is still to be worked out (`ReplyResult.computed`): it makes the
  /// whole line; `pieces` is empty until then.
  var computation: (@Sendable () -> [UInt8])?

  init(bytes: [UInt8], subscription: Subscription? = nil) {
    pieces = ReplyPieces(head: bytes)
    self.subscription = subscription
  }

  init(pieces: ReplyPieces) {
    self.pieces = pieces
  }

  /// A reply to be worked out later by `computation`.
  init(computing computation: @escaping @Sendable () -> [UInt8]) {
    pieces = ReplyPieces(head: [])
    self.computation = computation
  }
}

/// A reply to work out away from the event loop (`RegisterService.takeComputations`): run it
/// on any thread, then hand its bytes back to `RegisterService.computed(_:bytes:)` on the
/// loop's. It reads a copy of the state as it was when its request was handled, and its reply
/// is sent in its place among the connection's replies.
public struct ReplyComputation: Sendable {
  /// Which held reply the bytes are for.
  public let ticket: Int
  /// The connection that asked.
  public let connection: Int
  let make: @Sendable () -> [UInt8]

  /// The reply line (without its newline).
  public func run() -> [UInt8] { make() }
}

/// The reply envelopes, written straight to bytes: `{"id":…,"ok":true,"result":…}` and
/// `{"id":…,"ok":false,"error":{…}}`.
enum ReplyEnvelope {
  /// `{"id":…,"ok":true,"result":…}`.
  static func success(id: JSONValue, _ result: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    output.append(contentsOf: #"{"id":"#.utf8)
    id.write(to: &output)
    output.append(contentsOf: #","ok":true,"result":"#.utf8)
    result.write(to: &output)
    output.append(UInt8(ascii: "}"))
    return output
  }

  /// A success whose result is JSON text already encoded: the result is shared, not copied.
  static func success(id: JSONValue, encoded result: [UInt8]) -> ReplyPieces {
    guard id != .null else {
      return ReplyPieces(head: nullIDSuccessHead, shared: result, tail: closingBrace)
    }
    var head: [UInt8] = []
    head.reserveCapacity(64)
    head.append(contentsOf: #"{"id":"#.utf8)
    id.write(to: &head)
    head.append(contentsOf: #","ok":true,"result":"#.utf8)
    return ReplyPieces(head: head, shared: result, tail: closingBrace)
  }

  /// The start of a success without an id (the most common), built once.
  private static let nullIDSuccessHead = Array(#"{"id":null,"ok":true,"result":"#.utf8)
  private static let closingBrace = [UInt8(ascii: "}")]

  /// `{"id":…,"ok":false,"error":{…}}`.
  static func failure(id: JSONValue, _ error: RegisterError) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    output.append(contentsOf: #"{"id":"#.utf8)
    id.write(to: &output)
    output.append(contentsOf: #","ok":false,"error":"#.utf8)
    error.json.write(to: &output)
    output.append(UInt8(ascii: "}"))
    return output
  }
}
