import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The journal's files under a data directory, and recovery at start-up.
///
/// The journal is a sequence of segment files in `DATA/journal/`, one per business day (a busy
/// day can run over into more than one), named after the day and the sequence number of their
/// first record: `day000042-seq000000205001.ndjson`. Names sort in journal order. The last
/// segment is the open one, appended to; the others are sealed (made read-only) and never
/// written again. The hash chain runs on across segments unbroken: the first record of a
/// segment carries the sum of the last record of the one before as its `prev`.
public enum JournalFiles {
  /// The single journal file of registerd before segments; moved into `journal/` at start-up.
  public static let legacyFileName = "journal.ndjson"
  /// The directory of segments, under the data directory.
  public static let segmentDirectoryName = "journal"
  /// The size past which the open segment is ended at the next group (a day that rings more
  /// than this goes on in a new segment of the same day).
  public static let defaultSegmentLimit = 64 << 20

  public static func segmentDirectory(in directory: String) -> String {
    directory + "/" + segmentDirectoryName
  }

  public static func legacyPath(in directory: String) -> String {
    directory + "/" + legacyFileName
  }

  /// One segment file.
  public struct Segment: Sendable, Equatable {
    public var path: String
    /// The business day of its first record.
    public var day: Int
    /// The sequence number of its first record.
    public var firstSequence: Int64

    public init(directory: String, day: Int, firstSequence: Int64) {
      self.day = day
      self.firstSequence = firstSequence
      path = JournalFiles.segmentDirectory(in: directory) + "/" + Self.name(day, firstSequence)
    }

    public var name: String { Self.name(day, firstSequence) }

    static func name(_ day: Int, _ firstSequence: Int64) -> String {
      stem(day: day, sequence: firstSequence) + ".ndjson"
    }

    /// `dayNNNNNN-seqNNNNNNNNNNNN`: how segments, and snapshots after them, name a day and a
    /// record (names sort in journal order).
    static func stem(day: Int, sequence: Int64) -> String {
      dayName(day) + "-seq" + padded(Int(clamping: sequence), 12)
    }

    /// `dayNNNNNN`.
    static func dayName(_ day: Int) -> String { "day" + padded(day, 6) }

    /// Reads a segment's file name (nil for any other file: temporaries, torn tails).
    public static func parse(_ name: String) -> (day: Int, firstSequence: Int64)? {
      let bytes = Array(name.utf8)
      // day + ≥6 digits + -seq + ≥12 digits + .ndjson
      guard name.hasPrefix("day"), name.hasSuffix(".ndjson"),
        let dash = bytes.firstIndex(of: UInt8(ascii: "-"))
      else { return nil }
      let dayDigits = bytes[3..<dash]
      let rest = bytes[(dash + 1)...]
      guard rest.starts(with: Array("seq".utf8)), rest.count > 3 + 7 else { return nil }
      let sequenceDigits = rest.dropFirst(3).dropLast(7)
      guard dayDigits.count >= 6, sequenceDigits.count >= 12,
        dayDigits.allSatisfy({ (0x30...0x39).contains($0) }),
        sequenceDigits.allSatisfy({ (0x30...0x39).contains($0) }),
        let day = Int(String(decoding: dayDigits, as: UTF8.self)), day >= 1,
        let first = Int64(String(decoding: sequenceDigits, as: UTF8.self)), first >= 1
      else { return nil }
      return (day, first)
    }

    static func padded(_ number: Int, _ width: Int) -> String {
      let digits = String(number)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
  }

  /// The segments under `directory` that hold records, in journal order (empty when there
  /// are none).
  ///
  /// A segment file without a record (empty, or zeros only) holds nothing of the journal, and
  /// every reader leaves it out, so that `verify`, `backup`, `archive`, `replay` and start-up
  /// agree: it is either the next segment, made before a crash or a stop that came before
  /// anything was written to it (start-up appends to it when it is named for the record the
  /// journal continues with), or one whose making failed half way (its directory entry could
  /// not be made durable) while the writer went on in the segment it was in, which start-up
  /// removes (`recover`).
  public static func segments(in directory: String) throws(SystemError) -> [Segment] {
    try listing(in: directory).segments
  }

  /// Every segment file under `directory`, in journal order: those that hold records, and
  /// those that do not.
  static func listing(in directory: String) throws(SystemError) -> (
    segments: [Segment], withoutRecords: [Segment]
  ) {
    let folder = segmentDirectory(in: directory)
    guard FileIO.exists(folder) else { return ([], []) }
    // Listed only if it is the data directory's own folder: never through a planted link.
    let all = try FileIO.listOwnDirectory(folder).compactMap { name in
      Segment.parse(name).map {
        Segment(directory: directory, day: $0.day, firstSequence: $0.firstSequence)
      }
    }.sorted { $0.firstSequence < $1.firstSequence }
    var segments: [Segment] = []
    var withoutRecords: [Segment] = []
    for segment in all {
      if holdsRecords(segment.path) {
        segments.append(segment)
      } else {
        withoutRecords.append(segment)
      }
    }
    return (segments, withoutRecords)
  }

  /// False only for a regular file without a record: empty, or zeros only (what the daemon
  /// writes ahead). Anything that cannot be opened or is not a regular file counts as holding
  /// records, so that whoever reads it next says what is wrong with it. Costs a stat and a
  /// one-byte read for a segment that ends with its last record.
  static func holdsRecords(_ path: String) -> Bool {
    // O_NONBLOCK: a FIFO planted at a segment's name is not waited on.
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
    guard fd >= 0 else { return true }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return true }
    let size = Int(info.st_size)
    guard size > 0 else { return false }
    var last: UInt8 = 0
    guard retryingOnInterrupt({ pread(fd, &last, 1, off_t(size - 1)) }) == 1 else { return true }
    if last != 0 { return true }
    return ((try? recordsEnd(fd, size: size, path: path)) ?? 1) > 0
  }

  /// Every byte of the journal's records, segments in order (for tools and tests; a year is
  /// large).
  public static func readAll(in directory: String) throws(SystemError) -> [UInt8] {
    var bytes: [UInt8] = []
    for segment in try segments(in: directory) {
      bytes.append(contentsOf: try readSegment(segment.path))
    }
    return bytes
  }

  /// A segment's bytes without the zeros the daemon writes ahead of its records in the open
  /// segment (`FileJournalStorage`): a record never ends with a zero byte, so the zeros at the
  /// end of a file are never part of one. Never through a symbolic link.
  public static func readSegment(_ path: String) throws(SystemError) -> [UInt8] {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
    guard fd >= 0 else { throw SystemError("open", path: path) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError("fstat", path: path) }
    let end = try recordsEnd(fd, size: Int(info.st_size), path: path)
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: end) { buffer, count in
      var done = 0
      while done < end {
        let read = retryingOnInterrupt {
          pread(fd, buffer.baseAddress.map { $0 + done }, end - done, off_t(done))
        }
        if read <= 0 {
          failed = true
          break
        }
        done += read
      }
      count = done
    }
    if failed { throw SystemError("read", path: path) }
    return bytes
  }

  /// Where the records of a segment file of `size` bytes end: before the zeros at its end
  /// (read backwards a block at a time; only the last block with data is looked into).
  static func recordsEnd(_ fd: Int32, size: Int, path: String) throws(SystemError) -> Int {
    let blockSize = 65_536
    var block = [UInt8](repeating: 0, count: blockSize)
    let zeros = [UInt8](repeating: 0, count: blockSize)
    var end = size
    while end > 0 {
      let start = max(0, end - blockSize)
      let count = end - start
      let read = block.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt { pread(fd, buffer.baseAddress, count, off_t(start)) }
      }
      guard read == count else { throw SystemError("read", path: path) }
      let allZero = block.withUnsafeBytes { data in
        zeros.withUnsafeBytes {
          memcmp(data.baseAddress.unsafelyUnwrapped, $0.baseAddress.unsafelyUnwrapped, count) == 0
        }
      }
      if !allZero {
        return start + (block[0..<count].lastIndex { $0 != 0 } ?? -1) + 1
      }
      end = start
    }
    return 0
  }

  /// The open segment's path (the last segment file, with records or not yet), nil when the
  /// journal has none yet.
  public static func openSegmentPath(in directory: String) -> String? {
    guard let listing = try? listing(in: directory) else { return nil }
    return (listing.segments + listing.withoutRecords).max { $0.firstSequence < $1.firstSequence }?
      .path
  }

  // MARK: - Reading across segments

  /// Where the chain stands after reading segments.
  public struct ChainScan: Sendable {
    public var lastSequence: Int64
    public var lastSum: String
    /// Complete records read.
    public var records: Int = 0
    /// Bytes of the segments read.
    public var bytes: Int = 0
    /// The chain point asked for is not in the journal: the journal ends before it, or its
    /// record there has another sum (a snapshot that does not belong to this journal, or a
    /// journal cut or rewritten after it). Nothing was read past it.
    public var startMismatch: String?
    /// The first damage found: the segment's path and what is wrong. Reading stops there.
    public var damage: (path: String, damage: JournalDamage)?
    /// The last segment's torn or unreadable tail, if any: its path, the good length and why.
    public var tail: (segment: Segment, goodLength: Int, length: Int, reason: String)?

    public init(lastSequence: Int64, lastSum: String) {
      self.lastSequence = lastSequence
      self.lastSum = lastSum
    }
  }

  /// Reads `segments` in order from the chain point (`sequence`, `sum`: the record before
  /// the first wanted; sum nil when not known) and hands each segment's scan to `body`,
  /// records before `sequence` + 1 left out. Damage stops the reading; a torn tail is only
  /// allowed at the end of the last segment (a sealed segment was complete when sealed). With
  /// `key`, each record handed on must carry a MAC the key made (one that does not is damage).
  public static func read(
    _ segments: [Segment], after sequence: Int64, sum: String?, key: HMACSHA256? = nil,
    until done: () -> Bool = { false },
    _ body: (Segment, [JournalRecord]) throws(RecoveryError) -> Void
  ) throws(RecoveryError) -> ChainScan {
    try read(segments, after: sequence, sum: sum, key: key, ahead: nil, until: done, body)
  }

  /// The index of the segment that holds record `sequence` (the first segment for 0): where
  /// reading after it starts.
  static func pointSegment(in segments: [Segment], after sequence: Int64) -> Int {
    segments.lastIndex { $0.firstSequence <= max(sequence, 1) } ?? 0
  }

  /// As above, taking each segment's bytes (and scan, when it is the one this would make)
  /// from `ahead` when it reads these segments from this point.
  static func read(
    _ segments: [Segment], after sequence: Int64, sum: String?, key: HMACSHA256? = nil,
    ahead: SegmentsAhead?, until done: () -> Bool = { false },
    _ body: (Segment, [JournalRecord]) throws(RecoveryError) -> Void
  ) throws(RecoveryError) -> ChainScan {
    let ahead = ahead.flatMap { $0.segments == segments && $0.point == sequence ? $0 : nil }
    var chain = ChainScan(lastSequence: sequence, lastSum: sum ?? JournalRecord.genesis)
    var knownSum = sum
    // Segments wholly before the point are skipped; the one holding the point's record is read
    // from its start, its records up to the point only checked (the point's own sum must be
    // the one expected).
    let start = pointSegment(in: segments, after: sequence)
    for index in segments.indices where index >= start {
      let segment = segments[index]
      let prepared = ahead?.take(index)
      let bytes: [UInt8]
      do {
        if let prepared {
          bytes = try prepared.bytes.get()
        } else {
          bytes = try readSegment(segment.path)
        }
      } catch {
        throw RecoveryError("cannot read the journal segment \(segment.path): \(error)")
      }
      chain.bytes += bytes.count
      let holdsPoint = index == start && sequence > 0 && segment.firstSequence <= sequence
      if holdsPoint, let known = knownSum, bytes.last == UInt8(ascii: "\n") {
        // The point is usually the segment's last record (a snapshot is taken after a close
        // of day or a full segment): then that one line is all that needs reading.
        let body = bytes[..<(bytes.endIndex - 1)]
        let lineStart = (body.lastIndex(of: UInt8(ascii: "\n")) ?? (body.startIndex - 1)) + 1
        if let last = try? JournalRecord.decode(line: body[lineStart...]),
          last.sequence == sequence, !last.more
        {
          guard last.sum == known else {
            chain.startMismatch = "record \(sequence) has sum \(last.sum), not \(known)"
            return chain
          }
          if done() { return chain }
          continue
        }
      }
      let firstSequence = holdsPoint ? segment.firstSequence : chain.lastSequence + 1
      let previousSum = holdsPoint ? nil : knownSum
      let scan: JournalScan
      if let early = prepared?.scan, firstSequence == segment.firstSequence,
        previousSum == nil || early.records.first?.previous == previousSum
      {
        // Scanned ahead from the same first sequence number, and its first record follows
        // the one expected: the very scan this would make.
        scan = early
      } else {
        scan = JournalScanner.scan(
          bytes, firstSequence: firstSequence, previousSum: previousSum, macKey: key,
          keyedAfter: holdsPoint ? sequence : 0)
      }
      var records = scan.records
      if holdsPoint {
        let skipped = records.prefix { $0.sequence <= sequence }
        if scan.damage == nil, skipped.last?.sequence != sequence {
          chain.startMismatch =
            "the journal ends at seq \(skipped.last?.sequence ?? segment.firstSequence - 1), before seq \(sequence)"
          return chain
        }
        if let known = knownSum, let last = skipped.last, last.sequence == sequence,
          last.sum != known
        {
          chain.startMismatch = "record \(sequence) has sum \(last.sum), not \(known)"
          return chain
        }
        if let last = skipped.last, last.sequence == sequence { knownSum = last.sum }
        records.removeFirst(skipped.count)
      } else if segment.firstSequence != chain.lastSequence + 1, !bytes.isEmpty {
        chain.damage = (
          segment.path,
          misplaced(
            segment, bytes: bytes, continuing: chain.lastSequence + 1, after: knownSum)
        )
        return chain
      }
      if let damage = scan.damage {
        // The records before it in this segment are intact: the chain ends with them.
        if let last = records.last {
          chain.lastSequence = last.sequence
          chain.lastSum = last.sum
        }
        chain.damage = (segment.path, damage)
        return chain
      }
      if scan.tailLength > 0 {
        let isLast = index == segments.count - 1
        guard isLast else {
          chain.damage = (
            segment.path,
            JournalDamage(
              line: scan.records.count + 1, sequence: nil, offset: scan.goodLength,
              problem:
                "a sealed segment ends with an incomplete record (\(scan.tailReason ?? "unknown"))"
            )
          )
          return chain
        }
        chain.tail = (
          segment, scan.goodLength, bytes.count, scan.tailReason ?? "unreadable"
        )
      }
      if let last = records.last {
        chain.lastSequence = last.sequence
        chain.lastSum = last.sum
        knownSum = last.sum
      }
      chain.records += records.count
      try body(segment, records)
      if done() { return chain }
    }
    return chain
  }

  /// The damage of a segment whose name is not the record the journal continues with
  /// (`next`, after the record whose sum is `previous`), and how to repair it without losing
  /// a record: a segment whose records do continue the journal is only misnamed (renamed
  /// back); records missing before it are put back from where they are.
  static func misplaced(
    _ segment: Segment, bytes: [UInt8], continuing next: Int64, after previous: String?
  ) -> JournalDamage {
    let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
    let first = try? JournalRecord.decode(line: bytes[..<lineEnd])
    let problem =
      "the segment is named for seq \(segment.firstSequence) but the journal continues at seq \(next) (a segment was removed, renamed or inserted)"
    if let first, first.sequence == next, previous.map({ $0 == first.previous }) ?? true {
      let right = Segment(
        directory: FileIO.parentDirectory(of: FileIO.parentDirectory(of: segment.path)),
        day: segment.day, firstSequence: next)
      return JournalDamage(
        line: 1, sequence: first.sequence, offset: 0,
        problem: problem
          + "; its first record is seq \(next) and follows the segment before it, so only its name is wrong",
        repair:
          "rename it after its first record (nothing is lost): mv \(segment.path) \(right.path)")
    }
    if segment.firstSequence > next {
      return JournalDamage(
        line: 1, sequence: first?.sequence, offset: 0,
        problem: problem + "; records \(next)-\(segment.firstSequence - 1) are missing",
        repair:
          "put back the segment(s) holding records \(next)-\(segment.firstSequence - 1), from a backup or from the directory `register-cli archive` moved them to (keep this segment and those after it: their records are not lost)"
      )
    }
    return JournalDamage(line: 1, sequence: first?.sequence, offset: 0, problem: problem)
  }

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

  // MARK: - Recovery

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
