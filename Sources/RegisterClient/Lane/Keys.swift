/// A key as the lane screen handles it, decoded from what the terminal sends.
package enum Key: Hashable, Sendable {
  /// A printable character.
  case character(Character)
  case enter
  case backspace
  case delete
  case escape
  case tab
  case up, down, left, right, pageUp, pageDown, home, end
  /// F1 to F12.
  case function(Int)
  /// A control character, by its letter: `.control("c")` is Ctrl-C.
  case control(Character)
  /// A mouse click (or a touch) at a cell, counted from 0.
  case click(column: Int, row: Int)
}

/// Turns the bytes a terminal sends into keys: UTF-8 text, Enter (CR, LF or CR LF — a
/// keyboard-wedge scanner sends any of them), the escape sequences of xterm, VT220 and the
/// Linux console for cursor and function keys, and SGR mouse reports (`CSI < b ; x ; y M`).
/// A sequence cut between two reads is kept until the rest comes; `flush` gives a lone Escape
/// when nothing followed it.
package struct KeyDecoder {
  private var pending: [UInt8] = []
  /// The last byte was a CR: a LF right after it is the same Enter.
  private var afterCarriageReturn = false

  package init() {}

  /// True while an incomplete sequence waits for more bytes.
  package var isWaiting: Bool { !pending.isEmpty }

  /// The keys in `bytes` (with what an earlier call left incomplete).
  package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending.append(contentsOf: bytes)
    var keys: [Key] = []
    var index = 0
    while index < pending.count {
      guard let (key, length) = decode(at: index) else { break }
      index += length
      if let key { keys.append(key) }
    }
    pending.removeFirst(index)
    return keys
  }

  /// What is left when no more bytes came: an Escape (and whatever followed it, as keys of
  /// their own), or nothing.
  package mutating func flush() -> [Key] {
    guard !pending.isEmpty else { return [] }
    var keys: [Key] = []
    if pending.first == 0x1B {
      keys.append(.escape)
      pending.removeFirst()
    }
    let rest = pending
    pending = []
    // (Whatever follows is read again on its own; an incomplete UTF-8 sequence is dropped.)
    keys += feed(rest.filter { $0 != 0x1B })
    pending = []
    return keys
  }

  /// The key at `index` and how many bytes it took (a nil key: bytes that mean nothing, such as
  /// the LF of a CR LF); nil when the bytes there are an incomplete sequence.
  private mutating func decode(at index: Int) -> (Key?, Int)? {
    let byte = pending[index]
    let wasCarriageReturn = afterCarriageReturn
    afterCarriageReturn = false
    switch byte {
    case 0x0D:
      afterCarriageReturn = true
      return (.enter, 1)
    case 0x0A:
      return (wasCarriageReturn ? nil : .enter, 1)
    case 0x7F, 0x08: return (.backspace, 1)
    case 0x09: return (.tab, 1)
    case 0x1B: return escapeSequence(at: index)
    case 0x00..<0x20:
      return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
    case 0x20..<0x7F:
      return (.character(Character(Unicode.Scalar(byte))), 1)
    default:
      return utf8Character(at: index)
    }
  }

  private func utf8Character(at index: Int) -> (Key?, Int)? {
    let byte = pending[index]
    let length =
      byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
    if length == 1 { return (nil, 1) }  // a stray continuation byte
    guard index + length <= pending.count else { return nil }
    let text = String(decoding: pending[index..<index + length], as: UTF8.self)
    guard let character = text.first, text.count == 1, character != "\u{FFFD}" else {
      return (nil, length)
    }
    return (.character(character), length)
  }

  private func escapeSequence(at index: Int) -> (Key?, Int)? {
    guard index + 1 < pending.count else { return nil }
    let second = pending[index + 1]
    if second == UInt8(ascii: "O") {
      // SS3: F1–F4, and the cursor keys in application mode.
      guard index + 2 < pending.count else { return nil }
      let table: [UInt8: Key] = [
        UInt8(ascii: "P"): .function(1), UInt8(ascii: "Q"): .function(2),
        UInt8(ascii: "R"): .function(3), UInt8(ascii: "S"): .function(4),
        UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right,
        UInt8(ascii: "D"): .left, UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
        UInt8(ascii: "M"): .enter,
      ]
      return (table[pending[index + 2]], 3)
    }
    guard second == UInt8(ascii: "[") else {
      // Escape then a key (Alt+key, or Escape typed before a letter): the Escape alone.
      return (.escape, 1)
    }
    // The Linux console's F1–F5: CSI [ A … E.
    if index + 2 < pending.count, pending[index + 2] == UInt8(ascii: "[") {
      guard index + 3 < pending.count else { return nil }
      let letter = pending[index + 3]
      let number = Int(letter) - Int(UInt8(ascii: "A")) + 1
      return ((1...5).contains(number) ? .function(number) : nil, 4)
    }
    // CSI parameters, intermediates, final byte.
    var end = index + 2
    while end < pending.count, (0x20...0x3F).contains(pending[end]) { end += 1 }
    guard end < pending.count else {
      // A sequence longer than any real key is noise: drop the Escape and read on.
      return end - index > 32 ? (.escape, 1) : nil
    }
    let final = pending[end]
    let parameterText = String(decoding: pending[(index + 2)..<end], as: UTF8.self)
    let length = end - index + 1
    if parameterText.hasPrefix("<") {
      return (mouse(parameterText.dropFirst(), final: final), length)
    }
    let numbers = parameterText.split(separator: ";").map { Int($0) ?? 0 }
    switch final {
    case UInt8(ascii: "A"): return (.up, length)
    case UInt8(ascii: "B"): return (.down, length)
    case UInt8(ascii: "C"): return (.right, length)
    case UInt8(ascii: "D"): return (.left, length)
    case UInt8(ascii: "H"): return (.home, length)
    case UInt8(ascii: "F"): return (.end, length)
    case UInt8(ascii: "P"): return (.function(1), length)
    case UInt8(ascii: "Q"): return (.function(2), length)
    case UInt8(ascii: "R"): return (.function(3), length)
    case UInt8(ascii: "S"): return (.function(4), length)
    case UInt8(ascii: "~"):
      let table: [Int: Key] = [
        1: .home, 7: .home, 4: .end, 8: .end, 3: .delete, 5: .pageUp, 6: .pageDown,
        11: .function(1), 12: .function(2), 13: .function(3), 14: .function(4),
        15: .function(5), 17: .function(6), 18: .function(7), 19: .function(8),
        20: .function(9), 21: .function(10), 23: .function(11), 24: .function(12),
      ]
      return (numbers.first.flatMap { table[$0] }, length)
    default:
      return (nil, length)
    }
  }

  /// An SGR mouse report: a press of the first button is a click; the wheel moves the
  /// selection; releases, drags and other buttons mean nothing here.
  private func mouse(_ text: Substring, final: UInt8) -> Key? {
    let fields = text.split(separator: ";").compactMap { Int($0) }
    guard fields.count == 3, final == UInt8(ascii: "M") else { return nil }
    let (button, column, row) = (fields[0], fields[1] - 1, fields[2] - 1)
    guard column >= 0, row >= 0 else { return nil }
    switch button {
    case 0: return .click(column: column, row: row)
    case 64: return .up
    case 65: return .down
    default: return nil
    }
  }
}
