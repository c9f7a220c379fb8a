/// Masks anything in free text that looks like a card number, so that a number typed into the
/// wrong box is never echoed, logged or journaled.
///
/// A card number is a run of 12 to 19 digits, optionally in groups separated by one space or
/// one dash ("4242 4242 4242 4242", "4242-4242-4242-4242"), that passes the Luhn check. It is
/// replaced by `****` and its last four digits. Digits that fail the check (order numbers,
/// phone numbers, most SKUs) are left alone. Within a longer run of groups, any consecutive
/// groups that form such a number are masked.
public enum CardNumberMask {
  /// True when `text` holds something that looks like a card number. Identifiers (SKUs,
  /// operator ids, tax classes) that do are refused rather than masked: a masked identifier
  /// would no longer name the same thing.
  public static func containsCardNumber(_ text: String) -> Bool {
    mask(text) != text
  }

  /// True when `digits` (each 0 to 9) make a card number by the rule above: 12 to 19 of them,
  /// passing the Luhn check. The one place that rule is written; masking and the checks of
  /// fields that cannot be masked (a phone number's digits) both ask it.
  public static func isCardNumber(digits: [UInt8]) -> Bool {
    (12...19).contains(digits.count) && CardValidator.passesLuhn(digits)
  }

  /// `text` with every card-number-like run replaced by `****` and its last four digits.
  public static func mask(_ text: String) -> String {
    // Cheap exit, before any copy: most text has no 12 digits at all. (A digit is one ASCII
    // byte, and UTF-8 never uses the bytes 0x30-0x39 inside another character.)
    var digitCount = 0
    for byte in text.utf8 where byte >= 0x30 && byte <= 0x39 { digitCount += 1 }
    guard digitCount >= 12 else { return text }
    let scalars = Array(text.unicodeScalars)
    var output = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
      guard isDigit(scalars[index]), index == 0 || !isDigit(scalars[index - 1]) else {
        output.append(scalars[index])
        index += 1
        continue
      }
      // A run: digit groups joined by single separators.
      var groups: [Range<Int>] = []
      var start = index
      var cursor = index
      while true {
        while cursor < scalars.count && isDigit(scalars[cursor]) { cursor += 1 }
        groups.append(start..<cursor)
        if cursor + 1 < scalars.count, isSeparator(scalars[cursor]), isDigit(scalars[cursor + 1]) {
          start = cursor + 1
          cursor += 1
        } else {
          break
        }
      }
      output.append(contentsOf: maskRun(scalars, groups: groups))
      index = cursor
    }
    return String(output)
  }

  /// The text of one run with card numbers in it masked: the longest stretch of whole groups
  /// (starting from each group in turn) that is a card number is replaced.
  private static func maskRun(_ scalars: [Unicode.Scalar], groups: [Range<Int>])
    -> [Unicode.Scalar]
  {
    var output: [Unicode.Scalar] = []
    var first = 0
    while first < groups.count {
      var matched: Int?
      var digits: [UInt8] = []
      for last in first..<groups.count {
        for position in groups[last] {
          digits.append(UInt8(scalars[position].value - 48))
        }
        if digits.count > 19 { break }
        if isCardNumber(digits: digits) { matched = last }
      }
      if first > 0 {
        // The separator before this group.
        output.append(scalars[groups[first].lowerBound - 1])
      }
      if let matched {
        var all: [Unicode.Scalar] = []
        for group in groups[first...matched] { all.append(contentsOf: scalars[group]) }
        output.append(contentsOf: "****".unicodeScalars)
        output.append(contentsOf: all.suffix(4))
        first = matched + 1
      } else {
        output.append(contentsOf: scalars[groups[first]])
        first += 1
      }
    }
    return output
  }

  private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 48 && scalar.value <= 57
  }

  private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "-"
  }
}
