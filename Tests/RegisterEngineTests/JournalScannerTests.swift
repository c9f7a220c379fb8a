import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A journal written through the real path (requests → service → journal), then read back,
/// cut, extended and tampered with.
@Suite struct JournalScannerTests {
  /// The journal of one lane:
  ///
  ///     line seq type              request
  ///     1    1   store_configured  start-up ("more": true)
  ///     2    2   catalog_loaded    start-up
  ///     3    3   line_added        add JEANS 49.99
  ///     4    4   line_added        add GIFT 25.00
  ///     5    5   tender_added      card 20.00 (partial)
  ///     6    6   tender_added      cash 60.00 ("more": true)
  ///     7    7   sale_completed    … completes receipt 1
  ///     8    8   line_added        add TEE 15.00 (a new open order)
  ///
  /// Total 49.99 + 3.75 tax + 25.00 = 78.74; 20.00 by card leaves 58.74; 60.00 cash → 1.26
  /// change.
  struct Sample {
    let lane: JournalLane
    let bytes: [UInt8]
    let lines: [Range<Int>]

    init() throws {
      lane = try JournalLane()
      try lane.ok(Requests.Add(sku: "JEANS"))
      lane.clock.advance(milliseconds: 1_500)
      try lane.ok(Requests.Add(sku: "GIFT"))
      lane.clock.advance(milliseconds: 2_250)
      let partial = try lane.ok(
        Requests.Tender(.card(testCard(), amount: usd("20.00"))))
      #expect(partial["status"] == "open")
      lane.clock.advance(milliseconds: 999)
      let done = try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
      #expect(done["status"] == "completed")
      #expect(done["change_due"] == "1.26")
      lane.clock.advance(milliseconds: 60_000)
      try lane.ok(Requests.Add(sku: "TEE"))
      bytes = lane.storage.bytes
      lines = lineRanges(bytes)
      #expect(lines.count == 8)
      #expect(lines.last?.upperBound == bytes.count)
    }

    /// The first `count` lines.
    func prefix(lines count: Int) -> [UInt8] {
      Array(bytes[..<(count == 0 ? 0 : lines[count - 1].upperBound)])
    }
  }

  static let types = [
    "store_configured", "catalog_loaded", "line_added", "line_added", "tender_added",
    "tender_added", "sale_completed", "line_added",
  ]

  @Test func anIntactJournal() throws {
    let sample = try Sample()
    let scan = JournalScanner.scan(sample.bytes)
    #expect(scan.isIntact)
    #expect(scan.damage == nil)
    #expect(scan.tailLength == 0)
    #expect(scan.tailReason == nil)
    #expect(scan.goodLength == sample.bytes.count)
    #expect(scan.records.count == 8)
    #expect(scan.lastSequence == 8)
    #expect(scan.records.map(\.sequence) == Array(1...8))
    #expect(scan.records.map(\.type) == Self.types)
    #expect(scan.records.map(\.more) == [true, false, false, false, false, true, false, false])
    // The chain: each record names the sum of the one before; the first names the genesis.
    #expect(scan.records.first?.previous == JournalRecord.genesis)
    for index in 1..<scan.records.count {
      #expect(scan.records[index].previous == scan.records[index - 1].sum)
    }
    #expect(scan.lastSum == scan.records.last?.sum)
    #expect(scan.lastSum == sample.lane.journal.lastSum)
    #expect(sample.lane.journal.lastSequence == 8)
    // The request timestamps are recorded, to the millisecond.
    #expect(scan.records[2].at == testTime)
    #expect(scan.records[6].at.epochMilliseconds == testTime.epochMilliseconds + 4_749)
  }

  @Test func anEmptyJournalIsIntact() {
    let scan = JournalScanner.scan([])
    #expect(scan.isIntact)
    #expect(scan.records.isEmpty)
    #expect(scan.lastSum == JournalRecord.genesis)
    #expect(scan.lastSequence == 0)
    #expect(scan.goodLength == 0)
  }

  @Test func replayingTheJournalGivesTheLiveState() throws {
    let sample = try Sample()
    let scan = JournalScanner.scan(sample.bytes)
    let replayed = try Register.replaying(scan.records)
    #expect(RegisterState(replayed) == RegisterState(sample.lane.register))
  }

  @Test func noCardNumberOrCVVInTheJournal() throws {
    let sample = try Sample()
    let text = String(decoding: sample.bytes, as: UTF8.self)
    #expect(!text.contains("4242424242424242"))
    #expect(!text.contains("cvv"))
    #expect(!text.contains("exp_"))
    #expect(text.contains(#""card":{"brand":"VISA","last4":"4242"}"#))
  }

  /// A crash while writing the last record leaves any prefix of it: every one is a torn tail,
  /// never damage, and every record before it is kept.
  @Test func truncatedAtEveryByteOfTheLastRecord() throws {
    let sample = try Sample()
    let last = try #require(sample.lines.last)
    var failures: [Int] = []
    for offset in last {
      let scan = JournalScanner.scan(Array(sample.bytes[..<offset]))
      let good =
        scan.damage == nil && scan.records.count == 7 && scan.lastSequence == 7
        && scan.goodLength == last.lowerBound && scan.tailLength == offset - last.lowerBound
        && (scan.tailReason != nil) == (offset > last.lowerBound)
        && scan.isIntact == (offset == last.lowerBound)
      if !good { failures.append(offset) }
    }
    #expect(failures.isEmpty, "cuts at these offsets were not a clean tail: \(failures)")
    // And one of them in detail.
    let scan = JournalScanner.scan(Array(sample.bytes[..<(last.upperBound - 1)]))
    #expect(scan.damage == nil)
    #expect(scan.records.map(\.type) == Array(Self.types.prefix(7)))
    #expect(scan.tailLength == last.count - 1)
    #expect(!scan.isIntact)
  }

  /// A request is applied whole or not at all: when the journal ends after "more": true, the
  /// records of that request are not part of the good journal.
  @Test func aCutInsideAMultiRecordRequestDropsTheWholeRequest() throws {
    let sample = try Sample()
    let tender = sample.lines[5]
    let completed = sample.lines[6]
    #expect(tender.upperBound == completed.lowerBound)
    var failures: [Int] = []
    for offset in tender.lowerBound..<completed.upperBound {
      let scan = JournalScanner.scan(Array(sample.bytes[..<offset]))
      let good =
        scan.damage == nil && scan.records.count == 5 && scan.lastSequence == 5
        && scan.goodLength == tender.lowerBound && scan.tailLength == offset - tender.lowerBound
      if !good { failures.append(offset) }
    }
    #expect(failures.isEmpty, "cuts at these offsets kept part of a request: \(failures)")

    // tender_added ("more": true) complete, sale_completed half written.
    let cut = completed.lowerBound + completed.count / 2
    let scan = JournalScanner.scan(Array(sample.bytes[..<cut]))
    #expect(scan.damage == nil)
    #expect(scan.records.map(\.type) == Array(Self.types.prefix(5)))
    #expect(scan.records.last?.more == false)
    #expect(scan.goodLength == tender.lowerBound)
    #expect(scan.tailLength == cut - tender.lowerBound)
    // The lane's open order at that point still has only the card tender.
    let register = try Register.replaying(scan.records)
    #expect(register.order.tenders.count == 1)
    #expect(register.receipts.isEmpty)

    // Exactly at the end of the "more": true record, the tail is that whole record.
    let atEnd = JournalScanner.scan(Array(sample.bytes[..<tender.upperBound]))
    #expect(atEnd.damage == nil)
    #expect(atEnd.records.count == 5)
    #expect(atEnd.tailLength == tender.count)
    #expect(atEnd.tailReason?.contains("more") == true)
  }

  enum Garbage: String, CaseIterable, Sendable {
    case nulsAndJunk
    case randomBytes
    case halfARecord
    case completeRecordWithMore
    case newlinesOnly

    func bytes(after scan: JournalScan) -> [UInt8] {
      switch self {
      case .nulsAndJunk:
        return Array("\u{0}\u{0}junk\n".utf8)
      case .randomBytes:
        var generator = SplitMix64(seed: 0x5EED)
        return (0..<700).map { _ in UInt8.random(in: 0...255, using: &generator) }
      case .halfARecord:
        let line = Self.nextRecord(after: scan, more: false)
        return Array(line.prefix(line.count / 2))
      case .completeRecordWithMore:
        // The first record of a request whose second one was never written.
        return Self.nextRecord(after: scan, more: true)
      case .newlinesOnly:
        return Array("\n\n".utf8)
      }
    }

    static func nextRecord(after scan: JournalScan, more: Bool) -> [UInt8] {
      JournalRecord.encode(
        sequence: scan.lastSequence + 1, at: testTime, type: "line_added",
        data: .object(["order_id": 2, "line": 9]), operatorID: nil, key: nil, more: more,
        previous: scan.lastSum
      ).line
    }
  }

  @Test(arguments: Garbage.allCases)
  func garbageAfterAnIntactJournalIsATail(garbage: Garbage) throws {
    let sample = try Sample()
    let intact = JournalScanner.scan(sample.bytes)
    let extra = garbage.bytes(after: intact)
    let scan = JournalScanner.scan(sample.bytes + extra)
    #expect(scan.damage == nil, "\(String(describing: scan.damage))")
    #expect(!scan.isIntact)
    #expect(scan.records.count == 8)
    #expect(scan.records.map(\.sum) == intact.records.map(\.sum))
    #expect(scan.goodLength == sample.bytes.count)
    #expect(scan.tailLength == extra.count)
    #expect(scan.tailReason != nil)
  }

  @Test func changingAnAmountInAnOldRecordIsDamage() throws {
    let sample = try Sample()
    // Line 3 is seq 3, the jeans at 49.99.
    let tampered = try replacing("\"49.99\"", with: "\"39.99\"", inLine: 3, of: sample.bytes)
    #expect(tampered.count == sample.bytes.count)
    let scan = JournalScanner.scan(tampered)
    let damage = try #require(scan.damage)
    #expect(damage.sequence == 3)
    #expect(damage.line == 3)
    #expect(damage.offset == sample.lines[2].lowerBound)
    #expect(damage.problem.contains("checksum"))
    #expect(damage.description.contains("seq 3"))
    #expect(!scan.isIntact)
    // What is before the damage is good, and only that.
    #expect(scan.records.count == 2)
    #expect(scan.goodLength == sample.lines[2].lowerBound)
  }

  @Test func changingTheLastCompleteRecordIsDamageNotATail() throws {
    let sample = try Sample()
    // Line 8 is seq 8, the T-shirt at its sale price 15.00.
    let tampered = try replacing("\"15.00\"", with: "\"16.00\"", inLine: 8, of: sample.bytes)
    let scan = JournalScanner.scan(tampered)
    let damage = try #require(scan.damage)
    #expect(damage.sequence == 8)
    #expect(damage.line == 8)
    #expect(damage.problem.contains("checksum"))
    #expect(scan.records.count == 7)
  }

  @Test func aRecordResealedByAForgerBreaksTheChain() throws {
    let sample = try Sample()
    // Edit line 3 and give it a correct sum of its own: its successor's prev no longer matches.
    let line = Array(sample.bytes[sample.lines[2]])
    let body = try replacing("\"49.99\"", with: "\"39.99\"", in: Array(line.dropLast()))
    let object = try #require(try JSONParser.parse(body).objectValue)
    var prefix = JSONObject()
    for (key, value) in object.members where key != "sum" { prefix[key] = value }
    var forged = Array(sample.bytes[..<sample.lines[2].lowerBound])
    forged += seal(prefix) + [UInt8(ascii: "\n")]
    forged += Array(sample.bytes[sample.lines[2].upperBound...])
    #expect((try? JournalRecord.decode(line: seal(prefix)[...])) != nil)
    let scan = JournalScanner.scan(forged)
    let damage = try #require(scan.damage)
    #expect(damage.sequence == 4)
    #expect(damage.line == 4)
    #expect(damage.problem.contains("chain"))
  }

  @Test func deletingAMiddleLineIsDamage() throws {
    let sample = try Sample()
    var edited = sample.bytes
    edited.removeSubrange(sample.lines[3])
    let scan = JournalScanner.scan(edited)
    let damage = try #require(scan.damage)
    // Line 4 now holds seq 5 where seq 4 was expected.
    #expect(damage.line == 4)
    #expect(damage.sequence == 5)
    #expect(damage.problem.contains("sequence"))
    #expect(scan.records.count == 3)
  }

  @Test func swappingTwoLinesIsDamage() throws {
    let sample = try Sample()
    let third = Array(sample.bytes[sample.lines[2]])
    let fourth = Array(sample.bytes[sample.lines[3]])
    var edited = sample.bytes
    edited.replaceSubrange(
      sample.lines[2].lowerBound..<sample.lines[3].upperBound, with: fourth + third)
    #expect(edited.count == sample.bytes.count)
    let scan = JournalScanner.scan(edited)
    let damage = try #require(scan.damage)
    #expect(damage.line == 3)
    #expect(damage.sequence == 4)
    #expect(scan.records.count == 2)
  }

  @Test func aDuplicatedRecordIsDamage() throws {
    let sample = try Sample()
    var edited = sample.prefix(lines: 4)
    edited += Array(sample.bytes[sample.lines[3]])
    edited += Array(sample.bytes[sample.lines[4].lowerBound...])
    let scan = JournalScanner.scan(edited)
    let damage = try #require(scan.damage)
    #expect(damage.line == 5)
    #expect(damage.sequence == 4)
  }

  /// A line that is not a record, followed by good records, is damage in the middle (not a
  /// tail to cut off: that would throw the good records away).
  @Test func garbageFollowedByGoodRecordsIsDamage() throws {
    let sample = try Sample()
    var edited = sample.prefix(lines: 3)
    edited += Array("\u{0}\u{0}junk\n".utf8)
    edited += Array(sample.bytes[sample.lines[3].lowerBound...])
    let scan = JournalScanner.scan(edited)
    let damage = try #require(scan.damage)
    #expect(damage.line == 4)
    #expect(damage.offset == sample.lines[3].lowerBound)
    #expect(scan.records.count == 3)
  }

  /// Every line of `bytes` rewritten by `edit` (given the record's members without "sum",
  /// and the sum of the line before) and summed again, chained to the new line before it:
  /// what someone who can write the file but not read a journal key can do.
  static func resealed(
    _ bytes: [UInt8], lines: Range<Int>? = nil, edit: (inout JSONObject) -> Void
  ) throws -> [UInt8] {
    var out: [UInt8] = []
    var previous = JournalRecord.genesis
    for (index, range) in lineRanges(bytes).enumerated() {
      var line = Array(bytes[range].dropLast())
      if lines?.contains(index + 1) ?? true {
        let object = try #require(try JSONParser.parse(line).objectValue)
        var members = JSONObject()
        for (key, value) in object.members where key != "sum" { members[key] = value }
        members["prev"] = .string(previous)
        edit(&members)
        line = seal(members)
      }
      previous = String(decoding: line.suffix(66).prefix(64), as: UTF8.self)
      out += line + [UInt8(ascii: "\n")]
    }
    return out
  }

  /// Every record moved to a sequence number no register writes, each summed again and
  /// chained: no record reads, yet none of them was torn by a crash. Setting them aside as a
  /// torn tail would start the register empty and lose every acknowledged sale.
  @Test func recordsSummedAgainThatCannotBeReadAreDamageNotATail() throws {
    let sample = try Sample()
    let edited = try Self.resealed(sample.bytes) { members in
      members["seq"] = .int((members["seq"]?.int64Value ?? 0) + (1 << 62))
    }
    #expect((try? JournalRecord.decode(line: edited[lineRanges(edited)[0].dropLast()])) == nil)
    let scan = JournalScanner.scan(edited)
    let damage = try #require(scan.damage)
    #expect(damage.line == 1)
    #expect(damage.problem.contains("checksum matches"))
    #expect(scan.records.isEmpty)
    #expect(scan.tailReason == nil)
  }

  /// The same for the last record alone (a member missing), and for one after a line of
  /// garbage: a line that carries its own checksum was written whole.
  @Test func aLastRecordSummedAgainWithoutAMemberIsDamage() throws {
    let sample = try Sample()
    let edited = try Self.resealed(sample.bytes, lines: 8..<9) { members in
      members["type"] = nil
    }
    let scan = JournalScanner.scan(edited)
    let damage = try #require(scan.damage)
    #expect(damage.line == 8)
    #expect(damage.sequence == 8)
    #expect(scan.records.count == 7)

    var afterGarbage = sample.prefix(lines: 7)
    afterGarbage += Array("junk\n".utf8)
    afterGarbage += Array(edited[lineRanges(edited)[7]])
    let second = JournalScanner.scan(afterGarbage)
    #expect(second.damage?.line == 8)
    #expect(second.records.count == 7)
  }

  /// A record cut short, or zeros in it, is still a torn tail: only a whole line with its own
  /// checksum is taken for damage.
  @Test func aRecordCutShortIsStillATail() throws {
    let sample = try Sample()
    for cut in [1, 40, 80, 90] {
      let bytes = Array(sample.bytes.dropLast(cut))
      let scan = JournalScanner.scan(bytes)
      #expect(scan.damage == nil, "cut \(cut)")
      #expect(scan.records.count == 7, "cut \(cut)")
    }
  }
}
