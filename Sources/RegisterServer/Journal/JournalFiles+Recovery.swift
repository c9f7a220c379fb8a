import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The register a data directory's journal gives (the newest good snapshot and the records
/// after it), and recovery at start-up: the legacy file moved in, a torn tail set aside.
extension JournalFiles {
  /// The register a data directory's journal gives: the newest good snapshot (with a state
  /// day up to `snapshotDay`, when given) and the records after it, read up to the end or
  /// until `done` (checked after each segment). Read-only: a torn tail is left where it is.
  public struct Loaded {
    public var register: Register
    public var chain: ChainScan
    /// The snapshot started from (nil: the whole journal was read).
    public var snapshot: SnapshotFiles.Snapshot?
    /// Newer snapshots that could not be used, and why.
    public var skippedSnapshots: [String]
  }

  /// The segments before the snapshot's record are not read: they are checked from their
  /// ends only (`unreadSegmentsDamage`). With `key`, every record applied must carry a MAC the
  /// key made.
  public static func load(
    _ directory: String, segments: [Segment], snapshotDay: Int? = nil, key: HMACSHA256? = nil,
    through last: Int64 = .max, until done: (Register) -> Bool = { _ in false }
  ) throws(RecoveryError) -> Loaded {
    var register = Register()
    var from = JournalHead(sequence: 0, sum: JournalRecord.genesis)
    // The segments after the snapshot expected (the newest, by name) are read and scanned on
    // another thread while it loads; if another one is loaded in the end, they are not used.
    let expected = SnapshotFiles.candidates(in: directory, upToDay: snapshotDay).first
    let ahead = SegmentsAhead(
      segments: segments, after: expected?.sequence ?? 0, throughDay: snapshotDay, key: key)
    defer { ahead.stop() }
    var (loaded, skipped) = SnapshotFiles.loadNewest(in: directory, upToDay: snapshotDay)
    let snapshot = loaded?.snapshot
    // The register is moved out of what the snapshot load returned, not copied: a copy left
    // there would share every part's storage, and the first change to each part (the
    // products' stock at the first sale) would then copy that part whole.
    if let found = loaded.take() {
      register = found.register
      from = found.head
    }
    if from.sequence != ahead.point { ahead.stop() }
    register.archiveReceipts([], reader: FileReceiptArchive(dataDirectory: directory))
    if from.sequence > 0, !segments.isEmpty,
      let damaged = unreadSegmentsDamage(
        segments, through: pointSegment(in: segments, after: from.sequence),
        start: try start(of: segments, in: directory), in: directory)
    {
      return Loaded(
        register: register, chain: damaged, snapshot: snapshot, skippedSnapshots: skipped)
    }
    let apply = { (_: Segment, records: [JournalRecord]) throws(RecoveryError) in
      if let after = records.last?.sequence, after > last {
        try register.replay(records.prefix { $0.sequence <= last })
      } else {
        try register.replay(records)
      }
    }
    let chain = try read(
      segments, after: from.sequence, sum: from.sum, key: key, ahead: ahead,
      until: { done(register) }, apply)
    if let mismatch = chain.startMismatch, let snapshot {
      throw RecoveryError(
        """
        the snapshot \(snapshot.path) is the register as of journal record \(from.sequence), but \(mismatch).
        Acknowledged records may be missing from the journal, or it was rewritten. Nothing was changed.
        Restore the data directory from a backup; or, to start from the journal as it is, move
        \(SnapshotFiles.directory(in: directory)) aside (the whole journal is then replayed).
        """)
    }
    return Loaded(
      register: register, chain: chain, snapshot: snapshot, skippedSnapshots: skipped)
  }

  /// What recovery found and did.
  public struct Recovery {
    public var register: Register
    /// Where the chain stands: the last complete record.
    public var lastSequence: Int64
    public var lastSum: String
    /// Records read and replayed at start-up.
    public var recordsRead: Int
    /// The segment to append to (it may not exist yet).
    public var openSegment: Segment
    /// The torn tail set aside, if there was one: where it went, its length and why.
    public var setAside: (path: String, length: Int, reason: String)?
    /// The legacy single journal file was moved into the segment directory.
    public var migratedLegacyJournal = false
    /// The snapshot started from (nil: the whole journal was replayed).
    public var snapshot: SnapshotFiles.Snapshot?
    /// Newer snapshots that could not be used, and why.
    public var skippedSnapshots: [String] = []
    /// Segment files without records removed: each was being made when making it failed.
    public var removedSegments: [String] = []

    /// The recovered register, moved out (an empty one is left here). A copy kept here for
    /// the life of the process would share every part's storage with the running register,
    /// and the running register's first change to each part (the products' stock at the
    /// first sale) would then copy that part whole, and keep both.
    public mutating func takeRegister() -> Register {
      var taken = Register()
      swap(&taken, &register)
      return taken
    }

    /// A storage appending to the open segment.
    public func openStorage(segmentLimit: Int = JournalFiles.defaultSegmentLimit)
      throws(SystemError) -> FileJournalStorage
    {
      try FileJournalStorage(segment: openSegment, segmentLimit: segmentLimit)
    }
  }

  /// Reads the journal under `directory` (creating the directory when missing), sets a torn
  /// tail aside, and replays every complete record. Damage before the tail is an error that
  /// names the record and says how to repair. With the journal `key`, a record replayed
  /// without a MAC the key made is damage too.
  public static func recover(
    directory: String, now: Timestamp, key: HMACSHA256? = nil
  ) throws(RecoveryError) -> Recovery {
    // The data directory and the journal must be the daemon's own: no symbolic link, nothing
    // others can write (checked before anything is created, read or written).
    if let reason = FileIO.unsafeDirectoryReason(directory, what: "the data directory") {
      throw RecoveryError("\(reason). Nothing was changed.")
    }
    do {
      try FileIO.makeDirectories(directory)
    } catch {
      throw RecoveryError("cannot create the data directory: \(error)")
    }
    if let reason = FileIO.unsafeDirectoryReason(directory, what: "the data directory") {
      throw RecoveryError("\(reason). Nothing was changed.")
    }
    let folder = segmentDirectory(in: directory)
    // Snapshots and the receipt archive are read at start-up as the register's own state: a
    // link in their place would have it start from whatever the link leads to.
    for (path, what) in [
      (folder, "the journal directory"),
      (SnapshotFiles.directory(in: directory), "the snapshot directory"),
      (SnapshotFiles.receiptsDirectory(in: directory), "the receipt archive directory"),
    ] {
      if let reason = FileIO.unsafeDirectoryReason(path, what: what) {
        throw RecoveryError("\(reason). Nothing was changed.")
      }
    }
    let legacy = legacyPath(in: directory)
    if let reason = FileIO.unsafeFileReason(legacy, what: "the journal") {
      throw RecoveryError(reason)
    }
    var segments: [Segment]
    let withoutRecords: [Segment]
    do {
      (segments, withoutRecords) = try listing(in: directory)
    } catch {
      throw RecoveryError("cannot read the journal directory \(folder): \(error)")
    }
    for segment in segments + withoutRecords {
      if let reason = FileIO.unsafeFileReason(segment.path, what: "the journal segment") {
        throw RecoveryError(reason)
      }
    }
    var migrated = false
    if FileIO.exists(legacy) {
      guard segments.isEmpty else {
        throw RecoveryError(
          "both \(legacy) (a journal of an older registerd) and segments in \(folder) exist; "
            + "move one of them away. Nothing was changed.")
      }
      // The single file of an older registerd becomes the first segment (it starts at seq 1 on
      // day 1), by one rename: a crash leaves it at one name or the other.
      let first = Segment(directory: directory, day: 1, firstSequence: 1)
      do {
        try FileIO.makeDirectories(folder)
        try FileIO.syncDirectory(directory)
        try FileIO.move(legacy, to: first.path)
        try FileIO.syncDirectory(folder)
        try FileIO.syncDirectory(directory)
      } catch {
        throw RecoveryError("cannot move \(legacy) into \(folder): \(error)")
      }
      segments = [first]
      migrated = true
    }

    let loaded = try load(directory, segments: segments, key: key)
    let chain = loaded.chain
    if let (path, damage) = chain.damage {
      throw RecoveryError(damaged: path, damage, intactUpTo: chain.lastSequence, in: directory)
    }
    var setAside: (String, Int, String)?
    if let tail = chain.tail {
      let aside =
        directory + "/" + tail.segment.name
        + ".torn-\(chain.lastSequence + 1)-\(now.epochMilliseconds)"
      do {
        let bytes = try readSegment(tail.segment.path)
        try FileIO.writeAtomically(Array(bytes[tail.goodLength...]), to: aside, mode: 0o600)
        let storage = try FileJournalStorage(segment: tail.segment)
        try storage.truncate(to: tail.goodLength)
        try FileIO.syncDirectory(directory)
      } catch {
        throw RecoveryError("cannot set the torn journal tail aside: \(error)")
      }
      setAside = (aside, tail.length - tail.goodLength, tail.reason)
    }
    let open = openSegment(
      after: segments, withoutRecords: withoutRecords, next: chain.lastSequence + 1,
      day: loaded.register.day.number, directory: directory)
    let removed = removeSegments(withoutRecords.filter { $0 != open }, in: folder)
    return Recovery(
      register: loaded.register, lastSequence: chain.lastSequence, lastSum: chain.lastSum,
      recordsRead: chain.records, openSegment: open, setAside: setAside,
      migratedLegacyJournal: migrated, snapshot: loaded.snapshot,
      skippedSnapshots: loaded.skippedSnapshots, removedSegments: removed)
  }

  /// The segment to append to once the journal has been read up to record `next` - 1: a
  /// segment without records named for `next` (the next one, made before a stop or a crash
  /// that came before its first write), else the last segment with records unless it is
  /// sealed, else a new one of the register's `day` named for `next`.
  static func openSegment(
    after segments: [Segment], withoutRecords: [Segment], next: Int64, day: Int,
    directory: String
  ) -> Segment {
    if let waiting = withoutRecords.last(where: { $0.firstSequence == next }),
      waiting.firstSequence > segments.last?.firstSequence ?? 0
    {
      return waiting
    }
    if let last = segments.last, !isSealed(last.path) { return last }
    return Segment(directory: directory, day: day, firstSequence: next)
  }

  /// True for a segment made read-only: sealed, never written again.
  static func isSealed(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & 0o222 == 0
  }

  /// Removes segment files without records that are not the one appended to: each was being
  /// made when making it failed, and holds nothing. Returns the paths removed (one that cannot
  /// be removed is left: every reader leaves it out anyway).
  static func removeSegments(_ segments: [Segment], in folder: String) -> [String] {
    let removed = segments.filter { unlink($0.path) == 0 }.map(\.path)
    if !removed.isEmpty { try? FileIO.syncDirectory(folder) }
    return removed
  }
}

extension RecoveryError {
  /// Start-up stopped by damage in segment `path`: what it is, what is intact, how to repair.
  init(
    damaged path: String, _ damage: JournalDamage, intactUpTo sequence: Int64, in directory: String
  ) {
    let repair =
      damage.repair
        ?? """
        restore the journal from a backup; or, to keep only the
        intact records, copy the journal directory aside, cut that segment at byte \(damage.offset)
        (truncate -s \(damage.offset) \(path)) and remove the segments after it — the records
        after it will be lost
        """
    self.init(
      """
      the journal segment \(path) is damaged: \(damage.description).
      Every record before it is intact (up to seq \(sequence)).
      Nothing was changed. To repair: \(repair).
      `register-cli verify --data-dir \(directory)` reports the same.
      """)
  }
}
