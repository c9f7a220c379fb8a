import Foundation
import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A register started on the journal in `directory` exactly as registerd starts: recover,
/// open the journal for appending after the last good record, journal the start-up events.
struct FileLane {
  let directory: String
  let recovery: JournalFiles.Recovery
  let service: RegisterService

  init(
    directory: String, clock: ManualClock, catalogJSON: String = testCatalogJSON,
    segmentLimit: Int = JournalFiles.defaultSegmentLimit
  ) throws {
    self.directory = directory
    let catalog = try CatalogFile.parse(Array(catalogJSON.utf8), file: "test-catalog.json")
    recovery = try JournalFiles.recover(directory: directory, now: clock.now())
    let journal = Journal(
      storage: try recovery.openStorage(segmentLimit: segmentLimit), lastSum: recovery.lastSum,
      lastSequence: recovery.lastSequence)
    service = RegisterService(register: recovery.register, clock: clock, journal: journal)
    let current = recovery.register.lastSequence > 0 ? recovery.register : nil
    try service.commit(Register.startupEvents(for: catalog, current: current))
  }

  /// The open journal segment.
  var path: String { JournalFiles.openSegmentPath(in: directory) ?? recovery.openSegment.path }
}

/// The journal's bytes, every segment in order.
func journalBytes(in directory: String) throws -> [UInt8] {
  try JournalFiles.readAll(in: directory)
}

/// The open (last) journal segment's path.
func openSegmentPath(in directory: String) throws -> String {
  try #require(JournalFiles.openSegmentPath(in: directory))
}

/// The names of the files in `directory` that start with `prefix`.
func files(in directory: String, startingWith prefix: String) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }
    .sorted()
}

// MARK: - Group commit

@Suite struct GroupCommitTests {
  @Test func aBatchOfMutationsFromThreeConnectionsIsOneAppend() throws {
    let lane = try JournalLane()
    #expect(lane.storage.appendCalls == 1)  // the start-up events
    let calls = lane.storage.appendCalls
    let batches = lane.journal.batchesWritten
    let sequence = lane.register.lastSequence
    // JEANS 2 × 49.99 + TEE 15.00 + JEANS 49.99 = 164.97 standard, tax 12.37275 → 12.37;
    // GIFT 25.00 exempt. Total 202.34; 10.00 by card, 500.00 cash → 307.66 change.
    let requests: [(connection: Int, line: String)] = [
      (1, #"{"id":0,"op":"add","sku":"JEANS"}"#),
      (2, #"{"id":1,"op":"add","sku":"GIFT"}"#),
      (3, #"{"id":2,"op":"add","sku":"TEE"}"#),
      (1, #"{"id":3,"op":"set_qty","line":1,"qty":2}"#),
      (2, #"{"id":4,"op":"remove","line":2}"#),
      (3, #"{"id":5,"op":"add","sku":"GIFT"}"#),
      (1, #"{"id":6,"op":"add","sku":"JEANS","qty":3}"#),
      (3, #"{"id":7,"op":"set_qty","line":5,"qty":1}"#),
      (2, #"{"id":8,"op":"tender","type":"card","amount":"10.00","card":\#(cardJSON())}"#),
      (1, #"{"id":9,"op":"tender","type":"cash","amount":"500.00"}"#),
    ]
    let result = lane.service.process(
      requests.map { IncomingLine(connection: $0.connection, bytes: Array($0.line.utf8)) })

    #expect(lane.storage.appendCalls == calls + 1)
    #expect(lane.journal.batchesWritten == batches + 1)
    // Nine requests of one event and a completing tender of two.
    #expect(lane.register.lastSequence == sequence + 11)
    #expect(result.events.map(\.sequence) == Array((sequence + 1)...(sequence + 11)))
    #expect(result.events.last?.event.type == "sale_completed")

    #expect(result.replies.count == requests.count)
    #expect(result.replies.map(\.connection) == requests.map(\.connection))
    var replies: [JSONValue] = []
    for reply in result.replies { replies.append(try JSONParser.parse(reply.line)) }
    #expect(replies.map { $0["id"] } == (0..<10).map { .int($0) })
    #expect(replies.allSatisfy { $0["ok"] == .bool(true) })
    // Each request saw the state the one before it left.
    #expect(replies[3]["result"]?["lines"]?.arrayValue?.first?["qty"] == .int(2))
    #expect(replies[8]["result"]?["paid"] == "10.00")
    #expect(replies[9]["result"]?["status"] == "completed")
    #expect(replies[9]["result"]?["total"] == "202.34")
    #expect(replies[9]["result"]?["change_due"] == "307.66")
    #expect(replies[9]["result"]?["receipt"]?["number"] == .int(1))

    // All of it is in the journal.
    let scan = lane.scan()
    #expect(scan.isIntact)
    #expect(scan.records.count == Int(sequence) + 11)
    #expect(RegisterState(try Register.replaying(scan.records)) == RegisterState(lane.register))
  }

  @Test func readsInABatchSeeTheMutationsBeforeThem() throws {
    let lane = try JournalLane()
    let calls = lane.storage.appendCalls
    let lines = [
      (1, #"{"op":"add","sku":"JEANS"}"#),
      (2, #"{"op":"order"}"#),
      (3, #"{"op":"add","sku":"GIFT"}"#),
      (2, #"{"op":"order"}"#),
    ]
    let replies = lane.service.handle(
      lines.map { IncomingLine(connection: $0.0, bytes: Array($0.1.utf8)) })
    #expect(lane.storage.appendCalls == calls + 1)
    let first = try JSONParser.parse(replies[1].line)
    let second = try JSONParser.parse(replies[3].line)
    #expect(first["result"]?["lines"]?.arrayValue?.count == 1)
    #expect(second["result"]?["lines"]?.arrayValue?.count == 2)
  }

  @Test func aBatchOfReadsWritesNothing() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    let calls = lane.storage.appendCalls
    let bytes = lane.storage.bytes
    let batches = lane.journal.batchesWritten
    let reads = [
      #"{"op":"order"}"#, #"{"op":"catalog"}"#, #"{"op":"hello"}"#,
      #"{"op":"report","kind":"x"}"#, #"{"op":"receipt","number":1}"#, #"{"op":"receipt"}"#,
    ]
    let result = lane.service.process(
      reads.enumerated().map { IncomingLine(connection: $0.offset, bytes: Array($0.element.utf8)) })
    #expect(result.replies.count == reads.count)
    for reply in result.replies {
      #expect(try JSONParser.parse(reply.line)["ok"] == .bool(true), "\(reply.line)")
    }
    #expect(result.events.isEmpty)
    #expect(lane.storage.appendCalls == calls)
    #expect(lane.journal.batchesWritten == batches)
    #expect(lane.storage.bytes == bytes)
  }

  @Test func aBatchOfRefusedMutationsWritesNothing() throws {
    let lane = try JournalLane()
    let calls = lane.storage.appendCalls
    let refused = [
      #"{"op":"add","sku":"NOPE"}"#, #"{"op":"add","sku":"HAT"}"#, #"{"op":"remove","line":1}"#,
      #"{"op":"tender","type":"cash","amount":"5.00"}"#, #"{"op":"void"}"#, "not json",
    ]
    let result = lane.service.process(
      refused.map { IncomingLine(connection: 1, bytes: Array($0.utf8)) })
    for reply in result.replies {
      #expect(try JSONParser.parse(reply.line)["ok"] == .bool(false), "\(reply.line)")
    }
    #expect(lane.storage.appendCalls == calls)
    #expect(result.events.isEmpty)
  }

  @Test func separateBatchesAreSeparateAppends() throws {
    let lane = try JournalLane()
    let calls = lane.storage.appendCalls
    for _ in 0..<3 { try lane.ok(Requests.Add(sku: "JEANS")) }
    #expect(lane.storage.appendCalls == calls + 3)
    #expect(lane.journal.recordsWritten == 2 + 3)
  }
}

// MARK: - Storage failure

@Suite struct StorageFailureTests {
  @Test func aFailedAppendRefusesTheBatchAndStopsMutations() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    try lane.ok(Requests.Add(sku: "JEANS"))
    #expect(lane.storage.appendCalls == 4)
    var messages: [String] = []
    lane.service.onStorageFailure = { messages.append($0) }

    let before = RegisterState(lane.register)
    let bytesBefore = lane.storage.bytes
    let sumBefore = lane.journal.lastSum
    lane.storage.failingAppend = 5

    let batch = [
      (1, #"{"id":"a","op":"add","sku":"TEE"}"#),
      (2, #"{"id":"b","op":"order"}"#),
      (1, #"{"id":"c","op":"tender","type":"cash","amount":"100.00"}"#),
      (3, #"{"id":"d","op":"catalog"}"#),
    ]
    let result = lane.service.process(
      batch.map { IncomingLine(connection: $0.0, bytes: Array($0.1.utf8)) })
    #expect(lane.storage.appendCalls == 5)
    var replies: [JSONValue] = []
    for reply in result.replies { replies.append(try JSONParser.parse(reply.line)) }
    #expect(replies.map { $0["id"] } == ["a", "b", "c", "d"])
    #expect(result.replies.map(\.connection) == [1, 2, 1, 3])
    #expect(replies[0].errorCode == "storage_failed")
    #expect(replies[2].errorCode == "storage_failed")
    // The read after the failed add sees the state before the batch: only the jeans.
    #expect(replies[1]["ok"] == .bool(true))
    let lines = try #require(replies[1]["result"]?["lines"]?.arrayValue)
    #expect(lines.map { $0["sku"] } == ["JEANS"])
    #expect(replies[1]["result"]?["total"] == "53.74")
    #expect(replies[3]["ok"] == .bool(true))
    #expect(result.events.isEmpty)

    // Nothing of the batch is in the register, and the journal was cut back.
    #expect(RegisterState(lane.register) == before)
    #expect(lane.register.order.lines.map(\.sku) == ["JEANS"])
    #expect(lane.register.receipts.count == 1)
    #expect(lane.register.nextReceiptNumber == 2)
    #expect(lane.storage.truncations == [bytesBefore.count])
    #expect(lane.storage.bytes == bytesBefore)
    #expect(lane.journal.lastSum == sumBefore)
    #expect(lane.journal.lastSequence == before.lastSequence)
    let failure = try #require(lane.service.storageFailure)
    #expect(failure.contains("write"))
    #expect(messages.count == 1)
    #expect(messages.first?.hasPrefix(failure) == true)
    #expect(messages.first?.contains("rebuilt from its journal through record") == true)

    // From now on mutations are refused without touching the storage.
    for line in [
      #"{"op":"add","sku":"GIFT"}"#, #"{"op":"remove","line":1}"#, #"{"op":"void"}"#,
      #"{"op":"tender","type":"cash","amount":"100.00"}"#, #"{"op":"close_day"}"#,
    ] {
      let reply = try lane.send(line)
      #expect(reply.errorCode == "storage_failed", "\(line)")
      #expect(
        reply["error"]?["message"]?.stringValue?.contains("takes changes again as soon as") == true)
    }
    #expect(lane.storage.appendCalls == 5)
    #expect(RegisterState(lane.register) == before)

    // Reads still work.
    #expect(try lane.ok(Requests.Order())["lines"]?.arrayValue?.count == 1)
    #expect(try lane.ok(Requests.Catalog())["products"]?.arrayValue?.count == 4)
    #expect(try lane.ok(Requests.Receipt(number: 1))["number"] == .int(1))
    #expect(try lane.ok(Requests.Report(kind: .x))["report"]?["sales_count"] == .int(1))
    #expect(try lane.ok(Requests.Hello())["read_only"] == .bool(true))
    #expect(lane.storage.appendCalls == 5)

    // What is on "disk" is every acknowledged change and nothing else.
    let scan = lane.scan()
    #expect(scan.isIntact)
    #expect(RegisterState(try Register.replaying(scan.records)) == before)
  }

  /// Once the disk takes writes again, so does the register: the journal goes on from the
  /// last durable record, as one chain, and replays to the register in memory.
  @Test func changesAreTakenAgainOnceAWriteSucceeds() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    var messages: [String] = []
    lane.service.onStorageFailure = { messages.append($0) }
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "storage_failed")
    // While the disk is still full, a try fails and changes stay refused.
    #expect(!lane.service.retryStorage())
    #expect(lane.storage.restoreCalls == 1)
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "storage_failed")
    #expect(lane.register.order.lines.map(\.sku) == ["JEANS"])

    lane.storage.failingAppend = nil
    #expect(lane.service.retryStorage())
    #expect(lane.service.storageFailure == nil)
    #expect(try lane.ok(Requests.Hello())["read_only"] == .bool(false))
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Tender(.cash(amount: usd("100.00"))))
    #expect(messages.count == 1, "one message for the episode, however many tries")
    let scan = lane.scan()
    #expect(scan.isIntact)
    #expect(scan.records.last?.sequence == lane.register.lastSequence)
    #expect(RegisterState(try Register.replaying(scan.records)) == RegisterState(lane.register))
    #expect(lane.register.receipts.values.last?.order.lines.map(\.sku) == ["JEANS", "TEE"])
  }

  /// The catalog file read again (SIGHUP) while storage fails waits, and is imported once a
  /// write succeeds again — not lost, and not said to be imported before it is.
  @Test func aCatalogReadWhileStorageFailsIsImportedOnceItWorks() throws {
    let lane = try JournalLane()
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "storage_failed")
    var renamed = lane.catalog
    renamed.store.name = "Renamed Store"
    let outcome = lane.service.stageImport(renamed)
    guard case .waitsForStorage = outcome else {
      Issue.record("expected the import to wait for storage, got \(outcome)")
      return
    }
    #expect(lane.register.store.name != "Renamed Store")
    var waitedFor: [String] = []
    lane.service.onDeferredImport = { _, why in waitedFor.append(why) }
    lane.storage.failingAppend = nil
    #expect(lane.service.retryStorage())
    lane.service.flush()
    #expect(waitedFor == ["storage to work again"])
    #expect(lane.register.store.name == "Renamed Store")
    #expect(try Register.replaying(lane.scan().records).store.name == "Renamed Store")
  }

  /// A catalog import staged just before a failed write is dropped with it (the register is
  /// rebuilt from what is durable), and done again once storage works.
  @Test func aCatalogImportAFailureDroppedIsDoneAgainOnceStorageWorks() throws {
    let lane = try JournalLane()
    var renamed = lane.catalog
    renamed.store.name = "Renamed Store"
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    guard case .changes = lane.service.stageImport(renamed) else {
      Issue.record("expected the import's changes to be staged")
      return
    }
    lane.service.flush()
    #expect(lane.service.storageFailure != nil)
    #expect(lane.register.store.name != "Renamed Store", "rebuilt from what is durable")
    lane.storage.failingAppend = nil
    #expect(lane.service.retryStorage())
    lane.service.flush()
    #expect(lane.register.store.name == "Renamed Store")
    #expect(try Register.replaying(lane.scan().records).store.name == "Renamed Store")
  }

  /// A group sealed before the failure was resumed from is never written, even where its
  /// sequence numbers would follow on from what was written since.
  @Test func aGroupSealedBeforeAFailureIsNeverWrittenAfterIt() throws {
    let lane = try JournalLane()
    let service = lane.service
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    service.submit([IncomingLine(connection: 1, bytes: Array(#"{"op":"add","sku":"TEE"}"#.utf8))])
    var failing = try #require(service.nextWrite())
    var stale = failing
    let error = lane.journal.write(&failing)
    service.finished(failing, error: error)
    let refused = try service.takeReleasable().replies.map { try JSONParser.parse($0.line) }
    #expect(refused.map(\.errorCode) == ["storage_failed"])
    lane.storage.failingAppend = nil
    #expect(service.retryStorage())
    #expect(lane.journal.write(&stale) != nil, "sealed in the era before")
    try lane.ok(Requests.Add(sku: "JEANS"))
    #expect(lane.scan().isIntact)
    #expect(lane.register.order.lines.map(\.sku) == ["JEANS"])
  }

  /// Without a way to read the register back, its state after a failed write is unknown:
  /// every request but hello is refused, until it can be read back.
  @Test func aRegisterThatCannotBeReadBackAnswersOnlyHello() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    var readable = false
    lane.service.rebuildFromDurable = { [storage = lane.storage] sequence in
      guard readable else { throw RecoveryError("the disk cannot be read") }
      return try Register.replaying(
        JournalScanner.scan(storage.bytes).records.filter { $0.sequence <= sequence })
    }
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "storage_failed")
    let refusal = try lane.send(Requests.Order())
    #expect(refusal.errorCode == "storage_failed")
    #expect(refusal["error"]?["message"]?.stringValue?.contains("cannot read its journal") == true)
    #expect(try lane.ok(Requests.Hello())["read_only"] == .bool(true))
    lane.storage.failingAppend = nil
    #expect(!lane.service.retryStorage(), "storage works, but the register is still unknown")
    readable = true
    #expect(lane.service.retryStorage())
    #expect(try lane.ok(Requests.Order())["lines"]?.arrayValue?.count == 1)
    try lane.ok(Requests.Add(sku: "TEE"))
    #expect(lane.scan().isIntact)
  }

  @Test func aFailedFirstRequestAfterStartIsRefusedToo() throws {
    let lane = try JournalLane()
    lane.storage.failingAppend = 2
    let reply = try lane.send(Requests.Add(sku: "JEANS"))
    #expect(reply.errorCode == "storage_failed")
    #expect(lane.register.order.lines.isEmpty)
    #expect(lane.register.lastSequence == 2)
    #expect(lane.storage.truncations == [lane.storage.bytes.count])
    #expect(lane.scan().isIntact)
  }

  @Test func aGoodAppendBeforeTheFailureIsKept() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    #expect(lane.service.storageFailure == nil)
    #expect(try lane.ok(Requests.Hello())["read_only"] == .bool(false))
    #expect(lane.storage.truncations.isEmpty)
  }
}

// MARK: - Recovery

@Suite struct RecoveryTests {
  /// Receipt texts as printed at the moment of sale, by number.
  typealias Printed = [Int: String]

  /// Two completed sales, then an open order with two lines and a partial card tender.
  ///
  /// Sale 1: JEANS 49.99 + 3.75 tax = 53.74, cash 60.00 → 6.26 change.
  /// Sale 2: TEE 2 × 15.00 = 30.00 + 2.25 tax, GIFT 25.00 exempt = 57.25 by card.
  /// Open: JEANS 49.99 + TEE 15.00 = 64.99 + 4.87 tax = 69.86, 10.00 by card → 59.86 due.
  static func ringUp(_ service: RegisterService, clock: ManualClock) throws -> Printed {
    var printed: Printed = [:]
    try service.ok(Requests.Add(sku: "JEANS"))
    clock.advance(milliseconds: 12_345)
    let first = try service.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    printed[1] = try #require(first["receipt"]?["text"]?.stringValue)
    clock.advance(milliseconds: 600_001)
    try service.ok(Requests.Add(sku: "TEE", quantity: 2))
    try service.ok(Requests.Add(sku: "GIFT"))
    clock.advance(milliseconds: 7_007)
    let second = try service.ok(Requests.Tender(.card(testCard(), amount: nil)))
    printed[2] = try #require(second["receipt"]?["text"]?.stringValue)
    clock.advance(milliseconds: 300_000)
    try service.ok(Requests.Add(sku: "JEANS"))
    try service.ok(Requests.Add(sku: "TEE"))
    let partial = try service.ok(
      Requests.Tender(.card(testCard(), amount: usd("10.00"))))
    #expect(partial["balance_due"] == "59.86")
    return printed
  }

  @Test func recoveryGivesBackTheLiveState() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      #expect(lane.recovery.recordsRead == 0)
      _ = try Self.ringUp(lane.service, clock: clock)
      live = lane.service.register
    }
    let recovered = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovered.setAside == nil)
    let register = recovered.register

    #expect(register.order == live.order)
    #expect(register.order.lines.map(\.sku) == ["JEANS", "TEE"])
    #expect(register.order.tenders.map(\.amount.minorUnits) == [1000])
    #expect(register.order.tenders.first?.card?.last4 == "4242")
    #expect(register.order.version == live.order.version)
    #expect(register.totals == live.totals)
    #expect(register.totals.total == 6986)
    #expect(register.receipts == live.receipts)
    #expect(register.receipts.keys.sorted() == [1, 2])
    for number in [1, 2] {
      #expect(register.receipts[number] == live.receipts[number], "receipt \(number)")
    }
    #expect(register.nextReceiptNumber == 3)
    #expect(register.nextReceiptNumber == live.nextReceiptNumber)
    #expect(register.products == live.products)
    #expect(register.products["TEE"]?.stock == 1)
    #expect(register.day == live.day)
    #expect(register.day.totals.salesCount == 2)
    #expect(register.lastSequence == live.lastSequence)
    #expect(register.lastSequence == recovered.lastSequence)
    #expect(RegisterState(register) == RegisterState(live))
  }

  @Test func aRestartContinuesWithoutAGap() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let lastSequence: Int64
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      _ = try Self.ringUp(lane.service, clock: clock)
      lastSequence = lane.service.register.lastSequence
    }
    clock.advance(milliseconds: 3_600_000)
    let restarted = try FileLane(directory: directory, clock: clock)
    // Same catalog file: nothing to journal at start-up.
    #expect(restarted.service.register.lastSequence == lastSequence)
    // The open order comes back with its card tender; cash pays the rest: 59.86 → 0.14.
    let done = try restarted.service.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    #expect(done["status"] == "completed")
    #expect(done["paid"] == "70.00")
    #expect(done["change_due"] == "0.14")
    #expect(done["receipt"]?["number"] == .int(3))
    #expect(restarted.service.register.receipts.keys.sorted() == [1, 2, 3])
    #expect(restarted.service.register.products["TEE"]?.stock == 0)

    let scan = JournalScanner.scan(try journalBytes(in: directory))
    #expect(scan.isIntact)
    #expect(scan.records.map(\.sequence) == Array(1...scan.lastSequence))
    #expect(scan.lastSequence == lastSequence + 2)
    let again = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(RegisterState(again.register) == RegisterState(restarted.service.register))
  }

  @Test func replayedReceiptsAndZReportAreByteIdentical() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    var printed: Printed
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      printed = try Self.ringUp(lane.service, clock: clock)
    }
    clock.advance(milliseconds: 60_000)
    let zText: String
    let zJSON: JSONValue
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      let done = try lane.service.ok(Requests.Tender(.cash(amount: usd("60.00"))))
      printed[3] = try #require(done["receipt"]?["text"]?.stringValue)
      clock.advance(milliseconds: 5_000)
      let closed = try lane.service.ok(Requests.CloseDay(countedCash: usd("120.00")))
      zText = try #require(closed["text"]?.stringValue)
      zJSON = try #require(closed["report"])
      #expect(zJSON["kind"] == "z")
      #expect(zJSON["closed_at"] == .string(clock.now().iso8601))
      #expect(zJSON["sales_count"] == .int(3))
    }

    let recovered = try JournalFiles.recover(directory: directory, now: clock.now()).register
    #expect(recovered.receipts.keys.sorted() == [1, 2, 3])
    for number in [1, 2, 3] {
      let sale = try #require(recovered.receipts[number])
      #expect(ReceiptRenderer.text(sale) == printed[number], "receipt \(number)")
    }
    #expect(printed[2]?.contains("VISA") == true)
    let closedDay = try #require(recovered.closedDays[1])
    #expect(ReportRenderer.text(DayReport(closed: closedDay)) == zText)
    #expect(ReportRenderer.json(DayReport(closed: closedDay)) == zJSON)
    #expect(zText.contains("Z REPORT - DAY 1"))

    // The day after: day 2, all totals zero; the Z report of day 1 reprints the same, marked
    // as a reprint.
    #expect(recovered.day.number == 2)
    #expect(recovered.day.totals == DayTotals())
    clock.advance(milliseconds: 60_000)
    let lane = try FileLane(directory: directory, clock: clock)
    let x = try #require(try lane.service.ok(Requests.Report(kind: .x))["report"])
    #expect(x["day"] == .int(2))
    #expect(x["sales_count"] == .int(0))
    #expect(x["gross"] == "0.00")
    #expect(x["total"] == "0.00")
    #expect(x["tenders"] == [])
    #expect(x["change_given"] == "0.00")
    let z = try lane.service.ok(Requests.Report(kind: .z, day: 1))
    #expect(
      z["text"]?.stringValue
        == zText.replacingOccurrences(
          of: "Z REPORT - DAY 1\n", with: "Z REPORT - DAY 1\n            *** REPRINT ***\n"))
    #expect(z["report"]?["reprint"] == .bool(true))
    let hello = try lane.service.ok(Requests.Hello())
    #expect(hello["day"] == .int(2))
  }

  enum Tail: CaseIterable, Sendable {
    case halfARecord
    case junk
    case requestWithoutItsLastRecord

    func bytes(after scan: JournalScan) -> [UInt8] {
      let next = JournalRecord.encode(
        sequence: scan.lastSequence + 1, at: testTime, type: "line_added",
        data: .object(["order_id": 3, "line": 3]), operatorID: nil, key: nil,
        more: self == .requestWithoutItsLastRecord, previous: scan.lastSum
      ).line
      switch self {
      case .halfARecord: return Array(next.prefix(next.count / 2))
      case .junk: return Array("\u{0}\u{0}junk\n".utf8)
      case .requestWithoutItsLastRecord: return next
      }
    }
  }

  @Test(arguments: Tail.allCases)
  func aTornTailIsSetAsideAndCutOff(tail: Tail) throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    let live: Register
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      _ = try Self.ringUp(lane.service, clock: clock)
      live = lane.service.register
    }
    let good = try journalBytes(in: directory)
    let extra = tail.bytes(after: JournalScanner.scan(good))
    let path = try openSegmentPath(in: directory)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(extra))
    try handle.close()
    #expect(try journalBytes(in: directory).count == good.count + extra.count)

    clock.advance(milliseconds: 1_000)
    let recovery = try JournalFiles.recover(directory: directory, now: clock.now())
    #expect(recovery.recordsRead == Int(live.lastSequence))
    #expect(recovery.setAside?.length == extra.count)
    #expect(RegisterState(recovery.register) == RegisterState(live))
    // The journal is cut back to its good part…
    #expect(try journalBytes(in: directory) == good)
    // …and the tail is kept next to it.
    let aside = try files(in: directory, startingWith: "day000001-seq000000000001.ndjson.torn-")
    #expect(aside.count == 1)
    let name = try #require(aside.first)
    #expect(recovery.setAside?.path == directory + "/" + name)
    #expect(try FileIO.read(directory + "/" + name) == extra)

    // The register carries on from there.
    let lane = try FileLane(directory: directory, clock: clock)
    #expect(lane.recovery.setAside == nil)
    let done = try lane.service.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    #expect(done["receipt"]?["number"] == .int(3))
    #expect(JournalScanner.scan(try journalBytes(in: directory)).isIntact)
  }

  @Test func damageInTheMiddleStopsRecoveryAndChangesNothing() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock(testTime)
    do {
      let lane = try FileLane(directory: directory, clock: clock)
      _ = try Self.ringUp(lane.service, clock: clock)
    }
    let original = try journalBytes(in: directory)
    // Line 3 is seq 3: the first jeans at 49.99.
    let tampered = try replacing("\"49.99\"", with: "\"19.99\"", inLine: 3, of: original)
    let path = try openSegmentPath(in: directory)
    try Data(tampered).write(to: URL(fileURLWithPath: path))
    let offset = lineRanges(original)[2].lowerBound

    let error = #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(directory: directory, now: clock.now())
    }
    let message = try #require(error?.message)
    #expect(message.contains("seq 3"))
    #expect(message.contains("line 3"))
    #expect(message.contains("truncate -s \(offset) \(path)"))
    #expect(message.contains("backup"))
    #expect(try journalBytes(in: directory) == tampered)
    #expect(
      try files(in: directory, startingWith: "day000001-seq000000000001.ndjson.torn-").isEmpty)
    // A daemon start fails the same way.
    #expect(throws: RecoveryError.self) { try FileLane(directory: directory, clock: clock) }
    #expect(try journalBytes(in: directory) == tampered)
  }

  @Test func aNewDataDirectoryStartsEmpty() throws {
    let parent = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let directory = parent + "/data/lane1"
    let recovery = try JournalFiles.recover(directory: directory, now: testTime)
    #expect(recovery.recordsRead == 0)
    #expect(recovery.register.lastSequence == 0)
    #expect(FileManager.default.fileExists(atPath: directory))
  }
}

// MARK: - Catalog file at start-up

@Suite struct StartupCatalogTests {
  /// A lane that sold 2 of the 3 T-shirts (2 × 15.00 + 2.25 tax = 32.25 cash).
  static func laneAfterSellingTwoTees() throws -> JournalLane {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Tender(.cash(amount: usd("32.25"))))
    #expect(lane.register.products["TEE"]?.stock == 1)
    return lane
  }

  static func catalog(_ original: String, _ replacement: String) throws -> Catalog {
    let text = testCatalogJSON.replacingOccurrences(of: original, with: replacement)
    #expect(text != testCatalogJSON, "\(original) not in the test catalog")
    return try CatalogFile.parse(Array(text.utf8), file: "edited.json")
  }

  /// Applies the start-up events through the service (journaled), and checks that the journal
  /// replays to the same state.
  static func start(_ lane: JournalLane, with catalog: Catalog) throws -> [Event] {
    let events = Register.startupEvents(for: catalog, current: lane.register)
    try lane.service.commit(events)
    let replayed = try Register.replaying(lane.scan().records)
    #expect(RegisterState(replayed) == RegisterState(lane.register))
    return events
  }

  @Test func theSameCatalogChangesNothing() throws {
    let lane = try Self.laneAfterSellingTwoTees()
    let sequence = lane.register.lastSequence
    let events = try Self.start(lane, with: lane.catalog)
    #expect(events.isEmpty)
    #expect(lane.register.lastSequence == sequence)
    #expect(lane.register.products["TEE"]?.stock == 1)
  }

  @Test func anEditedPriceIsTakenAndTheSoldStockKept() throws {
    let lane = try Self.laneAfterSellingTwoTees()
    let edited = try Self.catalog(#""sale_price": "15.00""#, #""sale_price": "12.00""#)
    let events = try Self.start(lane, with: edited)
    #expect(events == [.catalogLoaded(edited.products)])
    let tee = try #require(lane.register.products["TEE"])
    #expect(tee.salePrice?.minorUnits == 1200)
    #expect(tee.stock == 1)
    let added = try lane.ok(Requests.Add(sku: "TEE"))
    #expect(added["lines"]?.arrayValue?.first?["unit_price"] == "12.00")
    // Started again on the same edited file: nothing new.
    #expect(Register.startupEvents(for: edited, current: lane.register).isEmpty)
  }

  @Test func anEditedStockIsTaken() throws {
    let lane = try Self.laneAfterSellingTwoTees()
    let edited = try Self.catalog(#""stock": 3"#, #""stock": 10"#)
    let events = try Self.start(lane, with: edited)
    #expect(events == [.catalogLoaded(edited.products)])
    #expect(lane.register.products["TEE"]?.stock == 10)
    #expect(lane.register.products["JEANS"]?.stock == nil)
  }

  @Test func anEditToOneProductKeepsTheSoldStockOfAnother() throws {
    let lane = try Self.laneAfterSellingTwoTees()
    let edited = try Self.catalog(#""stock": 0"#, #""stock": 5"#)
    _ = try Self.start(lane, with: edited)
    #expect(lane.register.products["HAT"]?.stock == 5)
    #expect(lane.register.products["TEE"]?.stock == 1)
  }

  @Test func anImportKeepsProductsAddedRemovedAndEditedThroughTheProtocol() throws {
    let lane = try Self.laneAfterSellingTwoTees()
    try lane.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "SCARF", "name": "Scarf", "description": "", "category": "Accessories",
          "price": "45.00", "stock": 3,
        ]))
    )
    try lane.ok(Requests.ProductRemove(sku: "JEANS"))
    try lane.ok(Requests.ProductUpdate(sku: "HAT", changes: JSONObject(["price": "30.00"])))
    // The file changes one product only: TEE's price.
    let edited = try Self.catalog(#""price": "20.00""#, #""price": "21.00""#)
    _ = try Self.start(lane, with: edited)
    #expect(lane.register.products["TEE"]?.price.decimalString == "21.00")
    #expect(lane.register.products["TEE"]?.stock == 1)
    #expect(lane.register.products["SCARF"]?.stock == 3)
    #expect(lane.register.products["JEANS"] == nil)
    #expect(lane.register.products["HAT"]?.price.decimalString == "30.00")
  }

  @Test func changedStoreSettingsAreConfigured() throws {
    let lane = try Self.laneAfterSellingTwoTees()
    let receipt = try #require(lane.register.receipts[1])
    let edited = try Self.catalog(#""name": "Test Lane""#, #""name": "Test Lane West""#)
    let events = try Self.start(lane, with: edited)
    #expect(events == [.storeConfigured(edited.store)])
    #expect(lane.register.store.name == "Test Lane West")
    #expect(lane.register.products["TEE"]?.stock == 1)
    // A receipt already printed keeps the header it was printed with.
    #expect(lane.register.receipts[1] == receipt)
    let reprint = try lane.ok(Requests.Receipt(number: 1))
    #expect(reprint["text"]?.stringValue?.contains("Test Lane West") == false)
  }
}

// MARK: - Reports

@Suite struct DayReportTests {
  /// Cash sale with change, card sale, voided order with a cash tender handed back.
  static func ringUpDay(_ lane: JournalLane) throws {
    // JEANS 49.99 + 3.75 tax = 53.74; 60.00 cash → 6.26 change.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    // TEE 2 × 15.00 = 30.00 + 2.25 tax; GIFT 25.00 exempt: 57.25 by card (Visa).
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    // JEANS 49.99 + 3.75 tax + GIFT 25.00 = 78.74, 10.00 cash taken, then voided.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    try lane.ok(Requests.Void(reason: "customer left"))
  }

  @Test func xReportTotals() throws {
    let lane = try JournalLane()
    try Self.ringUpDay(lane)
    lane.clock.advance(milliseconds: 90_000)
    let result = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(result["report"])
    #expect(report["kind"] == "x")
    #expect(report["day"] == .int(1))
    #expect(report["as_of"] == .string(lane.clock.now().iso8601))
    #expect(report["currency"] == "USD")
    #expect(report["sales_count"] == .int(2))
    // 1 jeans + 2 T-shirts + 1 gift card.
    #expect(report["items_sold"] == .int(4))
    // 49.99 + 30.00 + 25.00.
    #expect(report["gross"] == "104.99")
    #expect(report["discounts"] == "0.00")
    #expect(report["net_sales"] == "104.99")
    // standard: basis 49.99 + 30.00 = 79.99, tax 3.75 + 2.25 = 6.00; exempt: 25.00, 0.00.
    #expect(
      report["taxes"]
        == [
          .object(["class": "standard", "rate": "7.5", "basis": "79.99", "tax": "6.00"]),
          .object(["class": "exempt", "rate": "0", "basis": "25.00", "tax": "0.00"]),
        ])
    #expect(report["tax"] == "6.00")
    // 53.74 + 57.25.
    #expect(report["total"] == "110.99")
    #expect(report["cash_rounding"] == "0.00")
    // Tenders as taken (the cash tendered, not net of change), and the cash handed back on
    // the void.
    #expect(
      report["tenders"]
        == [
          .object(["type": "cash", "count": 1, "amount": "60.00"]),
          .object(["type": "card VISA", "count": 1, "amount": "57.25"]),
        ])
    #expect(
      report["reversed_tenders"] == [.object(["type": "cash", "count": 1, "amount": "10.00"])])
    #expect(report["change_given"] == "6.26")
    #expect(report["voided_orders"] == .object(["count": 1, "amount": "78.74"]))
    #expect(report["voided_lines"] == .object(["count": 0, "amount": "0.00"]))
    #expect(report["first_receipt"] == .int(1))
    #expect(report["last_receipt"] == .int(2))
    #expect(report["journal_seq"] == nil)

    let text = try #require(result["text"]?.stringValue)
    #expect(text.contains("X REPORT - DAY 1"))
    #expect(text.contains("110.99"))
    // The same report comes out of a replay of the journal.
    let replayed = try Register.replaying(lane.scan().records)
    let again = ReportRenderer.reply(DayReport(openDayOf: replayed, at: lane.clock.now()))
    #expect(again == result)
  }

  @Test func closeDayIsRefusedWhileTheOrderHasLines() throws {
    let lane = try JournalLane()
    try Self.ringUpDay(lane)
    try lane.ok(Requests.Add(sku: "JEANS"))
    let calls = lane.storage.appendCalls
    let totals = lane.register.day.totals
    let refused = try lane.send(Requests.CloseDay())
    #expect(refused.errorCode == "order_not_empty")
    #expect(lane.storage.appendCalls == calls)
    #expect(lane.register.day.number == 1)
    #expect(lane.register.closedDays.isEmpty)

    try lane.ok(Requests.Void())
    let dayTotals = lane.register.day.totals
    #expect(dayTotals.voidedOrders == totals.voidedOrders + 1)
    let closed = try lane.ok(Requests.CloseDay())
    #expect(closed["report"]?["kind"] == "z")
    #expect(closed["report"]?["sales_count"] == .int(2))
    #expect(closed["report"]?["journal_seq"] == .int(lane.register.lastSequence))
    #expect(lane.register.closedDays[1]?.totals == dayTotals)
    #expect(lane.register.day.number == 2)
    #expect(lane.register.day.totals == DayTotals())
  }
}

@Suite struct StartupCatalogRoundTripTests {
  /// Store settings with every option set, on the test products.
  static let everySettingJSON = testCatalogJSON.replacingOccurrences(
    of: #""receipt_footer": "Thank you!""#,
    with: #"""
      "receipt_footer": "Thank you!", "phone": "555-0100", "cash_rounding": "0.05",
      "receipt_width": 48, "discount_approval_limit": "12.5", "auto_sign_out": true
      """#
  ).replacingOccurrences(
    of: #""default_class": "standard"}"#,
    with: #""default_class": "standard", "rounding": "per_line", "prices_include_tax": true}"#)

  static func shippedCatalog() throws -> [UInt8] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    return try FileIO.read(root.appendingPathComponent("Data/products.json").path)
  }

  /// After the start-up events are journaled and replayed, the same file asks for nothing
  /// more: a restart on an unchanged catalog journals nothing.
  @Test(arguments: ["every setting", "shipped"])
  func aRestartOnTheSameCatalogJournalsNothing(which: String) throws {
    let bytes =
      which == "shipped" ? try Self.shippedCatalog() : Array(Self.everySettingJSON.utf8)
    let catalog = try CatalogFile.parse(bytes, file: which)
    if which == "every setting" {
      #expect(catalog.store.cashRounding?.minorUnits == 5)
      #expect(catalog.store.autoSignOut)
      #expect(catalog.store.tax.pricesIncludeTax)
      #expect(catalog.store.tax.rounding == .perLine)
    }
    let storage = MemoryJournalStorage()
    let journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
    let service = RegisterService(
      register: Register(), clock: ManualClock(testTime), journal: journal)
    try service.commit(Register.startupEvents(for: catalog, current: nil))
    let replayed = try Register.replaying(JournalScanner.scan(storage.bytes).records)
    #expect(replayed.store == catalog.store)
    #expect(replayed.catalogBase == catalog.products)
    #expect(Array(replayed.products.all) == catalog.products)
    #expect(Register.startupEvents(for: catalog, current: replayed).isEmpty)
  }
}
