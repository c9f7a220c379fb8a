/// Gift card numbers: 16 digits, `600` then 12 random digits then a Luhn check digit.
///
/// No card network issues numbers starting with 600 (Discover's 6011 and 644–65 are the
/// nearest), so a gift card number is never taken for a bank card (`CardBrand.of` knows no
/// brand for it) and a card number is never taken for a gift card. The check digit catches a
/// mistyped number before it is looked up. Because it passes the Luhn check, a gift card
/// number in an error message or a log line is masked like a card number (`****0123`): it is
/// a bearer instrument, and only the receipt that issued it prints it in full.
public enum GiftCardNumber {
  /// The prefix every gift card number starts with.
  public static let prefix = "600"
  /// Digits in a gift card number.
  public static let length = 16

  /// True for 16 ASCII digits that start with the prefix and pass the Luhn check.
  public static func isWellFormed(_ number: String) -> Bool {
    let scalars = Array(number.unicodeScalars)
    guard scalars.count == length, number.hasPrefix(prefix),
      scalars.allSatisfy({ $0.value >= 48 && $0.value <= 57 })
    else { return false }
    return CardValidator.passesLuhn(scalars.map { UInt8($0.value - 48) })
  }

  /// The number as typed: digits, with spaces or dashes between groups allowed ("6001 2345
  /// 6789 0123"); nil when it is not one.
  public static func normalized(_ text: String) -> String? {
    guard let digits = CardValidator.digits(of: text), digits.count == length else { return nil }
    let number = String(digits.map { Character(Unicode.Scalar($0 + 48)) })
    return isWellFormed(number) ? number : nil
  }

  /// A number made from 8 random bytes: the prefix, 12 digits from the bytes, the check digit.
  /// (2^64 is not a multiple of 10^12; the bias that leaves is below one part in 10^7.)
  static func make(from bytes: [UInt8]) -> String {
    var value: UInt64 = 0
    for byte in bytes.prefix(8) { value = value << 8 | UInt64(byte) }
    var body = String(value % 1_000_000_000_000)
    body = String(repeating: "0", count: 12 - body.count) + body
    let partial = prefix + body
    let digits = partial.unicodeScalars.map { UInt8($0.value - 48) }
    // The check digit that makes the whole number pass the Luhn check.
    for check in UInt8(0)...9 where CardValidator.passesLuhn(digits + [check]) {
      return partial + String(check)
    }
    return partial + "0"
  }

  /// The number as everything but its issuing receipt shows it (replies, live events): masked
  /// like a card number, `****` and its last four digits.
  public static func masked(_ number: String) -> String {
    "****" + String(number.suffix(4))
  }

  /// `value` with every gift card number in it (a string that is one, at any depth) masked.
  /// The journal keeps the numbers, since a card is redeemed by its number; what leaves the
  /// daemon for anyone but the customer who bought the card does not.
  public static func masking(_ value: JSONValue) -> JSONValue {
    // Most events hold no gift card number: they are given back as they are, not rebuilt.
    guard holdsNumber(value) else { return value }
    switch value {
    case .null, .bool, .number:
      return value
    case .string(let text):
      return .string(masked(text))
    case .array(let items):
      return .array(items.map(masking))
    case .object(let object):
      var masked = JSONObject(capacity: object.count)
      for (key, member) in object.members { masked.append(key, masking(member)) }
      return .object(masked)
    }
  }

  /// True when a string in `value`, at any depth, is a gift card number.
  private static func holdsNumber(_ value: JSONValue) -> Bool {
    switch value {
    case .null, .bool, .number: false
    // The length first: most strings are not 16 bytes long, and the full check is not free.
    case .string(let text): text.utf8.count == length && isWellFormed(text)
    case .array(let items): items.contains(where: holdsNumber)
    case .object(let object): object.members.contains { holdsNumber($0.value) }
    }
  }

  /// The number in groups of four, as the issuing receipt prints it.
  public static func grouped(_ number: String) -> String {
    var out = ""
    for (index, character) in number.enumerated() {
      if index > 0 && index % 4 == 0 { out.append(" ") }
      out.append(character)
    }
    return out
  }
}

/// A gift card issued by a sale: which line sold it, its number and what it was loaded with.
public struct IssuedGiftCard: Sendable, Equatable {
  public var line: Int
  public var number: String
  public var amount: Money

  public init(line: Int, number: String, amount: Money) {
    self.line = line
    self.number = number
    self.amount = amount
  }
}

/// A gift card the store has issued, and what is left on it.
public struct GiftCard: Sendable, Equatable {
  public var number: String
  /// What it was loaded with when sold.
  public var issuedAmount: Int64
  /// What is left to spend (tenders on the open order already taken off).
  public var balance: Int64
  /// The receipt that sold it, on business day `issuedDay`.
  public var receipt: Int
  public var issuedDay: Int
  public var issuedAt: Timestamp
  /// When it last paid or was refunded to.
  public var lastUsedAt: Timestamp?

  public init(
    number: String, issuedAmount: Int64, balance: Int64, receipt: Int, issuedDay: Int,
    issuedAt: Timestamp, lastUsedAt: Timestamp? = nil
  ) {
    self.number = number
    self.issuedAmount = issuedAmount
    self.balance = balance
    self.receipt = receipt
    self.issuedDay = issuedDay
    self.issuedAt = issuedAt
    self.lastUsedAt = lastUsedAt
  }
}
