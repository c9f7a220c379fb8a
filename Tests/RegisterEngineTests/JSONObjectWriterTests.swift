import Testing

@testable import RegisterEngine

/// `JSONObjectWriter` writes a member's name and its value into one buffer and appends it in
/// one piece; the bytes must be exactly what serializing the equivalent tree gives.
@Suite struct JSONObjectWriterTests {
  static let amounts: [Int64] = [
    0, 1, -1, 9, 10, 99, 100, 101, -100, 123_456_789, -123_456_789, Int64.max, Int64.min,
    Int64.min + 1, Money.maximumMinorUnits, -Money.maximumMinorUnits,
  ]

  @Test(arguments: ["USD", "JPY", "KWD"])
  func decimalMembersWriteWhatTheTreeWrites(code: String) throws {
    let currency = try #require(Currency(code: code))
    for amount in Self.amounts {
      var writer = JSONObjectWriter()
      writer.money("a", amount, currency)
      writer.int("count_of_things", amount)
      writer.object("nested") { nested in
        nested.money("first_member_in_a_nested_object", amount, currency)
        nested.int("n", amount)
      }
      writer.money("last", amount, currency)
      let written = String(decoding: writer.finished(), as: UTF8.self)
      let money = JSONValue.string(Money(minorUnits: amount, currency: currency).decimalString)
      let tree = JSONValue.object([
        "a": money, "count_of_things": .int(Int(amount)),
        "nested": .object(["first_member_in_a_nested_object": money, "n": .int(Int(amount))]),
        "last": money,
      ])
      #expect(written == tree.serialized, "amount \(amount) in \(code)")
    }
  }

  @Test func firstMemberHasNoComma() {
    var writer = JSONObjectWriter()
    writer.int("only", 7)
    #expect(String(decoding: writer.finished(), as: UTF8.self) == #"{"only":7}"#)
    var empty = JSONObjectWriter()
    empty.object("inner") { _ in }
    empty.string("s", "x\"y")
    #expect(String(decoding: empty.finished(), as: UTF8.self) == #"{"inner":{},"s":"x\"y"}"#)
  }
}
