import Foundation
import Testing

@testable import RegisterEngine

@Suite struct JournalRecordTests {
  /// A record with every envelope field in use.
  struct Sample {
    let at = Timestamp(
      epochMilliseconds: testTime.epochMilliseconds + 123, utcOffsetSeconds: -18_000)
    let key = KeyRecord(
      key: "lane1-42", fingerprint: SHA256.hex(Array("request".utf8)),
      reply: .object(["status": "open", "total": "14.99"]))
    let data: JSONValue = .object([
      "order_id": 7,
      "tender": .object(["type": "cash", "amount": "14.99"]),
      "note": "two\nlines \"quoted\" caf\u{e9}",
    ])
    let previous = SHA256.hex(Array("the record before".utf8))

    func encode(full: Bool = true) -> (line: [UInt8], sum: String) {
      JournalRecord.encode(
        sequence: 42, at: at, type: "tender_added", data: data,
        operatorID: full ? "ana" : nil, key: full ? key : nil, more: full,
        previous: previous)
    }
  }

  /// The journal writes some events' `data` straight to bytes and every record's `at` and
  /// `sum` digit by digit: the line must be byte for byte the one the tree gives.
  @Test(arguments: [
    Event.paidIn(amount: Money(minorUnits: 1, currency: .usd), reason: "bench"),
    Event.paidOut(
      amount: Money(minorUnits: 123_456_789, currency: .usd),
      reason: "window \"cleaner\"\n\u{1}caf\u{e9} \u{1F600}"),
    Event.floatSet(amount: Money(minorUnits: 0, currency: .usd)),
    Event.floatSet(amount: Money(minorUnits: 5, currency: Currency(code: "JPY")!)),
    Event.noSale(reason: nil),
    Event.noSale(reason: "change for the till"),
  ])
  func eventsWriteTheBytesTheirTreeWrites(event: Event) {
    let sample = Sample()
    for at in [
      sample.at, Timestamp(epochMilliseconds: -62_135_596_800_001, utcOffsetSeconds: 3600),
    ] {
      let record = PendingRecord(
        sequence: 9, at: at, event: event, operatorID: "ana", key: nil, more: false)
      let written = Journal.encode(record, previous: sample.previous, macKey: nil)
      let fromTree = JournalRecord.encode(
        sequence: 9, at: at, type: event.type, data: event.data, operatorID: "ana", key: nil,
        more: false, previous: sample.previous)
      #expect(written.line == fromTree.line)
      #expect(written.sum == fromTree.sum)
      // The sum is the SHA-256 of the line before `,"sum":"`.
      #expect(
        written.sum == SHA256.hex(Array(written.line.dropLast(JournalRecord.suffixLength + 1))))
    }
  }

  /// `at` is written digit by digit; the text must be what the padded fields give, for any
  /// moment and offset (years before 1000 and before year 1, far offsets both ways).
  @Test func timestampsWriteTheirPaddedText() {
    let moments: [Int64] = [
      0, 1, 999, 1_767_618_002_973, -1, -86_400_001, -62_135_596_800_001, 253_402_300_799_999,
      -30_610_224_000_000, 4_102_444_800_123,
    ]
    for millis in moments {
      for offset: Int32 in [0, -18_000, 19_800, 50_400, -43_200, -59, 59] {
        let at = Timestamp(epochMilliseconds: millis, utcOffsetSeconds: offset)
        let time = at.local
        let hours = abs(Int(offset)) / 3600
        let minutes = abs(Int(offset)) % 3600 / 60
        let expected =
          "\(time.dateString)T\(time.timeString).\(pad(time.millisecond, 3))"
          + "\(offset < 0 ? "-" : "+")\(pad(hours, 2)):\(pad(minutes, 2))"
        #expect(at.iso8601 == expected)
      }
    }
  }

  @Test func encodeThenDecodeKeepsEveryField() throws {
    let sample = Sample()
    let (line, sum) = sample.encode()
    let record = try JournalRecord.decode(line: line.dropLast())
    #expect(record.sequence == 42)
    #expect(record.at == sample.at)
    #expect(record.at.epochMilliseconds % 1000 == 123)
    #expect(record.at.utcOffsetSeconds == -18_000)
    #expect(record.type == "tender_added")
    #expect(record.data == sample.data)
    #expect(record.operatorID == "ana")
    #expect(record.key == sample.key)
    #expect(record.more)
    #expect(record.previous == sample.previous)
    #expect(record.sum == sum)
    #expect(
      record
        == JournalRecord(
          sequence: 42, at: sample.at, type: "tender_added", data: sample.data,
          operatorID: "ana", key: sample.key, more: true, previous: sample.previous, sum: sum))
  }

  @Test func optionalFieldsAreLeftOutAndReadBackAsAbsent() throws {
    let sample = Sample()
    let (line, sum) = sample.encode(full: false)
    let text = String(decoding: line, as: UTF8.self)
    #expect(!text.contains("\"operator\""))
    #expect(!text.contains("\"key\""))
    #expect(!text.contains("\"more\""))
    let record = try JournalRecord.decode(line: line.dropLast())
    #expect(record.operatorID == nil)
    #expect(record.key == nil)
    #expect(!record.more)
    #expect(record.sum == sum)
    #expect(record.data == sample.data)
  }

  @Test func theLineIsOneJSONObjectWithSumLast() throws {
    let (line, sum) = Sample().encode()
    #expect(line.last == UInt8(ascii: "\n"))
    #expect(line.suffix(3).elementsEqual(Array("\"}\n".utf8)))
    // One record, one line: the newline inside the data is escaped.
    #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
    // Valid JSON for any reader, not only ours.
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    #expect(object["sum"] as? String == sum)
    #expect(object["seq"] as? Int == 42)
    #expect(object["type"] as? String == "tender_added")
    #expect(object["operator"] as? String == "ana")
    #expect(object["more"] as? Bool == true)
    // Member order is fixed: sum is the last member, prev right before it.
    let parsed = try JSONParser.parse(line.dropLast())
    let keys = try #require(parsed.objectValue?.keys)
    #expect(keys == ["seq", "at", "type", "data", "operator", "key", "more", "prev", "sum"])
    #expect(parsed["at"] == "2026-03-15T14:03:05.123-05:00")
  }

  @Test func sumIsTheHashOfEverythingBeforeIt() throws {
    for full in [true, false] {
      let (line, sum) = Sample().encode(full: full)
      let marker = Array(#","sum":""#.utf8)
      let start = try #require(firstRange(of: marker, in: line))
      #expect(SHA256.hex(Array(line[..<start])) == sum)
      #expect(sum.count == 64)
      #expect(sum.allSatisfy { "0123456789abcdef".contains($0) })
      // The sum is followed by nothing but the closing of the object.
      let after = line[(start + marker.count)...]
      #expect(Array(after) == Array("\(sum)\"}\n".utf8))
    }
  }

  @Test func genesisIsSixtyFourZeros() {
    #expect(JournalRecord.genesis == String(repeating: "0", count: 64))
  }

  /// Byte edits that keep the line valid JSON and a valid record, so only the checksum can
  /// tell.
  @Test(arguments: [
    ("\"14.99\"", "\"15.99\""),
    ("\"seq\":42", "\"seq\":43"),
    ("tender_added", "tender_addeD"),
    ("\"ana\"", "\"bob\""),
    ("lane1-42", "lane1-43"),
    ("2026-03-15T14:03:05.123", "2026-03-15T14:03:05.124"),
  ])
  func aChangedByteIsAChecksumMismatch(original: String, replacement: String) throws {
    let (line, _) = Sample().encode()
    let changed = try replacing(original, with: replacement, in: line)
    #expect(changed.count == line.count)
    #expect(problem(decoding: changed.dropLast()) == .checksumMismatch)
  }

  @Test func aChangedPrevOrSumIsAChecksumMismatch() throws {
    let sample = Sample()
    let (line, sum) = sample.encode()
    let otherPrev = try replacing(
      sample.previous, with: String(repeating: "0", count: 64), in: line)
    #expect(problem(decoding: otherPrev.dropLast()) == .checksumMismatch)
    let otherSum = try replacing(sum, with: String(repeating: "f", count: 64), in: line)
    #expect(problem(decoding: otherSum.dropLast()) == .checksumMismatch)
  }

  /// The sum is checked as the exact bytes in the line: the right digest in capitals is a
  /// checksum mismatch, and a line read from the middle of a buffer is checked on its own bytes.
  @Test func theSumIsCheckedAsTheExactBytesOfTheLine() throws {
    let (line, sum) = Sample().encode()
    let capitals = try replacing(sum, with: sum.uppercased(), in: line)
    #expect(problem(decoding: capitals.dropLast()) == .checksumMismatch)
    // The line inside a larger buffer (as the scanner hands it over): decoded the same.
    let before = Array(#"{"seq":1}"#.utf8) + [UInt8(ascii: "\n")]
    let buffer = before + line + Array("garbage".utf8)
    let slice = buffer[before.count..<before.count + line.count - 1]
    #expect(slice.startIndex != 0)
    let record = try JournalRecord.decode(line: slice)
    #expect(record.sum == sum)
    #expect(try JournalRecord.decode(line: line.dropLast()) == record)
    var changed = buffer
    #expect(changed[before.count + 7] == UInt8(ascii: "4"))
    changed[before.count + 7] = UInt8(ascii: "3")  // "seq":42 → "seq":32
    #expect(
      problem(decoding: changed[before.count..<before.count + line.count - 1])
        == .checksumMismatch)
  }

  @Test func sumMustBeTheLastMember() throws {
    let (line, sum) = Sample().encode()
    var object = try #require(try JSONParser.parse(line.dropLast()).objectValue)
    // sum first, then everything else: still valid JSON with the same members.
    object["sum"] = nil
    var reordered = JSONObject()
    reordered["sum"] = .string(sum)
    for (key, value) in object.members { reordered[key] = value }
    let first = Array(JSONValue.object(reordered).serialized.utf8)
    guard case .badShape = problem(decoding: first[...]) else {
      Issue.record("sum first: \(String(describing: problem(decoding: first[...])))")
      return
    }
    // A member after sum.
    var trailing = Array(line.dropLast(2))
    trailing.append(contentsOf: Array(#","x":1}"#.utf8))
    guard case .badShape = problem(decoding: trailing[...]) else {
      Issue.record("member after sum: \(String(describing: problem(decoding: trailing[...])))")
      return
    }
  }

  /// The fields of a minimal good record, as `encode` writes them (before `sum`).
  static func prefixObject() -> JSONObject {
    var object = JSONObject()
    object["seq"] = 1
    object["at"] = .string(testTime.iso8601)
    object["type"] = "line_added"
    object["data"] = .object(["order_id": 1])
    object["prev"] = .string(JournalRecord.genesis)
    return object
  }

  @Test func aSealedMinimalRecordDecodes() throws {
    // The control for the tests below: the sealing helper makes lines `decode` accepts.
    let line = seal(Self.prefixObject())
    let record = try JournalRecord.decode(line: line[...])
    #expect(record.sequence == 1)
    #expect(record.at == testTime)
    #expect(record.type == "line_added")
    let encoded = JournalRecord.encode(
      sequence: 1, at: testTime, type: "line_added", data: .object(["order_id": 1]),
      operatorID: nil, key: nil, more: false, previous: JournalRecord.genesis)
    #expect(Array(encoded.line.dropLast()) == line)
  }

  /// A record with a correct checksum that lacks a required field is still refused.
  @Test(arguments: ["seq", "at", "type", "data", "prev"])
  func missingFieldsAreRefused(field: String) {
    var object = Self.prefixObject()
    object[field] = nil
    let line = seal(object)
    guard case .badShape(let detail) = problem(decoding: line[...]) else {
      Issue.record("without \(field): \(String(describing: problem(decoding: line[...])))")
      return
    }
    #expect(detail.contains(field))
  }

  @Test func aLineWithoutSumIsRefused() {
    let text = JSONValue.object(Self.prefixObject()).serialized
    guard case .badShape = problem(decoding: Array(text.utf8)[...]) else {
      Issue.record("no sum: \(String(describing: problem(decoding: Array(text.utf8)[...])))")
      return
    }
  }

  /// Wrong types and unknown members, with a correct checksum.
  @Test(arguments: [
    ("seq", JSONValue.string("1")),
    ("seq", JSONValue.number("1.5")),
    ("at", JSONValue.string("yesterday")),
    ("at", JSONValue.int(1_773_601_385_000)),
    ("type", JSONValue.int(3)),
    ("more", JSONValue.string("yes")),
    ("operator", JSONValue.int(1)),
    ("key", JSONValue.string("k")),
    ("extra", JSONValue.bool(true)),
  ])
  func badFieldsAreRefused(field: String, value: JSONValue) {
    var object = Self.prefixObject()
    object["prev"] = nil
    object[field] = value
    object["prev"] = .string(JournalRecord.genesis)
    let line = seal(object)
    guard case .badShape = problem(decoding: line[...]) else {
      Issue.record("\(field)=\(value.serialized) was not refused as a bad shape")
      return
    }
  }

  @Test(arguments: [
    "",
    "not json",
    "\u{0}\u{0}junk",
    #"{"seq":1,"at":"2026-03-15T14:03:05.000-05:00""#,
    "[1,2,3",
  ])
  func notJSONIsRefused(text: String) {
    guard case .notJSON = problem(decoding: Array(text.utf8)[...]) else {
      Issue.record("\(text.debugDescription): not reported as notJSON")
      return
    }
  }

  @Test func everyCutOfARecordIsRefused() {
    let (line, _) = Sample().encode()
    let body = line.dropLast()
    for length in 0..<body.count {
      let cut = body.prefix(length)
      #expect(problem(decoding: cut) != nil, "cut at \(length) decoded")
    }
    #expect(problem(decoding: body) == nil)
  }

  @Test func valuesThatAreJSONButNotObjectsAreRefused() {
    for text in ["[]", "42", "\"sum\"", "null"] {
      #expect(problem(decoding: Array(text.utf8)[...]) != nil, "\(text)")
    }
  }
}

/// The problem `decode` reports for `line`, or nil when it decodes.
func problem(decoding line: ArraySlice<UInt8>) -> JournalRecord.Problem? {
  do {
    _ = try JournalRecord.decode(line: line)
    return nil
  } catch {
    return error
  }
}

/// Closes a record's prefix members with a correct `sum`, as `encode` does (no newline).
func seal(_ object: JSONObject) -> [UInt8] {
  var text = JSONValue.object(object).serialized
  text.removeLast()
  var bytes = Array(text.utf8)
  let sum = SHA256.hex(bytes)
  bytes.append(contentsOf: Array(#","sum":""#.utf8))
  bytes.append(contentsOf: Array(sum.utf8))
  bytes.append(contentsOf: Array(#""}"#.utf8))
  return bytes
}

/// The index where `needle` first occurs in `haystack`.
func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
  guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
  for start in 0...(haystack.count - needle.count)
  where haystack[start..<start + needle.count].elementsEqual(needle) {
    return start
  }
  return nil
}

struct NotFound: Error, CustomStringConvertible {
  var text: String
  var description: String { "\(text.debugDescription) not found" }
}

/// `bytes` with the first occurrence of `original` replaced by `replacement`.
func replacing(_ original: String, with replacement: String, in bytes: [UInt8]) throws
  -> [UInt8]
{
  guard let start = firstRange(of: Array(original.utf8), in: bytes) else {
    throw NotFound(text: original)
  }
  var result = bytes
  result.replaceSubrange(start..<start + original.utf8.count, with: Array(replacement.utf8))
  return result
}
