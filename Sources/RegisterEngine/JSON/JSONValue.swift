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
    var object = JSONObject()
    for (key, value) in pairs {
      if let value { object[key] = value }
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
      var sorted = JSONObject()
      for key in object.keys.sorted() { sorted[key] = object[key]?.canonical }
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
public struct JSONObject: Sendable, Equatable {
  public private(set) var keys: [String] = []
  private var storage: [String: JSONValue] = [:]

  public init() {}

  public var count: Int { keys.count }
  public var isEmpty: Bool { keys.isEmpty }

  /// Reads or writes a member; writing `nil` removes it; a new key goes to the end.
  public subscript(key: String) -> JSONValue? {
    get { storage[key] }
    set {
      if let newValue {
        if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
      } else if storage.removeValue(forKey: key) != nil {
        keys.removeAll { $0 == key }
      }
    }
  }

  /// The members in order.
  public var members: [(key: String, value: JSONValue)] {
    keys.compactMap { key in storage[key].map { (key, $0) } }
  }

  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    lhs.keys == rhs.keys && lhs.storage == rhs.storage
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
