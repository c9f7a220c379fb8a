import Testing

@testable import RegisterEngine

/// A snapshot's catalog is skipped by the parser and parsed apart (on another thread): the
/// skipped bytes must be exactly the member's value, whatever its strings hold.
@Suite struct JSONParserDeferTests {
  @Test(arguments: [
    #"{"a":1,"catalog":{"x":"}]\"{[","y":[1,[2,{"z":"\\"}]],"e":""},"b":[true]}"#,
    #"{"catalog":[1,"]",{"k":"\u005d"}],"b":{"catalog":5}}"#,
    #"{"catalog":"a \"quoted\" }]","b":null}"#,
    #"{"catalog":-12.5e3,"b":1}"#,
    #"{"catalog":{}}"#,
  ])
  func theSkippedValueIsTheMembersText(text: String) throws {
    let whole = try JSONParser.parse(text)
    let bytes = Array(text.utf8)[...]
    var told: [String: Range<Int>] = [:]
    let parsed = try JSONParser.parse(bytes, deferring: ["catalog"], under: []) { told[$0] = $1 }
    let range = try #require(parsed.deferred["catalog"])
    #expect(told == parsed.deferred)
    #expect(try JSONParser.parse(bytes[range]) == whole["catalog"])
    var expected = try #require(whole.objectValue)
    expected["catalog"] = .null
    #expect(parsed.value == .object(expected))
  }

  /// Only the member at the path is deferred; the same key elsewhere is parsed.
  @Test func onlyTheMemberUnderThePathIsDeferred() throws {
    let text = #"{"catalog":1,"state":{"x":{"catalog":2},"catalog":{"p":[3]}}}"#
    let bytes = Array(text.utf8)[...]
    let parsed = try JSONParser.parse(bytes, deferring: ["catalog"], under: ["state"])
    let range = try #require(parsed.deferred["catalog"])
    #expect(String(decoding: bytes[range], as: UTF8.self) == #"{"p":[3]}"#)
    #expect(parsed.value["catalog"] == .int(1))
    #expect(parsed.value["state"]?["x"]?["catalog"] == .int(2))
    #expect(parsed.value["state"]?["catalog"] == .null)
  }

  /// A cut or unbalanced deferred value is an error, not a trap or a wrong range.
  @Test(arguments: [#"{"catalog":{"a":[1,2}"#, #"{"catalog":"abc"#, #"{"catalog":[[[["#])
  func aBrokenDeferredValueIsRefused(text: String) {
    #expect(throws: JSONParseError.self) {
      _ = try JSONParser.parse(Array(text.utf8)[...], deferring: ["catalog"], under: [])
    }
  }
}
