/// Fixed-width text for receipts and reports: every line exactly fits `width` characters.
struct TextLayout {
  let width: Int
  private(set) var lines: [String] = []

  init(width: Int) {
    self.width = width
  }

  /// The finished text, one `\n` after every line.
  var text: String { lines.map { $0 + "\n" }.joined() }

  /// A line of text; if it is too long it wraps, continuation lines indented by `indent`.
  mutating func line(_ text: String, indent: String = "") {
    for piece in wrap(text, indent: indent) { lines.append(piece) }
  }

  mutating func blank() { lines.append("") }

  mutating func rule(_ character: Character = "-") {
    lines.append(String(repeating: character, count: width))
  }

  mutating func center(_ text: String) {
    for piece in wrap(text, indent: "") {
      let padding = max(0, (width - piece.count) / 2)
      lines.append(String(repeating: " ", count: padding) + piece)
    }
  }

  /// `left` and `right` on one line with spaces between; when they do not fit, `left` wraps
  /// (continuation lines indented by `indent`) and `right` ends the last line.
  mutating func columns(_ left: String, _ right: String, indent: String = "  ") {
    let room = width - right.count - 1
    guard room > 0 else {
      line(left)
      lines.append(String(repeating: " ", count: max(0, width - right.count)) + right)
      return
    }
    var pieces = wrap(left, indent: indent, firstWidth: room, restWidth: room)
    let last = pieces.removeLast()
    lines.append(contentsOf: pieces)
    lines.append(last + String(repeating: " ", count: width - last.count - right.count) + right)
  }

  /// Splits text into lines of at most the given widths, breaking at spaces where it can.
  func wrap(
    _ text: String, indent: String, firstWidth: Int? = nil, restWidth: Int? = nil
  ) -> [String] {
    let first = firstWidth ?? width
    let rest = (restWidth ?? width) - indent.count
    var result: [String] = []
    var remaining = Substring(text)
    var limit = first
    var prefix = ""
    while true {
      if remaining.count <= limit {
        result.append(prefix + remaining)
        return result
      }
      let window = remaining.prefix(limit + 1)
      var cut = window.lastIndex(of: " ") ?? remaining.index(remaining.startIndex, offsetBy: limit)
      if cut == remaining.startIndex {
        cut = remaining.index(remaining.startIndex, offsetBy: limit)
      }
      result.append(prefix + remaining[..<cut])
      remaining = remaining[cut...].drop { $0 == " " }
      prefix = indent
      limit = max(1, rest)
    }
  }
}
