/// A fixed table from short texts (1 to 32 bytes of UTF-8) to values, looked up straight from
/// the bytes of a line, without making a `String` of them first.
///
/// Making a `String` from bytes validates them as UTF-8 and, with a `Dictionary`, hashes them
/// with SipHash: a few hundred instructions for a four-letter word, where the request path
/// meets a dozen words per line (member names, op names, event types). Here a text is packed
/// into four 64-bit words and found by one multiplicative hash and a probe of an open-addressed
/// table, built once from the entries the code names.
///
/// The multiplications are a hash's (modulo 2^64 by design); no count, amount or index is
/// computed with them. A text longer than 32 bytes, or not in the table, is simply not found.
struct ShortTextTable<Value: Sendable>: Sendable {
  private struct Slot: Sendable {
    var words: Words
    var length: Int
    var value: Value
  }

  /// A text's bytes as words (`pack`).
  private struct Words: Equatable, Sendable {
    var first: UInt64 = 0
    var second: UInt64 = 0
    var third: UInt64 = 0
    var fourth: UInt64 = 0
  }

  /// Power-of-two sized, at most a quarter full (so a probe ends at an empty slot quickly).
  private let slots: [Slot?]
  private let shift: UInt64

  static var maximumLength: Int { 32 }

  /// A table of `entries`; a text listed twice keeps its first value, a text past 32 bytes is
  /// left out (it could never be found).
  init(_ entries: [(text: String, value: Value)]) {
    var bits: UInt64 = 2
    while (1 << bits) < entries.count * 4 { bits += 1 }
    var slots = [Slot?](repeating: nil, count: 1 << bits)
    let shift = 64 - bits
    for entry in entries {
      let utf8 = Array(entry.text.utf8)
      guard !utf8.isEmpty, utf8.count <= Self.maximumLength,
        let words = utf8.withUnsafeBufferPointer({
          $0.baseAddress.map { Self.pack($0, utf8.count) }
        })
      else { continue }
      var index = Self.hash(words, utf8.count, shift: shift)
      var duplicate = false
      while let slot = slots[index] {
        if slot.words == words, slot.length == utf8.count {
          duplicate = true
          break
        }
        index = (index + 1) & (slots.count - 1)
      }
      if !duplicate {
        slots[index] = Slot(words: words, length: utf8.count, value: entry.value)
      }
    }
    self.slots = slots
    self.shift = shift
  }

  /// The value of the text in `count` bytes at `start`, when it is in the table.
  @inline(__always)
  func value(at start: UnsafePointer<UInt8>, count: Int) -> Value? {
    guard count > 0, count <= Self.maximumLength else { return nil }
    let words = Self.pack(start, count)
    var index = Self.hash(words, count, shift: shift)
    while let slot = slots[index] {
      if slot.words == words, slot.length == count { return slot.value }
      index = (index + 1) & (slots.count - 1)
    }
    return nil
  }

  /// The value of `text`, when it is in the table.
  func value(of text: String) -> Value? {
    var text = text
    return text.withUTF8 { utf8 in utf8.baseAddress.flatMap { value(at: $0, count: utf8.count) } }
  }

  /// The text's bytes as words, zero where it has none: eight at a time from the start, and the
  /// last word taken as the text's last eight bytes (overlapping the word before it when the
  /// length is not a multiple of eight; with the length compared too, the words still name
  /// exactly one text). Reads only the `count` bytes given.
  @inline(__always)
  private static func pack(_ start: UnsafePointer<UInt8>, _ count: Int) -> Words {
    let raw = UnsafeRawPointer(start)
    var words = Words()
    guard count >= 8 else {
      for offset in 0..<count {
        words.first |= UInt64(start[offset]) << (UInt64(offset) * 8)
      }
      return words
    }
    words.first = raw.loadUnaligned(as: UInt64.self)
    guard count > 8 else { return words }
    let last = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    guard count > 16 else {
      words.second = last
      return words
    }
    words.second = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    guard count > 24 else {
      words.third = last
      return words
    }
    words.third = raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
    words.fourth = last
    return words
  }

  @inline(__always)
  private static func hash(_ words: Words, _ count: Int, shift: UInt64) -> Int {
    let spread =
      words.first ^ (words.second &* 0x9E37_79B9_7F4A_7C15) ^ (words.third &* 0xC2B2_AE3D_27D4_EB4F)
      ^ (words.fourth &* 0x1656_67B1_9E37_79F9) ^ UInt64(count)
    let mixed = (spread ^ (spread >> 29)) &* 0xBF58_476D_1CE4_E5B9
    return Int(truncatingIfNeeded: mixed >> shift)
  }
}

extension ShortTextTable where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
  /// Every case of an enum by its raw value (its name on the wire or in the journal).
  init(cases _: Value.Type) {
    self.init(Value.allCases.map { ($0.rawValue, $0) })
  }

  /// The case named `name`. A name too long for the table is looked up the slow way, so a
  /// case with a long name would still be found.
  func named(_ name: String) -> Value? {
    name.utf8.count > Self.maximumLength ? Value(rawValue: name) : value(of: name)
  }
}
