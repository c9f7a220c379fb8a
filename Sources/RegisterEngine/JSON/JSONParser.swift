/// Why a JSON text could not be parsed, with the byte offset where it went wrong.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public var offset: Int

  public var description: String { "\(message) at byte \(offset)" }
}

/// A strict RFC 8259 parser: UTF-8 only, no trailing commas, no comments, no duplicate keys,
/// a bounded nesting depth (so hostile input cannot exhaust the stack), numbers kept as text.
public struct JSONParser {
  /// The deepest nesting accepted; deeper input is an error, not a crash.
  public static let maximumDepth = 64

  /// Parses one JSON document from `bytes`; whitespace around it is allowed, nothing else.
  public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
    // Contiguous bytes (an array, a slice of one) are read where they are, without a copy.
    let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable {
      buffer in Result { () throws(JSONParseError) in try parse(buffer: buffer) }
    }
    if let result { return try result.get() }
    return try Array(bytes).withUnsafeBufferPointer { buffer throws(JSONParseError) in
      try parse(buffer: buffer)
    }
  }

  private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError)
    -> JSONValue
  {
    // UTF-8 is checked where it matters, in strings, rather than on every line up front;
    // a text that fails to parse is checked as a whole, so that bad UTF-8 anywhere is
    // reported as such, whatever else is wrong with it.
    do throws(JSONParseError) {
      var parser = JSONParser(bytes: buffer)
      parser.skipWhitespace()
      let value = try parser.parseValue(depth: 0)
      parser.skipWhitespace()
      guard parser.position == parser.bytes.count else {
        throw parser.error("unexpected text after the JSON value")
      }
      return value
    } catch {
      if let bad = Self.firstInvalidUTF8(in: buffer) { throw Self.invalidUTF8(at: bad) }
      throw error
    }
  }

  static func invalidUTF8(at offset: Int) -> JSONParseError {
    JSONParseError(message: "the text is not valid UTF-8", offset: offset)
  }

  /// Where the first byte that does not start a valid UTF-8 sequence is in `bytes` (nil: they
  /// are all valid).
  static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var offset = 0
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput: return nil
      case .error: return offset
      }
    }
  }

  /// Parses one JSON document from `bytes` but leaves the values of the members `keys` of the
  /// object `path` leads to (keys from the top: `["state"]`) unparsed: the tree holds `null`
  /// there, and their bytes' ranges in `bytes` are returned for the caller to read on its own
  /// (a snapshot's catalog, on another thread; its ledger, with `JSONReader`). A deferred value
  /// is only skipped here, by its strings and brackets; reading it is what checks it.
  /// `found` is called with each member's key and range as soon as its value is skipped,
  /// before the rest is parsed, so that reading it can start at once.
  public static func parse(
    _ bytes: ArraySlice<UInt8>, deferring keys: Set<String>, under path: [String],
    found: (String, Range<Int>) -> Void = { _, _ in }
  ) throws(JSONParseError) -> (value: JSONValue, deferred: [String: Range<Int>]) {
    let base = bytes.startIndex
    let result = withoutActuallyEscaping(found) { found in
      bytes.withUnsafeBufferPointer { buffer in
        Result { () throws(JSONParseError) -> (JSONValue, [String: Range<Int>]) in
          var parser = JSONParser(bytes: buffer)
          parser.deferring = (path, keys)
          parser.found = { found($0, ($1.lowerBound + base)..<($1.upperBound + base)) }
          parser.skipWhitespace()
          let value = try parser.parseValue(depth: 0)
          parser.skipWhitespace()
          guard parser.position == parser.bytes.count else {
            throw parser.error("unexpected text after the JSON value")
          }
          return (
            value, parser.deferred.mapValues { ($0.lowerBound + base)..<($0.upperBound + base) }
          )
        }
      }
    }
    return try result.get()
  }

  /// Parses one JSON document from a string.
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  /// The text, borrowed for the duration of one `parse` or `JSONReader.read` (never kept
  /// beyond it). `JSONReader` reads with this parser's strings, numbers and whitespace rules.
  let bytes: UnsafeBufferPointer<UInt8>
  var position = 0

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// The members whose values are skipped, not parsed (`parse(_:deferring:under:)`): the keys
  /// of the objects down to them, and their keys. `keys` holds the keys of the objects being
  /// parsed.
  private var deferring: (path: [String], keys: Set<String>)?
  private var keys: [String] = []
  /// Where the skipped values lie, and who is told as soon as each is known.
  private var deferred: [String: Range<Int>] = [:]
  private var found: (String, Range<Int>) -> Void = { _, _ in }

  /// Moves past one value without building it: strings (with their escapes) and brackets
  /// are followed, nothing else is checked.
  private mutating func skipValue(depth: Int) throws(JSONParseError) {
    var level = 0
    while let byte = current {
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        while let inner = current, inner != UInt8(ascii: "\"") {
          position += inner == UInt8(ascii: "\\") ? 2 : 1
        }
        guard current != nil else { throw error("unterminated string") }
        position += 1
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        level += 1
        guard depth + level <= Self.maximumDepth else {
          throw error("nesting deeper than \(Self.maximumDepth)")
        }
        position += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        guard level > 0 else { return }
        level -= 1
        position += 1
      case UInt8(ascii: ","):
        if level == 0 { return }
        position += 1
      default:
        position += 1
      }
      if level == 0, byte != UInt8(ascii: ",") {
        // A scalar runs on to the next comma or bracket; a string or a closed bracket ends here.
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
          return
        }
      }
    }
    guard level == 0 else { throw error("unexpected end of input") }
  }

  func error(_ message: String) -> JSONParseError {
    JSONParseError(message: message, offset: position)
  }

  var current: UInt8? {
    position < bytes.count ? bytes[position] : nil
  }

  mutating func skipWhitespace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
      position += 1
    }
  }

  mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard let byte = current else { throw error("unexpected end of input, expected a value") }
    switch byte {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected character, expected a value")
    }
  }

  private mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
    let expected = literal.utf8
    guard position + expected.count <= bytes.count,
      expected.elementsEqual(bytes[position..<position + expected.count])
    else { throw error("invalid literal") }
    position += expected.count
  }

  private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= Self.maximumDepth else {
      throw error("nesting deeper than \(Self.maximumDepth)")
    }
    position += 1
    // Room for a request's or a record's members up front: grown one append at a time from
    // empty, the member array was reallocated and copied at the 1st, 2nd, 3rd and 5th member.
    var object = JSONObject(capacity: 8)
    // The duplicate check compares a new key with the object's earlier ones only when its
    // bit in `seen` (one of 64, from its bytes: `keyBit`) is already set, instead of with
    // every one: a 14-member object took 91 comparisons. A key written with escapes has other
    // bytes than the key it spells, so from the first one on every key is compared.
    var seen: UInt64 = 0
    var compareAll = false
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      position += 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
      let keyStart = position
      let key = try parseString()
      // The bytes between the quotes; as many as the key's own exactly when none is escaped
      // (an escape is always longer than what it stands for).
      let rawCount = position - keyStart - 2
      var bit: UInt64 = 0
      if !compareAll, rawCount == key.utf8.count {
        bit = keyBit(from: keyStart + 1, count: rawCount)
      } else {
        compareAll = true
      }
      if compareAll || seen & bit != 0 {
        guard object[key] == nil else {
          throw JSONParseError(message: "duplicate key \"\(key)\"", offset: keyStart)
        }
      }
      seen |= bit
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw error("expected ':' after key") }
      position += 1
      skipWhitespace()
      if let deferring, depth == deferring.path.count + 1, deferring.keys.contains(key),
        keys == deferring.path
      {
        let start = position
        try skipValue(depth: depth)
        deferred[key] = start..<position
        found(key, start..<position)
        object.append(key, .null)
      } else if let deferring, depth <= deferring.path.count {
        keys.append(key)
        let value = try parseValue(depth: depth)
        keys.removeLast()
        object.append(key, value)
      } else {
        object.append(key, try parseValue(depth: depth))
      }
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        return .object(object)
      default: throw error("expected ',' or '}' in object")
      }
    }
  }

  /// One bit of 64 for the key whose bytes are the `count` from `start`: equal keys get the
  /// same bit. From the length and three of the bytes, mixed by a multiplication whose top six
  /// bits choose the bit (a hash: the multiplication wraps by design).
  private func keyBit(from start: Int, count: Int) -> UInt64 {
    guard count > 0 else { return 1 }
    let first = UInt64(bytes[start])
    let middle = UInt64(bytes[start + count / 2])
    let last = UInt64(bytes[start + count - 1])
    let mixed = (UInt64(count) | first << 16 | middle << 24 | last << 32) &* 0x9E37_79B9_7F4A_7C15
    return 1 << (mixed >> 58)
  }

  private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= Self.maximumDepth else {
      throw error("nesting deeper than \(Self.maximumDepth)")
    }
    position += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      position += 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try parseValue(depth: depth))
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return .array(items)
      default: throw error("expected ',' or ']' in array")
      }
    }
  }

  private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
    let start = position
    if current == UInt8(ascii: "-") { position += 1 }
    guard let first = current, isDigit(first) else { throw error("invalid number") }
    if first == UInt8(ascii: "0") {
      position += 1
      if let next = current, isDigit(next) { throw error("leading zeros are not allowed") }
    } else {
      skipDigits()
    }
    if current == UInt8(ascii: ".") {
      position += 1
      guard let digit = current, isDigit(digit) else { throw error("invalid fraction") }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      position += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
      guard let digit = current, isDigit(digit) else { throw error("invalid exponent") }
      skipDigits()
    }
    return .number(String(decoding: bytes[start..<position], as: UTF8.self))
  }

  func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  private mutating func skipDigits() {
    while let byte = current, isDigit(byte) { position += 1 }
  }

  mutating func parseString() throws(JSONParseError) -> String {
    position += 1  // opening quote
    var start = position
    var result = ""
    var isASCII = true
    while true {
      guard let byte = current else { throw error("unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        // A member name, op name or event type is handed out as the literal it is, without
        // validating and copying its bytes (`WireWords`).
        if result.isEmpty, isASCII, let base = bytes.baseAddress,
          let word = WireWords.table.value(at: base + start, count: position - start)
        {
          position += 1
          return word
        }
        // The common case, a string without escapes, is its text as it stands.
        let last = try text(start..<position, isASCII: isASCII)
        position += 1
        if result.isEmpty { return last }
        result += last
        return result
      case UInt8(ascii: "\\"):
        result += try text(start..<position, isASCII: isASCII)
        position += 1
        result.unicodeScalars.append(try parseEscape())
        start = position
      case 0x00..<0x20:
        throw error("control character in string (escape it)")
      case 0x80...:
        isASCII = false
        position += 1
      default:
        position += 1
      }
    }
  }

  /// The text of a run of string bytes: refused when it is not valid UTF-8 (never repaired).
  private func text(_ range: Range<Int>, isASCII: Bool) throws(JSONParseError)
    -> String
  {
    if isASCII { return String(decoding: bytes[range], as: UTF8.self) }
    guard let text = String(validating: bytes[range], as: UTF8.self) else {
      let bad = Self.firstInvalidUTF8(in: UnsafeBufferPointer(rebasing: bytes[range])) ?? 0
      throw Self.invalidUTF8(at: range.lowerBound + bad)
    }
    return text
  }

  private mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
    guard let byte = current else { throw error("unterminated escape") }
    position += 1
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let high = try parseHex4()
      if (0xD800...0xDBFF).contains(high) {
        guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
          bytes[position + 1] == UInt8(ascii: "u")
        else { throw error("unpaired surrogate in \\u escape") }
        position += 2
        let low = try parseHex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
        let combined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        guard let scalar = Unicode.Scalar(combined) else { throw error("invalid \\u escape") }
        return scalar
      }
      guard let scalar = Unicode.Scalar(high) else {
        throw error("unpaired surrogate in \\u escape")
      }
      return scalar
    default:
      throw error("invalid escape")
    }
  }

  private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }
}
