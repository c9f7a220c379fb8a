import Foundation
import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The journal as segment files: one per business day (more when a day runs past the size
/// limit), the chain unbroken across them, sealed segments never written again, and damage
/// between segments (one removed, one cut short) found at start-up.
@Suite struct JournalSegmentTests {
  /// One sale rung up and paid in cash.
  static func sale(_ service: RegisterService, clock: ManualClock) throws {
    try service.ok(Requests.Add(sku: "TEE"))
    clock.advance(milliseconds: 30_000)
    try service.ok(Requests.Tender(.cash(amount: usd("50.00"))))
    clock.advance(milliseconds: 60_000)
  }

  static func segments(_ directory: String) throws -> [JournalFiles.Segment] {
    try JournalFiles.segments(in: directory)
  }

  static func records(_ segment: JournalFiles.Segment) throws -> [JournalRecord] {
    JournalScanner.scan(
      try FileIO.read(segment.path), firstSequence: segment.firstSequence, previousSum: nil
    ).records
  }

  @Test func closingADayStartsTheNextDaysSegmentAndTheChainRunsOn() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      try Self.sale(lane.service, clock: clock)
      try lane.service.ok(Requests.CloseDay(countedCash: usd("0.00")))
      try Self.sale(lane.service, clock: clock)
      try lane.service.ok(Requests.CloseDay())
      try Self.sale(lane.service, clock: clock)
      live = lane.service.register
    }
    let segments = try Self.segments(directory)
    #expect(segments.map(\.day) == [1, 2, 3])
    let records = try segments.map(Self.records)
    // Each closed day's segment ends with its day_closed record; the next starts right after.
    for index in 0..<2 {
      #expect(records[index].last?.type == "day_closed")
      #expect(records[index + 1].first?.sequence == records[index].last.map { $0.sequence + 1 })
      #expect(records[index + 1].first?.previous == records[index].last?.sum)
      #expect(segments[index + 1].firstSequence == records[index + 1].first?.sequence)
      #expect(records[index + 1].allSatisfy { $0.type != "day_closed" } || index == 0)
    }
    // Sealed segments are read-only; the open one is not.
    for (index, segment) in segments.enumerated() {
      var info = stat()
      #expect(lstat(segment.path, &info) == 0)
      #expect(info.st_mode & 0o777 == (index < 2 ? 0o400 : 0o600), "\(segment.name)")
    }
    #expect(JournalScanner.scan(try journalBytes(in: directory)).isIntact)
    // A restart reads all of them and carries on in the open one.
    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RegisterState(recovered.register) == RegisterState(live))
    #expect(recovered.openSegment == segments.last)
    #expect(recovered.recordsRead == Int(live.lastSequence))
  }

  @Test func aBusyDayRunsOverIntoMoreSegmentsOfTheSameDay() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock, segmentLimit: 4_000)
      try Self.sale(lane.service, clock: clock)
      for _ in 0..<60 {
        try lane.service.ok(Requests.PaidIn(amount: usd("1.00"), reason: "change from the bank"))
      }
      try Self.sale(lane.service, clock: clock)
      live = lane.service.register
    }
    let segments = try Self.segments(directory)
    #expect(segments.count >= 3)
    #expect(segments.allSatisfy { $0.day == 1 })
    for segment in segments.dropLast() {
      let size = try FileIO.read(segment.path).count
      #expect(size >= 4_000, "a segment ends only past the limit")
      // A request's records are never split across segments.
      #expect(try Self.records(segment).last?.more == false)
    }
    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RegisterState(recovered.register) == RegisterState(live))
  }

  @Test func theJournalOfAnOlderRegisterdIsMovedInAsTheFirstSegment() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      try Self.sale(lane.service, clock: clock)
      live = lane.service.register
    }
    // What an older registerd left: one journal.ndjson, no segment directory.
    let bytes = try journalBytes(in: directory)
    try FileManager.default.removeItem(atPath: JournalFiles.segmentDirectory(in: directory))
    let legacy = JournalFiles.legacyPath(in: directory)
    try Data(bytes).write(to: URL(fileURLWithPath: legacy))

    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovered.migratedLegacyJournal)
    #expect(RegisterState(recovered.register) == RegisterState(live))
    #expect(!FileManager.default.fileExists(atPath: legacy))
    #expect(try Self.segments(directory).map(\.name) == ["day000001-seq000000000001.ndjson"])
    #expect(try journalBytes(in: directory) == bytes)

    // Both at once is refused, and nothing is touched.
    try Data(bytes).write(to: URL(fileURLWithPath: legacy))
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    #expect(error?.message.contains("older registerd") == true)
    #expect(try FileIO.read(legacy) == bytes)
  }

  /// Three closed days: four segments.
  static func threeDays(_ directory: String, clock: ManualClock) throws {
    let lane = try FileLane(directory: directory, clock: clock)
    for _ in 0..<3 {
      try sale(lane.service, clock: clock)
      try lane.service.ok(Requests.CloseDay())
    }
  }

  /// Records summed again after a change that no register can read (a sequence number out
  /// of range) are damage, not a torn tail: start-up refuses, sets nothing aside, and says
  /// which records before them are intact (record 6 starts the second sale's request).
  @Test(arguments: [1, 6])
  func recordsSummedAgainThatCannotBeReadStopStartUp(firstChanged: Int) throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      try Self.sale(lane.service, clock: clock)
      try Self.sale(lane.service, clock: clock)
    }
    let segment = try #require(try Self.segments(directory).first)
    let bytes = try FileIO.read(segment.path)
    let count = lineRanges(bytes).count
    #expect(count > firstChanged)
    let edited = try JournalScannerTests.resealed(bytes, lines: firstChanged..<(count + 1)) {
      members in
      members["seq"] = .int((members["seq"]?.int64Value ?? 0) + (1 << 62))
    }
    try Data(edited).write(to: URL(fileURLWithPath: segment.path))
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(message.contains("is damaged"))
    #expect(message.contains("up to seq \(firstChanged - 1))"))
    #expect(try FileIO.read(segment.path) == edited)
    let aside = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.contains("torn") }
    #expect(aside.isEmpty)
  }

  @Test func aMissingSegmentStopsStartUpAndChangesNothing() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    try Self.threeDays(directory, clock: clock)
    // The fourth segment, made at the last close, holds no record yet.
    let segments = try Self.segments(directory)
    #expect(segments.count == 3)
    try FileManager.default.removeItem(atPath: segments[1].path)
    let before = try journalBytes(in: directory)
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(message.contains(segments[2].path))
    #expect(message.contains("removed, renamed or inserted"))
    #expect(try journalBytes(in: directory) == before)
  }

  @Test(arguments: [true, false])
  func aSealedSegmentCutShortOrGrownIsDamage(cut: Bool) throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    try Self.threeDays(directory, clock: clock)
    let sealed = try Self.segments(directory)[1]
    var bytes = try FileIO.read(sealed.path)
    if cut {
      // Its last record (the day_closed) cut in half: what a torn write would look like, in a
      // segment that was complete when it was sealed.
      bytes.removeLast(40)
    } else {
      bytes.append(contentsOf: Array(#"{"seq":1,"at":"#.utf8))
    }
    #expect(chmod(sealed.path, 0o600) == 0)
    try Data(bytes).write(to: URL(fileURLWithPath: sealed.path))
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(message.contains(sealed.path))
    #expect(message.contains("sealed segment ends with an incomplete record"))
    #expect(try FileIO.read(sealed.path) == bytes, "nothing was set aside or cut")
  }

  /// A lane that closed day 1 and rang a sale of day 2, with day 2's records moved into day
  /// 1's segment: where they are when the next segment could not be made at the close. Returns
  /// day 2's segment as it was named (now gone) and the register.
  static func dayTwoInDayOnesSegment(_ directory: String, clock: ManualClock) throws -> (
    JournalFiles.Segment, Register
  ) {
    let live: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      try sale(lane.service, clock: clock)
      try lane.service.ok(Requests.CloseDay())
      try sale(lane.service, clock: clock)
      live = lane.service.register
    }
    let segments = try Self.segments(directory)
    #expect(segments.count == 2)
    let moved = try FileIO.read(segments[1].path)
    #expect(chmod(segments[0].path, 0o600) == 0)
    let first = try FileHandle(forWritingTo: URL(fileURLWithPath: segments[0].path))
    try first.seekToEnd()
    try first.write(contentsOf: moved)
    try first.close()
    try FileManager.default.removeItem(atPath: segments[1].path)
    return (segments[1], live)
  }

  /// What a failed making of the next segment leaves (its file made, its directory entry not
  /// durable, the writer going on in the segment it was in): a segment file without records,
  /// named for a record the journal holds elsewhere. Every reader leaves it out; start-up
  /// appends where the records are and removes it; the chain runs on across later days.
  @Test func aSegmentWithoutRecordsWhoseMakingFailedIsLeftOutAndRemoved() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let (stale, live) = try Self.dayTwoInDayOnesSegment(directory, clock: clock)
    #expect(FileManager.default.createFile(atPath: stale.path, contents: nil))
    #expect(try Self.segments(directory).map(\.firstSequence) == [1], "left out of the list")
    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RegisterState(recovered.register) == RegisterState(live))
    #expect(recovered.openSegment.firstSequence == 1, "appended where the records are")
    #expect(recovered.removedSegments == [stale.path])
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    let later: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      try lane.service.ok(Requests.PaidIn(amount: usd("1.00"), reason: "change from the bank"))
      try lane.service.ok(Requests.CloseDay())
      try lane.service.ok(Requests.PaidIn(amount: usd("1.00"), reason: "change from the bank"))
      later = lane.service.register
    }
    let segments = try Self.segments(directory)
    #expect(segments.map(\.day) == [1, 3])
    #expect(
      segments[1].firstSequence == (try Self.records(segments[0])).last.map { $0.sequence + 1 })
    #expect(JournalScanner.scan(try journalBytes(in: directory)).isIntact)
    let again = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RegisterState(again.register) == RegisterState(later))
  }

  /// The next segment made at a close, with nothing written to it before a stop: start-up
  /// appends to it (it is named for the record the journal continues with).
  @Test func theNextSegmentWithoutRecordsYetIsAppendedTo() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      try Self.sale(lane.service, clock: clock)
      try lane.service.ok(Requests.CloseDay())
    }
    let files = try FileManager.default.contentsOfDirectory(
      atPath: JournalFiles.segmentDirectory(in: directory)
    ).sorted()
    #expect(files.count == 2)
    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovered.openSegment.name == files[1])
    #expect(recovered.openSegment.firstSequence == recovered.lastSequence + 1)
    #expect(recovered.removedSegments.isEmpty)
  }

  /// A segment whose records continue the journal but whose name says otherwise (what an
  /// older registerd left after the next segment could not be made): start-up stops, and the
  /// repair it gives renames the segment, never cuts it.
  @Test func aMisnamedSegmentIsRepairedByItsNameNotByCuttingIt() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let (misnamed, _) = try Self.dayTwoInDayOnesSegment(directory, clock: clock)
    let dayOne = try #require(try Self.segments(directory).first)
    let next = try #require(try Self.records(dayOne).last).sequence + 1
    // A later record of day 2, in the file named for the record the close was followed by.
    let extra = JournalRecord.encode(
      sequence: next, at: testTime, type: "no_sale", data: .object([:]), operatorID: nil,
      key: nil, more: false, previous: try #require(try Self.records(dayOne).last).sum)
    try Data(extra.line).write(to: URL(fileURLWithPath: misnamed.path))
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    let right = JournalFiles.Segment(directory: directory, day: misnamed.day, firstSequence: next)
    #expect(message.contains("mv \(misnamed.path) \(right.path)"), "\(message)")
    #expect(!message.contains("truncate"), "\(message)")
    try FileManager.default.moveItem(atPath: misnamed.path, toPath: right.path)
    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovered.lastSequence == next)
  }

  @Test func segmentNamesAreReadStrictly() {
    for name in [
      "day000001-seq000000000001.ndjson.torn-2-5", "day000001-seq000000000001.ndjson.tmp-ab",
      "day1-seq1.ndjson", "day000000-seq000000000001.ndjson", "dayx00001-seq000000000001.ndjson",
      "day000001-seq00000000000a.ndjson", "journal.ndjson", "day000001seq000000000001.ndjson",
    ] {
      #expect(JournalFiles.Segment.parse(name) == nil, "\(name)")
    }
    let segment = JournalFiles.Segment(directory: "/d", day: 42, firstSequence: 205_001)
    #expect(segment.name == "day000042-seq000000205001.ndjson")
    let parsed = JournalFiles.Segment.parse(segment.name)
    #expect(parsed?.day == 42 && parsed?.firstSequence == 205_001)
  }
}
