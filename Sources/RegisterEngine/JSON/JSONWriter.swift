extension JSONValue {
  /// Compact JSON text on one line: members in their stored order, no spaces, `/` unescaped,
  /// non-ASCII written as UTF-8. The same value always gives the same bytes.
  public var serialized: String {
    String(decoding: serializedBytes, as: UTF8.self)
  }

  /// The compact JSON text as UTF-8 bytes.
  public var serializedBytes: [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    write(to: &output)
    return output
  }

  /// Appends the compact JSON text to `output`.
  public func write(to output: inout String) {
    output += serialized
  }

  /// Appends the compact JSON text, as UTF-8, to `output`.
  public func write(to output: inout [UInt8]) {
    switch self {
    case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    case .bool(let flag):
      output.append(contentsOf: flag ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
    case .number(let text): output.append(contentsOf: text.utf8)
    case .string(let text): Self.writeString(text, to: &output)
    case .array(let items):
      output.append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        item.write(to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      output.append(UInt8(ascii: "{"))
      var first = true
      for member in object.members {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        Self.writeString(member.key, to: &output)
        output.append(UInt8(ascii: ":"))
        member.value.write(to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// Indented JSON text for people to read (two spaces per level).
  public var pretty: String {
    var output = ""
    writePretty(to: &output, indent: "")
    return output
  }

  private func writePretty(to output: inout String, indent: String) {
    let inner = indent + "  "
    switch self {
    case .array(let items) where !items.isEmpty:
      output += "[\n"
      for (index, item) in items.enumerated() {
        output += inner
        item.writePretty(to: &output, indent: inner)
        output += index + 1 < items.count ? ",\n" : "\n"
      }
      output += indent + "]"
    case .object(let object) where !object.isEmpty:
      output += "{\n"
      let members = object.members
      for (index, member) in members.enumerated() {
        output += inner
        Self.writeString(member.key, to: &output)
        output += ": "
        member.value.writePretty(to: &output, indent: inner)
        output += index + 1 < members.count ? ",\n" : "\n"
      }
      output += indent + "}"
    default:
      write(to: &output)
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// Writes a JSON string: quotes, backslashes and control characters escaped (and U+2028,
  /// U+2029 and DEL, which some readers choke on); everything else copied as UTF-8.
  static func writeString(_ text: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { bytes in
      // Nearly every string (a type, a reason, a hash) is printable ASCII with no quote or
      // backslash: checked in one tight pass, then appended in one piece.
      var plain = true
      for byte in bytes where byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C {
        plain = false
        break
      }
      if plain {
        output.append(contentsOf: bytes)
        return
      }
      var index = 0
      var runStart = 0
      let count = bytes.count
      while index < count {
        let byte = bytes[index]
        // The common case: a byte copied as it is (runs are appended in one piece).
        if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte < 0x7F {
          index += 1
          continue
        }
        if byte >= 0x80 && byte != 0xE2 {
          index += 1
          continue
        }
        let escape: (bytes: [UInt8], length: Int)
        switch byte {
        case UInt8(ascii: "\""): escape = ([0x5C, 0x22], 1)
        case UInt8(ascii: "\\"): escape = ([0x5C, 0x5C], 1)
        case 0x0A: escape = ([0x5C, 0x6E], 1)
        case 0x0D: escape = ([0x5C, 0x72], 1)
        case 0x09: escape = ([0x5C, 0x74], 1)
        case 0x08: escape = ([0x5C, 0x62], 1)
        case 0x0C: escape = ([0x5C, 0x66], 1)
        case 0xE2
        where index + 2 < count && bytes[index + 1] == 0x80
          && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
          escape = (unicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029), 3)
        case 0xE2:
          index += 1
          continue
        default:
          // The other control characters and DEL.
          escape = (unicodeEscape(UInt32(byte)), 1)
        }
        if runStart < index {
          output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
        output.append(contentsOf: escape.bytes)
        index += escape.length
        runStart = index
      }
      if runStart < count {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
      }
    }
    output.append(UInt8(ascii: "\""))
  }

  private static func unicodeEscape(_ value: UInt32) -> [UInt8] {
    [0x5C, 0x75] + [12, 8, 4, 0].map { hexDigits[Int((value >> UInt32($0)) & 0xF)] }
  }

  static func writeString(_ text: String, to output: inout String) {
    var bytes: [UInt8] = []
    writeString(text, to: &bytes)
    output += String(decoding: bytes, as: UTF8.self)
  }
}
