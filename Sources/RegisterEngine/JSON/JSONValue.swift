/// A JSON value that keeps numbers as their exact literal text and object keys in order.
///
/// The register never converts a JSON number to binary floating point: an integer is read
/// with `Int64(text)`, anything else is refused by whoever asked for an integer. Object keys
/// keep their order so that what we write is stable byte for byte (the journal hashes it).
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number, as the literal text that appeared in the document (already validated).
  case number(String)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The JSON type name used in error messages ("string", "number", …).
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// A number value for an integer.
  public static func int<T: BinaryInteger>(_ value: T) -> JSONValue {
    .number(String(value))
  }

  /// An object from ordered key/value pairs; `nil` values are left out.
  public static func object(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
    var object = JSONObject(capacity: pairs.count)
    for (key, value) in pairs {
      // The keys of a literal are distinct: no need to look each one up.
      assert(object[key] == nil, "duplicate key \(key) in an object literal")
      if let value { object.append(key, value) }
    }
    return .object(object)
  }

  /// The member `key` when this is an object.
  public subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  /// The string payload, if this is a string.
  public var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The integer value, if this is a number literal that is an integer in range.
  public var int64Value: Int64? {
    if case .number(let text) = self { return Int64(text) }
    return nil
  }

  /// The same value with every object's keys sorted: equal content gives equal bytes, whatever
  /// order a client wrote the members in.
  public var canonical: JSONValue {
    switch self {
    case .array(let items): return .array(items.map(\.canonical))
    case .object(let object):
      var sorted = JSONObject(capacity: object.count)
      for member in object.members.sorted(by: { $0.key < $1.key }) {
        sorted.append(member.key, member.value.canonical)
      }
      return .object(sorted)
    default: return self
    }
  }

  /// The object payload, if this is an object.
  public var objectValue: JSONObject? {
    if case .object(let object) = self { return object }
    return nil
  }

  /// The array payload, if this is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }
}

/// A JSON object that remembers the order its keys were inserted in.
///
/// The members live in one array in order. Objects on the wire are small (a request has a
/// handful of members, a reply a dozen or two), so finding a key by comparing it with each one
/// is faster than hashing it; an object that grows past `indexThreshold` members also keeps a
/// hash index, so large ones (a catalog keyed by SKU) stay linear to build.
public struct JSONObject: Sendable, Equatable {
  /// Members in insertion order.
  public private(set) var members: [(key: String, value: JSONValue)] = []
  /// Position of each key in `members`, kept once the object is large.
  ///
  /// Member names are compared by their bytes, as RFC 8259 has it, not by `String`'s
  /// canonical equivalence (see `ExactText`): an object may hold a member named "café" with
  /// é composed and one with it decomposed (a snapshot's idempotency keys are member names).
  private var index: [ExactText: Int]?
  static let indexThreshold = 16

  public init() {}

  /// An object with room for `capacity` members.
  public init(capacity: Int) {
    members.reserveCapacity(capacity)
  }

  public var count: Int { members.count }
  public var isEmpty: Bool { members.isEmpty }

  /// The keys in order.
  public var keys: [String] { members.map(\.key) }

  /// The position of `key` in `members`.
  func position(of key: String) -> Int? {
    if let index { return index[ExactText(key)] }
    // Comparing lengths first skips most unequal keys cheaply (`hasSameBytes` does).
    for position in members.indices where members[position].key.hasSameBytes(as: key) {
      return position
    }
    return nil
  }

  /// Reads or writes a member; writing `nil` removes it; a new key goes to the end.
  public subscript(key: String) -> JSONValue? {
    get {
      guard let position = position(of: key) else { return nil }
      return members[position].value
    }
    set {
      if let newValue {
        if let position = position(of: key) {
          members[position].value = newValue
        } else {
          append(key, newValue)
        }
      } else if let position = position(of: key) {
        members.remove(at: position)
        rebuildIndex()
      }
    }
  }

  /// Adds a member the caller knows is not there yet (a parser that has checked, a builder
  /// with distinct literal keys).
  mutating func append(_ key: String, _ value: JSONValue) {
    members.append((key, value))
    if index != nil {
      index?[ExactText(key)] = members.count - 1
    } else if members.count > Self.indexThreshold {
      rebuildIndex()
    }
  }

  private mutating func rebuildIndex() {
    guard members.count > Self.indexThreshold else {
      index = nil
      return
    }
    var built: [ExactText: Int] = [:]
    built.reserveCapacity(members.count)
    for (position, member) in members.enumerated() { built[ExactText(member.key)] = position }
    index = built
  }

  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    guard lhs.members.count == rhs.members.count else { return false }
    for (left, right) in zip(lhs.members, rhs.members)
    where !left.key.hasSameBytes(as: right.key) || left.value != right.value {
      return false
    }
    return true
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByArrayLiteral, ExpressibleByIntegerLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(integerLiteral value: Int64) { self = .number(String(value)) }
}
