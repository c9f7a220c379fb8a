/// A segment's records checked as `verify` checks a chain — each record's checksum, its
/// sequence number, its `prev`, and with the journal key its MAC — straight from the lines'
/// bytes, without parsing them: the members a record carries around its `data` are at fixed
/// places (`{"seq":N,` at the start; `,"prev":"…"`, `,"mac":"…"` and `,"sum":"…"}` at the end;
/// `,"more":true` just before `prev`), so SHA-256 is most of the work.
///
/// It is the fast way to a yes: anything in the segment that is not exactly as registerd
/// writes it (a line that does not end as a record, a number out of order, a checksum or a
/// link that does not match, a torn or unterminated last line) makes `check` answer nil, and
/// the full scan (`JournalScanner`) then says what is wrong and where.
public struct SegmentChain: Sendable, Equatable {
  /// The first record's sequence number and `prev`.
  public var firstSequence: Int64
  public var firstPrevious: String
  /// The last record's sequence number and sum.
  public var lastSequence: Int64
  public var lastSum: String
  public var records: Int
  /// The last record has `"more": true`: the request it belongs to goes on past the segment.
  public var endsInsideRequest: Bool
  /// The sums of the records asked for, by sequence number.
  public var sums: [Int64: String]

  static let sequenceMarker = Array(#"{"seq":"#.utf8)
  static let previousMarker = Array(#","prev":""#.utf8)
  /// `,"prev":"` + 64 hex + `"`.
  static let previousLength = previousMarker.count + 64 + 1
  static let moreMarker = Array(#","more":true"#.utf8)

  /// The chain of the records in `bytes` (whole lines, each ending in a newline; nil when
  /// anything is not as registerd writes it, or `bytes` holds no record). `key`: every record
  /// must carry a MAC this key made. `wanted`: the records whose sums to keep.
  public static func check(
    _ bytes: ArraySlice<UInt8>, key: HMACSHA256? = nil, wanted: Set<Int64> = []
  ) -> SegmentChain? {
    bytes.withUnsafeBytes { buffer in check(buffer, key: key, wanted: wanted) }
  }

  private static func check(
    _ bytes: UnsafeRawBufferPointer, key: HMACSHA256?, wanted: Set<Int64>
  ) -> SegmentChain? {
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
    var first: (sequence: Int64, previous: Range<Int>)?
    var last: (sequence: Int64, sum: Range<Int>, more: Bool)?
    var records = 0
    var sums: [Int64: String] = [:]
    var start = 0
    while start < bytes.count {
      guard let end = newline(in: bytes, from: start),
        let link = Link(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), key: key)
      else { return nil }
      let previous = (start + link.previous.lowerBound)..<(start + link.previous.upperBound)
      let sum = (start + link.sum.lowerBound)..<(start + link.sum.upperBound)
      if let last {
        guard link.sequence == last.sequence + 1,
          equal(
            UnsafeRawBufferPointer(rebasing: bytes[previous]),
            UnsafeRawBufferPointer(rebasing: bytes[last.sum]))
        else { return nil }
      } else {
        first = (link.sequence, previous)
      }
      last = (link.sequence, sum, link.more)
      records += 1
      if wanted.contains(link.sequence) { sums[link.sequence] = text(sum) }
      start = end + 1
    }
    guard let first, let last else { return nil }
    return SegmentChain(
      firstSequence: first.sequence, firstPrevious: text(first.previous),
      lastSequence: last.sequence, lastSum: text(last.sum), records: records,
      endsInsideRequest: last.more, sums: sums)
  }

  /// One record's place in the chain, as its line carries it.
  public struct RecordLink: Sendable, Equatable {
    public var sequence: Int64
    /// Its `prev`: the sum of the record before it.
    public var previous: String
    public var sum: String
    /// `"more": true`: the next record belongs to the same request.
    public var more: Bool
  }

  /// The place in the chain of the record on `line` (without its newline), read where
  /// registerd writes its members, its checksum checked; nil when the line is not a record as
  /// registerd writes it. What start-up reads of the segments it does not replay: their first
  /// and last records.
  public static func link(_ line: ArraySlice<UInt8>) -> RecordLink? {
    line.withUnsafeBytes { buffer in
      guard let link = Link(buffer, key: nil) else { return nil }
      func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
      }
      return RecordLink(
        sequence: link.sequence, previous: text(link.previous), sum: text(link.sum),
        more: link.more)
    }
  }

  /// Where the next newline is, from `start` on: eight bytes at a time, then byte by byte.
  static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    var index = start
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
    while index + 8 <= bytes.count {
      let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ newlines
      // A zero byte in `word` (a newline in the text) sets its high bit here. The wrapping
      // subtraction is the bit trick itself (bytes compared in a word), not a count or money.
      if (word &- ones) & ~word & highs != 0 { break }
      index += 8
    }
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "\n") { return index }
      index += 1
    }
    return nil
  }

  /// Whether `a` and `b` hold the same bytes.
  static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    var index = 0
    while index + 8 <= a.count {
      guard
        a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
          == b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      else { return false }
      index += 8
    }
    while index < a.count {
      guard a[index] == b[index] else { return false }
      index += 1
    }
    return true
  }

  /// Whether `line` holds `marker` at `offset`.
  static func holds(_ line: UnsafeRawBufferPointer, _ marker: [UInt8], at offset: Int) -> Bool {
    offset >= 0 && offset + marker.count <= line.count
      && marker.withUnsafeBytes {
        equal(UnsafeRawBufferPointer(rebasing: line[offset..<(offset + marker.count)]), $0)
      }
  }

  /// What the chain needs of one line, found where registerd writes it (offsets in the
  /// line), with the line's checksum (and MAC) checked.
  struct Link {
    var sequence: Int64
    var previous: Range<Int>
    var sum: Range<Int>
    var more: Bool

    init?(_ line: UnsafeRawBufferPointer, key: HMACSHA256?) {
      let suffix = JournalRecord.suffixLength
      guard line.count > SegmentChain.sequenceMarker.count + suffix + SegmentChain.previousLength,
        SegmentChain.holds(line, SegmentChain.sequenceMarker, at: 0)
      else { return nil }
      // The sequence number: a JSON integer (no leading zero), then a comma.
      var index = SegmentChain.sequenceMarker.count
      var sequence: Int64 = 0
      let digitsStart = index
      while index < line.count, (0x30...0x39).contains(line[index]) {
        let digit = Int64(line[index] - 0x30)
        guard sequence <= (Int64.max - digit) / 10 else { return nil }
        sequence = sequence * 10 + digit
        index += 1
      }
      guard index > digitsStart, index - digitsStart == 1 || line[digitsStart] != 0x30,
        index < line.count, line[index] == UInt8(ascii: ","), sequence > 0
      else { return nil }
      // The end: `,"sum":"` + 64 hex + `"}`, the MAC before it when there is one, `prev` before
      // that.
      let sumMarkerStart = line.count - suffix
      guard SegmentChain.holds(line, JournalRecord.sumMarker, at: sumMarkerStart),
        line[line.count - 2] == UInt8(ascii: "\""), line[line.count - 1] == UInt8(ascii: "}")
      else { return nil }
      var previousEnd = sumMarkerStart
      let macStart = sumMarkerStart - JournalRecord.macLength
      let hasMAC =
        macStart > index && SegmentChain.holds(line, JournalRecord.macMarker, at: macStart)
      if hasMAC { previousEnd = macStart }
      if let key {
        guard hasMAC, line[sumMarkerStart - 1] == UInt8(ascii: "\"") else { return nil }
        let mac = String(
          decoding: UnsafeRawBufferPointer(
            rebasing: line[(macStart + JournalRecord.macMarker.count)..<(sumMarkerStart - 1)]),
          as: UTF8.self)
        guard JournalRecord.macIsValid(line, mac: mac, key: key) else { return nil }
      }
      let previousStart = previousEnd - SegmentChain.previousLength
      guard previousStart > index,
        SegmentChain.holds(line, SegmentChain.previousMarker, at: previousStart),
        line[previousEnd - 1] == UInt8(ascii: "\"")
      else { return nil }
      // The checksum: the SHA-256 of every byte before `,"sum":"`.
      guard JournalRecord.sumMatches(line) else { return nil }
      let sumStart = sumMarkerStart + JournalRecord.sumMarker.count
      let moreStart = previousStart - SegmentChain.moreMarker.count
      self.sequence = sequence
      previous = (previousStart + SegmentChain.previousMarker.count)..<(previousEnd - 1)
      sum = sumStart..<(sumStart + 64)
      more = moreStart > index && SegmentChain.holds(line, SegmentChain.moreMarker, at: moreStart)
    }
  }
}
