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
    var bytes = Substring(text).utf8[...]
    var negative = false
    if bytes.first == UInt8(ascii: "-") {
      negative = true
      bytes = bytes.dropFirst()
    }
    let integerPart = bytes.prefix { $0 != UInt8(ascii: ".") }
    var fractionPart = bytes[integerPart.endIndex...]
    let hasPoint = !fractionPart.isEmpty
    if hasPoint { fractionPart = fractionPart.dropFirst() }
    let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    guard !integerPart.isEmpty, integerPart.allSatisfy(isDigit),
      fractionPart.allSatisfy(isDigit), !(hasPoint && fractionPart.isEmpty)
    else { throw .malformed(text) }
    if negative && !allowNegative { throw .negative(text) }
    guard fractionPart.count <= fractionDigits else {
      throw .tooManyDecimals(text, allowed: fractionDigits)
    }
    // Leading zeros are harmless; strip them so long runs of zeros do not count as "too large".
    let significant = integerPart.drop { $0 == UInt8(ascii: "0") }
    guard significant.count <= 18 else { throw .tooLarge(text) }
    var value: Int64 = 0
    for byte in significant { value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
    for index in 0..<fractionDigits {
      let digit =
        index < fractionPart.count
        ? Int64(
          fractionPart[fractionPart.index(fractionPart.startIndex, offsetBy: index)]
            - UInt8(ascii: "0")) : 0
      let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
      let (next, overflowB) = shifted.addingReportingOverflow(digit)
      guard !overflowA, !overflowB else { throw .tooLarge(text) }
      value = next
    }
    guard value <= limit else { throw .tooLarge(text) }
    return negative ? -value : value
  }

  /// The amount as a plain decimal string with exactly the currency's minor digits: "21.48",
  /// "-0.05", "1000.00". This is the form used on the wire, in files and on receipts.
  public var decimalString: String {
    Self.format(minorUnits, fractionDigits: currency.minorDigits)
  }

  static func format(_ value: Int64, fractionDigits: Int) -> String {
    // Written right to left into a small buffer (this runs for every amount of every reply):
    // the digits of the magnitude, a point after `fractionDigits` of them, at least one digit
    // before the point, then the sign.
    var magnitude = value.magnitude
    let fraction = max(0, min(fractionDigits, 18))
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
      var position = buffer.count
      var written = 0
      repeat {
        if written == fraction && fraction > 0 {
          position -= 1
          buffer[position] = UInt8(ascii: ".")
        }
        position -= 1
        buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        written += 1
      } while magnitude > 0 || written <= fraction
      if value < 0 {
        position -= 1
        buffer[position] = UInt8(ascii: "-")
      }
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[position...]), as: UTF8.self)
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
