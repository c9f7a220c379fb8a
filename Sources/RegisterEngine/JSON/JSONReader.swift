/// Reads a JSON text front to back without building a tree: the fast path for the large,
/// regular parts of a snapshot (`ReceiptLedger(snapshotText:path:)`), which start-up and
/// `replay` read on every run.
///
/// It accepts only what its caller expects, in the order the register writes it: an object's
/// members by name, one after the other; integers without a fraction or an exponent; strings.
/// At the first surprise (another member, a member out of order, a number that is not an
/// integer, anything malformed) it answers `nil` or `false`, and the caller decodes the same
/// text as a tree, which accepts the members in any order and says precisely what is wrong.
/// What it does accept it reads as `JSONParser` would: its strings, whitespace and nesting
/// bound are the parser's own, and an integer is the `Int64` of the number's text.
struct JSONReader {
  private var parser: JSONParser
  /// How deeply the value being read is nested in its whole document (for the parser's bound).
  private var depth: Int
  /// A value was just read: the next member or element must be preceded by a comma.
  private var afterValue = false

  /// Reads `text`, a value nested `depth` deep in its document, with `body`: its result when
  /// it has one and nothing but whitespace follows what it read, else nil.
  static func read<T>(
    _ text: ArraySlice<UInt8>, depth: Int, _ body: (inout JSONReader) -> T?
  ) -> T? {
    text.withUnsafeBufferPointer { buffer in
      var reader = JSONReader(parser: JSONParser(bytes: buffer), depth: depth)
      guard let result = body(&reader) else { return nil }
      reader.parser.skipWhitespace()
      return reader.parser.position == buffer.count ? result : nil
    }
  }

  private init(parser: JSONParser, depth: Int) {
    self.parser = parser
    self.depth = depth
  }

  /// Moves past whitespace and `byte` when it is next.
  private mutating func take(_ byte: UInt8) -> Bool {
    parser.skipWhitespace()
    guard parser.current == byte else { return false }
    parser.position += 1
    return true
  }

  /// Moves past the comma that separates a member or element from the value before it.
  private mutating func separator() -> Bool {
    guard afterValue else { return true }
    afterValue = false
    return take(UInt8(ascii: ","))
  }

  /// Enters a container that opens with `byte`, within the parser's nesting bound.
  private mutating func open(_ byte: UInt8) -> Bool {
    guard separator(), depth < JSONParser.maximumDepth, take(byte) else { return false }
    depth += 1
    return true
  }

  /// Leaves a container that closes with `byte`.
  private mutating func close(_ byte: UInt8) -> Bool {
    guard take(byte) else { return false }
    depth -= 1
    afterValue = true
    return true
  }

  mutating func beginObject() -> Bool { open(UInt8(ascii: "{")) }
  mutating func endObject() -> Bool { close(UInt8(ascii: "}")) }

  /// Reads an array, each element with `read` (which answers false to refuse it), up to its
  /// closing bracket: false when the next value is not an array or anything in it is refused.
  mutating func array(_ read: (inout JSONReader) -> Bool) -> Bool {
    guard open(UInt8(ascii: "[")) else { return false }
    while true {
      parser.skipWhitespace()
      if parser.current == UInt8(ascii: "]") {
        parser.position += 1
        depth -= 1
        afterValue = true
        return true
      }
      guard separator(), read(&self) else { return false }
    }
  }

  /// The next member when it is named `key` (its name written without escapes), up to its
  /// value.
  mutating func member(_ key: StaticString) -> Bool {
    guard separator(), take(UInt8(ascii: "\"")) else { return false }
    let name = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    let end = parser.position + name.count
    guard end < parser.bytes.count, parser.bytes[end] == UInt8(ascii: "\""),
      name.elementsEqual(parser.bytes[parser.position..<end])
    else { return false }
    parser.position = end + 1
    return take(UInt8(ascii: ":"))
  }

  /// An integer: a number without a fraction or an exponent that fits in an `Int64`.
  mutating func int64() -> Int64? {
    guard separator() else { return nil }
    parser.skipWhitespace()
    let negative = parser.current == UInt8(ascii: "-")
    if negative { parser.position += 1 }
    guard let first = parser.current, parser.isDigit(first) else { return nil }
    var value: Int64 = 0
    if first == UInt8(ascii: "0") {
      parser.position += 1
    } else {
      // Accumulated on the negative side, where Int64.min fits.
      while let byte = parser.current, parser.isDigit(byte) {
        let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
        let (next, overflow2) = times10.subtractingReportingOverflow(
          Int64(byte - UInt8(ascii: "0")))
        guard !overflow, !overflow2 else { return nil }
        value = next
        parser.position += 1
      }
    }
    // Leading zeros, a fraction or an exponent: not an integer this reader takes.
    if let next = parser.current,
      parser.isDigit(next) || next == UInt8(ascii: ".") || next == UInt8(ascii: "e")
        || next == UInt8(ascii: "E")
    {
      return nil
    }
    afterValue = true
    if negative { return value }
    let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
    return overflow ? nil : positive
  }

  /// An integer within `range`.
  mutating func int64(in range: ClosedRange<Int64>) -> Int64? {
    guard let value = int64(), range.contains(value) else { return nil }
    return value
  }

  /// An integer within `range`, as an `Int`.
  mutating func int(in range: ClosedRange<Int64>) -> Int? {
    int64(in: range).flatMap { Int(exactly: $0) }
  }

  /// A string.
  mutating func string() -> String? {
    guard separator() else { return nil }
    parser.skipWhitespace()
    guard parser.current == UInt8(ascii: "\""), let text = try? parser.parseString() else {
      return nil
    }
    afterValue = true
    return text
  }

  /// Moves past `null` when it is next (false when it is not: then nothing but the separator
  /// before it is read, and the value can still be read as another type).
  mutating func null() -> Bool {
    guard separator() else { return false }
    parser.skipWhitespace()
    let literal = "null".utf8
    let end = parser.position + literal.count
    guard end <= parser.bytes.count, literal.elementsEqual(parser.bytes[parser.position..<end])
    else { return false }
    parser.position = end
    afterValue = true
    return true
  }

  /// The next value whole, as the tree `JSONParser` builds.
  mutating func value() -> JSONValue? {
    guard separator() else { return nil }
    parser.skipWhitespace()
    guard let value = try? parser.parseValue(depth: depth) else { return nil }
    afterValue = true
    return value
  }
}
