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
    if !isFirst { bytes.append(UInt8(ascii: ",")) }
    isFirst = false
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: #"":"#.utf8)
  }

  mutating func string(_ key: StaticString, _ value: String) {
    self.key(key)
    JSONValue.writeString(value, to: &bytes)
  }

  mutating func int<T: BinaryInteger>(_ key: StaticString, _ value: T) {
    self.key(key)
    bytes.append(contentsOf: String(value).utf8)
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

  /// A nested object written by `body`.
  mutating func object(_ key: StaticString, _ body: (inout JSONObjectWriter) -> Void) {
    self.key(key)
    var nested = JSONObjectWriter(capacity: 64)
    body(&nested)
    bytes.append(contentsOf: nested.finished())
  }

  /// The object's bytes (`}` added).
  consuming func finished() -> [UInt8] {
    bytes.append(UInt8(ascii: "}"))
    return bytes
  }
}
