import Foundation
import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// Start-up from a snapshot plus the journal records after it gives the register the whole
/// journal gives; receipts of archived days are still found; a damaged snapshot falls back to
/// an older one; a snapshot the journal does not reach stops start-up.
@Suite struct SnapshotRecoveryTests {
  /// Writes a snapshot of the lane's durable state, as the daemon's snapshot writer does, and
  /// lets the live register drop what it archived.
  @discardableResult
  static func snapshot(_ lane: FileLane) throws -> SnapshotFiles.Written {
    let (register, head) = try #require(lane.service.durableState)
    let written = try SnapshotFiles.write(register, head: head, dataDirectory: lane.directory)
    lane.service.archiveReceipts(written.archived)
    return written
  }

  /// A random history on files, with a snapshot after every close of day (and a few more).
  static func history(seed: UInt64, count: Int, directory: String) throws -> (
    live: Register, snapshots: Int
  ) {
    let clock = ManualClock(testTime)
    let lane = try FileLane(directory: directory, clock: clock)
    var random = SplitMix64(seed: seed)
    var snapshots = 0
    for index in 0..<count {
      clock.advance(milliseconds: Int64(1 + random.below(90_000)))
      let day = lane.service.register.day.number
      _ = try lane.service.send(RandomHistory.request(&random, register: lane.service.register))
      if lane.service.register.day.number != day || index % 97 == 96 {
        try snapshot(lane)
        snapshots += 1
      }
    }
    return (lane.service.register, snapshots)
  }

  @Test(arguments: [11, 12, 13, 14] as [UInt64])
  func snapshotPlusTailIsTheWholeJournal(seed: UInt64) throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (live, snapshots) = try Self.history(seed: seed, count: 500, directory: directory)
    #expect(snapshots >= 3)
    #expect(!live.closedDays.isEmpty, "the history closed days")
    #expect(!live.ledger.archive.days.isEmpty, "closed days' receipts were archived")

    // The whole journal, replayed from the first record, keeps every receipt in memory.
    let full = try Register.replaying(JournalScanner.scan(try journalBytes(in: directory)).records)
    #expect(full.ledger.archive.days.isEmpty)
    var recovery = try JournalFiles.recover(directory: directory, now: testTime)
    #expect(recovery.snapshot != nil)
    #expect(recovery.recordsRead < Int(full.lastSequence), "only the records after the snapshot")
    // registerd moves the register out of the recovery (no second copy kept for the life of
    // the process): what is left is an empty register.
    let restored = recovery.takeRegister()
    #expect(recovery.register == Register())
    #expect(restored.lastSequence == full.lastSequence)
    // The same state, part by part; receipts alike wherever they are kept.
    #expect(RandomHistory.digest(restored) == RandomHistory.digest(full))
    #expect(RandomHistory.digest(live) == RandomHistory.digest(full))
    #expect(restored.catalog == full.catalog)
    #expect(restored.orders == full.orders)
    #expect(restored.staff == full.staff)
    #expect(restored.customerBook == full.customerBook)
    #expect(restored.dayBook == full.dayBook)
    #expect(restored.keys == full.keys)
    #expect(restored.ledger.customerReceipts == full.ledger.customerReceipts)
    #expect(restored.ledger.returnedQuantities == full.ledger.returnedQuantities)
    #expect(restored.ledger.refunded == full.ledger.refunded)
    for number in 1..<full.nextReceiptNumber {
      #expect(restored.receipts[number] == full.receipts[number], "sale \(number)")
      #expect(restored.returns[number] == full.returns[number], "return \(number)")
    }
    // Only the open day's receipts are in memory.
    #expect(restored.ledger.sales.values.allSatisfy { $0.day == restored.day.number })
  }

  /// A lane with two closed days and a sale with a customer on day 1, snapshotted after each
  /// close.
  static func twoDays(_ directory: String, clock: ManualClock) throws -> Register {
    let lane = try FileLane(directory: directory, clock: clock)
    try lane.service.ok(Requests.CustomerAdd(name: "Ada Park"))
    try lane.service.ok(Requests.Add(sku: "JEANS"))
    try lane.service.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.service.ok(Requests.AttachCustomer(customerID: "C1"))
    try lane.service.ok(Requests.Tender(.card(testCard(), amount: nil)))
    clock.advance(milliseconds: 60_000)
    try lane.service.ok(Requests.CloseDay())
    try snapshot(lane)
    try lane.service.ok(Requests.Add(sku: "TEE"))
    try lane.service.ok(Requests.Tender(.cash(amount: usd("50"))))
    try lane.service.ok(Requests.CloseDay())
    try snapshot(lane)
    try lane.service.ok(Requests.Add(sku: "JEANS"))
    #expect(lane.service.register.ledger.sales.count == 0, "days 1 and 2 left memory")
    return lane.service.register
  }

  /// Segments after a snapshot are read and scanned ahead, before the sum they must follow
  /// is known. A segment from another journal — every record whole, numbered right, chained
  /// within itself, but not to the segment before — is still found at its first line, with or
  /// without a snapshot to start from.
  @Test(arguments: [true, false])
  func aSegmentFromAnotherJournalIsFoundAtItsFirstLine(withSnapshot: Bool) throws {
    let directory = try makeTemporaryDirectory()
    let other = try makeTemporaryDirectory()
    defer {
      try? FileManager.default.removeItem(atPath: directory)
      try? FileManager.default.removeItem(atPath: other)
    }
    _ = try Self.twoDays(directory, clock: ManualClock(testTime))
    // The same requests a minute later: the same records, numbers and segments, other sums.
    _ = try Self.twoDays(
      other, clock: ManualClock(Timestamp(epochMilliseconds: testTime.epochMilliseconds + 60_000)))
    let segments = try JournalFiles.segments(in: directory)
    let others = try JournalFiles.segments(in: other)
    #expect(segments.map(\.firstSequence) == others.map(\.firstSequence))
    #expect(segments.count == 3)
    // Day 2's segment swapped for the other journal's; the snapshot after day 1 is the newest.
    let swapped = segments[1].path
    try FileManager.default.removeItem(atPath: swapped)
    try FileManager.default.copyItem(atPath: others[1].path, toPath: swapped)
    let snapshots = SnapshotFiles.list(in: directory)
    for snapshot in snapshots.dropFirst() {
      try FileManager.default.removeItem(atPath: snapshot.path)
    }
    if !withSnapshot {
      try FileManager.default.removeItem(atPath: snapshots[0].path)
    }
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: testTime)
    }
    let message = try #require(error?.message)
    #expect(message.contains("the journal segment \(swapped) is damaged"), "\(message)")
    #expect(message.contains("(line 1, byte 0)"), "\(message)")
    #expect(message.contains("hash chain broken"), "\(message)")
    // The reader that takes no segment ahead finds the same.
    let chain = try JournalFiles.read(segments, after: 0, sum: JournalRecord.genesis) { _, _ in }
    #expect(chain.damage?.path == swapped)
    #expect(chain.damage?.damage.line == 1)
  }

  @Test func archivedReceiptsAreFoundReturnedAndListedAfterARestart() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live = try Self.twoDays(directory, clock: clock)
    #expect(live.ledger.archive.days.map(\.day) == [1, 2])
    #expect(FileManager.default.fileExists(atPath: directory + "/receipts/day000001.ndjson"))

    let lane = try FileLane(directory: directory, clock: clock)
    #expect(lane.recovery.snapshot?.day == 3)
    #expect(lane.service.register.ledger.sales.count == 0, "no closed day's sale in memory")
    // A reprint of day 1's receipt comes from its archive file, the same text.
    let reprint = try lane.service.ok(Requests.Receipt(number: 1))
    let original = try #require(live.receipts[1])
    #expect(reprint == original.receiptReply(reprint: true))
    // The customer's history lists it without a scan; a return against it works.
    let history = try lane.service.ok(Requests.CustomerHistory(customerID: "C1"))
    #expect(history["receipts"]?.arrayValue?.count == 1)
    try lane.service.ok(Requests.Void(reason: "start over"))
    let refund = try lane.service.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(line: 2, quantity: 1)], reason: "too small"))
    #expect(refund["receipt"]?["original_receipt"] == .int(1))
    let after = try lane.service.ok(Requests.CustomerHistory(customerID: "C1"))
    #expect(after["receipts"]?.arrayValue?.count == 2, "the return is the customer's too")
    // A second return of the same unit is refused: what was returned survives the archive.
    let again = try lane.service.send(
      Requests.Return(receipt: 1, lines: [ReturnRequestLine(line: 2, quantity: 2)], reason: "again")
    )
    #expect(again["error"]?["code"] == "return_exceeds_sold")
  }

  @Test func aDamagedNewestSnapshotFallsBackToTheOneBefore() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live = try Self.twoDays(directory, clock: clock)
    let snapshots = SnapshotFiles.list(in: directory)
    #expect(snapshots.map(\.day) == [2, 3])
    let newest = try #require(snapshots.last)
    var bytes = try FileIO.read(newest.path)
    bytes[bytes.count / 2] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: newest.path))

    let recovery = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovery.snapshot == snapshots.first)
    #expect(recovery.skippedSnapshots.count == 1)
    #expect(recovery.skippedSnapshots.first?.contains("checksum mismatch") == true)
    #expect(RandomHistory.digest(recovery.register) == RandomHistory.digest(live))
    // Both damaged: the whole journal, still the same register.
    try Data(bytes).write(to: URL(fileURLWithPath: snapshots[0].path))
    let whole = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(whole.snapshot == nil)
    #expect(whole.skippedSnapshots.count == 2)
    #expect(RandomHistory.digest(whole.register) == RandomHistory.digest(live))
  }

  /// The catalog is parsed and decoded on a thread of its own, from its text: a snapshot whose
  /// checksum is right but whose catalog or another part is damaged, or missing, is skipped
  /// with a message naming that part (nothing hangs), and start-up falls back to the snapshot
  /// before, to the same register.
  @Test(
    arguments: [
      ("catalog", JSONValue.string("damaged"), "catalog: expected an object"),
      ("catalog", JSONValue.object(["store": .null]), "catalog."),
      ("catalog", nil, "state.catalog: is required"),
      ("ledger", JSONValue.string("damaged"), "ledger: expected an object"),
      ("ledger", nil, "ledger: is required"),
    ] as [(String, JSONValue?, String)])
  func aSnapshotWithADamagedPartFallsBack(
    member: String, replacement: JSONValue?, message: String
  ) throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live = try Self.twoDays(directory, clock: clock)
    let snapshots = SnapshotFiles.list(in: directory)
    let newest = try #require(snapshots.last)
    // The newest snapshot with the part replaced, sealed again with a right checksum.
    var bytes = try FileIO.read(newest.path)
    guard case .object(var file) = try JSONParser.parse(bytes.dropLast()),
      case .object(var state) = file["state"]
    else { throw CancellationError() }
    state[member] = replacement
    file["state"] = .object(state)
    file["checksum"] = nil
    bytes = JSONValue.object(file).serializedBytes
    bytes.removeLast()
    bytes += Array(#","checksum":""#.utf8) + Array(SHA256.hex(bytes).utf8) + Array(#""}"#.utf8)
    try Data(bytes + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: newest.path))

    let recovery = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovery.snapshot == snapshots.first)
    #expect(recovery.skippedSnapshots.count == 1)
    let skipped = try #require(recovery.skippedSnapshots.first)
    #expect(skipped.contains(message), "\(skipped)")
    #expect(RandomHistory.digest(recovery.register) == RandomHistory.digest(live))
  }

  @Test func aSnapshotTheJournalDoesNotReachStopsStartUp() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    _ = try Self.twoDays(directory, clock: clock)
    // The last two segments (day 2 and the open day 3) are lost: the newest snapshot covers
    // records the journal no longer has.
    let segments = try JournalFiles.segments(in: directory)
    for segment in segments.suffix(2) { try FileManager.default.removeItem(atPath: segment.path) }
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(message.contains("the journal ends at seq"))
    #expect(message.contains("snapshots"))
    #expect(SnapshotFiles.list(in: directory).count == 2, "nothing was changed")
  }

  /// Four closed days, each followed by a snapshot, and a paid-in on the fifth: start-up
  /// starts from the snapshot of day 4's close, in day 4's segment.
  static func fourDays(_ directory: String, clock: ManualClock) throws -> Register {
    let lane = try FileLane(directory: directory, clock: clock)
    for _ in 0..<4 {
      try lane.service.ok(Requests.PaidIn(amount: usd("1.00"), reason: "change from the bank"))
      clock.advance(milliseconds: 60_000)
      try lane.service.ok(Requests.CloseDay())
      try snapshot(lane)
    }
    try lane.service.ok(Requests.PaidIn(amount: usd("1.00"), reason: "change from the bank"))
    return lane.service.register
  }

  /// Start-up reads the segments from the one holding its snapshot's record on; the sealed
  /// ones before it are checked from their ends alone — all there, named in order, linked —
  /// so one removed or cut short stops it as it stops `verify`, with a repair that keeps
  /// every record it can.
  @Test(arguments: ["removed", "cut", "renamed"])
  func theSealedSegmentsBeforeTheSnapshotAreCheckedFromTheirEnds(change: String) throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live = try Self.fourDays(directory, clock: clock)
    let segments = try JournalFiles.segments(in: directory)
    #expect(segments.map(\.day) == [1, 2, 3, 4, 5])
    let loaded = try JournalFiles.load(directory, segments: segments)
    #expect(loaded.chain.damage == nil)
    #expect(RandomHistory.digest(loaded.register) == RandomHistory.digest(live))
    let readWhole = try segments[3...].reduce(0) { $0 + (try FileIO.read($1.path)).count }
    #expect(loaded.chain.bytes == readWhole, "days 1-3 are not read whole")

    let sealed = segments[1]
    #expect(chmod(sealed.path, 0o600) == 0)
    switch change {
    case "removed":
      try FileManager.default.removeItem(atPath: sealed.path)
    case "cut":
      // Its last record (the day_closed) cut short, as a torn write would leave it.
      let bytes = try FileIO.read(sealed.path)
      try Data(bytes.dropLast(40)).write(to: URL(fileURLWithPath: sealed.path))
    default:
      // Named for a record after its own first one.
      let renamed = JournalFiles.Segment(
        directory: directory, day: sealed.day, firstSequence: sealed.firstSequence + 1)
      try FileManager.default.moveItem(atPath: sealed.path, toPath: renamed.path)
    }
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(message.contains("is damaged"), "\(message)")
    switch change {
    case "removed":
      #expect(message.contains(segments[2].path), "\(message)")
      #expect(
        message.contains(
          "records \(sealed.firstSequence)-\(segments[2].firstSequence - 1) are missing"))
      #expect(message.contains("put back"), "\(message)")
      #expect(!message.contains("truncate"), "\(message)")
    case "cut":
      #expect(message.contains("sealed segment ends with an incomplete record"), "\(message)")
    default:
      #expect(message.contains("named for seq \(sealed.firstSequence + 1)"), "\(message)")
    }
  }

  /// A journal whose first segment is gone starts only when `register-cli archive` recorded
  /// moving it out (its manifest, `journal/archived.json`); an archive made without one is
  /// recorded by archiving again to the same directory.
  @Test func aMissingFirstSegmentIsDamageUnlessTheArchiveRecordsIt() throws {
    let directory = try makeTemporaryDirectory()
    let archive = try makeTemporaryDirectory()
    defer {
      try? FileManager.default.removeItem(atPath: directory)
      try? FileManager.default.removeItem(atPath: archive)
    }
    let clock = ManualClock(testTime)
    let live = try Self.fourDays(directory, clock: clock)
    let segments = try JournalFiles.segments(in: directory)
    try FileManager.default.copyItem(
      atPath: segments[0].path, toPath: archive + "/" + segments[0].name)
    try FileManager.default.removeItem(atPath: segments[0].path)
    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(
      message.contains("the journal starts at seq \(segments[1].firstSequence)"), "\(message)")
    #expect(message.contains("archived.json"), "\(message)")
    #expect(message.contains("--before-day 1 --to"), "\(message)")

    // Archived again to where it went: recorded, and the journal starts after it.
    let recorded = try JournalBackup.archive(dataDirectory: directory, beforeDay: 1, to: archive)
    #expect(recorded.recorded == [archive + "/" + segments[0].name])
    var recovery = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RandomHistory.digest(recovery.takeRegister()) == RandomHistory.digest(live))
    let manifest = try #require(try JournalFiles.archiveManifest(in: directory))
    let dayOne = try #require(
      JournalScanner.scan(try FileIO.read(archive + "/" + segments[0].name)).records.last)
    #expect(manifest.entries.map(\.name) == [segments[0].name])
    #expect(
      manifest.start(before: segments[1].firstSequence)
        == JournalHead(sequence: dayOne.sequence, sum: dayOne.sum))

    // Archiving day 2 records it beside day 1.
    let moved = try JournalBackup.archive(dataDirectory: directory, beforeDay: 3, to: archive)
    #expect(moved.segments == [archive + "/" + segments[1].name])
    #expect(
      try JournalFiles.archiveManifest(in: directory)?.entries.map(\.name) == [
        segments[0].name, segments[1].name,
      ])
    recovery = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RandomHistory.digest(recovery.takeRegister()) == RandomHistory.digest(live))

    // A manifest damaged (a byte changed) is not taken for one: start-up says so.
    var bytes = try FileIO.read(JournalFiles.archiveManifestPath(in: directory))
    bytes[bytes.count / 2] ^= 1
    try Data(bytes).write(to: URL(fileURLWithPath: JournalFiles.archiveManifestPath(in: directory)))
    let damaged = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    #expect(damaged?.message.contains("cannot be used") == true, "\(damaged?.message ?? "")")
  }

  @Test func oldSnapshotsAreKeptOnePerWeek() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let folder = SnapshotFiles.directory(in: directory)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for day in 1...30 {
      let snapshot = SnapshotFiles.Snapshot(
        dataDirectory: directory, day: day, sequence: Int64(day * 100))
      try Data("x".utf8).write(to: URL(fileURLWithPath: snapshot.path))
    }
    SnapshotFiles.prune(in: directory)
    let kept = SnapshotFiles.list(in: directory).map(\.day)
    // The newest three, and the newest of each earlier week (days 1–7, 8–14, …).
    #expect(kept == [7, 14, 21, 27, 28, 29, 30])
  }

  @Test func decodingTheCatalogOnAnotherThreadGivesTheSameRegisterAndTheSameErrors() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (live, _) = try Self.history(seed: 21, count: 300, directory: directory)
    let value = live.snapshotValue()
    #expect(try decodeConcurrently(value) == Register(snapshot: value))
    // A damaged part, the catalog or another, is refused the same way (and nothing hangs).
    for member in ["catalog", "ledger", "day_book", "orders"] {
      guard case .object(var object) = value else { return }
      object[member] = .string("damaged")
      let damaged = JSONValue.object(object)
      let sequential = #expect(throws: JSONShapeError.self) { try Register(snapshot: damaged) }
      let concurrent = #expect(throws: JSONShapeError.self) { try decodeConcurrently(damaged) }
      #expect(sequential?.path == member)
      #expect(concurrent?.path == member)
    }
  }
}
