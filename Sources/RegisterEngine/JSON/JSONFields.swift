/// A value that did not have the shape we asked for: where (`path`, like `lines[2].qty`) and why.
///
/// Its message quotes what the document held: an `ErrorMessage`, masked as it is made except
/// for the identifiers it names. The path names members and indexes (and, in a catalog file's
/// errors, the product by its SKU); an error quoted in a reply to a client is masked again there.
public struct JSONShapeError: Error, Equatable, CustomStringConvertible {
  public var path: String
  public private(set) var message: String

  public init(path: String, message: ErrorMessage) {
    self.path = path
    self.message = message.text
  }

  /// The message as made already (masked except for its identifiers).
  public var errorMessage: ErrorMessage { ErrorMessage(made: message) }

  /// `description` as a message for a reply: the path masked, the message as made.
  public var describedMessage: ErrorMessage {
    path.isEmpty ? errorMessage : "\(path): \(message: errorMessage)"
  }

  public var description: String {
    path.isEmpty ? message : "\(path): \(message)"
  }
}

/// A type that can be read from a JSON value, strictly (no coercion between JSON types).
public protocol JSONDecodable {
  init(json: JSONValue, path: String) throws(JSONShapeError)
}

/// A type that can be written as a JSON value.
public protocol JSONEncodable {
  var json: JSONValue { get }
}

func joinPath(_ path: String, _ key: String) -> String {
  if path == unbuiltPath { return path }
  return path.isEmpty ? key : "\(path).\(key)"
}

func indexPath(_ path: String, _ index: Int) -> String {
  if path == unbuiltPath { return path }
  return "\(path)[\(index)]"
}

/// The path handed to a decode whose paths are only wanted if it fails (`withPathsOnFailure`):
/// joining a key or an index onto it gives it back, so no path text is built. A path names
/// where a value is wrong; building one for every member read (`ledger.refunded[4120].state.
/// cards[0].amount`) cost a large part of reading a year-end snapshot. Never shown: a decode
/// that fails with it is run again with the real path.
let unbuiltPath = "\u{0}"

/// `decode` run with `unbuiltPath` and, only when that fails, again with `path`, so that the
/// error names where. Decoding is a pure function of the value (the engine has no other
/// input), so the second run fails the same way, now with its path. Inside a decode already
/// run with `unbuiltPath`, `decode` simply runs with it (the outer one reruns).
func withPathsOnFailure<T>(
  _ path: String, _ decode: (String) throws(JSONShapeError) -> T
) throws(JSONShapeError) -> T {
  if path == unbuiltPath { return try decode(path) }
  do {
    return try decode(unbuiltPath)
  } catch {
    return try decode(path)
  }
}

extension String: JSONDecodable, JSONEncodable {
  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    guard case .string(let text) = json else {
      throw JSONShapeError(path: path, message: "expected a string, got \(json.typeName)")
    }
    self = text
  }
  public var json: JSONValue { .string(self) }
}

extension Bool: JSONDecodable, JSONEncodable {
  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    guard case .bool(let flag) = json else {
      throw JSONShapeError(path: path, message: "expected true or false, got \(json.typeName)")
    }
    self = flag
  }
  public var json: JSONValue { .bool(self) }
}

extension Int64: JSONDecodable, JSONEncodable {
  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    guard case .number(let text) = json else {
      throw JSONShapeError(path: path, message: "expected an integer, got \(json.typeName)")
    }
    guard let value = Int64(text) else {
      throw JSONShapeError(path: path, message: "expected an integer, got \(text)")
    }
    self = value
  }
  public var json: JSONValue { .number(String(self)) }
}

extension Int: JSONDecodable, JSONEncodable {
  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    let wide = try Int64(json: json, path: path)
    guard let value = Int(exactly: wide) else {
      throw JSONShapeError(path: path, message: "integer out of range")
    }
    self = value
  }
  public var json: JSONValue { .number(String(self)) }
}

extension JSONValue: JSONDecodable, JSONEncodable {
  public init(json: JSONValue, path: String) throws(JSONShapeError) { self = json }
  public var json: JSONValue { self }
}

extension Array: JSONDecodable where Element: JSONDecodable {
  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    guard case .array(let items) = json else {
      throw JSONShapeError(path: path, message: "expected an array, got \(json.typeName)")
    }
    var result: [Element] = []
    result.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      result.append(try Element(json: item, path: indexPath(path, index)))
    }
    self = result
  }
}

extension Array: JSONEncodable where Element: JSONEncodable {
  public var json: JSONValue { .array(map(\.json)) }
}

/// Reads the members of a JSON object one by one and, at the end, refuses any member nobody
/// asked for — so a typo in a field name is an error rather than silently ignored.
public struct JSONFields {
  public let path: String
  private let object: JSONObject
  /// Which members have been read, by position (a bit each; objects past 64 members spill
  /// into `usedBeyond`).
  private var used: UInt64 = 0
  private var usedBeyond: [Bool] = []
  /// Where the member after the last one read is: readers ask for members in the order they
  /// were written (the register writes every object it reads back, in the order it reads it),
  /// so the next key asked for is usually there, and is found without a search.
  private var next = 0

  /// Starts reading `value`, which must be an object.
  public init(_ value: JSONValue, path: String = "") throws(JSONShapeError) {
    guard case .object(let object) = value else {
      throw JSONShapeError(path: path, message: "expected an object, got \(value.typeName)")
    }
    self.object = object
    self.path = path
  }

  /// True when the object has the member (even when it is `null`).
  public func has(_ key: String) -> Bool { object[key] != nil }

  /// The raw member without marking it as read.
  public func peek(_ key: String) -> JSONValue? { object[key] }

  /// The raw member, marking it as read. An explicit `null` is returned as `.null`, so that
  /// typed readers refuse it: a field is either absent or has a value of its type.
  public mutating func raw(_ key: String) -> JSONValue? {
    let position: Int
    if next < object.count, object.members[next].key.hasSameBytes(as: key) {
      position = next
    } else if let found = object.position(of: key) {
      position = found
    } else {
      return nil
    }
    next = position + 1
    if position < 64 {
      used |= 1 << UInt64(position)
    } else {
      if usedBeyond.isEmpty { usedBeyond = Array(repeating: false, count: object.count - 64) }
      usedBeyond[position - 64] = true
    }
    return object.members[position].value
  }

  private func isUsed(_ position: Int) -> Bool {
    position < 64
      ? used & (1 << UInt64(position)) != 0
      : !usedBeyond.isEmpty && usedBeyond[position - 64]
  }

  /// A member that must be present. An integer must be in its field's range (`IntegerRanges`).
  public mutating func required<T: JSONDecodable>(
    _ key: String, as type: T.Type = T.self
  ) throws(JSONShapeError) -> T {
    guard let value = raw(key) else {
      throw JSONShapeError(path: joinPath(path, key), message: "is required")
    }
    // The member's path is built once (it is only read when something is wrong).
    let memberPath = joinPath(path, key)
    let decoded = try T(json: value, path: memberPath)
    try IntegerRanges.check(decoded, key: key, path: memberPath)
    return decoded
  }

  /// A member that may be absent or `null`.
  public mutating func optional<T: JSONDecodable>(
    _ key: String, as type: T.Type = T.self
  ) throws(JSONShapeError) -> T? {
    guard let value = raw(key) else { return nil }
    let memberPath = joinPath(path, key)
    let decoded = try T(json: value, path: memberPath)
    try IntegerRanges.check(decoded, key: key, path: memberPath)
    return decoded
  }

  /// A nested object member, as its own reader.
  public mutating func nested(_ key: String) throws(JSONShapeError) -> JSONFields? {
    guard let value = raw(key) else { return nil }
    return try JSONFields(value, path: joinPath(path, key))
  }

  /// The path of a member, for error messages.
  public func pathOf(_ key: String) -> String { joinPath(path, key) }

  /// Throws when the object has a member that was never read.
  public func rejectUnknown(allowing extra: Set<String> = []) throws(JSONShapeError) {
    for (position, member) in object.members.enumerated()
    where !isUsed(position) && !extra.contains(member.key) {
      throw JSONShapeError(path: joinPath(path, member.key), message: "is not a known field")
    }
  }
}
