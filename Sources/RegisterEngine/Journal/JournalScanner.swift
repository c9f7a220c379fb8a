/// The result of reading a journal file from the start.
public struct JournalScan: Sendable {
  /// Every good record, in order (records of a request whose last record is missing are not
  /// included: they belong to the tail).
  public var records: [JournalRecord]
  /// The byte length of the good part of the file.
  public var goodLength: Int
  /// Bytes after the good part: a torn or garbage tail to set aside, if any.
  public var tailLength: Int
  /// Why the tail is not good (nil when there is no tail).
  public var tailReason: String?
  /// Damage before the tail: a bad record followed by good ones. The journal cannot be used.
  public var damage: JournalDamage?

  public var isIntact: Bool { damage == nil && tailLength == 0 }
  /// The `sum` of the last good record (the genesis value for an empty journal).
  public var lastSum: String { records.last?.sum ?? JournalRecord.genesis }
  public var lastSequence: Int64 { records.last?.sequence ?? 0 }

  public init(
    records: [JournalRecord], goodLength: Int, tailLength: Int, tailReason: String?,
    damage: JournalDamage?
  ) {
    self.records = records
    self.goodLength = goodLength
    self.tailLength = tailLength
    self.tailReason = tailReason
    self.damage = damage
  }
}

/// A bad record in the middle of the journal: where, and what is wrong with it.
public struct JournalDamage: Error, Sendable, Equatable, CustomStringConvertible {
  /// 1-based line number.
  public var line: Int
  /// The record's sequence number, when it could be read.
  public var sequence: Int64?
  /// Byte offset where the bad record starts.
  public var offset: Int
  public var problem: String
  /// How to repair it when cutting the journal there is not the way (nil: restore a backup,
  /// or cut at `offset` and lose the records from there on).
  public var repair: String?

  public init(line: Int, sequence: Int64?, offset: Int, problem: String, repair: String? = nil) {
    self.line = line
    self.sequence = sequence
    self.offset = offset
    self.problem = problem
    self.repair = repair
  }

  public var description: String {
    let which = sequence.map { "record seq \($0)" } ?? "the record"
    return "\(which) (line \(line), byte \(offset)) is damaged: \(problem)"
  }
}

/// Reads a journal: checks every record's checksum, the sequence and the hash chain, and
/// separates a torn tail (a crash mid-write) from damage in the middle.
public enum JournalScanner {
  /// The size of the pages a file system writes: a write cut short by a crash may leave
  /// whole pages of it unwritten, not parts of one.
  static let pageSize = 4096

  /// True when the zero bytes from `start` on are space written ahead that no write reached:
  /// they run to the end of the bytes, or cover a whole page of the file. A record never
  /// holds a zero byte (JSON escapes control characters); zeros that are neither are damage,
  /// like any other garbage.
  static func unwrittenSpace(in bytes: [UInt8], from start: Int) -> Bool {
    let run = bytes[start...].firstIndex { $0 != 0 } ?? bytes.endIndex
    if run == bytes.endIndex { return true }
    let page = (start + pageSize - 1) / pageSize * pageSize
    return page + pageSize <= run
  }

  /// Scans `bytes`, a whole journal or one segment of it: its first record must be
  /// `firstSequence` and follow the record whose sum is `previousSum` (nil: not known, when a
  /// segment is read without the one before it; the chain is then checked from its first
  /// record on). With `macKey`, every whole record after `keyedAfter` must carry a MAC that key
  /// made: one that does not is damage, like a record whose checksum does not check out.
  public static func scan(
    _ bytes: [UInt8], firstSequence: Int64 = 1,
    previousSum: String? = JournalRecord.genesis, macKey: HMACSHA256? = nil,
    keyedAfter: Int64 = 0
  ) -> JournalScan {
    var records: [JournalRecord] = []
    var goodLength = 0
    var offset = 0
    var lineNumber = 0
    var expectedSequence = firstSequence
    var previousSum = previousSum
    // Records of the request in progress (a "more": true run), not yet known to be complete.
    var open: [JournalRecord] = []
    var firstBad: (line: Int, offset: Int, sequence: Int64?, problem: String)?

    while offset < bytes.count {
      lineNumber += 1
      let lineEnd = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
      if firstBad == nil, let zero = bytes[offset..<lineEnd].firstIndex(of: 0),
        unwrittenSpace(in: bytes, from: zero)
      {
        // Space the daemon wrote ahead with zeros that a write did not reach before a crash
        // (the file system may keep some pages of an unfinished write and not others). That
        // write was never acknowledged, so everything from this line on is its tail, even
        // where whole records of it follow.
        firstBad = (
          lineNumber, offset, nil,
          "zero bytes in the last line: a write was cut short over space written ahead"
        )
        break
      }
      guard lineEnd < bytes.endIndex else {
        if firstBad == nil {
          firstBad = (
            lineNumber, offset, nil, "incomplete last line (no newline): a write was cut short"
          )
        }
        break
      }
      let line = bytes[offset..<lineEnd]
      let start = offset
      offset = lineEnd + 1
      if firstBad != nil {
        // After a bad record, any line written whole as a record (its own checksum matches)
        // means the damage is not just a tail.
        if JournalRecord.carriesOwnChecksum(line) {
          let bad = firstBad.map {
            JournalDamage(
              line: $0.line, sequence: $0.sequence, offset: $0.offset, problem: $0.problem)
          }
          return JournalScan(
            records: records, goodLength: goodLength, tailLength: bytes.count - goodLength,
            tailReason: nil, damage: bad)
        }
        continue
      }
      do throws(JournalRecord.Problem) {
        let record = try JournalRecord.decode(line: line)
        guard record.sequence == expectedSequence else {
          throw JournalRecord.Problem.sequenceGap(
            expected: expectedSequence, found: record.sequence)
        }
        guard previousSum == nil || record.previous == previousSum else {
          throw JournalRecord.Problem.brokenChain
        }
        if let macKey, record.sequence > keyedAfter {
          guard let mac = record.mac else { throw JournalRecord.Problem.macMissing }
          guard JournalRecord.macIsValid(line, mac: mac, key: macKey) else {
            throw JournalRecord.Problem.macMismatch
          }
        }
        expectedSequence += 1
        previousSum = record.sum
        open.append(record)
        if !record.more {
          records.append(contentsOf: open)
          open.removeAll()
          goodLength = offset
        }
      } catch {
        let sequence = (try? JSONParser.parse(line))?["seq"]?.int64Value
        switch error {
        case .notJSON, .badShape:
          if JournalRecord.carriesOwnChecksum(line) {
            // Written whole, with its own checksum, yet not a record this register can read
            // (a value out of range, a member missing): changed and re-summed, or made by
            // something else. Setting it and what follows aside as a torn tail would drop
            // acknowledged records; it is damage, wherever it is.
            return JournalScan(
              records: records, goodLength: goodLength, tailLength: bytes.count - goodLength,
              tailReason: nil,
              damage: JournalDamage(
                line: lineNumber, sequence: sequence, offset: start,
                problem: error.description
                  + "; its checksum matches, so it was written whole (by a newer registerd, or changed and summed again)"
              ))
          }
          // Not a record at all: the start of a garbage tail, unless a good record follows.
          firstBad = (lineNumber, start, sequence, error.description)
        case .checksumMismatch, .sequenceGap, .brokenChain, .macMissing, .macMismatch:
          // A whole record that does not check out was changed, not torn by a crash: this is
          // damage wherever it is, even in the last line.
          return JournalScan(
            records: records, goodLength: goodLength, tailLength: bytes.count - goodLength,
            tailReason: nil,
            damage: JournalDamage(
              line: lineNumber, sequence: sequence, offset: start, problem: error.description,
              repair: error.repair))
        }
      }
    }
    var reason = firstBad?.problem
    if reason == nil && !open.isEmpty {
      reason =
        "the last request's records end with \"more\": true (its last record was never written)"
    }
    return JournalScan(
      records: records, goodLength: goodLength, tailLength: bytes.count - goodLength,
      tailReason: bytes.count > goodLength ? reason : nil, damage: nil)
  }
}
