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
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: key.utf8CodeUnitCount + 4) {
      buffer in
      let start = writeKey(key, endingAt: buffer.count, in: buffer)
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
    }
  }

  /// Writes the member's name as it goes before its value (`"key":`, after a comma unless it
  /// is the first member) to end just before `end` in `buffer`; returns where it starts.
  private mutating func writeKey(
    _ key: StaticString, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>
  ) -> Int {
    let count = key.utf8CodeUnitCount
    var position = end - 2
    buffer[position] = UInt8(ascii: "\"")
    buffer[position + 1] = UInt8(ascii: ":")
    position -= count
    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[position...]))
      .copyMemory(from: UnsafeRawBufferPointer(start: key.utf8Start, count: count))
    position -= 1
    buffer[position] = UInt8(ascii: "\"")
    if !isFirst {
      position -= 1
      buffer[position] = UInt8(ascii: ",")
    }
    isFirst = false
    return position
  }

  /// A member whose value is decimal text: `write` writes it at the end of the buffer it is
  /// given (at least `DecimalText.capacity` bytes, and two more for quotes) and returns where it
  /// starts. Name and value go in with one append: each append to the array checks its
  /// uniqueness and capacity, and a reply has a dozen such members.
  private mutating func decimalMember(
    _ key: StaticString, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int
  ) {
    let room = DecimalText.capacity + 2
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: key.utf8CodeUnitCount + 4 + room) {
      buffer in
      let valueStart = write(buffer)
      let start = writeKey(key, endingAt: valueStart, in: buffer)
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
    }
  }

  mutating func string(_ key: StaticString, _ value: String) {
    self.key(key)
    JSONValue.writeString(value, to: &bytes)
  }

  mutating func int(_ key: StaticString, _ value: Int64) {
    decimalMember(key) { buffer in DecimalText.write(value, endingAt: buffer) }
  }

  mutating func int(_ key: StaticString, _ value: Int) {
    int(key, Int64(value))
  }

  /// An amount as the wire writes it: a decimal string with the currency's minor digits.
  mutating func money(_ key: StaticString, _ minorUnits: Int64, _ currency: Currency) {
    decimalMember(key) { buffer in
      let last = buffer.count - 1
      buffer[last] = UInt8(ascii: "\"")
      let start = DecimalText.write(
        minorUnits, fractionDigits: currency.minorDigits,
        endingAt: UnsafeMutableBufferPointer(rebasing: buffer[..<last]))
      buffer[start - 1] = UInt8(ascii: "\"")
      return start - 1
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
