import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The text helpers receipts are laid out with, checked against the plain rules they replace.
@Suite struct TextFastPathTests {
  @Test func repeatedCharactersAreWhatStringRepeatingGives() {
    for character: Character in [" ", "-", "=", "0", "é", "👍", "e\u{301}", "\u{0}"] {
      for count in 0...70 {
        let text = String(repeated: character, count: count)
        #expect(text == String(repeating: character, count: count), "\(character) × \(count)")
        #expect(text.count == count)
      }
      // A negative count (which String(repeating:count:) traps on) gives nothing.
      #expect(String(repeated: character, count: -3) == "")
    }
  }

  /// The shortest exact form: trailing zeros of the fraction go, and the point when nothing
  /// is left after it.
  @Test func aPercentagesShortestFormDropsTheZerosAfterThePoint() {
    func rule(_ percent: Percent) -> String {
      var text = Money.format(percent.millionths, fractionDigits: Percent.fractionDigits)
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
      return text
    }
    var random = SplitMix64(seed: 7)
    var values: [Int64] = [
      0, 1, 9, 10, 100, 1_000_000, 7_500_000, 8_875_000, 10_000_000, 100_000_000, 100_000_001,
      -1, -1_000_000, -7_500_000, 1_000_000 * 1_000_000,
    ]
    for _ in 0..<2000 { values.append(Int64(random.next() % 200_000_000) - 50_000_000) }
    for millionths in values {
      let percent = Percent(millionths: millionths)
      #expect(percent.decimalString == rule(percent), "\(millionths)")
    }
    #expect(Percent(millionths: 7_500_000).decimalString == "7.5")
    #expect(Percent(millionths: 10_000_000).decimalString == "10")
    #expect(Percent.zero.decimalString == "0")
  }
}
