import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading the journal across its segments from a chain point, checking the chain as it goes.
extension JournalFiles {
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
}
