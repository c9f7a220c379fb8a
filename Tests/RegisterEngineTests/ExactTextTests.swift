import Testing

@testable import RegisterEngine

/// "café" with é composed (U+00E9) and decomposed (e, U+0301): equal as Swift `String`s,
/// different bytes.
let composedKey = "caf\u{E9}-1"
let decomposedKey = "cafe\u{301}-1"

/// Identifiers a client chooses are its exact bytes, and length limits on what a client sends
/// count Unicode scalars (`ExactText`, `hasMoreScalars(than:)`).
@Suite struct ExactTextTests {
  @Test func textEqualAsStringsButNotInBytesIsTwoValues() {
    #expect(composedKey == decomposedKey, "Swift's String calls them equal")
    #expect(!composedKey.hasSameBytes(as: decomposedKey))
    #expect(ExactText(composedKey) != ExactText(decomposedKey))
    #expect(Set([ExactText(composedKey), ExactText(decomposedKey)]).count == 2)
    #expect(ExactText("abc") == ExactText("abc"))
    #expect(ExactText("\u{212A}") != ExactText("K"), "the Kelvin sign is not a K")
  }

  /// The byte comparison itself: equal lengths that differ anywhere, small (inline) and large
  /// (heap) strings, the same text made in different ways.
  @Test func sameBytesComparesEveryByte() {
    #expect("".hasSameBytes(as: ""))
    #expect(!"abc".hasSameBytes(as: "abd") && !"abc".hasSameBytes(as: "xbc"))
    #expect(!"abc".hasSameBytes(as: "abcd") && !"abcd".hasSameBytes(as: "abc"))
    let long = String(repeating: "receipt-", count: 8)
    let built = (0..<8).map { _ in "receipt-" }.joined()
    #expect(long.hasSameBytes(as: built))
    #expect(!long.hasSameBytes(as: String(built.dropLast()) + "_"))
    #expect(String(long.utf8.prefix(20))!.hasSameBytes(as: String(built.prefix(20))))
    #expect(!"\u{E9}".hasSameBytes(as: "\u{E8}"), "same length, last byte differs")
  }

  /// A limit in scalars, answered from the byte count when that is within the limit.
  @Test func moreScalarsThanALimit() {
    #expect(!String(repeating: "a", count: 200).hasMoreScalars(than: 200))
    #expect(String(repeating: "a", count: 201).hasMoreScalars(than: 200))
    // 400 bytes, 200 scalars: within; one more scalar: over.
    #expect(!String(repeating: "\u{E9}", count: 200).hasMoreScalars(than: 200))
    #expect(String(repeating: "\u{E9}", count: 201).hasMoreScalars(than: 200))
    // One character of 201 scalars.
    #expect(("e" + String(repeating: "\u{301}", count: 200)).hasMoreScalars(than: 200))
    #expect(!"".hasMoreScalars(than: 0) && "a".hasMoreScalars(than: 0))
  }

  /// The defect: the second paid-in got the first one's reply and was silently dropped.
  @Test func keysThatDifferInTheirBytesAreDifferentKeys() throws {
    let lane = try JournalLane()
    let first = try lane.ok(
      #"{"op":"paid_in","amount":"1.00","reason":"r","key":"\#(composedKey)"}"#)
    let second = try lane.ok(
      #"{"op":"paid_in","amount":"2.00","reason":"r","key":"\#(decomposedKey)"}"#)
    #expect(first != second)
    #expect(lane.register.day.totals.paidInCount == 2)
    #expect(lane.register.day.totals.paidIn == 300)
    #expect(lane.register.keys.count == 2)
    // A retry of each, byte for byte, is still answered with its own reply.
    #expect(
      try lane.ok(#"{"op":"paid_in","amount":"2.00","reason":"r","key":"\#(decomposedKey)"}"#)
        == second)
    #expect(
      try lane.ok(#"{"op":"paid_in","amount":"1.00","reason":"r","key":"\#(composedKey)"}"#)
        == first)
    #expect(lane.register.day.totals.paidInCount == 2)

    // Both survive a restart from the journal, and a snapshot (with enough keys that the
    // snapshot's object of keys is indexed by hashing).
    let service = try lane.restarted()
    #expect(service.register.keys == lane.register.keys)
    for number in 0..<20 {
      try lane.ok(#"{"op":"no_sale","reason":"r","key":"k\#(number)"}"#)
    }
    let bytes = lane.register.snapshotValue().serializedBytes
    let decoded = try Register(snapshot: try JSONParser.parse(bytes))
    #expect(decoded.keys == lane.register.keys)
    #expect(decoded.keys[composedKey]?.reply == lane.register.keys[composedKey]?.reply)
    #expect(decoded.keys[decomposedKey]?.reply == lane.register.keys[decomposedKey]?.reply)
    #expect(decoded.snapshotValue().serializedBytes == bytes)
  }

  /// Snapshots written before sorted their keys as Swift's `String` orders them, which for a
  /// key that is not ASCII differs from the order of the bytes; they still load.
  @Test func aSnapshotWithKeysInTheOlderOrderStillLoads() throws {
    let lane = try JournalLane()
    try lane.ok(#"{"op":"no_sale","reason":"r","key":"e\u0301"}"#)
    try lane.ok(#"{"op":"no_sale","reason":"r","key":"f"}"#)
    let snapshot = lane.register.snapshotValue()
    let days = try #require(snapshot["keys"]?["days"]?.arrayValue)
    guard case .object(let keys)? = days[0]["keys"] else {
      Issue.record("no keys in the snapshot")
      return
    }
    // Bytes: "e\u{301}" (0x65 …) before "f"; String: "é" (U+00E9) after "f".
    #expect(keys.keys[0].hasSameBytes(as: "e\u{301}"))
    var older = JSONObject()
    for member in keys.members.reversed() { older.append(member.key, member.value) }
    let rewritten = SnapshotTree.replacing(
      snapshot, at: SnapshotTree.path("keys.days[0].keys"), with: .object(older))
    let decoded = try Register(snapshot: rewritten)
    #expect(decoded.keys == lane.register.keys)
    // A key listed twice is still damage.
    var twice = keys
    twice.append(keys.members[0].key, keys.members[0].value)
    #expect(throws: JSONShapeError.self) {
      try Register(
        snapshot: SnapshotTree.replacing(
          snapshot, at: SnapshotTree.path("keys.days[0].keys"), with: .object(twice)))
    }
  }

  /// A JSON object's member names are compared by their bytes, as RFC 8259 has it.
  @Test func memberNamesAreTheirBytes() throws {
    let both = try JSONParser.parse(#"{"\#(composedKey)":1,"\#(decomposedKey)":2}"#)
    #expect(both[composedKey] == .int(1))
    #expect(both[decomposedKey] == .int(2))
    #expect(throws: JSONParseError.self) {
      try JSONParser.parse(#"{"\#(composedKey)":1,"\#(composedKey)":2}"#)
    }
    // The same past the size at which an object keeps a hash index.
    let filler = (0..<20).map { #""m\#($0)":0"# }.joined(separator: ",")
    let large = try JSONParser.parse(
      #"{\#(filler),"\#(composedKey)":1,"\#(decomposedKey)":2}"#)
    #expect(large[composedKey] == .int(1))
    #expect(large[decomposedKey] == .int(2))
  }

  @Test func aKeyIsAtMostTwoHundredScalars() throws {
    let lane = try JournalLane()
    // "e" and 10,000 combining accents: one character, 20 KB.
    let heavy = "e" + String(repeating: "\u{301}", count: 10_000)
    #expect(heavy.count == 1)
    let before = lane.storage.bytes
    let reply = try lane.send(#"{"op":"no_sale","reason":"r","key":"\#(heavy)"}"#)
    #expect(reply.errorCode == "bad_request")
    #expect(lane.storage.bytes == before)
    let longest = String(repeating: "\u{E9}", count: 200)
    try lane.ok(#"{"op":"no_sale","reason":"r","key":"\#(longest)"}"#)
    let tooLong = try lane.send(#"{"op":"no_sale","reason":"r","key":"\#(longest)x"}"#)
    #expect(tooLong.errorCode == "bad_request")
    let marks = "e" + String(repeating: "\u{301}", count: 199)
    try lane.ok(#"{"op":"no_sale","reason":"r","key":"\#(marks)"}"#)
  }

  @Test func freeTextLimitsCountScalarsToo() throws {
    let lane = try JournalLane()
    let heavy = "e" + String(repeating: "\u{301}", count: 10_000)
    let before = lane.storage.bytes
    for request in [
      #"{"op":"paid_in","amount":"1.00","reason":"\#(heavy)"}"#,
      #"{"op":"customer_add","name":"\#(heavy)"}"#,
      #"{"op":"no_sale","reason":"\#(heavy)"}"#,
    ] {
      let reply = try lane.send(request)
      #expect(reply.errorCode == "bad_request", "\(reply.serialized.prefix(200))")
    }
    #expect(lane.storage.bytes == before)
    // 200 accented letters, composed or decomposed (400 scalars), within 200 are fine.
    try lane.ok(
      #"{"op":"paid_in","amount":"1.00","reason":"\#(String(repeating: "\u{E9}", count: 200))"}"#)
    let decomposed = String(repeating: "e\u{301}", count: 100)
    try lane.ok(#"{"op":"paid_in","amount":"1.00","reason":"\#(decomposed)"}"#)
  }

  /// A SKU is its bytes: a Kelvin sign is not a "K". Before, the look-alike found the product
  /// and was journaled on the line as the client wrote it.
  @Test func aSKUIsItsBytes() throws {
    let lane = try JournalLane()
    try lane.ok(
      #"{"op":"product_add","product":{"sku":"KEY","name":"Key","description":"","category":"C","price":"2.00"}}"#
    )
    let kelvin = "\u{212A}EY"
    #expect(kelvin == "KEY", "Swift's String calls them equal")
    let before = lane.storage.bytes
    for request in [
      #"{"op":"add","sku":"\#(kelvin)"}"#,
      #"{"op":"stock_adjust","sku":"\#(kelvin)","delta":1,"reason":"r"}"#,
      #"{"op":"product_remove","sku":"\#(kelvin)"}"#,
    ] {
      let reply = try lane.send(request)
      #expect(reply.errorCode == "unknown_sku", "\(reply.serialized.prefix(200))")
    }
    #expect(lane.storage.bytes == before, "nothing journaled")
    let added = try lane.ok(#"{"op":"add","sku":"KEY"}"#)
    #expect(added["lines"]?.arrayValue?.first?["sku"]?.stringValue?.hasSameBytes(as: "KEY") == true)
  }

  /// Catalog text is limited in scalars too: a product name of "e" and 200 combining accents
  /// (one character) is over its 80, in the file and through product_add alike.
  @Test func catalogTextLimitsCountScalars() throws {
    let heavy = "e" + String(repeating: "\u{301}", count: 200)
    #expect(heavy.count == 1)
    let file = """
      {"store":{"name":"S","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[{"sku":"A1","name":"\(heavy)","description":"","category":"C","price":"5.00"}]}
      """
    let error = #expect(throws: CatalogError.self) {
      try CatalogFile.parse(Array(file.utf8), file: "c.json")
    }
    #expect(error?.description.contains("longer than 80 characters (Unicode scalars") == true)
    let lane = try JournalLane()
    let before = lane.storage.bytes
    let reply = try lane.send(
      #"{"op":"product_add","product":{"sku":"A1","name":"\#(heavy)","description":"","category":"C","price":"5.00"}}"#
    )
    #expect(reply.errorCode == "invalid_product", "\(reply.serialized.prefix(200))")
    #expect(lane.storage.bytes == before)
    // 80 accented letters (160 bytes, 80 scalars) are within.
    let accented = String(repeating: "\u{E9}", count: 80)
    try lane.ok(
      #"{"op":"product_add","product":{"sku":"A2","name":"\#(accented)","description":"","category":"C","price":"5.00"}}"#
    )
  }

  /// An operator id is its bytes: a Kelvin sign is not a "K", for a new id or a sign-in.
  @Test func anOperatorIDIsItsBytes() throws {
    let lane = try JournalLane()
    let kelvin = "\u{212A}IM"
    let refused = try lane.send(
      #"{"op":"operator_add","operator_id":"\#(kelvin)","name":"K","role":"manager","pin":"1234"}"#)
    #expect(refused.errorCode == "bad_request")
    try lane.ok(
      #"{"op":"operator_add","operator_id":"KIM","name":"Kim","role":"manager","pin":"1234"}"#)
    let before = lane.storage.bytes
    let signIn = try lane.send(#"{"op":"sign_in","operator":"\#(kelvin)","pin":"1234"}"#)
    #expect(signIn.errorCode == "operator_not_found")
    #expect(lane.storage.bytes == before)
    #expect(lane.register.signedIn == nil)
    try lane.ok(#"{"op":"sign_in","operator":"KIM","pin":"1234"}"#)
    #expect(lane.register.signedIn?.hasSameBytes(as: "KIM") == true)
  }

  @Test func anEmailAddressIsPlainASCII() throws {
    let lane = try JournalLane()
    let reply = try lane.send(#"{"op":"customer_add","name":"N","email":"\u212Aim@example.com"}"#)
    #expect(reply.errorCode == "invalid_email")
    #expect(lane.register.customers.isEmpty)
  }
}
