import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The journal's files under a data directory: the segments, listed and read one by one.
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
}
