// The connection itself: greeting the daemon and listening to its events.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let sessionOps: [any DecodableRequestBody.Type] = [
    Hello.self, Subscribe.self,
  ]

  /// `hello`: who the daemon is and what it speaks.
  public struct Hello: RequestBody, Query {
    public static let wireName = "hello"
    public static let access: OpAccess = .open
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      replies.hello(from: source, register: &register)
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `subscribe`: turn the connection into a listener for live events.
  public struct Subscribe: RequestBody, Query {
    public static let wireName = "subscribe"
    public static let access: OpAccess = .open
    /// Topic names (groups or event types) as sent; nil: every event.
    public var topics: [String]?
    /// The last sequence number already seen: events after it are sent first.
    public var after: Int64?
    /// `topics` expanded to event types (checked when decoding).
    private var eventTypes: Set<String>?

    public init(topics: [String]? = nil, after: Int64? = nil) {
      self.topics = topics
      self.after = after
      eventTypes = topics.flatMap(Topics.expand)
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      if let names = try fields.optional("topics", as: [String].self) {
        guard let expanded = Topics.expand(names) else {
          throw RegisterError(
            .badRequest,
            "unknown topic; use groups (\(Topics.groups.keys.sorted().joined(separator: ", "))) or event types"
          )
        }
        topics = names
        eventTypes = expanded
      }
      after = try fields.optional("after", as: Int64.self)
      if let after, after < 0 { throw RegisterError(.badRequest, "after must be 0 or more") }
    }

    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      let last = register.lastSequence
      let start = after ?? last
      guard start <= last else {
        throw RegisterError(.badRequest, "after \(start) is beyond the last event (\(last))")
      }
      return .subscribed(
        Subscription(topics: eventTypes, cursor: start),
        .object([
          "subscribed": true,
          "topics": eventTypes.map { .array($0.sorted().map(JSONValue.string)) }
            ?? .string("all"),
          "after": .int(start),
        ]))
    }

    public func encode(to object: inout JSONObject) {
      if let topics { object["topics"] = .array(topics.map(JSONValue.string)) }
      if let after { object["after"] = .int(after) }
    }
  }
}

// What each op of the connection says on the wire.

extension Requests.Hello {
  public static let summary = "Who is serving: the register's name, version and protocol."
  public static let fields: [WireField] = []
  public static let result = WireType.ref("hello")
}

extension Requests.Subscribe {
  public static let summary = "Turns the connection into a listener for events as well."
  public static let fields: [WireField] = [
    .optional("topics", .array(.text), "groups or event types (default all)"),
    .optional("after", .integer(), "the last seq seen: replay the events after it first"),
  ]
  public static let result = WireType.object([
    .required("subscribed", .constant(.bool(true)), "always true"),
    .required(
      "topics", .anyOf([.constant(.string("all")), .array(.text)]), "the event types sent"),
    .required("after", .integer(), "events after this seq follow"),
  ])
}
