/// Why a decimal money string was refused.
public enum MoneyError: Error, Equatable, CustomStringConvertible {
  case malformed(String)
  case negative(String)
  case tooManyDecimals(String, allowed: Int)
  case tooLarge(String)

  public var description: String {
    switch self {
    case .malformed(let text):
      "\(Self.quote(text)) is not an amount; write digits with an optional decimal point, like \"12.50\""
    case .negative(let text): "\(Self.quote(text)) is negative; amounts must be zero or more"
    case .tooManyDecimals(let text, let allowed):
      "\(Self.quote(text)) has more than \(allowed) decimal place\(allowed == 1 ? "" : "s")"
    case .tooLarge(let text): "\(Self.quote(text)) is too large"
    }
  }

  /// The text as typed, in quotes — unless it holds twelve or more digits, which may be a card
  /// number typed into the wrong field and must never be echoed.
  static func quote(_ text: String) -> String {
    let digits = text.unicodeScalars.filter { $0.properties.numericType != nil }.count
    return digits >= 12 ? "the amount" : "\"\(text)\""
  }
}

/// An exact amount of money: an integer count of minor units (cents) and its currency.
public struct Money: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var minorUnits: Int64
  public var currency: Currency

  public init(minorUnits: Int64, currency: Currency) {
    self.minorUnits = minorUnits
    self.currency = currency
  }

  /// Zero in `currency`.
  public static func zero(_ currency: Currency) -> Money {
    Money(minorUnits: 0, currency: currency)
  }

  /// Largest amount accepted from outside: 10^15 minor units (ten trillion dollars), far below
  /// Int64's limit so that sums of many such values still cannot overflow unnoticed.
  public static let maximumMinorUnits: Int64 = 1_000_000_000_000_000

  /// Parses a decimal string such as "21.48", "21.5", "21" or "-3.10" (when negatives are
  /// allowed). At most the currency's minor digits; no exponent, no grouping, no sign "+".
  public static func parse(
    _ text: String, currency: Currency, allowNegative: Bool = false
  ) throws(MoneyError) -> Money {
    let units = try parseScaled(
      text, fractionDigits: currency.minorDigits, allowNegative: allowNegative,
      limit: maximumMinorUnits)
    return Money(minorUnits: units, currency: currency)
  }

  /// Parses a decimal string into an integer scaled by 10^fractionDigits.
  static func parseScaled(
    _ text: String, fractionDigits: Int, allowNegative: Bool, limit: Int64
  ) throws(MoneyError) -> Int64 {
    // One pass over the bytes, in place (an amount is read for every request that carries
    // one and every amount of a snapshot or journal record read back).
    var contiguous = text
    let outcome = contiguous.withUTF8 { bytes in
      scaled(bytes, fractionDigits: fractionDigits, allowNegative: allowNegative, limit: limit)
    }
    switch outcome {
    case .value(let value): return value
    case .malformed: throw .malformed(text)
    case .negative: throw .negative(text)
    case .tooManyDecimals: throw .tooManyDecimals(text, allowed: fractionDigits)
    case .tooLarge: throw .tooLarge(text)
    }
  }

  /// What `parseScaled` makes of a text: its value, or which of its errors.
  private enum Scaled {
    case value(Int64)
    case malformed, negative, tooManyDecimals, tooLarge
  }

  /// `parseScaled` on the text's UTF-8: an optional minus sign, one or more digits, and
  /// optionally a point and one or more digits. Checked in this order: the shape, the sign,
  /// the number of decimals, the size (leading zeros do not count towards it).
  private static func scaled(
    _ bytes: UnsafeBufferPointer<UInt8>, fractionDigits: Int, allowNegative: Bool, limit: Int64
  ) -> Scaled {
    let zero = UInt8(ascii: "0")
    let isDigit = { (byte: UInt8) in byte >= zero && byte <= UInt8(ascii: "9") }
    let count = bytes.count
    var index = 0
    let negative = count > 0 && bytes[0] == UInt8(ascii: "-")
    if negative { index = 1 }
    let integerStart = index
    while index < count, isDigit(bytes[index]) { index += 1 }
    let integerEnd = index
    var fractionStart = index
    var fractionEnd = index
    if index < count {
      // Anything after the digits must be a point and at least one more digit, and nothing else.
      guard bytes[index] == UInt8(ascii: ".") else { return .malformed }
      fractionStart = index + 1
      index = fractionStart
      while index < count, isDigit(bytes[index]) { index += 1 }
      fractionEnd = index
      guard index == count, fractionEnd > fractionStart else { return .malformed }
    }
    guard integerEnd > integerStart else { return .malformed }
    if negative && !allowNegative { return .negative }
    guard fractionEnd - fractionStart <= fractionDigits else { return .tooManyDecimals }
    var significant = integerStart
    while significant < integerEnd, bytes[significant] == zero { significant += 1 }
    guard integerEnd - significant <= 18 else { return .tooLarge }
    var value: Int64 = 0
    for position in significant..<integerEnd {
      value = value * 10 + Int64(bytes[position] - zero)
    }
    for position in 0..<fractionDigits {
      let digit =
        fractionStart + position < fractionEnd ? Int64(bytes[fractionStart + position] - zero) : 0
      let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
      let (next, overflowB) = shifted.addingReportingOverflow(digit)
      guard !overflowA, !overflowB else { return .tooLarge }
      value = next
    }
    guard value <= limit else { return .tooLarge }
    return .value(negative ? -value : value)
  }

  /// The amount as a plain decimal string with exactly the currency's minor digits: "21.48",
  /// "-0.05", "1000.00". This is the form used on the wire, in files and on receipts.
  public var decimalString: String {
    Self.format(minorUnits, fractionDigits: currency.minorDigits)
  }

  static func format(_ value: Int64, fractionDigits: Int) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.capacity) { buffer in
      let start = DecimalText.write(value, fractionDigits: fractionDigits, endingAt: buffer)
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
    }
  }

  public var description: String { decimalString }

  public static func < (lhs: Money, rhs: Money) -> Bool { lhs.minorUnits < rhs.minorUnits }

  public var isZero: Bool { minorUnits == 0 }

  /// The sum, or an overflow error.
  public func adding(_ other: Money) throws(ArithmeticOverflow) -> Money {
    Money(minorUnits: try Checked.add(minorUnits, other.minorUnits), currency: currency)
  }

  /// The difference, or an overflow error.
  public func subtracting(_ other: Money) throws(ArithmeticOverflow) -> Money {
    Money(minorUnits: try Checked.subtract(minorUnits, other.minorUnits), currency: currency)
  }

  /// This amount times an integer count, or an overflow error.
  public func multiplied(by count: Int64) throws(ArithmeticOverflow) -> Money {
    Money(minorUnits: try Checked.multiply(minorUnits, count), currency: currency)
  }

  /// The amount with its sign flipped.
  public var negated: Money { Money(minorUnits: -minorUnits, currency: currency) }
}
