/// How a cell is drawn: bold, reverse video, dim, and a foreground colour (dropped under
/// `NO_COLOR`, where only the attributes stay).
package struct CellStyle: Equatable, Sendable {
  package var bold = false
  package var reverse = false
  package var dim = false
  /// An ANSI foreground colour, 0–7 (nil: the terminal's own).
  package var color: UInt8?

  package init(bold: Bool = false, reverse: Bool = false, dim: Bool = false, color: UInt8? = nil) {
    self.bold = bold
    self.reverse = reverse
    self.dim = dim
    self.color = color
  }

  package static let plain = CellStyle()
  package static let red: UInt8 = 1
  package static let green: UInt8 = 2
  package static let yellow: UInt8 = 3
  package static let cyan: UInt8 = 6

  /// The SGR sequence that sets this style from none.
  func sequence(colors: Bool) -> String {
    var codes = ["0"]
    if bold { codes.append("1") }
    if dim { codes.append("2") }
    if reverse { codes.append("7") }
    if colors, let color { codes.append("3\(color)") }
    return "\u{1B}[" + codes.joined(separator: ";") + "m"
  }
}

/// One cell of the screen: a character one column wide and its style.
package struct Cell: Equatable, Sendable {
  package var character: Character
  package var style: CellStyle

  package static let blank = Cell(character: " ", style: .plain)
}

/// A whole screen's content, row by row, as it should look.
package struct Frame: Equatable, Sendable {
  package let width: Int
  package let height: Int
  private(set) var cells: [Cell]

  package init(width: Int, height: Int) {
    self.width = max(1, width)
    self.height = max(1, height)
    cells = Array(repeating: .blank, count: self.width * self.height)
  }

  /// Writes `text` from `column` on `row`, cut at the right edge (and at `limit` columns when
  /// given). A character that is not one column wide (a control character, a wide or
  /// combining one) is drawn as `?`, so a column is always a character.
  package mutating func put(
    _ text: String, row: Int, column: Int = 0, style: CellStyle = .plain, limit: Int? = nil
  ) {
    guard row >= 0, row < height else { return }
    var column = column
    let end = min(width, limit.map { column + $0 } ?? width)
    for character in text {
      guard column < end else { break }
      if column >= 0 {
        cells[row * width + column] = Cell(
          character: Frame.isNarrow(character) ? character : "?", style: style)
      }
      column += 1
    }
  }

  /// Fills `count` columns of `row` from `column` with spaces in `style` (a bar's background).
  package mutating func fill(row: Int, column: Int = 0, count: Int? = nil, style: CellStyle) {
    guard row >= 0, row < height else { return }
    let end = min(width, column + (count ?? width))
    for index in max(0, column)..<max(max(0, column), end) {
      cells[row * width + index] = Cell(character: " ", style: style)
    }
  }

  package subscript(row: Int, column: Int) -> Cell { cells[row * width + column] }

  /// The text of `row` (styles left out), trailing spaces included.
  package func text(row: Int) -> String {
    String(cells[(row * width)..<((row + 1) * width)].map(\.character))
  }

  /// Every row's text.
  package var lines: [String] { (0..<height).map { text(row: $0) } }

  /// True for a character that takes exactly one column on a terminal: printable, not
  /// combining, not East Asian wide (those ranges are the common ones; an uncommon wide
  /// character is the cost of not shipping Unicode's width table).
  static func isNarrow(_ character: Character) -> Bool {
    guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first
    else { return false }
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return false }
    let wide: [ClosedRange<UInt32>] = [
      0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
      0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD,
    ]
    if wide.contains(where: { $0.contains(value) }) { return false }
    return !scalar.properties.isGraphemeExtend && scalar.properties.generalCategory != .format
  }
}

/// Brings the terminal from the frame it shows to the next one by writing only the cells that
/// changed: a cursor move to each run of changed cells, the style where it changes, the
/// characters. The first frame, and one of another size (after a resize), clears the screen
/// and draws everything.
package struct FrameWriter {
  private var shown: Frame?
  private let colors: Bool

  /// `colors`: false under `NO_COLOR`: bold, dim and reverse video only.
  package init(colors: Bool) {
    self.colors = colors
  }

  /// Forgets what the terminal shows: the next frame is drawn whole (after a resize, or when
  /// something else wrote to the terminal).
  package mutating func invalidate() { shown = nil }

  /// The bytes that turn the shown frame into `frame` (empty when nothing changed).
  package mutating func update(to frame: Frame) -> String {
    var out = ""
    let previous = shown.flatMap { $0.width == frame.width && $0.height == frame.height ? $0 : nil }
    if previous == nil { out += "\u{1B}[0m\u{1B}[2J" }
    var style: CellStyle?
    for row in 0..<frame.height {
      var column = 0
      while column < frame.width {
        if let previous, previous[row, column] == frame[row, column] {
          column += 1
          continue
        }
        // A run of changed cells; an unchanged gap of up to 4 cells before the next change
        // is written through (cheaper than a cursor move), nothing after the last change.
        out += "\u{1B}[\(row + 1);\(column + 1)H"
        while column < frame.width {
          let cell = frame[row, column]
          if let previous, previous[row, column] == cell {
            let ahead = (column + 1)..<min(frame.width, column + 5)
            guard ahead.contains(where: { previous[row, $0] != frame[row, $0] }) else { break }
          }
          if style != cell.style {
            out += cell.style.sequence(colors: colors)
            style = cell.style
          }
          out.append(cell.character)
          column += 1
        }
      }
    }
    if style != nil && style != .plain { out += "\u{1B}[0m" }
    shown = frame
    return out
  }
}
