import Testing

@testable import RegisterEngine

/// 15 March 2026, mid-afternoon: the fixed "today" of every expiry check here.
private let today = CivilTime(
  year: 2026, month: 3, day: 15, hour: 14, minute: 3, second: 5, millisecond: 0)

private func card(
  _ number: String, month: Int = 12, year: Int = 2030, cvv: String = "123"
) -> CardInput {
  CardInput(number: number, expiryMonth: month, expiryYear: year, cvv: cvv)
}

private func digits(_ text: String) -> [UInt8] {
  text.compactMap { $0.wholeNumberValue.map(UInt8.init) }
}

/// Expects `input` to be refused as invalid (not expired) with a reason containing `text`.
private func expectInvalid(
  _ input: CardInput, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  let error = #expect(throws: CardError.self, sourceLocation: sourceLocation) {
    try CardValidator.validate(input, today: today)
  }
  guard let error else { return }
  guard case .invalid(let reason) = error else {
    Issue.record("expected CardError.invalid, got \(error)", sourceLocation: sourceLocation)
    return
  }
  #expect(reason.contains(text), "\(reason)", sourceLocation: sourceLocation)
}

@Suite struct LuhnTests {
  @Test(arguments: [
    "4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222",
    "378282246310005", "6011111111111117", "3530111333300000", "30569309025904",
    "4222222222222", "79927398713",
  ])
  func validNumbersPass(number: String) {
    #expect(CardValidator.passesLuhn(digits(number)))
  }

  @Test(arguments: [
    "4242424242424241", "4242424242424243", "5555555555554445", "378282246310006",
    "79927398710", "1234567812345678",
  ])
  func invalidNumbersFail(number: String) {
    #expect(!CardValidator.passesLuhn(digits(number)))
  }

  @Test func emptyNumberFails() {
    #expect(!CardValidator.passesLuhn([]))
  }

  @Test func luhnFailureIsInvalidCard() {
    expectInvalid(card("4242424242424241"), mentioning: "check digit")
  }
}

@Suite struct CardBrandTests {
  @Test(
    arguments: [
      ("4242424242424242", .visa, "123"),
      ("4000056655665556", .visa, "123"),
      ("4222222222222", .visa, "123"),
      ("5555555555554444", .mastercard, "123"),
      ("2223003122003222", .mastercard, "123"),
      ("378282246310005", .amex, "1234"),
      ("6011111111111117", .discover, "123"),
      ("3530111333300000", .jcb, "123"),
      ("30569309025904", .dinersClub, "123"),
    ] as [(String, CardBrand, String)])
  func eachBrandIsRecognisedAndAccepted(number: String, brand: CardBrand, cvv: String) throws {
    #expect(CardBrand.of(digits: digits(number)) == brand)
    let summary = try CardValidator.validate(card(number, cvv: cvv), today: today)
    #expect(summary == CardSummary(brand: brand, last4: String(number.suffix(4))))
  }

  @Test func cvvLengthByBrand() {
    #expect(CardBrand.amex.cvvLength == 4)
    for brand in CardBrand.allCases where brand != .amex {
      #expect(brand.cvvLength == 3, "\(brand)")
    }
  }

  @Test func unknownPrefixHasNoBrand() {
    #expect(CardBrand.of(digits: digits("1234000000000006")) == nil)
    #expect(CardBrand.of(digits: digits("9000000000000000")) == nil)
    expectInvalid(card("1234000000000006"), mentioning: "brand")
  }

  @Test(arguments: [
    "555500000000008",  // Mastercard with 15 digits, Luhn-valid
    "3700000000000007",  // Amex with 16 digits, Luhn-valid
  ])
  func lengthMustSuitTheBrand(number: String) {
    #expect(CardValidator.passesLuhn(digits(number)))
    expectInvalid(card(number, cvv: "1234"), mentioning: "cannot have")
  }
}

@Suite struct CardNumberFormTests {
  @Test(arguments: [
    "42420000004",  // 11 digits, Luhn-valid Visa prefix
    "42420000000000000000",  // 20 digits, Luhn-valid Visa prefix
    "0",
    "",
  ])
  func lengthsOutsideTwelveToNineteenAreRefused(number: String) {
    expectInvalid(card(number), mentioning: "12 to 19")
  }

  @Test(arguments: [
    "4242424242424242", "4242 4242 4242 4242", "4242-4242-4242-4242", " 4242424242424242 ",
  ])
  func spacesAndDashesAreAllowed(number: String) throws {
    let summary = try CardValidator.validate(card(number), today: today)
    #expect(summary == CardSummary(brand: .visa, last4: "4242"))
  }

  @Test(arguments: [
    "4242424242424242a", "4242.4242.4242.4242", "424242424242424２", "4242\t4242424242424242",
    "x",
  ])
  func lettersAndOtherCharactersAreRefused(number: String) {
    expectInvalid(card(number), mentioning: "only digits")
  }
}

@Suite struct CardExpiryAndCVVTests {
  @Test(arguments: [
    (3, 2026),  // this month: still valid until its end
    (3, 26),  // the same, two-digit year
    (4, 2026),
    (12, 2026),
    (1, 2027),
    (1, 27),
    (12, 2046),  // 20 years ahead
  ])
  func expiryNotInThePastIsAccepted(month: Int, year: Int) throws {
    let summary = try CardValidator.validate(
      card("4242424242424242", month: month, year: year), today: today)
    #expect(summary.last4 == "4242")
  }

  @Test(arguments: [
    (2, 2026, 2026),  // last month
    (2, 26, 2026),  // last month, two-digit year
    (12, 2025, 2025),
    (3, 2025, 2025),
    (12, 25, 2025),
  ])
  func expiryInThePastIsExpired(month: Int, year: Int, fullYear: Int) {
    #expect(throws: CardError.expired(month: month, year: fullYear)) {
      try CardValidator.validate(card("4242424242424242", month: month, year: year), today: today)
    }
  }

  @Test(arguments: [(0, 2030), (13, 2030), (-1, 2030), (12, 100), (12, 1999), (12, 2200)])
  func impossibleExpiryIsInvalid(month: Int, year: Int) {
    expectInvalid(card("4242424242424242", month: month, year: year), mentioning: "exp_")
  }

  @Test func expiryMoreThanTwentyYearsAheadIsInvalid() {
    expectInvalid(card("4242424242424242", month: 1, year: 2047), mentioning: "20 years")
  }

  @Test(arguments: [
    ("4242424242424242", "123", true),
    ("4242424242424242", "1234", false),
    ("4242424242424242", "12", false),
    ("4242424242424242", "12a", false),
    ("4242424242424242", "", false),
    ("4242424242424242", "１２３", false),
    ("5555555555554444", "000", true),
    ("5555555555554444", "0000", false),
    ("378282246310005", "1234", true),
    ("378282246310005", "123", false),
    ("378282246310005", "12345", false),
    ("6011111111111117", "999", true),
  ])
  func cvvLengthDependsOnTheBrand(number: String, cvv: String, accepted: Bool) throws {
    let input = card(number, cvv: cvv)
    if accepted {
      #expect(try CardValidator.validate(input, today: today).last4 == String(number.suffix(4)))
    } else {
      expectInvalid(input, mentioning: "CVV")
    }
  }
}

@Suite struct CardPrivacyTests {
  @Test func summaryKeepsOnlyBrandAndLastFour() throws {
    let summary = try CardValidator.validate(
      card("4242 4242 4242 4242", cvv: "739"), today: today)
    #expect(summary.brand == .visa)
    #expect(summary.last4 == "4242")
    #expect(summary.masked == "VISA ****4242")
    let mirror = Mirror(reflecting: summary)
    #expect(mirror.children.compactMap(\.label).sorted() == ["brand", "last4"])
    #expect(!"\(summary)".contains("42424242"))
    #expect(!"\(summary)".contains("739"))
  }

  @Test func amexMaskedForm() throws {
    let summary = try CardValidator.validate(card("378282246310005", cvv: "7391"), today: today)
    #expect(summary.masked == "AMEX ****0005")
  }

  @Test func cardInputNeverDescribesItsNumber() {
    let input = card("4242424242424242", cvv: "739")
    let texts = ["\(input)", String(describing: input), String(reflecting: input)]
    for text in texts {
      #expect(!text.contains("4242"), "\(text)")
      #expect(!text.contains("739"), "\(text)")
    }
  }

  @Test func errorMessagesNeverContainTheNumberOrCVV() {
    let inputs = [
      card("4242424242424241", cvv: "739"),
      card("4242424242424242", month: 2, year: 2026, cvv: "739"),
      card("4242424242424242", cvv: "7391"),
      card("4242424242424242", month: 13, cvv: "739"),
      card("12345678901234567890123", cvv: "739"),
    ]
    for input in inputs {
      do {
        _ = try CardValidator.validate(input, today: today)
        Issue.record("\(input) was accepted")
      } catch {
        #expect(!error.description.contains("42424242"), "\(error)")
        #expect(!error.description.contains("12345678"), "\(error)")
        #expect(!error.description.contains("739"), "\(error)")
      }
    }
  }
}
