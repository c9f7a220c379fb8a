/// Where journal bytes go, and the files that follow from them. The file implementation
/// (RegisterServer's `FileJournalStorage`) appends and fsyncs; tests inject one that fails to
/// prove a failed write is never acknowledged.
public protocol JournalStorage: AnyObject {
  /// Appends `bytes` and makes them durable before returning. Throws if either step failed.
  func appendDurably(_ bytes: [UInt8]) throws(SystemError)
  /// Tries to cut the storage back to `length` bytes after a failed append (best effort).
  func truncate(to length: Int) throws(SystemError)
  /// After a failed append: cuts whatever it left past the last append that was made durable,
  /// and proves the storage takes a write and a sync again. Throws while it does not (the disk
  /// is still full, or still failing); the register takes no change until this succeeds.
  func restoreDurable() throws(SystemError)
  /// Current length in bytes.
  var length: Int { get }
  /// Writes a file that follows from a durable group (an e-mailed receipt), atomically.
  func write(_ effect: FileEffect) throws(SystemError)
  /// Ends the open segment after what has been written: the next records go to a new segment,
  /// of business day `day` (nil: the open segment's day), whose first record is `sequence`.
  /// Storage kept in one file ignores it.
  func startSegment(day: Int?, firstSequence: Int64) throws(SystemError)
  /// True when a new segment is due after the next group: the open one has grown past the
  /// size at which a new one is started, or starting one failed and is to be tried again.
  var segmentIsDue: Bool { get }
  /// Leaves the storage tidy for readers when the daemon stops (the file storage cuts the
  /// space it wrote ahead of the records); appending afterwards is still allowed.
  func close()
}

extension JournalStorage {
  public func startSegment(day: Int?, firstSequence: Int64) throws(SystemError) {}
  public var segmentIsDue: Bool { false }
  public func close() {}
}

/// An event ready to be journaled, with the facts that go in its record's envelope.
public struct PendingRecord: Sendable {
  public init(
    sequence: Int64, at: Timestamp, event: Event, operatorID: String?, approvedBy: String? = nil,
    key: KeyRecord?, more: Bool
  ) {
    self.sequence = sequence
    self.at = at
    self.event = event
    self.operatorID = operatorID
    self.approvedBy = approvedBy
    self.key = key
    self.more = more
  }

  public var sequence: Int64
  public var at: Timestamp
  public var event: Event
  public var operatorID: String?
  public var approvedBy: String?
  public var key: KeyRecord?
  public var more: Bool
}

/// A committed event, as live subscribers receive it.
public struct CommittedEvent: Sendable {
  public var sequence: Int64
  public var at: Timestamp
  public var event: Event
  public var operatorID: String?
}

/// A sealed group of records, to be encoded and written with one write and one fsync.
///
/// Sealing only takes the records and where the chain stands; encoding them (JSON and a
/// SHA-256 per record) is done by `Journal.write`, on the writer's thread, so the event loop
/// does not spend its time on it while the previous group is being synced.
public struct JournalWrite: Sendable {
  public var group: Int
  /// The group's records, in sequence order.
  public var pending: [PendingRecord]
  /// The chain before the group: the sum and sequence of the record before its first.
  public var previousSum: String
  public var previousSequence: Int64
  /// The encoded group and the sum of its last record, once `Journal.write` has encoded it.
  public var bytes: [UInt8] = []
  public var sum: String?
  /// Files to write once the group is durable (e-mailed receipts).
  public var effects: [FileEffect] = []
  /// The journal key the records are MACed with, if there is one.
  public var macKey: HMACSHA256?
  /// Set by `Journal.write` when the group ended a segment (a close of day, or a full one).
  public var endedSegment = false
  /// The journal's `era` when the group was sealed.
  public var era = 0

  /// How many records the group holds.
  public var records: Int { pending.count }

  public init(group: Int, pending: [PendingRecord], previousSum: String, previousSequence: Int64) {
    self.group = group
    self.pending = pending
    self.previousSum = previousSum
    self.previousSequence = previousSequence
  }

  /// Encodes the records, chained from `previousSum` (once; later calls change nothing).
  /// Sequence numbers must continue from `previousSequence`.
  public mutating func encode() throws(SystemError) {
    guard sum == nil else { return }
    var bytes: [UInt8] = []
    var sum = previousSum
    var sequence = previousSequence
    for record in pending {
      sequence += 1
      guard record.sequence == sequence else {
        // EINVAL (22 on every platform registerd runs on): a caller's mistake, not the disk's.
        throw SystemError(
          "journal sequence \(record.sequence) out of order", code: 22, reason: "Invalid argument")
      }
      let encoded = Journal.encode(record, previous: sum, macKey: macKey)
      sum = encoded.sum
      bytes.append(contentsOf: encoded.line)
    }
    self.bytes = bytes
    self.sum = sum
  }
}

/// A file written atomically after the journal group it belongs to is on disk (by the
/// journal's storage, `JournalStorage.write(_:)`, on the writer's thread).
public struct FileEffect: Sendable, Equatable {
  public var path: String
  public var bytes: [UInt8]
  public var mode: UInt32
}

/// The journal's position and what it has written since start (`Journal.counts`).
public struct JournalCounts: Sendable, Equatable {
  /// The sequence number of the last record written.
  public var lastSequence: Int64
  /// Records written since start.
  public var records: Int
  /// Groups (fsyncs) used for them.
  public var fsyncs: Int
}

/// The append side of the journal: seals groups of records for one write and one fsync (group
/// commit), encodes and writes them, and never pretends a failed write succeeded.
///
/// Sealing (on the event loop) and writing (on the writer's thread: encode, chain, append,
/// fsync) are separate steps so that the daemon handles the next requests while a group is
/// written. The chain (`lastSum`, `lastSequence`) is that of the last group written and is
/// advanced only by `noteWritten`, on the loop's thread, so a failed group leaves it where it
/// was; one group is written at a time. `append` does all of it at once for callers that do
/// not need that.
public final class Journal: @unchecked Sendable {
  /// Only the writer touches the storage (the daemon's writer thread, or `append`).
  public let storage: any JournalStorage
  public private(set) var lastSum: String
  /// The last record written, and what was written since start, kept together: `hello` shows
  /// all three for every request, and each read of a class's property is checked for
  /// exclusivity at run time.
  public private(set) var counts: JournalCounts
  /// The sequence number of the last record written.
  public var lastSequence: Int64 { counts.lastSequence }
  /// Records written since start.
  public var recordsWritten: Int { counts.records }
  /// Groups (fsyncs) used for them.
  public var batchesWritten: Int { counts.fsyncs }
  /// The journal key: with one, every record written carries its HMAC (`"mac"`).
  public var macKey: HMACSHA256?
  /// The chain after the last group `write` put on disk. Only the writer touches it (the
  /// writer thread, or `append` before the daemon's writer starts); nil until the first write,
  /// when a group's sealed chain is taken as it is.
  private var writtenHead: (sum: String, sequence: Int64)?
  /// How many times writing resumed after a failure (`resume`). A group carries the era it was
  /// sealed in, and only the current era's groups are written. Changed by the writer only while
  /// no group is being handed to it (the register takes no change until storage works again).
  public private(set) var era = 0

  public init(storage: any JournalStorage, lastSum: String, lastSequence: Int64) {
    self.storage = storage
    self.lastSum = lastSum
    self.counts = JournalCounts(lastSequence: lastSequence, records: 0, fsyncs: 0)
  }

  /// Seals records as the next group, to follow the last group written (so only once that one
  /// is written). Nothing is encoded yet.
  public func seal(_ records: [PendingRecord], group: Int) -> JournalWrite {
    var work = JournalWrite(
      group: group, pending: records, previousSum: lastSum, previousSequence: lastSequence)
    work.macKey = macKey
    work.era = era
    return work
  }

  /// The chain's head once `records` (the ones not encoded yet, in order) are appended: the
  /// last of them with the sum it will have on disk. Encoding is deterministic, so this is
  /// the sum `encode` will give it.
  public func head(after records: [PendingRecord]) -> JournalHead {
    var sum = lastSum
    var sequence = lastSequence
    for record in records {
      sum = Self.encode(record, previous: sum, macKey: macKey).sum
      sequence = record.sequence
    }
    return JournalHead(sequence: sequence, sum: sum)
  }

  static func encode(
    _ record: PendingRecord, previous: String, macKey: HMACSHA256?
  ) -> (line: [UInt8], sum: String) {
    JournalRecord.encode(
      sequence: record.sequence, at: record.at, type: record.event.type,
      writeData: { record.event.writeData(to: &$0) }, operatorID: record.operatorID,
      approvedBy: record.approvedBy, key: record.key, more: record.more, previous: previous,
      macKey: macKey)
  }

  /// Encodes a sealed group (unless it is already) and writes it durably. On failure the
  /// storage is cut back to where it was, if it can be, and the error is returned. Touches
  /// only `work`, the storage and the writer's own chain: safe to call from the writer thread.
  public func write(_ work: inout JournalWrite) -> SystemError? {
    var works = [work]
    defer { work = works[0] }
    return write(batch: &works)
  }

  /// Writes sealed groups, in order, with one append and one fsync: the writer thread takes
  /// every group the loop sealed while it was busy in one go. Each group is chained from the
  /// one before it as written here (a group sealed while the one before it was still being
  /// written carries a stale chain, which is replaced). Only the last group may end with a
  /// close of day. All or nothing: on failure no group of the batch counts, the storage is cut
  /// back, and the error is returned.
  public func write(batch works: inout [JournalWrite]) -> SystemError? {
    var bytes: [UInt8] = []
    var head = writtenHead
    for index in works.indices {
      // A group sealed before a failed write was resumed from belongs to changes the register
      // dropped when it rebuilt itself from the journal: never written, even where its
      // sequence numbers would follow on.
      guard works[index].era == era else {
        return SystemError(
          "journal group \(works[index].group) was sealed before a failed write", code: 22,
          reason: "Invalid argument")
      }
      if let head,
        works[index].previousSequence != head.sequence || works[index].previousSum != head.sum
      {
        works[index].previousSum = head.sum
        works[index].previousSequence = head.sequence
        works[index].sum = nil
      }
      do {
        try works[index].encode()
      } catch {
        return error
      }
      if let sum = works[index].sum, let last = works[index].pending.last {
        head = (sum, last.sequence)
      }
      if works.count == 1 {
        bytes = works[index].bytes
      } else {
        bytes.append(contentsOf: works[index].bytes)
      }
    }
    let lengthBefore = storage.length
    do {
      try storage.appendDurably(bytes)
    } catch {
      try? storage.truncate(to: lengthBefore)
      return error
    }
    writtenHead = head
    // The changes are durable; now the files that follow from them. A failure here does not
    // undo anything (the journal is the record; the file is rewritten on the next edit or
    // start), it is reported.
    for effect in works.lazy.flatMap(\.effects) {
      do {
        try storage.write(effect)
      } catch {
        onEffectFailure(effect.path, error)
      }
    }
    guard !works.isEmpty else { return nil }
    endSegmentIfDue(after: &works[works.count - 1])
    return nil
  }

  /// After a group is written: a closed day ends its segment, and so does a full one.
  private func endSegmentIfDue(after work: inout JournalWrite) {
    // A closed day ends its segment (group commit ends a group with its `day_closed`), and so
    // does a segment past its size. Failing to start the next one loses nothing: the records
    // go on into the open segment, and the storage keeps the new one due, so it is tried again
    // after the next group.
    if let last = work.pending.last {
      var ends = storage.segmentIsDue
      var nextDay: Int?
      if case .dayClosed(let number, _, _) = last.event {
        ends = true
        nextDay = min(number, Int.max - 1) + 1
      }
      if ends {
        do {
          try storage.startSegment(day: nextDay, firstSequence: last.sequence + 1)
          work.endedSegment = true
        } catch {
          onSegmentFailure(error)
        }
      }
    }
  }

  /// Called (on the writer's thread) when a new segment could not be started.
  public var onSegmentFailure: @Sendable (SystemError) -> Void = { _ in }

  /// Called (on the writer's thread) when a file could not be written after its group.
  public var onEffectFailure: @Sendable (String, SystemError) -> Void = { _, _ in }

  /// A group was written: the chain moves past it, and it is counted (called on the loop's
  /// thread).
  public func noteWritten(_ work: JournalWrite) {
    guard let sum = work.sum, let last = work.pending.last else { return }
    lastSum = sum
    counts = JournalCounts(
      lastSequence: last.sequence, records: counts.records + work.records,
      fsyncs: counts.fsyncs + 1)
  }

  /// After a failed write: cuts the storage back to what is durable and tries a write and a
  /// sync (on the writer's thread, once every group handed to it is done). nil when storage
  /// works again.
  public func resume() -> SystemError? {
    do {
      try storage.restoreDurable()
    } catch {
      return error
    }
    era += 1
    return nil
  }

  /// Encodes and writes records at once. On failure nothing of them counts.
  public func append(_ records: [PendingRecord]) throws(SystemError) {
    guard !records.isEmpty else { return }
    var work = seal(records, group: 0)
    if let error = write(&work) { throw error }
    noteWritten(work)
  }
}
