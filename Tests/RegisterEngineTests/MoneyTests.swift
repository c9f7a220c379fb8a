import Testing

@testable import RegisterEngine

private let jpy = Currency(code: "JPY")
private let kwd = Currency(code: "KWD")

@Suite struct MoneyParseTests {
  @Test(
    arguments: [
      ("21.48", 2148),
      ("21.5", 2150),
      ("21", 2100),
      ("0", 0),
      ("0.00", 0),
      ("0.05", 5),
      ("007.10", 710),
      ("10000000000000.00", 1_000_000_000_000_000),
    ] as [(String, Int64)])
  func validUSD(text: String, minorUnits: Int64) throws {
    let money = try Money.parse(text, currency: .usd)
    #expect(money.minorUnits == minorUnits)
    #expect(money.currency == .usd)
  }

  @Test(arguments: ["-3.10", "-0.05", "-7"])
  func negativeRefusedByDefault(text: String) {
    #expect(throws: MoneyError.negative(text)) { try Money.parse(text, currency: .usd) }
  }

  @Test(arguments: [("-3.10", -310), ("-0.05", -5), ("-7", -700)] as [(String, Int64)])
  func negativeAcceptedWhenAllowed(text: String, minorUnits: Int64) throws {
    let money = try Money.parse(text, currency: .usd, allowNegative: true)
    #expect(money.minorUnits == minorUnits)
  }

  @Test(arguments: ["1.001", "0.125", "21.480"])
  func tooManyDecimals(text: String) {
    #expect(throws: MoneyError.tooManyDecimals(text, allowed: 2)) {
      try Money.parse(text, currency: .usd)
    }
  }

  @Test(arguments: [
    "1e3", "+1", "1.", ".5", "", " 1", "1 ", "abc", "1,000.00", "1.2.3", "-", "-.5", "0x10",
    "١٢", "12a", "1_000",
  ])
  func malformed(text: String) {
    #expect(throws: MoneyError.malformed(text)) { try Money.parse(text, currency: .usd) }
  }

  @Test(arguments: [
    "99999999999999999999",
    "10000000000000.01",
    "9223372036854775807",
    "92233720368547758.07",
    "999999999999999999",
  ])
  func tooLarge(text: String) {
    #expect(throws: MoneyError.tooLarge(text)) { try Money.parse(text, currency: .usd) }
  }

  @Test func leadingZerosDoNotCountAsLarge() throws {
    let text = String(repeating: "0", count: 40) + "1.00"
    #expect(try Money.parse(text, currency: .usd).minorUnits == 100)
  }

  @Test func yenHasNoMinorDigits() throws {
    let yen = try #require(jpy)
    #expect(yen.minorDigits == 0)
    #expect(try Money.parse("1500", currency: yen).minorUnits == 1500)
    #expect(throws: MoneyError.tooManyDecimals("1500.5", allowed: 0)) {
      try Money.parse("1500.5", currency: yen)
    }
    #expect(throws: MoneyError.malformed("1500.")) { try Money.parse("1500.", currency: yen) }
    #expect(Money(minorUnits: 1500, currency: yen).decimalString == "1500")
  }

  @Test func dinarHasThreeMinorDigits() throws {
    let dinar = try #require(kwd)
    #expect(dinar.minorDigits == 3)
    #expect(try Money.parse("1.234", currency: dinar).minorUnits == 1234)
    #expect(try Money.parse("1.5", currency: dinar).minorUnits == 1500)
    #expect(throws: MoneyError.tooManyDecimals("1.2345", allowed: 3)) {
      try Money.parse("1.2345", currency: dinar)
    }
    #expect(Money(minorUnits: 1234, currency: dinar).decimalString == "1.234")
    #expect(Money(minorUnits: 5, currency: dinar).decimalString == "0.005")
  }

  @Test func unknownCurrencyCodeIsNil() {
    #expect(Currency(code: "XYZ") == nil)
    #expect(Currency(code: "usd") == nil)
    #expect(Currency(code: "USD") == .usd)
  }
}

@Suite struct MoneyFormatTests {
  @Test(
    arguments: [
      (2148, "21.48"),
      (2150, "21.50"),
      (0, "0.00"),
      (5, "0.05"),
      (50, "0.50"),
      (100, "1.00"),
      (-5, "-0.05"),
      (-310, "-3.10"),
      (100_000, "1000.00"),
      (Int64.min, "-92233720368547758.08"),
    ] as [(Int64, String)])
  func decimalString(minorUnits: Int64, text: String) {
    let money = Money(minorUnits: minorUnits, currency: .usd)
    #expect(money.decimalString == text)
    #expect(money.description == text)
  }

  @Test(arguments: [
    "0.00", "0.01", "21.48", "1000.00", "-3.10", "10000000000000.00",
  ])
  func parseFormatRoundTrip(text: String) throws {
    let money = try Money.parse(text, currency: .usd, allowNegative: true)
    #expect(money.decimalString == text)
  }
}

@Suite struct CheckedArithmeticTests {
  @Test func addOverflowIsAnError() throws {
    #expect(throws: ArithmeticOverflow()) { try Checked.add(Int64.max, 1) }
    #expect(throws: ArithmeticOverflow()) { try Checked.add(Int64.min, -1) }
    #expect(try Checked.add(Int64.max - 1, 1) == Int64.max)
  }

  @Test func subtractOverflowIsAnError() throws {
    #expect(throws: ArithmeticOverflow()) { try Checked.subtract(Int64.min, 1) }
    #expect(throws: ArithmeticOverflow()) { try Checked.subtract(0, Int64.min) }
    #expect(try Checked.subtract(5, 7) == -2)
  }

  @Test func multiplyOverflowIsAnError() throws {
    #expect(throws: ArithmeticOverflow()) { try Checked.multiply(Int64.max / 2 + 1, 2) }
    #expect(throws: ArithmeticOverflow()) { try Checked.multiply(Int64.min, -1) }
    #expect(try Checked.multiply(1_999, 9_999) == 19_988_001)
  }

  @Test func sumOverflowIsAnError() throws {
    #expect(throws: ArithmeticOverflow()) { try Checked.sum([Int64.max, 1]) }
    #expect(try Checked.sum([1, 2, 3] as [Int64]) == 6)
    #expect(try Checked.sum([] as [Int64]) == 0)
  }

  @Test func moneyArithmeticIsChecked() throws {
    let big = Money(minorUnits: Int64.max, currency: .usd)
    let one = Money(minorUnits: 1, currency: .usd)
    #expect(throws: ArithmeticOverflow()) { try big.adding(one) }
    #expect(throws: ArithmeticOverflow()) { try big.negated.subtracting(one).subtracting(one) }
    #expect(throws: ArithmeticOverflow()) { try big.multiplied(by: 2) }
    let price = Money(minorUnits: 1499, currency: .usd)
    #expect(try price.multiplied(by: 3).minorUnits == 4497)
    #expect(try price.adding(one).minorUnits == 1500)
    #expect(try price.subtracting(one).minorUnits == 1498)
    #expect(price.negated.minorUnits == -1499)
  }

  @Test(
    arguments: [
      (5, 10, 1),
      (-5, 10, -1),
      (4, 10, 0),
      (-4, 10, 0),
      (6, 10, 1),
      (15, 10, 2),
      (-15, 10, -2),
      (14, 10, 1),
      (25, 10, 3),
      (0, 7, 0),
      (7, 7, 1),
      (10, 4, 3),  // 2.5 → 3
      (-10, 4, -3),  // -2.5 → -3
      (9, 4, 2),  // 2.25 → 2
    ] as [(Int128, Int128, Int64)])
  func divideRoundingHalfAwayFromZero(numerator: Int128, denominator: Int128, expected: Int64)
    throws
  {
    #expect(try Checked.divideRoundingHalfAwayFromZero(numerator, denominator) == expected)
  }

  @Test func divideRefusesBadDenominatorAndOverflow() {
    #expect(throws: ArithmeticOverflow()) { try Checked.divideRoundingHalfAwayFromZero(1, 0) }
    #expect(throws: ArithmeticOverflow()) { try Checked.divideRoundingHalfAwayFromZero(1, -1) }
    #expect(throws: ArithmeticOverflow()) {
      try Checked.divideRoundingHalfAwayFromZero(Int128(Int64.max) * 4, 2)
    }
  }

  @Test(
    arguments: [
      (102, 5, 100),
      (103, 5, 105),
      (100, 5, 100),
      (2, 5, 0),  // 0.4 of a step: down
      (3, 5, 5),  // 0.6 of a step: up
      (107, 5, 105),
      (108, 5, 110),
      (105, 10, 110),  // exactly half: up
      (104, 10, 100),
      (-5, 10, 0),  // exactly half, negative: up towards +infinity
      (-6, 10, -10),
      (-3, 5, -5),
      (-2, 5, 0),
      (1234, 1, 1234),
    ] as [(Int64, Int64, Int64)])
  func roundHalfUp(value: Int64, increment: Int64, expected: Int64) throws {
    #expect(try Checked.roundHalfUp(value, toMultipleOf: increment) == expected)
  }

  @Test func roundHalfUpRefusesBadIncrementAndOverflow() {
    #expect(throws: ArithmeticOverflow()) { try Checked.roundHalfUp(10, toMultipleOf: 0) }
    #expect(throws: ArithmeticOverflow()) { try Checked.roundHalfUp(10, toMultipleOf: -5) }
    #expect(throws: ArithmeticOverflow()) { try Checked.roundHalfUp(Int64.max, toMultipleOf: 10) }
  }
}

@Suite struct PercentTests {
  @Test(
    arguments: [
      ("7.5", 7_500_000, "7.5"),
      ("0", 0, "0"),
      ("100", 100_000_000, "100"),
      ("8.875", 8_875_000, "8.875"),
      ("7.500000", 7_500_000, "7.5"),
      ("0.000001", 1, "0.000001"),
      ("10", 10_000_000, "10"),
      ("1000", 1_000_000_000, "1000"),
    ] as [(String, Int64, String)])
  func parseAndFormat(text: String, millionths: Int64, canonical: String) throws {
    let percent = try Percent.parse(text)
    #expect(percent.millionths == millionths)
    #expect(percent.decimalString == canonical)
    #expect(percent.description == canonical)
  }

  @Test func parseRefusals() {
    #expect(throws: MoneyError.negative("-1")) { try Percent.parse("-1") }
    #expect(throws: MoneyError.tooManyDecimals("7.1234567", allowed: 6)) {
      try Percent.parse("7.1234567")
    }
    #expect(throws: MoneyError.tooLarge("1000000.000001")) { try Percent.parse("1000000.000001") }
    #expect(throws: MoneyError.malformed("7.5%")) { try Percent.parse("7.5%") }
    #expect(throws: MoneyError.malformed("")) { try Percent.parse("") }
  }

  // 7.5 % of an amount in cents: amount × 0.075, rounded half away from zero.
  @Test(
    arguments: [
      (10, 1),  // 0.75 → 1
      (6, 0),  // 0.45 → 0
      (100, 8),  // 7.5 → 8
      (20, 2),  // 1.5 → 2
      (3000, 225),  // 225 exactly
      (-100, -8),  // -7.5 → -8 (away from zero)
      (0, 0),
    ] as [(Int64, Int64)])
  func ofAtSevenAndAHalf(amount: Int64, expected: Int64) throws {
    let rate = try Percent.parse("7.5")
    #expect(try rate.of(amount) == expected)
  }

  @Test func ofOtherRates() throws {
    #expect(try Percent.zero.of(12_345) == 0)
    #expect(try Percent.hundred.of(12_345) == 12_345)
    // 8.875 % of 1000 = 88.75 → 89
    #expect(try Percent.parse("8.875").of(1000) == 89)
    // 5 % of 10 = 0.5 → 1
    #expect(try Percent.parse("5").of(10) == 1)
    #expect(throws: ArithmeticOverflow()) { try Percent.parse("1000").of(Int64.max) }
  }

  @Test(
    arguments: [
      (1075, 75),  // 1075 × 7.5 / 107.5 = 75 exactly
      (1000, 70),  // 69.767… → 70
      (10, 1),  // 0.697… → 1
      (107_500, 7500),
      (0, 0),
    ] as [(Int64, Int64)])
  func includedInAtSevenAndAHalf(gross: Int64, expected: Int64) throws {
    let rate = try Percent.parse("7.5")
    #expect(try rate.includedIn(gross) == expected)
  }

  @Test func includedInOtherRates() throws {
    // 20 % VAT: 12.00 gross contains 2.00 tax.
    #expect(try Percent.parse("20").includedIn(1200) == 200)
    #expect(try Percent.zero.includedIn(1200) == 0)
    // 100 %: half of the gross is tax.
    #expect(try Percent.hundred.includedIn(1001) == 501)
  }

  @Test func ordering() throws {
    #expect(try Percent.parse("7.5") < Percent.parse("8"))
    #expect(Percent.zero < Percent.hundred)
  }
}

/// What `apply` and the renderers use where `decide` has already refused an overflow: a lying
/// journal holds totals at the bound, never wraps them around to the other sign.
@Suite struct SaturatingArithmeticTests {
  @Test func addAndSubtractHoldAtTheBounds() {
    #expect(Checked.saturatingAdd(.max, 1) == .max)
    #expect(Checked.saturatingAdd(.min, -1) == .min)
    #expect(Checked.saturatingAdd(40, 2) == 42)
    #expect(Checked.saturatingSubtract(.min, 1) == .min)
    #expect(Checked.saturatingSubtract(0, .min) == .max)
    #expect(Checked.saturatingSubtract(50, 8) == 42)
  }

  @Test func multiplyHoldsAtTheBoundOfItsSign() {
    #expect(Checked.saturatingMultiply(.max / 2, 3) == .max)
    #expect(Checked.saturatingMultiply(.max / 2, -3) == .min)
    #expect(Checked.saturatingMultiply(-(.max / 2), -3) == .max)
    #expect(Checked.saturatingMultiply(6, 7) == 42)
  }

  @Test func sumsHoldAtTheBounds() {
    #expect(Checked.saturatingSum([.max, .max, -1]) == .max - 1)
    #expect(Checked.saturatingSum([1, 2, 3]) == 6)
  }
}

/// `Money.parseScaled` (one pass over the bytes) against the rules written out plainly, on every
/// text of up to four characters from an alphabet of the characters that matter, and on
/// random longer ones: the same value or the same error, for 0 to 4 decimals, with and
/// without negatives, under a small and a large limit.
@Suite struct MoneyParseDifferentialTests {
  /// The rules, spelled out on a `String` (the reference the fast parser must agree with).
  private static func reference(
    _ text: String, fractionDigits: Int, allowNegative: Bool, limit: Int64
  ) -> Result<Int64, MoneyError> {
    var rest = Substring(text)
    let negative = rest.hasPrefix("-")
    if negative { rest = rest.dropFirst() }
    let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let isDigits = { (part: Substring) in
      !part.isEmpty && part.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
    }
    guard isDigits(parts[0]), parts.count == 1 || isDigits(parts[1]) else {
      return .failure(.malformed(text))
    }
    if negative && !allowNegative { return .failure(.negative(text)) }
    let fraction = parts.count == 2 ? Array(parts[1].utf8) : []
    guard fraction.count <= fractionDigits else {
      return .failure(.tooManyDecimals(text, allowed: fractionDigits))
    }
    let significant = parts[0].drop { $0 == "0" }
    guard significant.count <= 18 else { return .failure(.tooLarge(text)) }
    var value = Int64(significant) ?? 0
    for position in 0..<fractionDigits {
      let digit = position < fraction.count ? Int64(fraction[position] - 48) : 0
      let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
      let (next, overflowB) = shifted.addingReportingOverflow(digit)
      guard !overflowA, !overflowB else { return .failure(.tooLarge(text)) }
      value = next
    }
    guard value <= limit else { return .failure(.tooLarge(text)) }
    return .success(negative ? -value : value)
  }

  private static func check(_ text: String) {
    for fractionDigits in 0...4 {
      for allowNegative in [false, true] {
        for limit in [Int64(999), Money.maximumMinorUnits, Int64.max] {
          let expected = reference(
            text, fractionDigits: fractionDigits, allowNegative: allowNegative, limit: limit)
          let found = Result { () throws(MoneyError) -> Int64 in
            try Money.parseScaled(
              text, fractionDigits: fractionDigits, allowNegative: allowNegative, limit: limit)
          }
          #expect(
            found == expected,
            "\(text.debugDescription) with \(fractionDigits) decimals, negatives \(allowNegative), limit \(limit)"
          )
        }
      }
    }
  }

  @Test func everyShortTextAgreesWithTheRules() {
    let alphabet: [String] = ["0", "1", "9", ".", "-", "a", " ", "é", "+"]
    var texts: [String] = [""]
    var frontier: [String] = [""]
    for _ in 1...4 {
      frontier = frontier.flatMap { prefix in alphabet.map { prefix + $0 } }
      texts += frontier
    }
    for text in texts { Self.check(text) }
  }

  @Test func longTextsAgreeWithTheRules() {
    var generator = SystemRandomNumberGenerator()
    let pieces = ["0", "00", "1", "7", "9", "99999", "123456789", ".", "-"]
    for _ in 0..<3_000 {
      let length = Int.random(in: 1...8, using: &generator)
      let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
      Self.check(text)
    }
    for text in [
      "9223372036854775807", "922337203685477580.7", "999999999999999999.9999",
      "000000000000000000000000001.5", "-000000000000000000000000.0001",
    ] {
      Self.check(text)
    }
  }
}
