import Testing

@testable import RegisterEngine

@Suite struct JSONParserTests {
  @Test(arguments: [
    "0", "-0", "12", "-12", "21.48", "21.50", "1e3", "1E+3", "1.5e-7", "0.1",
    "123456789012345678901234567890", "1e400", "-0.0",
  ])
  func numbersAreKeptAsText(text: String) throws {
    #expect(try JSONParser.parse(text) == .number(text))
    #expect(try JSONParser.parse("[\(text)]") == .array([.number(text)]))
  }

  @Test(arguments: ["01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-01"])
  func badNumbersAreRefused(text: String) {
    #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
  }

  @Test func scalarsAndContainers() throws {
    #expect(try JSONParser.parse("null") == .null)
    #expect(try JSONParser.parse("true") == .bool(true))
    #expect(try JSONParser.parse("false") == .bool(false))
    #expect(try JSONParser.parse(#""hi""#) == .string("hi"))
    #expect(try JSONParser.parse("[]") == .array([]))
    #expect(try JSONParser.parse("{}") == .object(JSONObject()))
    let value = try JSONParser.parse(#" {"b": [1, "x", null], "a": {"c": false}} "#)
    #expect(value["b"] == .array([.number("1"), .string("x"), .null]))
    #expect(value["a"]?["c"] == .bool(false))
    #expect(value.objectValue?.keys == ["b", "a"])
  }

  @Test func nestingUpToTheLimitIsAccepted() throws {
    let depth = JSONParser.maximumDepth
    #expect(depth == 64)
    let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    #expect(throws: Never.self) { try JSONParser.parse(arrays) }
    var objects = "1"
    for _ in 0..<depth { objects = "{\"a\":\(objects)}" }
    #expect(throws: Never.self) { try JSONParser.parse(objects) }
  }

  @Test(arguments: [65, 100, 100_000])
  func nestingDeeperThanTheLimitIsRefusedNotACrash(depth: Int) {
    let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(arrays) }
    #expect(error?.message.contains("nesting") == true)
    let objects =
      String(repeating: "{\"a\":", count: depth) + "1"
      + String(repeating: "}", count: depth)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(objects) }
    let mixed = String(repeating: "[{\"a\":", count: depth)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(mixed) }
  }

  /// A slice is parsed where it lies (not from the start of its array), and a collection that
  /// is not contiguous is parsed too; errors are the same, offsets counted from the text's start.
  @Test func slicesAndNonContiguousCollectionsParseAlike() throws {
    let text = Array(#"{"a":[1,"x\u00e9"],"b":{"c":null}}"#.utf8)
    let expected = try JSONParser.parse(text)
    let buffer = Array("[[[".utf8) + text + Array("]]]".utf8)
    let slice = buffer[3..<3 + text.count]
    #expect(try JSONParser.parse(slice) == expected)
    #expect(try JSONParser.parse(text.lazy.map { $0 }) == expected)
    #expect(try JSONParser.parse(AnyCollection(text)) == expected)

    let bad = Array(#"{"a":1,}"#.utf8)
    let arrayError = parseError(bad)
    #expect(arrayError != nil)
    #expect(parseError(Array("xx".utf8) + bad, from: 2) == arrayError)
    #expect(parseError(AnyCollection(bad)) == arrayError)
    // Bad UTF-8 in a slice is reported as such, whatever else is wrong.
    let badUTF8 = Array(#"{"a":"\#u{FF}"#.utf8.dropLast()) + [0xFF, UInt8(ascii: "}")]
    #expect(parseError(Array("ok".utf8) + badUTF8, from: 2) == JSONParser.invalidUTF8(at: 6))
  }

  private func parseError(_ bytes: some Collection<UInt8>) -> JSONParseError? {
    do {
      _ = try JSONParser.parse(bytes)
      return nil
    } catch {
      return error
    }
  }

  private func parseError(_ bytes: [UInt8], from start: Int) -> JSONParseError? {
    parseError(bytes[start...])
  }

  @Test func duplicateKeysAreRefused() {
    let error = #expect(throws: JSONParseError.self) {
      try JSONParser.parse(#"{"a": 1, "b": 2, "a": 3}"#)
    }
    #expect(error?.message.contains("duplicate key") == true)
    #expect(error?.offset == 17)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"x": {"a": 1, "a": 1}}"#) }
    // Same key in different objects is fine.
    #expect(throws: Never.self) { try JSONParser.parse(#"[{"a": 1}, {"a": 2}]"#) }
  }

  /// The check compares a key with the earlier ones only when a bit chosen by its bytes is
  /// taken: a key spelled with escapes must still be caught, before or after its plain twin,
  /// and a repeat must be caught wherever it stands among many distinct keys.
  @Test func duplicateKeysAreRefusedHoweverSpelledAndWhereverTheyStand() {
    for text in [
      #"{"a": 1, "\u0061": 2}"#, #"{"\u0061": 1, "a": 2}"#, #"{"b": 0, "\u0061": 1, "a": 2}"#,
      #"{"caf\u00e9": 1, "café": 2}"#, #"{"a\n": 1, "a\u000a": 2}"#,
    ] {
      let error = #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(text) }
      #expect(error?.message.contains("duplicate key") == true, "\(text)")
    }
    // Keys sharing length, first, middle and last byte (the same bit) are told apart.
    #expect(throws: Never.self) { try JSONParser.parse(#"{"abxc": 1, "abyc": 2, "abzc": 3}"#) }
    for count in [2, 15, 16, 17, 40, 100] {
      let keys = (0..<count).map { "key_\($0)_\(String(repeating: "x", count: $0 % 7))" }
      let members = keys.map { "\"\($0)\": 0" }
      #expect(throws: Never.self) {
        try JSONParser.parse("{" + members.joined(separator: ",") + "}")
      }
      for repeated in [0, count / 2, count - 1] {
        for at in [0, count / 3, count] {
          var withRepeat = members
          withRepeat.insert("\"\(keys[repeated])\": 1", at: at)
          let text = "{" + withRepeat.joined(separator: ",") + "}"
          let error = #expect(throws: JSONParseError.self, "\(count) \(repeated) \(at)") {
            try JSONParser.parse(text)
          }
          #expect(error?.message == "duplicate key \"\(keys[repeated])\"")
        }
      }
    }
  }

  @Test(
    arguments: [
      [0x22, 0x01, 0x22], [0x22, 0x0A, 0x22], [0x22, 0x09, 0x22], [0x22, 0x00, 0x22],
      [0x22, 0x1F, 0x22],
    ] as [[UInt8]])
  func rawControlCharactersInStringsAreRefused(bytes: [UInt8]) {
    let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
    #expect(error?.message.contains("control character") == true)
  }

  @Test(arguments: [
    (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
    (#""\u0041\u00e9\u20AC""#, "Aé€"),
    (#""\ud83d\ude00""#, "😀"),
    (#""\uD834\uDD1E""#, "𝄞"),
    (#""é😀 raw""#, "é😀 raw"),
    (#""\u0000""#, "\u{0}"),
  ])
  func escapesAndSurrogatePairs(json: String, expected: String) throws {
    #expect(try JSONParser.parse(json) == .string(expected))
  }

  @Test(arguments: [
    #""\ud83d""#,  // high surrogate alone
    #""\ud83dx""#,
    #""\ud83d\u0041""#,  // high surrogate followed by a non-surrogate
    #""\ude00""#,  // low surrogate alone
    #""\u12""#,
    #""\uZZZZ""#,
    #""\x41""#,
    #""\'""#,
    #""abc"#,
  ])
  func badEscapesAreRefused(json: String) {
    #expect(throws: JSONParseError.self) { try JSONParser.parse(json) }
  }

  @Test(
    arguments: [
      [0x22, 0xFF, 0x22],
      [0x22, 0xC3, 0x22],  // truncated two-byte sequence
      [0x22, 0xC0, 0xAF, 0x22],  // overlong encoding of "/"
      [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
      [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
      [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x80, 0x7D],
    ] as [[UInt8]])
  func invalidUTF8IsRefused(bytes: [UInt8]) {
    let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
    #expect(error?.message.contains("UTF-8") == true)
  }

  /// The error names the byte where the text stops being UTF-8, wherever it is: in a string
  /// the parser read, or in text it refused for another reason first.
  @Test func invalidUTF8IsReportedWhereItIs() {
    let line = Array(#"{"op":"hello","id":"abc"#.utf8) + [0xFF] + Array(#""}"#.utf8)
    let inString = #expect(throws: JSONParseError.self) { try JSONParser.parse(line) }
    #expect(inString == JSONParser.invalidUTF8(at: 23))
    let afterGarbage = Array(#"{"op":"hello"} x "#.utf8) + [0xE2, 0x82]
    let late = #expect(throws: JSONParseError.self) { try JSONParser.parse(afterGarbage) }
    #expect(late == JSONParser.invalidUTF8(at: 17))
    #expect(late?.description == "the text is not valid UTF-8 at byte 17")
  }

  @Test(arguments: [
    "{} x", "{}{}", "[] []", "1 2", "null,", "\"a\" \"b\"", "{}\u{0}", "true false",
  ])
  func trailingGarbageIsRefused(text: String) {
    let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    #expect(error?.message.contains("after the JSON value") == true, "\(String(describing: error))")
  }

  @Test(arguments: [
    "", " ", "{", "[", "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "[1 2]", "{\"a\" 1}", "tru",
    "nul", "// c\n1", "{\"a\":1 /* */}", "\u{FEFF}{}",
  ])
  func malformedDocumentsAreRefused(text: String) {
    #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
  }

  @Test func surroundingWhitespaceIsAllowed() throws {
    #expect(try JSONParser.parse(" \t\r\n{} \n") == .object(JSONObject()))
  }
}

@Suite struct JSONWriterTests {
  @Test(
    arguments: [
      (JSONValue.null, "null"),
      (.bool(true), "true"),
      (.number("21.50"), "21.50"),
      (.string("plain"), #""plain""#),
      (.string("a\"b\\c"), #""a\"b\\c""#),
      (.string("line\nnext\r\ttab"), #""line\nnext\r\ttab""#),
      (.string("\u{08}\u{0C}"), #""\b\f""#),
      (.string("\u{01}\u{1F}\u{7F}"), #""\u0001\u001f\u007f""#),
      (.string("\u{2028}\u{2029}"), #""\u2028\u2029""#),
      (.string("a/b"), #""a/b""#),
      (.string("café 😀"), "\"café 😀\""),
      (.array([]), "[]"),
      (.array([.number("1"), .null, .string("x")]), #"[1,null,"x"]"#),
      (.object(["b": .number("2"), "a": .array([.bool(false)])]), #"{"b":2,"a":[false]}"#),
      (.object(["k\"ey": .string("v")]), #"{"k\"ey":"v"}"#),
    ] as [(JSONValue, String)])
  func serialized(value: JSONValue, text: String) throws {
    #expect(value.serialized == text)
    #expect(value.serializedBytes == Array(text.utf8))
    #expect(try JSONParser.parse(value.serialized) == value)
  }

  @Test func nilMembersAreLeftOutAndOrderIsKept() {
    let value = JSONValue.object(["z": .int(1), "gone": nil, "a": .string("x")])
    #expect(value.serialized == #"{"z":1,"a":"x"}"#)
  }

  @Test func roundTripOfANestedDocument() throws {
    let text =
      #"{"id":[1,{"x":null}],"op":"tender","amount":"12.50","card":{"n":"\u0001é\"\\"},"#
      + #""deep":[[[[]]]],"num":-1.5e+10,"t":true,"u":"\u2028"}"#
    let value = try JSONParser.parse(text)
    #expect(value.serialized == text)
    #expect(try JSONParser.parse(value.serialized) == value)
    #expect(try JSONParser.parse(value.pretty) == value)
  }

  @Test func everyStringScalarRoundTrips() throws {
    var text = ""
    for code in UInt32(0)...0x2FF {
      if let scalar = Unicode.Scalar(code) { text.unicodeScalars.append(scalar) }
    }
    text += "\u{2028}\u{2029}\u{FFFF}\u{10FFFF}😀"
    let value = JSONValue.string(text)
    let serialized = value.serialized
    #expect(!serialized.unicodeScalars.contains { $0.value < 0x20 })
    #expect(try JSONParser.parse(serialized) == value)
  }

  /// Every ASCII character, alone and between others, written as the rules say: the plain
  /// ones as they are (in one piece), the rest escaped; the same for a few beyond ASCII.
  @Test func eachCharacterIsWrittenAsTheRulesSay() {
    func expected(_ scalar: Unicode.Scalar) -> String {
      switch scalar {
      case "\"": return #"\""#
      case "\\": return #"\\"#
      case "\n": return #"\n"#
      case "\r": return #"\r"#
      case "\t": return #"\t"#
      case "\u{08}": return #"\b"#
      case "\u{0C}": return #"\f"#
      case "\u{2028}": return #"\u2028"#
      case "\u{2029}": return #"\u2029"#
      default:
        guard scalar.value < 0x20 || scalar.value == 0x7F else { return String(scalar) }
        let hex = String(scalar.value, radix: 16)
        return #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
      }
    }
    let beyond: [Unicode.Scalar] = ["\u{80}", "é", "\u{2027}", "\u{2028}", "\u{2029}", "😀"]
    for scalar in (0...0x7F).compactMap(Unicode.Scalar.init) + beyond {
      let alone = JSONValue.string(String(scalar)).serialized
      #expect(alone == "\"" + expected(scalar) + "\"", "U+\(String(scalar.value, radix: 16))")
      let between = JSONValue.string("ab" + String(scalar) + "cd").serialized
      #expect(between == "\"ab" + expected(scalar) + "cd\"", "U+\(String(scalar.value, radix: 16))")
    }
  }

  @Test func pretty() {
    let value = JSONValue.object([
      "a": .array([.number("1"), .number("2")]), "b": .object(JSONObject()), "c": .array([]),
    ])
    #expect(value.pretty == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}")
  }

  @Test func objectKeyOrderMattersForEquality() throws {
    #expect(try JSONParser.parse(#"{"a":1,"b":2}"#) != JSONParser.parse(#"{"b":2,"a":1}"#))
    var object = JSONObject()
    object["a"] = .int(1)
    object["b"] = .int(2)
    object["a"] = .int(3)
    #expect(object.keys == ["a", "b"])
    object["a"] = nil
    #expect(object.keys == ["b"])
    #expect(JSONValue.object(object).serialized == #"{"b":2}"#)
  }
}

@Suite struct LineFramerTests {
  private func strings(_ lines: [[UInt8]?]) -> [String?] {
    lines.map { $0.map { String(decoding: $0, as: UTF8.self) } }
  }

  @Test(
    arguments: [
      ("a\nb\n", ["a", "b"]),
      ("a\r\nb\r\n", ["a", "b"]),
      ("\n\n  \n\t\n\r\na\n", ["a"]),
      ("a\r\r\n", ["a\r"]),
      (" x \n", [" x "]),
      ("no newline yet", []),
      ("{\"op\":\"order\"}\n{\"op\":\"hello\"}\n", ["{\"op\":\"order\"}", "{\"op\":\"hello\"}"]),
    ] as [(String, [String])])
  func splitsLines(input: String, expected: [String]) {
    var framer = LineFramer()
    #expect(strings(framer.feed(Array(input.utf8))) == expected.map { Optional($0) })
  }

  @Test func linesSplitAcrossFeeds() {
    var framer = LineFramer()
    #expect(framer.feed(Array("{\"op\":".utf8)).isEmpty)
    #expect(framer.pendingCount == 6)
    #expect(strings(framer.feed(Array("\"order\"}\r".utf8))) == [])
    #expect(strings(framer.feed(Array("\nsecond".utf8))) == ["{\"op\":\"order\"}"])
    #expect(strings(framer.feed(Array("\n".utf8))) == ["second"])
    #expect(framer.pendingCount == 0)
  }

  @Test func byteAtATime() {
    var framer = LineFramer()
    var lines: [String?] = []
    for byte in Array("one\r\n\ntwo\nthree\n".utf8) {
      lines += strings(framer.feed([byte]))
    }
    #expect(lines == ["one", "two", "three"])
  }

  @Test func lineAtTheLimitIsKept() {
    var framer = LineFramer(limit: 4)
    #expect(strings(framer.feed(Array("abcd\n".utf8))) == ["abcd"])
    #expect(strings(framer.feed(Array("ab".utf8))) == [])
    #expect(strings(framer.feed(Array("cd\n".utf8))) == ["abcd"])
  }

  @Test func overlongLineInOneFeedIsReportedOnceThenResumes() {
    var framer = LineFramer(limit: 4)
    #expect(strings(framer.feed(Array("abcdefgh\nok\n".utf8))) == [nil, "ok"])
  }

  @Test func overlongLineAcrossFeedsIsReportedOnceAndDiscarded() {
    var framer = LineFramer(limit: 4)
    #expect(strings(framer.feed(Array("abc".utf8))) == [])
    #expect(strings(framer.feed(Array("de".utf8))) == [nil])
    #expect(framer.pendingCount == 0)
    #expect(strings(framer.feed(Array("fghijklmnop".utf8))) == [])
    #expect(framer.pendingCount == 0)
    #expect(strings(framer.feed(Array("qrs".utf8))) == [])
    #expect(strings(framer.feed(Array("tuv\nok\nxy".utf8))) == ["ok"])
    #expect(strings(framer.feed(Array("\n".utf8))) == ["xy"])
  }

  @Test func defaultLimitIs64KiB() {
    #expect(LineFramer.maximumLineLength == 65_536)
    var framer = LineFramer()
    let exact = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
    #expect(framer.feed(exact + [0x0A]) == [exact])
    let tooLong = [UInt8](repeating: UInt8(ascii: "a"), count: 65_537)
    var chunks: [[UInt8]?] = []
    for start in stride(from: 0, to: tooLong.count, by: 1000) {
      chunks += framer.feed(tooLong[start..<min(start + 1000, tooLong.count)])
      #expect(framer.pendingCount <= 65_536)
    }
    chunks += framer.feed(Array("\n{}\n".utf8))
    #expect(chunks == [nil, Array("{}".utf8)])
  }

  @Test func finishReturnsTheLastLineWithoutANewline() {
    var framer = LineFramer()
    #expect(strings(framer.feed(Array("a\n{\"op\":\"hello\"}".utf8))) == ["a"])
    #expect(framer.isInsideLine)
    #expect(strings(framer.finish()) == [#"{"op":"hello"}"#])
    #expect(!framer.isInsideLine)
    #expect(framer.finish().isEmpty)
  }

  @Test func finishAfterACompleteLineOrBlanksReturnsNothing() {
    var framer = LineFramer()
    #expect(strings(framer.feed(Array("a\n".utf8))) == ["a"])
    #expect(framer.finish().isEmpty)
    #expect(strings(framer.feed(Array("  \r".utf8))) == [])
    #expect(framer.finish().isEmpty)
  }

  @Test func finishInsideAnOverlongLineDoesNotReportItTwice() {
    var framer = LineFramer(limit: 4)
    #expect(strings(framer.feed(Array("abcdefgh".utf8))) == [nil])
    #expect(framer.isInsideLine)
    #expect(framer.finish().isEmpty)
    var exact = LineFramer(limit: 4)
    #expect(strings(exact.feed(Array("abcd".utf8))) == [])
    #expect(strings(exact.finish()) == ["abcd"])
  }

  @Test func manyLinesInOneFeed() {
    var framer = LineFramer()
    let input = (1...100).map { "line \($0)\n" }.joined()
    let lines = strings(framer.feed(Array(input.utf8)))
    #expect(lines.count == 100)
    #expect(lines.first == "line 1")
    #expect(lines.last == "line 100")
  }
}

/// `JSONFields` looks for the next key where the last one read ended before it searches: in
/// any order of reading, each member must be found, an absent one must be nil, and what was
/// not read must still be refused.
@Suite struct JSONFieldsTests {
  @Test(arguments: [
    ["a", "b", "c", "d"], ["d", "c", "b", "a"], ["b", "a", "d", "c"], ["c", "a", "b", "d"],
    ["a", "a", "b", "b", "c", "d"],
  ])
  func membersAreFoundInAnyOrder(order: [String]) throws {
    let value = try JSONParser.parse(#"{"a": 1, "b": 2, "c": 3, "d": 4}"#)
    var fields = try JSONFields(value)
    for key in order {
      #expect(fields.raw(key) == .int(Int64(Int(key.unicodeScalars.first!.value) - 96)), "\(key)")
      #expect(fields.raw("e") == nil)
    }
    try fields.rejectUnknown()
  }

  @Test func aMemberNotReadIsRefusedWhateverWasReadAroundIt() throws {
    let value = try JSONParser.parse(#"{"a": 1, "b": 2, "c": 3}"#)
    for skipped in ["a", "b", "c"] {
      var fields = try JSONFields(value)
      for key in ["a", "b", "c"] where key != skipped { _ = fields.raw(key) }
      let error = #expect(throws: JSONShapeError.self) { try fields.rejectUnknown() }
      #expect(error?.path == skipped)
    }
  }

  @Test func membersOfALargeObjectAreFoundInAnyOrder() throws {
    let keys = (0..<40).map { "member\($0)" }
    let text = "{" + keys.enumerated().map { "\"\($1)\": \($0)" }.joined(separator: ",") + "}"
    let value = try JSONParser.parse(text)
    for order in [keys, keys.reversed(), keys.shuffled()] {
      var fields = try JSONFields(value)
      for key in order {
        #expect(fields.raw(key) == .int(Int64(keys.firstIndex(of: key)!)))
      }
      try fields.rejectUnknown()
    }
  }
}
