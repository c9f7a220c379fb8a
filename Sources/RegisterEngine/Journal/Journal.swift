/// Where journal bytes go, and the files that follow from them. The file implementation
/// (RegisterServer's `FileJournalStorage`) appends and fsyncs; tests inject one that fails to
/// prove a failed write is never acknowledged.
public protocol JournalStorage: AnyObject {
  /// Appends `bytes` and makes them durable before returning. Throws if either step failed.
  func appendDurably(_ bytes: [UInt8]) throws(SystemError)
  /// Tries to cut the storage back to `length` bytes after a failed append (best effort).
  func truncate(to length: Int) throws(SystemError)
  /// Current length in bytes.
  var length: Int { get }
  /// Writes a file that follows from a durable group (an e-mailed receipt), atomically.
  func write(_ effect: FileEffect) throws(SystemError)
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

/// A sealed group of records, encoded and ready to be written with one write and one fsync.
public struct JournalWrite: Sendable {
  public var group: Int
  public var bytes: [UInt8]
  public var records: Int
  /// Files to write once the group is durable (the catalog after an edit, e-mailed receipts).
  public var effects: [FileEffect] = []
}

/// A file written atomically after the journal group it belongs to is on disk (by the
/// journal's storage, `JournalStorage.write(_:)`, on the writer's thread).
public struct FileEffect: Sendable, Equatable {
  public var path: String
  public var bytes: [UInt8]
  public var mode: UInt32
}

/// The append side of the journal: chains records, encodes a group of them for one write and
/// one fsync (group commit), and never pretends a failed write succeeded.
///
/// Encoding (which advances the chain) and writing are separate steps so that the daemon can
/// write one group on its writer thread while it handles the next requests; `append` does both
/// at once for callers that do not need that.
public final class Journal: @unchecked Sendable {
  /// Only the writer touches the storage (the daemon's writer thread, or `append`).
  public let storage: any JournalStorage
  public private(set) var lastSum: String
  public private(set) var lastSequence: Int64
  /// Records written since start, and groups (fsyncs) used for them.
  public private(set) var recordsWritten = 0
  public private(set) var batchesWritten = 0

  public init(storage: any JournalStorage, lastSum: String, lastSequence: Int64) {
    self.storage = storage
    self.lastSum = lastSum
    self.lastSequence = lastSequence
  }

  /// Encodes records into one write and advances the chain. Sequence numbers must continue
  /// from `lastSequence`.
  public func encode(_ records: [PendingRecord], group: Int) throws(SystemError) -> JournalWrite {
    var bytes: [UInt8] = []
    var sum = lastSum
    var sequence = lastSequence
    for record in records {
      sequence += 1
      guard record.sequence == sequence else {
        // EINVAL (22 on every platform registerd runs on): a caller's mistake, not the disk's.
        throw SystemError(
          "journal sequence \(record.sequence) out of order", code: 22, reason: "Invalid argument")
      }
      let encoded = Self.encode(record, previous: sum)
      sum = encoded.sum
      bytes.append(contentsOf: encoded.line)
    }
    lastSum = sum
    lastSequence = sequence
    return JournalWrite(group: group, bytes: bytes, records: records.count)
  }

  /// The chain's head once `records` (the ones not encoded yet, in order) are appended: the
  /// last of them with the sum it will have on disk. Encoding is deterministic, so this is
  /// the sum `encode` will give it.
  public func head(after records: [PendingRecord]) -> JournalHead {
    var sum = lastSum
    var sequence = lastSequence
    for record in records {
      sum = Self.encode(record, previous: sum).sum
      sequence = record.sequence
    }
    return JournalHead(sequence: sequence, sum: sum)
  }

  private static func encode(
    _ record: PendingRecord, previous: String
  ) -> (line: [UInt8], sum: String) {
    JournalRecord.encode(
      sequence: record.sequence, at: record.at, type: record.event.type,
      data: record.event.data, operatorID: record.operatorID, approvedBy: record.approvedBy,
      key: record.key, more: record.more, previous: previous)
  }

  /// Puts the chain back to where it was before a group that could not be written.
  public func rewind(toSum sum: String, sequence: Int64) {
    lastSum = sum
    lastSequence = sequence
  }

  /// Writes an encoded group durably. On failure the storage is cut back to where it was, if
  /// it can be, and the error is returned. Safe to call from the writer thread.
  public func write(_ work: JournalWrite) -> SystemError? {
    let lengthBefore = storage.length
    do {
      try storage.appendDurably(work.bytes)
    } catch {
      try? storage.truncate(to: lengthBefore)
      return error
    }
    // The changes are durable; now the files that follow from them. A failure here does not
    // undo anything (the journal is the record; the file is rewritten on the next edit or
    // start), it is reported.
    for effect in work.effects {
      do {
        try storage.write(effect)
      } catch {
        onEffectFailure(effect.path, error)
      }
    }
    return nil
  }

  /// Called (on the writer's thread) when a file could not be written after its group.
  public var onEffectFailure: @Sendable (String, SystemError) -> Void = { _, _ in }

  /// Counts a group that was written (called on the loop's thread).
  public func noteWritten(_ work: JournalWrite) {
    recordsWritten += work.records
    batchesWritten += 1
  }

  /// Encodes and writes records at once. On failure nothing of them counts.
  public func append(_ records: [PendingRecord]) throws(SystemError) {
    guard !records.isEmpty else { return }
    let sum = lastSum
    let sequence = lastSequence
    let work = try encode(records, group: 0)
    if let error = write(work) {
      rewind(toSum: sum, sequence: sequence)
      throw error
    }
    noteWritten(work)
  }
}
