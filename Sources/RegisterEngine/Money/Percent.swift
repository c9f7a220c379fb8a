/// An exact percentage such as "7.5" or "8.875", kept as an integer count of millionths of a
/// percent so that no binary floating point is ever involved.
public struct Percent: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// Fractional digits a percentage may have.
  public static let fractionDigits = 6
  static let unit: Int64 = 1_000_000

  /// The percentage times 10^6: 7.5 % is 7_500_000.
  public let millionths: Int64

  public init(millionths: Int64) {
    self.millionths = millionths
  }

  public static let zero = Percent(millionths: 0)
  public static let hundred = Percent(millionths: 100 * unit)

  /// Parses "7.5", "0", "100" (no sign, at most six decimals). Callers check the range that
  /// makes sense for them (a tax rate or a discount is at most 100).
  public static func parse(_ text: String) throws(MoneyError) -> Percent {
    let value = try Money.parseScaled(
      text, fractionDigits: fractionDigits, allowNegative: false, limit: 1_000_000 * unit)
    return Percent(millionths: value)
  }

  /// The shortest exact decimal form: "7.5", "0", "8.875".
  public var decimalString: String {
    var text = Money.format(millionths, fractionDigits: Self.fractionDigits)
    // The fraction's trailing zeros go, and the point with them when nothing is left after it
    // (the text always has a point: six fraction digits).
    var trailing = 0
    for byte in text.utf8.reversed() {
      if byte == UInt8(ascii: "0") {
        trailing += 1
        continue
      }
      if byte == UInt8(ascii: ".") { trailing += 1 }
      break
    }
    text.removeLast(trailing)
    return text
  }

  public var description: String { decimalString }

  public static func < (lhs: Percent, rhs: Percent) -> Bool { lhs.millionths < rhs.millionths }

  /// `amount × self / 100`, rounded half away from zero to the minor unit.
  public func of(_ amount: Int64) throws(ArithmeticOverflow) -> Int64 {
    try Checked.divideRoundingHalfAwayFromZero(
      Int128(amount) * Int128(millionths), Int128(100 * Self.unit))
  }

  /// The tax contained in a gross amount at this rate: `gross × r / (100 + r)`, rounded once,
  /// half away from zero.
  public func includedIn(_ gross: Int64) throws(ArithmeticOverflow) -> Int64 {
    try Checked.divideRoundingHalfAwayFromZero(
      Int128(gross) * Int128(millionths), Int128(100 * Self.unit) + Int128(millionths))
  }
}
