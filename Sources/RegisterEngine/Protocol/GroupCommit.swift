/// What group commit needs from the state whose changes it makes durable: a way back to what
/// is durable when a write fails, a fresh answer to a request, and the files a group calls for.
/// Group commit knows nothing of how a reply is made or what the state is.
protocol GroupCommitOwner: AnyObject {
  /// A write failed with `failure`: what is durable is the truth. The owner rebuilds its state
  /// from the records through `sequence` (the last one known to be on disk) and refuses
  /// changes until storage works again (group commit stages nothing meanwhile).
  func storageFailed(durableThrough sequence: Int64, failure: SystemError)
  /// Answers a held request again, from the state rebuilt after a failure.
  func answer(_ incoming: IncomingLine) -> SerializedReply
  /// The files a group's records call for, from the state after the group.
  func effects(of records: [PendingRecord]) -> [FileEffect]
}

/// Group commit: stages journal records in groups, hands them to the writer in order, and
/// holds each reply until every change it could have seen is durable.
///
/// Requests are answered in arrival order; a reply is held with the newest group that had
/// staged changes when it was made (reads included: a read may describe them). A reply still
/// being worked out away from the loop (`ReplyComputation`) holds back only the later replies
/// to its own connection: each connection's replies keep the order it asked in. The loop seals
/// the open group whenever it has records, even while earlier groups are being written: the
/// writer takes every group waiting for it in one write and one fsync as soon as the one before
/// is done, so under load many requests share each fsync and the disk never waits for the loop
/// (nor the loop for the disk). If a write fails, that group and every one staged after it are
/// dropped, the owner rebuilds its state from what is durable (nothing is copied ahead of a
/// group in case it fails: the journal is the truth), and every reply that depended on the
/// dropped groups is answered again by the owner.
///
/// A group ends with a `day_closed` record: the next change starts a new group (the closed
/// group waits, sealed, in `queued`), and the writer never puts records after a close in the
/// same write, so the journal's storage can begin the next day's segment after writing it.
final class GroupCommit<Owner: GroupCommitOwner> {
  /// A reply waiting until the group it depends on is durable.
  private struct Held {
    var incoming: IncomingLine
    var reply: SerializedReply
    /// The newest group with staged changes when the reply was made (nil: nothing pending).
    var group: Int?
    /// While the reply is being worked out away from the loop: its ticket
    /// (`ReplyComputation.ticket`).
    var computing: Int?

    /// The reply as it is sent.
    var outgoing: OutgoingReply {
      OutgoingReply(
        connection: incoming.connection, pieces: reply.pieces, subscription: reply.subscription)
    }
  }

  /// Where groups are written; without one nothing is ever sealed (see `settleWithoutJournal`).
  private let journal: Journal?
  /// Everything that changes, in one value: a method that touches only it (`hold`, `stage`,
  /// `takeReleasable`, called for every request) makes one access to the class's storage
  /// instead of one per property, each of which Swift checks for exclusivity at run time.
  /// Nothing calls the owner while it is being changed.
  private var state: State

  private struct State {
    var held: [Held] = []
    /// The group being filled, and its records.
    var openGroup = 1
    var openRecords: [PendingRecord] = []
    /// Groups handed to the writer and not reported back yet, oldest first, with their records.
    var inFlight: [(group: Int, records: [PendingRecord])] = []
    /// Groups ended early (by a close of day) waiting for the writer, oldest first.
    var queued: [(group: Int, records: [PendingRecord])] = []
    /// Events that became durable and have not been handed out yet.
    var committed: [CommittedEvent] = []
    /// The sequence number of the last record known to be on disk.
    var durableSequence: Int64
    /// Replies to work out away from the loop, not yet handed out (`takeComputations`).
    var computations: [ReplyComputation] = []
    /// How many held replies are still being worked out, and the last ticket given.
    var computing = 0
    var lastTicket = 0

    /// The newest group with staged changes (nil: nothing is pending).
    var newestPending: Int? {
      !openRecords.isEmpty ? openGroup : queued.last?.group ?? inFlight.last?.group
    }

    mutating func hold(_ incoming: IncomingLine, _ reply: SerializedReply) {
      var entry = Held(incoming: incoming, reply: reply, group: newestPending)
      if let make = reply.computation {
        lastTicket += 1
        entry.computing = lastTicket
        entry.reply.computation = nil
        computations.append(
          ReplyComputation(ticket: lastTicket, connection: incoming.connection, make: make))
        computing += 1
      }
      held.append(entry)
    }

    /// The reply `ticket` was worked out: it is `bytes` (ignored when that reply is no longer
    /// held: answered again after a failed write).
    mutating func computed(_ ticket: Int, bytes: [UInt8]) {
      guard let index = held.firstIndex(where: { $0.computing == ticket }) else { return }
      held[index].computing = nil
      held[index].reply.pieces = ReplyPieces(head: bytes)
      computing -= 1
    }

    mutating func takeReleasable() -> BatchResult {
      // Everything staged before the open group and not being written is durable.
      let durable = (inFlight.first?.group ?? queued.first?.group ?? openGroup) - 1
      let ready = held.firstIndex { ($0.group ?? 0) > durable } ?? held.count
      if computing > 0 { return takeReleasable(before: ready) }
      let replies = held[..<ready].map { $0.outgoing }
      // Removed once the slice above is gone: while a slice shared its storage, removing the
      // released replies copied every reply still held (each retained) into new storage.
      held.removeFirst(ready)
      let events = committed
      committed = []
      return BatchResult(replies: replies, events: events)
    }

    /// `takeReleasable` while replies are being worked out: of the first `ready` (durable)
    /// replies, one still being worked out stays, and so does every later reply to its
    /// connection (a connection's replies go in the order it asked); the other connections'
    /// replies go.
    private mutating func takeReleasable(before ready: Int) -> BatchResult {
      var waiting: Set<Int> = []
      var replies: [OutgoingReply] = []
      var kept: [Held] = []
      for entry in held[..<ready] {
        if entry.computing != nil || waiting.contains(entry.incoming.connection) {
          waiting.insert(entry.incoming.connection)
          kept.append(entry)
        } else {
          replies.append(entry.outgoing)
        }
      }
      // Those kept stay ahead of the rest: all of them were durable, so the held replies are
      // still in the order of their groups.
      kept.append(contentsOf: held[ready...])
      held = kept
      let events = committed
      committed = []
      return BatchResult(replies: replies, events: events)
    }
  }

  /// The sequence number of the last record known to be on disk.
  var durableSequence: Int64 { state.durableSequence }

  /// Group commit into `journal`, whose records up to `durableSequence` are already durable.
  init(journal: Journal?, durableSequence: Int64) {
    self.journal = journal
    self.state = State(durableSequence: durableSequence)
  }

  /// True while changes are staged or being written.
  var hasPendingWrites: Bool {
    !state.inFlight.isEmpty || !state.queued.isEmpty || !state.openRecords.isEmpty
  }

  /// Before a change is applied: a group that ends with a close of day is ended first, so the
  /// change goes into a new group.
  func willStage() {
    guard journal != nil else { return }
    if let last = state.openRecords.last, last.event.eventType == .dayClosed {
      state.queued.append((state.openGroup, state.openRecords))
      state.openRecords = []
      state.openGroup += 1
    }
  }

  /// Queues records (already applied by the owner) in the open group.
  func stage(_ records: [PendingRecord]) {
    state.openRecords.append(contentsOf: records)
  }

  /// Gives the last staged record the request's idempotency key; false when nothing is staged.
  func attachKey(_ key: KeyRecord) -> Bool {
    guard !state.openRecords.isEmpty else { return false }
    state.openRecords[state.openRecords.count - 1].key = key
    return true
  }

  /// The journal chain's head once everything staged is written (nil without a journal).
  func journalHead() -> JournalHead? {
    journal?.head(
      after: state.inFlight.flatMap(\.records) + state.queued.flatMap(\.records)
        + state.openRecords)
  }

  /// Holds a request's reply until the changes it could have seen are durable.
  func hold(_ incoming: IncomingLine, _ reply: SerializedReply) {
    state.hold(incoming, reply)
  }

  /// Replies to work out away from the loop, held since the last call.
  func takeComputations() -> [ReplyComputation] {
    guard !state.computations.isEmpty else { return [] }
    let taken = state.computations
    state.computations = []
    return taken
  }

  /// The reply `ticket` was worked out (see `ReplyComputation`).
  func computed(_ ticket: Int, bytes: [UInt8]) {
    state.computed(ticket, bytes: bytes)
  }

  /// True while a held reply is being worked out.
  var isComputing: Bool { state.computing > 0 }

  /// The next group to hand to the writer, sealed: the oldest ended group, else the open group
  /// (nil when nothing is staged). Groups already handed over may still be being written.
  func nextWrite(for owner: Owner) -> JournalWrite? {
    guard let journal else { return nil }
    let group: Int
    let records: [PendingRecord]
    if !state.queued.isEmpty {
      (group, records) = state.queued.removeFirst()
    } else if !state.openRecords.isEmpty {
      (group, records) = (state.openGroup, state.openRecords)
      state.openRecords = []
      state.openGroup += 1
    } else {
      return nil
    }
    state.inFlight.append((group, records))
    var work = journal.seal(records, group: group)
    work.effects = owner.effects(of: records)
    return work
  }

  /// The writer finished `work` (groups finish in the order they were handed over): with
  /// `error`, the group was not made durable.
  func finished(_ work: JournalWrite, error: SystemError?, for owner: Owner) {
    guard let current = state.inFlight.first, current.group == work.group else { return }
    if let error {
      fail(group: work.group, error: error, owner: owner)
      return
    }
    journal?.noteWritten(work)
    state.durableSequence = current.records.last?.sequence ?? state.durableSequence
    state.inFlight.removeFirst()
    state.committed.append(contentsOf: current.records.map(CommittedEvent.init))
  }

  /// Records written outside the groups (`RegisterService.commit`, at start-up) are durable
  /// up to `sequence`: a subscriber asking for what came after an earlier record is sent them.
  func noteDurable(through sequence: Int64) {
    state.durableSequence = max(state.durableSequence, sequence)
  }

  /// Without a journal (tests, demos): everything staged counts as durable now.
  func settleWithoutJournal() {
    guard journal == nil else { return }
    state.committed.append(contentsOf: state.openRecords.map(CommittedEvent.init))
    state.durableSequence = state.openRecords.last?.sequence ?? state.durableSequence
    state.openRecords = []
    state.openGroup += 1
  }

  /// The replies that may be sent now (in arrival order) and the newly durable events.
  func takeReleasable() -> BatchResult {
    state.takeReleasable()
  }

  /// Drops `group` and everything staged after it, has the owner rebuild its state from what
  /// is durable, and answers again every request whose reply depended on the dropped changes.
  private func fail(group: Int, error: SystemError, owner: Owner) {
    state.inFlight = []
    state.queued = []
    state.openRecords = []
    owner.storageFailed(durableThrough: state.durableSequence, failure: error)
    for index in state.held.indices where (state.held[index].group ?? 0) >= group {
      // The owner answers before the held reply is changed (not while), and answers in full
      // (nothing left to work out): a failure is rare, and its answers are short refusals.
      let answer = owner.answer(state.held[index].incoming)
      state.held[index].reply = answer
      state.held[index].group = nil
      if state.held[index].computing != nil {
        // Its worked-out bytes, when they come, describe changes that were dropped.
        state.held[index].computing = nil
        state.computing -= 1
      }
    }
    state.computations.removeAll { computation in
      !state.held.contains { $0.computing == computation.ticket }
    }
  }
}

extension CommittedEvent {
  /// The event of a record that is now durable, as subscribers receive it.
  init(_ record: PendingRecord) {
    self.init(
      sequence: record.sequence, at: record.at, event: record.event, operatorID: record.operatorID)
  }
}
