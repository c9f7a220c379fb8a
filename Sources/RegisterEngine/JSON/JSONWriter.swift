extension JSONValue {
  /// Compact JSON text on one line: members in their stored order, no spaces, `/` unescaped,
  /// non-ASCII written as UTF-8. The same value always gives the same bytes.
  public var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  /// The compact JSON text as UTF-8 bytes.
  public var serializedBytes: [UInt8] { Array(serialized.utf8) }

  /// Appends the compact JSON text to `output`.
  public func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let flag): output += flag ? "true" : "false"
    case .number(let text): output += text
    case .string(let text): Self.writeString(text, to: &output)
    case .array(let items):
      output += "["
      for (index, item) in items.enumerated() {
        if index > 0 { output += "," }
        item.write(to: &output)
      }
      output += "]"
    case .object(let object):
      output += "{"
      for (index, member) in object.members.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(member.key, to: &output)
        output += ":"
        member.value.write(to: &output)
      }
      output += "}"
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

  private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

  static func writeString(_ text: String, to output: inout String) {
    output += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{08}": output += "\\b"
      case "\u{0C}": output += "\\f"
      case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
        let value = Int(scalar.value)
        output += "\\u"
        for shift in [12, 8, 4, 0] {
          output.unicodeScalars.append(hexDigits[(value >> shift) & 0xF])
        }
      default:
        output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
