import Testing

@testable import RegisterEngine

/// The staged path the daemon uses: requests are handled while the previous group is being
/// written; replies wait until every change they could have seen is durable.
@Suite struct GroupCommitPipelineTests {
  static func lines(_ requests: [(Int, String)]) -> [IncomingLine] {
    requests.map { IncomingLine(connection: $0.0, bytes: Array($0.1.utf8)) }
  }

  @Test func repliesWaitForTheirGroupAndLaterRequestsFormTheNextGroup() throws {
    let lane = try JournalLane()
    let service = lane.service
    service.submit(Self.lines([(1, #"{"id":1,"op":"add","sku":"JEANS"}"#)]))
    // Not durable yet: nothing may be released.
    #expect(service.takeReleasable().replies.isEmpty)
    var first = try #require(service.nextWrite())
    // While group 1 is being written, more requests arrive: a read and two changes. They are
    // sealed as group 2 at once, for the writer to take the moment group 1 is on disk.
    service.submit(
      Self.lines([
        (2, #"{"id":2,"op":"order"}"#), (1, #"{"id":3,"op":"add","sku":"GIFT"}"#),
        (3, #"{"id":4,"op":"add","sku":"TEE"}"#),
      ]))
    var second = try #require(
      service.nextWrite(), "a group is sealed while the one before is written")
    #expect(second.records == 2, "the two changes made while group 1 was written share a write")
    #expect(service.nextWrite() == nil, "nothing else is staged")
    #expect(service.takeReleasable().replies.isEmpty)
    // The writer writes group 2 right after group 1, before the loop hears of group 1: group 2
    // was sealed with the chain as it stood before group 1, and is chained after it instead.
    let firstError = lane.journal.write(&first)
    let secondError = lane.journal.write(&second)
    #expect(second.previousSequence == first.pending.last?.sequence)
    #expect(second.previousSum == first.sum)
    service.finished(first, error: firstError)
    let afterFirst = service.takeReleasable()
    // Group 1's reply goes, and so does the read: it came before group 2's changes, after
    // group 1's, so it waits for group 1 only.
    #expect(afterFirst.replies.map(\.connection) == [1, 2])
    #expect(afterFirst.events.map(\.event.type) == ["line_added"])
    service.finished(second, error: secondError)
    let afterSecond = service.takeReleasable()
    #expect(afterSecond.replies.map(\.connection) == [1, 3])
    #expect(afterSecond.events.count == 2)
    #expect(lane.storage.appendCalls == 3)  // start-up, group 1, group 2
    #expect(lane.scan().isIntact)
    #expect(lane.scan().records.count == Int(service.register.lastSequence))
  }

  /// Records are encoded and chained when their group is written (on the writer's thread),
  /// so a Z report made while the group before it is being written must still anchor the
  /// chain at the record just before its own: the in-flight group's records count.
  @Test func aZReportAnchorsTheChainWhileTheGroupBeforeItIsBeingWritten() throws {
    let lane = try JournalLane()
    let service = lane.service
    service.submit(
      Self.lines([(1, #"{"op":"paid_in","amount":"5.00","reason":"float top-up"}"#)]))
    var first = try #require(service.nextWrite())
    #expect(first.bytes.isEmpty, "sealing does not encode: the writer does")
    service.submit(Self.lines([(1, #"{"op":"close_day"}"#)]))
    let firstError = lane.journal.write(&first)
    service.finished(first, error: firstError)
    service.flush()
    #expect(service.takeReleasable().replies.count == 2)
    let records = lane.scan().records
    let closed = try #require(records.last)
    #expect(closed.type == "day_closed")
    let before = records[records.count - 2]
    #expect(before.type == "paid_in")
    #expect(
      closed.data["journal_head"] == JournalHead(sequence: before.sequence, sum: before.sum).json)
    #expect(lane.scan().isIntact)
  }

  /// A group that fails after the one before it was written leaves the chain, the keys and
  /// the state at the end of that earlier group.
  @Test func aGroupFailingAfterAWrittenOneKeepsThatOnesChangesAndKeys() throws {
    let lane = try JournalLane()
    let service = lane.service
    service.submit(Self.lines([(1, #"{"op":"add","sku":"JEANS","key":"k-first"}"#)]))
    var first = try #require(service.nextWrite())
    service.submit(Self.lines([(2, #"{"op":"add","sku":"TEE","key":"k-second"}"#)]))
    let firstError = lane.journal.write(&first)
    service.finished(first, error: firstError)
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    var second = try #require(service.nextWrite())
    let secondError = lane.journal.write(&second)
    #expect(secondError != nil)
    service.finished(second, error: secondError)
    let replies = try service.takeReleasable().replies.map { try JSONParser.parse($0.line) }
    #expect(replies.count == 2)
    #expect(replies[0]["ok"] == true)
    #expect(replies[1].errorCode == "storage_failed")
    #expect(service.register.keys["k-first"] != nil)
    #expect(service.register.keys["k-second"] == nil)
    #expect(service.register.order.lines.map(\.sku) == ["JEANS"])
    #expect(lane.journal.lastSequence == service.register.lastSequence)
    let written = lane.scan()
    #expect(written.isIntact)
    #expect(written.records.last?.sum == lane.journal.lastSum)
  }

  @Test func aFailedGroupAndEverythingStagedAfterItAreDroppedAndTheStateRebuilt() throws {
    let lane = try JournalLane()
    let service = lane.service
    try lane.ok(Requests.Add(sku: "JEANS"))
    let durable = RegisterState(service.register)
    let lengthBefore = lane.storage.bytes.count
    lane.storage.failingAppend = lane.storage.appendCalls + 1

    service.submit(Self.lines([(1, #"{"id":1,"op":"add","sku":"GIFT"}"#)]))
    var failing = try #require(service.nextWrite())
    service.submit(
      Self.lines([
        (2, #"{"id":2,"op":"order"}"#), (1, #"{"id":3,"op":"set_qty","line":1,"qty":2}"#),
      ]))
    let failingError = lane.journal.write(&failing)
    service.finished(failing, error: failingError)
    let result = service.takeReleasable()
    let replies = try result.replies.map { try JSONParser.parse($0.line) }
    #expect(replies.map { $0["id"] } == [.int(1), .int(2), .int(3)])
    #expect(replies[0].errorCode == "storage_failed")
    // The read is answered again from the durable state: one line, not two.
    #expect(replies[1]["result"]?["lines"]?.arrayValue?.count == 1)
    #expect(replies[2].errorCode == "storage_failed")
    #expect(result.events.isEmpty)
    #expect(RegisterState(service.register) == durable)
    #expect(lane.storage.bytes.count == lengthBefore, "the partial write was cut off")
    #expect(service.nextWrite() == nil)
    // Still read-only, and the journal on "disk" replays to the durable state.
    #expect(try lane.send(Requests.Add(sku: "TEE")).errorCode == "storage_failed")
    #expect(RegisterState(try Register.replaying(lane.scan().records)) == durable)
  }
}

extension JournalWrite: Equatable {
  public static func == (lhs: JournalWrite, rhs: JournalWrite) -> Bool {
    lhs.group == rhs.group && lhs.bytes == rhs.bytes
  }
}
