import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A lane on the test catalog with a receipt printer (or without one).
private func printingLane(printer: Bool = true) throws -> RegisterService {
  var catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
  if printer { catalog.store.printer = DeviceAddress("tcp:127.0.0.1:9100") }
  return RegisterService(
    register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime))
}

private func kicks(_ decoded: EscPosDecoder) -> Int {
  decoded.items.filter { if case .drawerKick = $0 { true } else { false } }.count
}

@Suite struct PrintQueueTests {
  @Test func withoutAPrinterNothingIsQueued() throws {
    let lane = try printingLane(printer: false)
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    try lane.ok(Requests.NoSale())
    #expect(lane.register.printQueue.pending.isEmpty)
    let refused = try lane.send(Requests.Print(receipt: 1))
    #expect(refused.errorCode == "no_printer")
  }

  @Test func aCashSalePrintsWithTheDrawerKickBeforeTheReceipt() throws {
    let lane = try printingLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    #expect(lane.register.printQueue.pending.isEmpty, "nothing prints while ringing up")
    try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    let job = try #require(lane.register.printQueue.pending.first)
    #expect(job == PrintJob(id: 1, document: .receipt(1, reprint: false), drawer: true))
    let decoded = EscPosDecoder(try #require(lane.register.printBytes(for: job)))
    #expect(decoded.unknown.isEmpty)
    let kick = try #require(decoded.position { if case .drawerKick = $0 { true } else { false } })
    let firstLine = try #require(decoded.position { if case .line = $0 { true } else { false } })
    #expect(kick < firstLine, "drawer kick before the receipt")
    #expect(decoded.codes == ["R1"])
    #expect(decoded.items.last == .cut(mode: 66, feed: 3))
    #expect(!decoded.unpaddedLines.contains("*** REPRINT ***"))
  }

  @Test func aCardSaleDoesNotOpenTheDrawer() throws {
    let lane = try printingLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    let job = try #require(lane.register.printQueue.pending.first)
    #expect(!job.drawer)
    #expect(kicks(EscPosDecoder(try #require(lane.register.printBytes(for: job)))) == 0)
  }

  @Test func drawerEventsKickTheDrawerAndNothingElseDoes() throws {
    let lane = try printingLane()
    // None of these opens the drawer or prints.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Discount(line: 1, value: .percent(percent("10")), reason: "r"))
    try lane.ok(Requests.Park())
    try lane.ok(Requests.Resume(orderID: 1))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("10.00"))))
    try lane.ok(Requests.Void())
    try lane.ok(Requests.CustomerAdd(name: "Dana"))
    #expect(lane.register.printQueue.pending.isEmpty)
    // Each of these opens it, with nothing to print.
    try lane.ok(Requests.SetFloat(amount: usd("100.00")))
    try lane.ok(Requests.PaidIn(amount: usd("5.00"), reason: "change"))
    try lane.ok(Requests.PaidOut(amount: usd("2.00"), reason: "stamps"))
    try lane.ok(Requests.NoSale(reason: "change for a 20"))
    let jobs = lane.register.printQueue.pending
    #expect(jobs.map(\.id) == [1, 2, 3, 4])
    #expect(jobs.allSatisfy { $0.document == .drawer && $0.drawer })
    #expect(
      EscPosDecoder(try #require(lane.register.printBytes(for: jobs[0]))).items == [
        .initialize, .drawerKick(pin: 0, on: 25, off: 250),
      ])
    // The day book counts the no-sale; the journal has a drawer job for each opening.
    #expect(lane.register.day.totals.noSales == 1)
  }

  @Test func aReturnPrintsItsReceiptAndKicksForCashRefunds() throws {
    let lane = try printingLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    try lane.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "too big"))
    let jobs = lane.register.printQueue.pending
    #expect(jobs.count == 2)
    #expect(jobs.last == PrintJob(id: 2, document: .receipt(2, reprint: false), drawer: true))
    let decoded = EscPosDecoder(try #require(lane.register.printBytes(for: jobs[1])))
    #expect(decoded.unpaddedLines.contains("RETURN"))
    #expect(decoded.codes == ["R2"])
  }

  @Test func printQueuesAReprintAfterTheWaitingJobs() throws {
    let lane = try printingLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    let reply = try lane.ok(#"{"op":"print","receipt":"R1"}"#)
    #expect(reply["print_job"]?["job"] == .int(2))
    #expect(reply["print_job"]?["reprint"] == .bool(true))
    let job = try #require(lane.register.printQueue.pending.last)
    #expect(job.document == .receipt(1, reprint: true) && !job.drawer)
    #expect(
      EscPosDecoder(try #require(lane.register.printBytes(for: job))).unpaddedLines.contains(
        "*** REPRINT ***"))
    #expect(try lane.send(Requests.Print(receipt: 9)).errorCode == "receipt_not_found")
    #expect(try lane.send(#"{"op":"print","receipt":"x"}"#).errorCode == "bad_request")
  }

  @Test func printDoneTakesTheJobOffAndEverythingReplaysAndSnapshots() throws {
    let lane = try printingLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    try lane.ok(Requests.NoSale())
    lane.stageSystemEvents([.printDone(job: 1)])
    lane.flush()
    #expect(lane.register.printQueue.pending.map(\.id) == [2])
    #expect(lane.register.printQueue.nextJob == 3)
    // A snapshot keeps the queue.
    let restored = try Register(snapshot: lane.register.snapshotValue())
    #expect(restored.printQueue == lane.register.printQueue)
    #expect(restored == lane.register)
    // The events read back as they were written.
    for event in [
      Event.printQueued(PrintJob(id: 7, document: .receipt(3, reprint: true), drawer: false)),
      .printQueued(PrintJob(id: 8, document: .drawer, drawer: true)), .printDone(job: 7),
    ] {
      #expect(try Event.decode(type: event.type, data: event.data, currency: .usd) == event)
    }
    #expect(event(#"{"job":1,"document":"fax","drawer":true}"#) == nil)
    #expect(event(#"{"job":0,"document":"drawer","drawer":true}"#) == nil)
    #expect(event(#"{"job":1,"document":"drawer","drawer":true,"extra":1}"#) == nil)
  }

  private func event(_ data: String) -> Event? {
    guard let value = try? JSONParser.parse(data) else { return nil }
    return try? Event.decode(type: "print_queued", data: value, currency: .usd)
  }

  @Test func helloShowsThePrinter() throws {
    let lane = try printingLane()
    try lane.ok(Requests.NoSale())
    let hello = try lane.ok(Requests.Hello())
    #expect(hello["printer"]?["device"] == "tcp:127.0.0.1:9100")
    #expect(hello["printer"]?["status"] == "unknown")
    #expect(hello["printer"]?["pending"] == .int(1))
    lane.printerStatus = .paperOut
    #expect(try lane.ok(Requests.Hello())["printer"]?["status"] == "paper_out")
    #expect(try printingLane(printer: false).ok(#"{"op":"hello"}"#)["printer"] == nil)
  }

  /// The customer's pole display as the daemon last found it: `hello` shows each change
  /// (it is rendered again when the status differs, not kept from before), and nothing when
  /// there is no display.
  @Test func helloShowsTheCustomerDisplay() throws {
    let lane = try printingLane()
    #expect(try lane.ok(Requests.Hello())["display"] == nil)
    let display = StandInDisplay()
    lane.customerDisplay = display
    var hello = try lane.ok(Requests.Hello())
    #expect(hello["display"]?["device"] == "tcp:127.0.0.1:9101")
    #expect(hello["display"]?["status"] == "unknown")
    for status in [DisplayStatus.ok, .offline, .ok] {
      display.status = status
      hello = try lane.ok(Requests.Hello())
      #expect(hello["display"]?["status"] == .string(status.rawValue))
    }
  }

  /// The store's own tenders are in `hello`, so a lane can offer them by name; a store with
  /// none lists none.
  @Test func helloListsTheStoresOwnTenders() throws {
    var catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
    #expect(
      try RegisterService(
        register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime)
      ).ok(Requests.Hello())["tenders"] == nil)
    catalog.store.tenders = ["check", "voucher"]
    let hello = try RegisterService(
      register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime)
    ).ok(Requests.Hello())
    #expect(hello["tenders"] == .array(["check", "voucher"]))
  }

  @Test(arguments: [
    ("/dev/usb/lp0", "/dev/usb/lp0"), ("tcp:192.168.1.50:9100", "tcp:192.168.1.50:9100"),
    ("tcp:[::1]:9100", "tcp:[::1]:9100"), ("tcp:printer.local:9100", "tcp:printer.local:9100"),
  ])
  func deviceAddresses(text: String, described: String) {
    #expect(DeviceAddress(text)?.description == described)
  }

  @Test(arguments: [
    "", "lp0", "tcp:", "tcp:host", "tcp::9100", "tcp:h:0", "tcp:h:65536", "tcp:h:9x", "/dev/a b",
    "tcp:[]:1",
  ])
  func badDeviceAddresses(text: String) {
    #expect(DeviceAddress(text) == nil)
  }
}

@Suite struct PrintQueueJournalTests {
  @Test func jobsAreJournaledWithTheirSaleAndReplayToTheSameQueue() throws {
    var catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
    catalog.store.printer = DeviceAddress("/dev/usb/lp0")
    let storage = MemoryJournalStorage()
    let journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
    let service = RegisterService(
      register: Register(), clock: ManualClock(testTime), journal: journal)
    try service.commit(Register.startupEvents(for: catalog, current: nil))
    try service.ok(Requests.Add(sku: "JEANS"))
    try service.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    try service.ok(Requests.NoSale())
    service.stageSystemEvents([.printDone(job: 1)])
    service.flush()
    let records = JournalScanner.scan(storage.bytes).records
    let types = records.map(\.type)
    // The job is in the sale's own request (one group, all or nothing on recovery).
    let sale = try #require(types.firstIndex(of: "sale_completed"))
    #expect(types[sale + 1] == "print_queued")
    #expect(records[sale].more == true)
    #expect(types.suffix(3) == ["no_sale", "print_queued", "print_done"])
    let replayed = try Register.replaying(records)
    #expect(replayed.printQueue == service.register.printQueue)
    #expect(replayed.printQueue.pending == [PrintJob(id: 2, document: .drawer, drawer: true)])
  }
}

/// A pole display whose status the test sets.
private final class StandInDisplay: CustomerDisplayLink, @unchecked Sendable {
  let device = "tcp:127.0.0.1:9101"
  var status = DisplayStatus.unknown
}
