import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// Replies read from a register: the order's rendering is kept until the state changes,
/// `hello` reports the storage state, and a mutation whose events have no result of their own
/// is answered with the open order.
@Suite struct RepliesTests {
  final class Source: ReplySource {
    var register: Register
    var storageFailure: String?
    var printerStatus: PrinterStatus?
    var customerDisplay: (any CustomerDisplayLink)?
    var requiresSetup = false
    init(_ register: Register) { self.register = register }
  }

  static func text(_ result: ReplyResult) -> String {
    switch result {
    case .encoded(let bytes): String(decoding: bytes, as: UTF8.self)
    case .value(let value): value.serialized
    case .subscribed(_, let value): value.serialized
    case .computed(let work):
      switch work() {
      case .success(let value): value.serialized
      case .failure(let error): error.json.serialized
      }
    }
  }

  @Test func theOrderRenderingIsKeptUntilTheStateChanges() throws {
    let lane = try TestLane()
    let source = Source(lane.register)
    var replies = Replies(clock: lane.clock, journal: nil)
    let empty = Self.text(
      try Requests.Order().answer(&replies, from: source, register: &source.register))
    #expect(empty == lane.register.orderJSON.serialized)

    try lane.ok(Requests.Add(sku: "JEANS"))
    source.register = lane.register
    #expect(
      Self.text(try Requests.Order().answer(&replies, from: source, register: &source.register))
        == empty,
      "the rendering stands until it is told the state changed")
    replies.stateChanged()
    let withJeans = Self.text(
      try Requests.Order().answer(&replies, from: source, register: &source.register))
    #expect(withJeans == lane.register.orderJSON.serialized)
    #expect(withJeans != empty)
  }

  @Test func helloSaysWhetherTheRegisterTakesChanges() throws {
    let lane = try TestLane()
    let source = Source(lane.register)
    var replies = Replies(clock: lane.clock, journal: nil)
    let fine = try JSONParser.parse(
      Self.text(try Requests.Hello().answer(&replies, from: source, register: &source.register)))
    #expect(fine["read_only"] == false)
    #expect(fine["journal"] == nil, "no journal, no write counters")
    #expect(fine["journal_seq"] == .int(lane.register.lastSequence))
    source.storageFailure = "disk full"
    let failed = try JSONParser.parse(
      Self.text(try Requests.Hello().answer(&replies, from: source, register: &source.register)))
    #expect(failed["read_only"] == true)

    let storage = MemoryJournalStorage()
    let journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
    var journaled = Replies(clock: lane.clock, journal: journal)
    let counted = try JSONParser.parse(
      Self.text(try Requests.Hello().answer(&journaled, from: source, register: &source.register)))
    #expect(counted["journal"]?["fsyncs"] == .int(0))
  }

  @Test func aMutationWithoutAResultOfItsOwnIsAnsweredWithTheOrder() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    let source = Source(lane.register)
    let replies = Replies(clock: lane.clock, journal: nil)
    let events: [Event] = [.pinAccepted(id: "7"), .customerAttached(order: 1, customerID: "C1")]
    let result = replies.result(
      of: Requests.SignOut(), events: events, outbox: nil, register: &source.register)
    #expect(result == lane.register.orderJSON)
  }

  @Test func anEmailedReceiptNamesItsFileOnlyWithAnOutbox() throws {
    let lane = try TestLane()
    let source = Source(lane.register)
    let replies = Replies(clock: lane.clock, journal: nil)
    let event = Event.receiptEmailed(receipt: 3, to: "a@example.com", messageID: "m@lane")
    let without = replies.result(
      of: Requests.SignOut(), events: [event], outbox: nil, register: &source.register)
    #expect(without["emailed"]?["receipt"] == .int(3))
    #expect(without["emailed"]?["file"] == nil)
    let with = replies.result(
      of: Requests.SignOut(), events: [event], outbox: ReceiptOutbox(directory: "/o"),
      register: &source.register)
    #expect(
      with["emailed"]?["file"] == .string("/o/receipt-3-\(lane.register.lastSequence).eml"))
  }
}
