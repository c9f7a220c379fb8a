import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine
@testable import RegisterServer

/// The writer pipeline: the loop seals each group as soon as it has records, even while the
/// groups before it are being written, and the writer takes every group waiting for it in one
/// write and one fsync, chained in order, never past a close of day.
@Suite struct JournalWriterTests {
  typealias Unit = GroupCommitUnitTests

  /// A journal in memory and group commit over a counting owner, nothing staged yet.
  struct Fixture {
    let storage = MemoryJournalStorage()
    let journal: Journal
    let owner = Unit.CountingOwner()
    let groups: GroupCommit<Unit.CountingOwner>

    init() {
      journal = Unit.journal(storage)
      groups = GroupCommit(journal: journal, durableSequence: 0)
    }
  }

  /// Three groups sealed one after the other, none reported written yet.
  static func threeSealedGroups(
    _ groups: GroupCommit<Unit.CountingOwner>, _ owner: Unit.CountingOwner
  ) throws -> [JournalWrite] {
    var works: [JournalWrite] = []
    Unit.change(groups, owner)
    Unit.request(groups, owner, 1)
    works.append(try #require(groups.nextWrite(for: owner)))
    Unit.change(groups, owner)
    Unit.change(groups, owner)
    Unit.request(groups, owner, 2)
    works.append(try #require(groups.nextWrite(for: owner), "sealed while group 1 is in flight"))
    Unit.change(groups, owner)
    Unit.request(groups, owner, 3)
    works.append(try #require(groups.nextWrite(for: owner), "sealed while groups 1–2 are"))
    #expect(groups.nextWrite(for: owner) == nil)
    return works
  }

  @Test func groupsSealedWhileOthersAreInFlightGoOutInOneWriteChainedInOrder() throws {
    let fixture = Fixture()
    let (storage, journal, owner, groups) = (
      fixture.storage, fixture.journal, fixture.owner, fixture.groups
    )
    var works = try Self.threeSealedGroups(groups, owner)
    // Every group was sealed against the chain as it stood before any was written.
    #expect(works.allSatisfy { $0.previousSequence == 0 })
    #expect(groups.journalHead()?.sequence == 4, "the head counts every group in flight")
    let expectedHead = try #require(groups.journalHead())

    #expect(journal.write(batch: &works) == nil)
    #expect(storage.appendCalls == 1, "one write and one fsync for the three groups")
    let scan = JournalScanner.scan(storage.bytes)
    #expect(scan.isIntact)
    #expect(scan.records.map(\.sequence) == [1, 2, 3, 4])
    #expect(works.map(\.previousSequence) == [0, 1, 3], "each chained after the one before")
    #expect(works.last?.sum == expectedHead.sum, "the head given while in flight was right")
    #expect(storage.files.map(\.path) == ["effect-1", "effect-2", "effect-3", "effect-4"])

    // Reported in order, each releases its own replies.
    #expect(groups.takeReleasable().replies.isEmpty)
    groups.finished(works[0], error: nil, for: owner)
    #expect(Unit.lines(groups.takeReleasable()) == ["first 1 saw 1"])
    groups.finished(works[1], error: nil, for: owner)
    groups.finished(works[2], error: nil, for: owner)
    let rest = groups.takeReleasable()
    #expect(Unit.lines(rest) == ["first 2 saw 3", "first 3 saw 4"])
    #expect(rest.events.map(\.sequence) == [2, 3, 4])
    #expect(groups.durableSequence == 4 && journal.lastSequence == 4)
    #expect(!groups.hasPendingWrites)

    // The next group follows the chain the batch left.
    Unit.change(groups, owner)
    var next = try #require(groups.nextWrite(for: owner))
    #expect(journal.write(&next) == nil)
    #expect(JournalScanner.scan(storage.bytes).isIntact)
  }

  @Test func aFailedBatchFailsEveryGroupInItAndRebuildsToBeforeTheFirst() throws {
    let fixture = Fixture()
    let (storage, journal, owner, groups) = (
      fixture.storage, fixture.journal, fixture.owner, fixture.groups
    )
    var works = try Self.threeSealedGroups(groups, owner)
    storage.failingAppend = 1
    let error = try #require(journal.write(batch: &works))
    #expect(storage.bytes.isEmpty, "the half-written batch was cut back")
    #expect(storage.files.isEmpty, "no file follows a group that is not durable")
    for work in works { groups.finished(work, error: error, for: owner) }
    #expect(owner.changes == 0 && owner.rebuilds.map(\.sequence) == [0])
    #expect(
      Unit.lines(groups.takeReleasable()) == ["again 1 saw 0", "again 2 saw 0", "again 3 saw 0"])
    #expect(!groups.hasPendingWrites)
  }

  @Test func aBatchNeverRunsPastACloseOfDay() throws {
    let fixture = Fixture()
    let (owner, groups) = (fixture.owner, fixture.groups)
    var waiting: [JournalWrite] = []
    Unit.change(groups, owner)
    waiting.append(try #require(groups.nextWrite(for: owner)))
    Unit.change(groups, owner)
    Unit.closeDay(groups, owner, day: 1)
    Unit.change(groups, owner)
    while let work = groups.nextWrite(for: owner) { waiting.append(work) }
    #expect(waiting.map { $0.pending.map(\.sequence) } == [[1], [2, 3], [4]])

    let first = JournalWriter.nextBatch(from: &waiting)
    #expect(first.map(\.group) == [1, 2], "up to and including the close")
    #expect(first.last?.pending.last?.event.eventType == .dayClosed)
    let second = JournalWriter.nextBatch(from: &waiting)
    #expect(second.map { $0.pending.map(\.sequence) } == [[4]])
    #expect(waiting.isEmpty && JournalWriter.nextBatch(from: &waiting).isEmpty)
  }

  /// The real writer thread: groups handed over while it is busy are all written, in order
  /// (those waiting together share a write), and reported back in the order they were handed
  /// over.
  @Test func theWriterThreadWritesEveryGroupHandedToItInOrder() throws {
    let fixture = Fixture()
    let (storage, journal, owner, groups) = (
      fixture.storage, fixture.journal, fixture.owner, fixture.groups
    )
    let writer = try #require(JournalWriter(journal: journal))
    let total = 200
    for connection in 1...total {
      Unit.change(groups, owner)
      Unit.request(groups, owner, connection)
      while let work = groups.nextWrite(for: owner) { writer.start(work) }
    }
    var reported: [Int] = []
    let deadline = Date().addingTimeInterval(10)
    while reported.count < total, Date() < deadline {
      var ready = pollfd(fd: writer.notifyFD, events: Int16(POLLIN), revents: 0)
      _ = poll(&ready, 1, 100)
      for (work, error) in writer.takeCompletions() {
        #expect(error == nil)
        groups.finished(work, error: error, for: owner)
        reported.append(work.group)
      }
    }
    #expect(reported == Array(1...total), "every group, each once, in order")
    #expect(!writer.isBusy)
    #expect(groups.takeReleasable().replies.count == total)
    let scan = JournalScanner.scan(storage.bytes)
    #expect(scan.isIntact && scan.records.count == total)
    #expect(storage.appendCalls <= total)
  }
}
