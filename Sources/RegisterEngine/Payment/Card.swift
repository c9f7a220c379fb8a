/// A card network, recognised from the number's leading digits (the IIN range).
public enum CardBrand: String, Sendable, Equatable, CaseIterable {
  case visa = "VISA"
  case mastercard = "MASTERCARD"
  case amex = "AMEX"
  case discover = "DISCOVER"
  case jcb = "JCB"
  case dinersClub = "DINERS"

  /// The network's name as people write it: "Visa", "American Express".
  public var name: String {
    switch self {
    case .visa: "Visa"
    case .mastercard: "Mastercard"
    case .amex: "American Express"
    case .discover: "Discover"
    case .jcb: "JCB"
    case .dinersClub: "Diners Club"
    }
  }

  /// The name after "a" or "an", as a sentence needs it: "an American Express".
  public var withArticle: String {
    (name.first.map { "AEIOU".contains($0) } ?? false ? "an " : "a ") + name
  }

  /// The lengths this network issues.
  public var lengths: Set<Int> {
    switch self {
    case .visa: [13, 16, 19]
    case .mastercard: [16]
    case .amex: [15]
    case .discover: [16, 17, 18, 19]
    case .jcb: [16, 17, 18, 19]
    case .dinersClub: [14, 15, 16, 17, 18, 19]
    }
  }

  /// How many digits the card security code has.
  public var cvvLength: Int { self == .amex ? 4 : 3 }

  /// The brand of a card number (digits only), or `nil` when no supported network issues it.
  public static func of(digits: [UInt8]) -> CardBrand? {
    func prefix(_ count: Int) -> Int {
      var value = 0
      for digit in digits.prefix(count) { value = value * 10 + Int(digit) }
      return digits.count >= count ? value : -1
    }
    switch true {
    case prefix(1) == 4: return .visa
    case (51...55).contains(prefix(2)), (2221...2720).contains(prefix(4)): return .mastercard
    case prefix(2) == 34, prefix(2) == 37: return .amex
    case prefix(4) == 6011, (644...649).contains(prefix(3)), prefix(2) == 65,
      (622_126...622_925).contains(prefix(6)):
      return .discover
    case (3528...3589).contains(prefix(4)): return .jcb
    case (300...305).contains(prefix(3)), prefix(2) == 36, prefix(2) == 38, prefix(2) == 39,
      prefix(4) == 3095:
      return .dinersClub
    default: return nil
    }
  }
}

/// What the register keeps of a card: the brand and the last four digits. Never more.
public struct CardSummary: Sendable, Equatable, Hashable {
  public var brand: CardBrand
  public var last4: String

  public init(brand: CardBrand, last4: String) {
    self.brand = brand
    self.last4 = last4
  }

  /// "VISA ****4242", as receipts print it.
  public var masked: String { "\(brand.rawValue) ****\(last4)" }
}

/// Card data as typed at the lane. It lives only while the request is decided; only its
/// `summary` is ever stored, journaled or sent back. `description` never shows the number.
public struct CardInput: Sendable, Equatable, CustomStringConvertible {
  public var number: String
  public var expiryMonth: Int
  public var expiryYear: Int
  public var cvv: String

  public init(number: String, expiryMonth: Int, expiryYear: Int, cvv: String) {
    self.number = number
    self.expiryMonth = expiryMonth
    self.expiryYear = expiryYear
    self.cvv = cvv
  }

  public var description: String { "CardInput(redacted)" }
}

/// Why card data was refused. Messages never contain the card number or the CVV.
public enum CardError: Error, Equatable, CustomStringConvertible {
  case invalid(String)
  case expired(month: Int, year: Int)

  public var description: String {
    switch self {
    case .invalid(let reason): reason
    case .expired(let month, let year):
      "the card expired at the end of \(pad(month, 2))/\(year)"
    }
  }
}

/// Card number and expiry checks: Luhn, 12–19 digits, brand and its lengths, expiry not past,
/// CVV length by brand.
public enum CardValidator {
  /// The digits of a card number; spaces and dashes between digit groups are allowed.
  static func digits(of number: String) -> [UInt8]? {
    var digits: [UInt8] = []
    for scalar in number.unicodeScalars {
      switch scalar {
      case "0"..."9": digits.append(UInt8(scalar.value - 48))
      case " ", "-": continue
      default: return nil
      }
    }
    return digits
  }

  /// True when the digits pass the Luhn (mod 10) check.
  public static func passesLuhn(_ digits: [UInt8]) -> Bool {
    var sum = 0
    for (index, digit) in digits.reversed().enumerated() {
      var value = Int(digit)
      if index % 2 == 1 {
        value *= 2
        if value > 9 { value -= 9 }
      }
      sum += value
    }
    return !digits.isEmpty && sum % 10 == 0
  }

  /// Validates card data as of `today` and returns what may be kept of it.
  public static func validate(_ card: CardInput, today: CivilTime) throws(CardError) -> CardSummary
  {
    guard let digits = digits(of: card.number) else {
      throw .invalid("the card number may contain only digits (spaces and dashes allowed)")
    }
    guard (12...19).contains(digits.count) else {
      throw .invalid("a card number has 12 to 19 digits, this one has \(digits.count)")
    }
    guard passesLuhn(digits) else {
      throw .invalid("the card number is not valid (check digit mismatch); re-enter it")
    }
    guard let brand = CardBrand.of(digits: digits) else {
      throw .invalid(
        "the card brand is not accepted (Visa, Mastercard, Amex, Discover, JCB, Diners)")
    }
    guard brand.lengths.contains(digits.count) else {
      throw .invalid("\(brand.withArticle) card number cannot have \(digits.count) digits")
    }
    guard (1...12).contains(card.expiryMonth) else {
      throw .invalid("exp_month must be 1 to 12")
    }
    let year: Int
    switch card.expiryYear {
    case 0...99: year = 2000 + card.expiryYear
    case 2000...2199: year = card.expiryYear
    default: throw .invalid("exp_year must be two digits (27) or four (2027)")
    }
    let currentYear = Int(today.year)
    if year < currentYear || (year == currentYear && card.expiryMonth < today.month) {
      throw .expired(month: card.expiryMonth, year: year)
    }
    if year > currentYear + 20 {
      throw .invalid("exp_year is more than 20 years ahead")
    }
    guard card.cvv.count == brand.cvvLength, card.cvv.allSatisfy({ $0.isASCII && $0.isNumber })
    else {
      throw .invalid("the CVV of \(brand.withArticle) card is \(brand.cvvLength) digits")
    }
    let last4 = digits.suffix(4).map { String($0) }.joined()
    return CardSummary(brand: brand, last4: last4)
  }
}
