/// Writes one JSON object straight to UTF-8 bytes, member by member, for replies built on the
/// hot path (no `JSONValue` tree to build, hash and walk). Keys are literals known to need no
/// escaping; values are escaped as `JSONValue` would, so the bytes are the same as writing the
/// equivalent tree.
struct JSONObjectWriter {
  private(set) var bytes: [UInt8]
  private var isFirst = true

  /// Starts an object (`{`), reserving room for about `capacity` bytes.
  init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
    bytes.append(UInt8(ascii: "{"))
  }

  private mutating func key(_ key: StaticString) {
    bytes.append(isFirst ? UInt8(ascii: "\"") : UInt8(ascii: ","))
    if !isFirst { bytes.append(UInt8(ascii: "\"")) }
    isFirst = false
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  mutating func string(_ key: StaticString, _ value: String) {
    self.key(key)
    JSONValue.writeString(value, to: &bytes)
  }

  mutating func int(_ key: StaticString, _ value: Int64) {
    self.key(key)
    DecimalText.append(value, to: &bytes)
  }

  mutating func int(_ key: StaticString, _ value: Int) {
    int(key, Int64(value))
  }

  /// An amount as the wire writes it: a decimal string with the currency's minor digits.
  mutating func money(_ key: StaticString, _ minorUnits: Int64, _ currency: Currency) {
    self.key(key)
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.capacity) { buffer in
      let start = DecimalText.write(
        minorUnits, fractionDigits: currency.minorDigits, endingAt: buffer)
      bytes.append(UInt8(ascii: "\""))
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
      bytes.append(UInt8(ascii: "\""))
    }
  }

  /// A moment as its ISO 8601 text (which needs no escaping), written digit by digit.
  mutating func timestamp(_ key: StaticString, _ value: Timestamp) {
    self.key(key)
    bytes.append(UInt8(ascii: "\""))
    value.appendISO8601(to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func bool(_ key: StaticString, _ value: Bool) {
    self.key(key)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  mutating func value(_ key: StaticString, _ value: JSONValue) {
    self.key(key)
    value.write(to: &bytes)
  }

  /// A member whose value is JSON text already encoded (a fragment built once).
  mutating func encoded(_ key: StaticString, _ json: [UInt8]) {
    self.key(key)
    bytes.append(contentsOf: json)
  }

  /// A nested object written by `body`, in place (no buffer of its own).
  mutating func object(_ key: StaticString, _ body: (inout JSONObjectWriter) -> Void) {
    self.key(key)
    bytes.append(UInt8(ascii: "{"))
    isFirst = true
    body(&self)
    bytes.append(UInt8(ascii: "}"))
    isFirst = false
  }

  /// The object's bytes so far, without the closing brace (for a caller that adds members of
  /// its own making before closing it).
  consuming func unfinished() -> [UInt8] {
    bytes
  }

  /// The object's bytes (`}` added).
  consuming func finished() -> [UInt8] {
    bytes.append(UInt8(ascii: "}"))
    return bytes
  }
}

extension JSONValue {
  /// The value of JSON text this module wrote itself (a `JSONObjectWriter`'s output), for the
  /// callers that need a tree of what the hot path writes as bytes. Such text always parses;
  /// were it ever not to, the value would be null rather than a trap.
  static func parsingOwnOutput(_ bytes: [UInt8]) -> JSONValue {
    (try? JSONParser.parse(bytes)) ?? .null
  }
}
