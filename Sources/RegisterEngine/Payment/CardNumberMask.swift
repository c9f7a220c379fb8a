/// Masks anything in free text that looks like a card number, so that a number typed into the
/// wrong box (a park note, a reason, a customer's name) is never echoed, logged or journaled.
///
/// A card number is 12 to 19 digits that pass the Luhn check, written as people and OCR write
/// them: whole, or in groups with a short run (at most three) of separators between them —
/// spaces, no-break and other fixed-width spaces, dots, slashes, dashes and hyphens of any
/// width ("4242 4242 4242 4242", "4242.4242.4242.4242", "4242 / 4242 / 4242 / 4242",
/// "4242\u{A0}4242…"). Any decimal digit counts, full-width ("４２４２") and other scripts'
/// digits folded to their value. The number, from its first digit to its last, is replaced by
/// `****` and its last four digits (in ASCII). Digits that fail the check (order numbers,
/// phone numbers, dates, most amounts) are left alone. Within a longer run of groups, any
/// consecutive groups that form such a number are masked.
///
/// Only free text is masked. Identifiers the store or a client chooses (SKUs, barcodes,
/// idempotency keys, operator ids, file names) are never masked or refused for what their
/// digits look like: a masked identifier would no longer name the same thing.
public enum CardNumberMask {
  /// The longest run of separators between two groups of digits that still joins them.
  static let maximumSeparatorRun = 3

  /// True when `text` holds something that looks like a card number.
  public static func containsCardNumber(_ text: String) -> Bool {
    guard mayHoldCardNumber(text) else { return false }
    let scalars = Array(text.unicodeScalars)
    return !runs(in: scalars).allSatisfy { matches(in: scalars, groups: $0).isEmpty }
  }

  /// True when `digits` (each 0 to 9) make a card number by the rule above: 12 to 19 of them,
  /// passing the Luhn check. The one place that rule is written; masking and the checks of
  /// fields that cannot be masked (a phone number's digits) both ask it.
  public static func isCardNumber(digits: [UInt8]) -> Bool {
    (12...19).contains(digits.count) && CardValidator.passesLuhn(digits)
  }

  /// `text` with every card-number-like run replaced by `****` and its last four digits.
  public static func mask(_ text: String) -> String {
    guard mayHoldCardNumber(text) else { return text }
    let scalars = Array(text.unicodeScalars)
    var output = String.UnicodeScalarView()
    var copied = 0
    var changed = false
    for groups in runs(in: scalars) {
      for span in matches(in: scalars, groups: groups) {
        output.append(contentsOf: scalars[copied..<span.range.lowerBound])
        output.append(contentsOf: "****".unicodeScalars)
        for digit in span.digits.suffix(4) {
          output.append(Unicode.Scalar(digit + 48))
        }
        copied = span.range.upperBound
        changed = true
      }
    }
    guard changed else { return text }
    output.append(contentsOf: scalars[copied...])
    return String(output)
  }

  /// False when `text` cannot hold a card number: fewer than 12 ASCII digits and nothing but
  /// ASCII (a digit of another script is never an ASCII byte, and UTF-8 never uses the bytes
  /// 0x30-0x39 inside another character). Most text leaves here, before any copy.
  private static func mayHoldCardNumber(_ text: String) -> Bool {
    var digitCount = 0
    for byte in text.utf8 {
      if byte >= 0x80 { return true }
      if byte >= 0x30 && byte <= 0x39 { digitCount += 1 }
    }
    return digitCount >= 12
  }

  /// Every run in `scalars`: digit groups joined by short runs of separators, as the ranges of
  /// the groups (positions into `scalars`).
  private static func runs(in scalars: [Unicode.Scalar]) -> [[Range<Int>]] {
    var result: [[Range<Int>]] = []
    var index = 0
    while index < scalars.count {
      guard digitValue(scalars[index]) != nil else {
        index += 1
        continue
      }
      var groups: [Range<Int>] = []
      var cursor = index
      while true {
        let start = cursor
        while cursor < scalars.count, digitValue(scalars[cursor]) != nil { cursor += 1 }
        groups.append(start..<cursor)
        var next = cursor
        while next < scalars.count, next - cursor < maximumSeparatorRun,
          isSeparator(scalars[next])
        {
          next += 1
        }
        guard next > cursor, next < scalars.count, digitValue(scalars[next]) != nil else { break }
        cursor = next
      }
      result.append(groups)
      index = cursor
    }
    return result
  }

  /// The card numbers in one run: from each group in turn, the longest stretch of whole groups
  /// that is a card number, with its span in `scalars` and its digits.
  private static func matches(in scalars: [Unicode.Scalar], groups: [Range<Int>]) -> [(
    range: Range<Int>, digits: [UInt8]
  )] {
    var found: [(range: Range<Int>, digits: [UInt8])] = []
    var first = 0
    while first < groups.count {
      var matched: (last: Int, count: Int)?
      var digits: [UInt8] = []
      for last in first..<groups.count {
        for position in groups[last] {
          digits.append(digitValue(scalars[position]) ?? 0)
        }
        if digits.count > 19 { break }
        if isCardNumber(digits: digits) { matched = (last, digits.count) }
      }
      if let matched {
        found.append(
          (
            groups[first].lowerBound..<groups[matched.last].upperBound,
            Array(digits.prefix(matched.count))
          ))
        first = matched.last + 1
      } else {
        first += 1
      }
    }
    return found
  }

  /// The value of a decimal digit of any script (ASCII, full-width, Arabic-Indic, ...).
  private static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
    if scalar.value >= 48 && scalar.value <= 57 { return UInt8(scalar.value - 48) }
    guard scalar.value >= 0x80, scalar.properties.numericType == .decimal,
      let value = scalar.properties.numericValue, value >= 0, value <= 9
    else { return nil }
    return UInt8(value)
  }

  /// A character people or OCR put between a card number's groups.
  private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x20, 0x2D, 0x2E, 0x2F: true  // space - . /
    case 0xA0, 0x2007, 0x202F, 0x2009, 0x200A, 0x2002...0x2006, 0x3000: true  // spaces
    case 0x2010...0x2015, 0x2212, 0xFE63, 0xFF0D: true  // hyphens, dashes, minus
    case 0xFF0E, 0xFF0F, 0x2024, 0x2044, 0x2215, 0x00B7, 0x2027: true  // dots, slashes
    default: false
    }
  }
}
