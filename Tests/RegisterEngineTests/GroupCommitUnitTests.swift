import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// GroupCommit on its own (GroupCommitTests drives it through the service), with an owner whose
/// state is a counter of changes: replies leave only when their group is durable, in arrival
/// order; a failed group is dropped with everything after it, the owner rebuilds its state from
/// what is durable, and every reply that depended on the dropped groups is answered again.
@Suite struct GroupCommitUnitTests {
  /// A state that is just the number of changes applied; answers say which state they saw.
  final class CountingOwner: GroupCommitOwner {
    var changes = 0
    /// Each failure reported: the last durable sequence the state was rebuilt to.
    var rebuilds: [(sequence: Int64, failure: String)] = []

    /// Rebuilt from what is durable: one change per record, so the durable sequence is the
    /// number of changes.
    func storageFailed(durableThrough sequence: Int64, failure: SystemError) {
      changes = Int(sequence)
      rebuilds.append((sequence, failure.description))
    }

    func answer(_ incoming: IncomingLine) -> SerializedReply {
      SerializedReply(bytes: Self.reply(incoming.connection, changes: changes, again: true))
    }

    func effects(of records: [PendingRecord]) -> [FileEffect] {
      records.map { FileEffect(path: "effect-\($0.sequence)", bytes: [], mode: 0o600) }
    }

    static func reply(_ connection: Int, changes: Int, again: Bool = false) -> [UInt8] {
      Array("\(again ? "again" : "first") \(connection) saw \(changes)".utf8)
    }
  }

  /// Applies one change in the owner and stages its record, as the service does.
  static func change(_ groups: GroupCommit<CountingOwner>, _ owner: CountingOwner) {
    groups.willStage()
    owner.changes += 1
    groups.stage([
      PendingRecord(
        sequence: Int64(owner.changes), at: testTime, event: .noSale(reason: nil),
        operatorID: nil, key: nil, more: false)
    ])
  }

  /// Applies a close of day in the owner and stages its record.
  static func closeDay(_ groups: GroupCommit<CountingOwner>, _ owner: CountingOwner, day: Int) {
    groups.willStage()
    owner.changes += 1
    groups.stage([
      PendingRecord(
        sequence: Int64(owner.changes), at: testTime,
        event: .dayClosed(day: day, countedCash: nil), operatorID: nil, key: nil, more: false)
    ])
  }

  /// Answers a request from `connection` against the owner's state now and holds the reply.
  static func request(
    _ groups: GroupCommit<CountingOwner>, _ owner: CountingOwner, _ connection: Int
  ) {
    groups.hold(
      IncomingLine(connection: connection, bytes: []),
      SerializedReply(bytes: CountingOwner.reply(connection, changes: owner.changes)))
  }

  static func lines(_ result: BatchResult) -> [String] {
    result.replies.map(\.line)
  }

  static func journal(_ storage: MemoryJournalStorage) -> Journal {
    Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
  }

  @Test func repliesLeaveOnlyWhenTheirGroupIsDurableInArrivalOrder() throws {
    let storage = MemoryJournalStorage()
    let journal = Self.journal(storage)
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: journal, durableSequence: 0)

    // Nothing staged: a read's reply may leave at once.
    Self.request(groups, owner, 1)
    #expect(Self.lines(groups.takeReleasable()) == ["first 1 saw 0"])

    Self.change(groups, owner)
    Self.request(groups, owner, 2)  // the change's reply
    Self.request(groups, owner, 3)  // a read that saw it
    #expect(groups.takeReleasable().replies.isEmpty, "group 1 is not durable yet")
    #expect(groups.hasPendingWrites)
    var first = try #require(groups.nextWrite(for: owner))
    #expect(first.group == 1 && first.records == 1)
    #expect(first.effects.map(\.path) == ["effect-1"])

    // While group 1 is written, two changes fill group 2.
    Self.change(groups, owner)
    Self.change(groups, owner)
    Self.request(groups, owner, 4)
    #expect(groups.takeReleasable().replies.isEmpty)

    let firstError = journal.write(&first)
    groups.finished(first, error: firstError, for: owner)
    let afterFirst = groups.takeReleasable()
    #expect(Self.lines(afterFirst) == ["first 2 saw 1", "first 3 saw 1"])
    #expect(afterFirst.events.map(\.sequence) == [1])
    #expect(groups.durableSequence == 1)
    // A read that arrives now saw group 2's changes: it waits behind them.
    Self.request(groups, owner, 5)
    #expect(groups.takeReleasable().replies.isEmpty)

    var second = try #require(groups.nextWrite(for: owner))
    #expect(second.group == 2 && second.records == 2)
    // A stale report (not the group being written) changes nothing.
    groups.finished(first, error: nil, for: owner)
    #expect(groups.takeReleasable().replies.isEmpty)
    let secondError = journal.write(&second)
    groups.finished(second, error: secondError, for: owner)
    let afterSecond = groups.takeReleasable()
    #expect(Self.lines(afterSecond) == ["first 4 saw 3", "first 5 saw 3"])
    #expect(afterSecond.events.map(\.sequence) == [2, 3])
    #expect(groups.durableSequence == 3)
    #expect(!groups.hasPendingWrites)
    #expect(owner.rebuilds.isEmpty)
    #expect(JournalScanner.scan(storage.bytes).records.count == 3)
  }

  @Test func aFailedGroupIsDroppedWithEverythingAfterItTheStateRebuiltAndAnsweredAgain() throws {
    let storage = MemoryJournalStorage()
    let journal = Self.journal(storage)
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: journal, durableSequence: 0)

    Self.change(groups, owner)
    var durable = try #require(groups.nextWrite(for: owner))
    let durableError = journal.write(&durable)
    groups.finished(durable, error: durableError, for: owner)
    #expect(Self.lines(groups.takeReleasable()).isEmpty)

    storage.failingAppend = storage.appendCalls + 1
    Self.change(groups, owner)
    Self.request(groups, owner, 1)
    var failing = try #require(groups.nextWrite(for: owner))
    Self.change(groups, owner)
    Self.request(groups, owner, 2)
    Self.request(groups, owner, 3)
    #expect(owner.changes == 3)

    let failingError = journal.write(&failing)
    groups.finished(failing, error: failingError, for: owner)
    // Rebuilt to the durable group, and the journal's chain is still there.
    #expect(owner.changes == 1)
    #expect(owner.rebuilds.count == 1)
    #expect(owner.rebuilds.first?.sequence == 1)
    #expect(owner.rebuilds.first?.failure.contains("memory journal") == true)
    #expect(journal.lastSequence == 1)
    let result = groups.takeReleasable()
    #expect(Self.lines(result) == ["again 1 saw 1", "again 2 saw 1", "again 3 saw 1"])
    #expect(result.events.isEmpty, "nothing of the failed groups reaches subscribers")
    #expect(groups.durableSequence == 1)
    #expect(!groups.hasPendingWrites)
    #expect(groups.nextWrite(for: owner) == nil)
    // The chain continues from the durable record: the next record is 2 again.
    #expect(groups.journalHead()?.sequence == 1)
  }

  @Test func aCloseOfDayEndsItsGroupEvenWhileTheWriterIsBusy() throws {
    let storage = MemoryJournalStorage()
    let journal = Self.journal(storage)
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: journal, durableSequence: 0)

    Self.change(groups, owner)
    var first = try #require(groups.nextWrite(for: owner))
    // While group 1 is written: a change, the close, and two changes of the next day.
    Self.change(groups, owner)
    Self.closeDay(groups, owner, day: 1)
    Self.request(groups, owner, 1)  // saw the close
    Self.change(groups, owner)
    Self.change(groups, owner)
    Self.request(groups, owner, 2)
    #expect(groups.journalHead()?.sequence == 5, "the head counts every staged group")
    let firstError = journal.write(&first)
    groups.finished(first, error: firstError, for: owner)
    #expect(groups.takeReleasable().replies.isEmpty)

    // The closed day's group is written alone: it ends with the day_closed record…
    var closing = try #require(groups.nextWrite(for: owner))
    #expect(closing.pending.map(\.sequence) == [2, 3])
    #expect(closing.pending.last?.event.eventType == .dayClosed)
    let closingError = journal.write(&closing)
    groups.finished(closing, error: closingError, for: owner)
    #expect(Self.lines(groups.takeReleasable()) == ["first 1 saw 3"])
    // …and the next day's changes follow in a group of their own.
    var next = try #require(groups.nextWrite(for: owner))
    #expect(next.pending.map(\.sequence) == [4, 5])
    let nextError = journal.write(&next)
    groups.finished(next, error: nextError, for: owner)
    #expect(Self.lines(groups.takeReleasable()) == ["first 2 saw 5"])
    #expect(!groups.hasPendingWrites)
  }

  @Test func aFailedCloseDropsTheGroupsQueuedBehindIt() throws {
    let storage = MemoryJournalStorage()
    let journal = Self.journal(storage)
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: journal, durableSequence: 0)

    Self.change(groups, owner)
    var first = try #require(groups.nextWrite(for: owner))
    Self.closeDay(groups, owner, day: 1)
    Self.change(groups, owner)
    Self.request(groups, owner, 1)
    let firstError = journal.write(&first)
    groups.finished(first, error: firstError, for: owner)
    storage.failingAppend = storage.appendCalls + 1
    var closing = try #require(groups.nextWrite(for: owner))
    let closingError = journal.write(&closing)
    groups.finished(closing, error: closingError, for: owner)
    #expect(owner.changes == 1, "rebuilt to the state before the close")
    #expect(owner.rebuilds.map(\.sequence) == [1])
    #expect(Self.lines(groups.takeReleasable()) == ["again 1 saw 1"])
    #expect(groups.nextWrite(for: owner) == nil, "the queued group went with it")
    #expect(!groups.hasPendingWrites)
  }

  @Test func aReplyMadeBeforeTheFailedGroupIsNotAnsweredAgain() throws {
    let storage = MemoryJournalStorage()
    let journal = Self.journal(storage)
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: journal, durableSequence: 0)

    Self.change(groups, owner)
    Self.request(groups, owner, 1)
    var first = try #require(groups.nextWrite(for: owner))
    Self.change(groups, owner)
    Self.request(groups, owner, 2)
    let firstError = journal.write(&first)
    groups.finished(first, error: firstError, for: owner)
    storage.failingAppend = storage.appendCalls + 1
    var second = try #require(groups.nextWrite(for: owner))
    let secondError = journal.write(&second)
    groups.finished(second, error: secondError, for: owner)
    // Group 1 was durable: its reply stands; group 2's reply is made again.
    #expect(Self.lines(groups.takeReleasable()) == ["first 1 saw 1", "again 2 saw 1"])
    #expect(owner.rebuilds.map(\.sequence) == [1])
  }

  @Test func withoutAJournalNothingIsSealedUntilSettled() {
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: nil, durableSequence: 0)
    Self.change(groups, owner)
    Self.request(groups, owner, 1)
    #expect(groups.nextWrite(for: owner) == nil)
    #expect(groups.journalHead() == nil)
    #expect(groups.takeReleasable().replies.isEmpty)
    groups.settleWithoutJournal()
    let result = groups.takeReleasable()
    #expect(Self.lines(result) == ["first 1 saw 1"])
    #expect(result.events.map(\.sequence) == [1])
    #expect(groups.durableSequence == 1)
  }

  @Test func theKeyGoesOnTheLastStagedRecord() throws {
    let storage = MemoryJournalStorage()
    let journal = Self.journal(storage)
    let owner = CountingOwner()
    let groups = GroupCommit<CountingOwner>(journal: journal, durableSequence: 0)
    let key = KeyRecord(key: "k1", fingerprint: "f", reply: .null)
    #expect(!groups.attachKey(key), "nothing staged: nowhere to put the key")
    Self.change(groups, owner)
    Self.change(groups, owner)
    #expect(groups.attachKey(key))
    var work = try #require(groups.nextWrite(for: owner))
    try work.encode()
    let lines = work.bytes.split(separator: UInt8(ascii: "\n")).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(lines.count == 2)
    #expect(!lines[0].contains("k1") && lines[1].contains("k1"))
  }
}
