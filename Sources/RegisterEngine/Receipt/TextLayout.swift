/// How a printer that can (ESC/POS) sets a line apart; plain text ignores it.
struct LineStyle: Equatable, Sendable {
  /// Bold (ESC E).
  var emphasized = false
  /// Twice as tall, same width (GS !), so the columns stay where they are.
  var doubleHeight = false

  static let plain = LineStyle()
  static let emphasized = LineStyle(emphasized: true)
  static let large = LineStyle(emphasized: true, doubleHeight: true)
}

/// Fixed-width text for receipts and reports: every line exactly fits `width` characters.
///
/// Each line also keeps its style and whether it was centred, so the same layout prints as
/// plain text and as ESC/POS (`EscPos.document`) with the same line breaks.
struct TextLayout {
  let width: Int
  private(set) var lines: [String] = []
  /// Per line: its style, and whether `center` made it (padded to the middle of `width`).
  private(set) var styles: [(style: LineStyle, centered: Bool)] = []
  /// The style of the lines appended next.
  var style = LineStyle.plain

  init(width: Int) {
    self.width = width
  }

  /// The finished text, one `\n` after every line.
  var text: String {
    var text = ""
    text.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
    for line in lines {
      text += line
      text += "\n"
    }
    return text
  }

  /// Appends lines in `style`, then goes back to the style before.
  mutating func styled(_ style: LineStyle, _ body: (inout TextLayout) -> Void) {
    let before = self.style
    self.style = style
    body(&self)
    self.style = before
  }

  private mutating func append(_ line: String, centered: Bool = false) {
    lines.append(line)
    styles.append((style, centered))
  }

  /// A line of text; if it is too long it wraps, continuation lines indented by `indent`.
  mutating func line(_ text: String, indent: String = "") {
    for piece in wrap(text, indent: indent) { append(piece) }
  }

  mutating func blank() { append("") }

  mutating func rule(_ character: Character = "-") {
    append(String(repeated: character, count: width))
  }

  mutating func center(_ text: String) {
    for piece in wrap(text, indent: "") {
      let padding = max(0, (width - piece.count) / 2)
      append(String(repeated: " ", count: padding) + piece, centered: true)
    }
  }

  /// `left` and `right` on one line with spaces between; when they do not fit, `left` wraps
  /// (continuation lines indented by `indent`) and `right` ends the last line.
  mutating func columns(_ left: String, _ right: String, indent: String = "  ") {
    let room = width - right.count - 1
    guard room > 0 else {
      line(left)
      append(String(repeated: " ", count: max(0, width - right.count)) + right)
      return
    }
    var pieces = wrap(left, indent: indent, firstWidth: room, restWidth: room)
    let last = pieces.removeLast()
    for piece in pieces { append(piece) }
    append(last + String(repeated: " ", count: width - last.count - right.count) + right)
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
