import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The first and last records of a segment file, read from its two ends without the rest:
/// what start-up needs of the sealed segments before its snapshot (that they are all there,
/// named in order and linked), and what `archive` records of each segment it moves.
enum SegmentEnds {
  /// How much is read at a time from either end (a record is rarely longer; a longer one is
  /// read on in steps of this).
  static let chunk = 16 << 10

  /// The first record of the segment at `path` and, with `last`, its last one (nil when the
  /// file cannot be read, or a line at either end is not a whole record as registerd writes
  /// it: then whoever asked reads the segment whole, to say what is wrong with it).
  static func read(_ path: String, last: Bool = true) -> (
    first: SegmentChain.RecordLink, last: SegmentChain.RecordLink?
  )? {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    let size = Int(info.st_size)
    var end = size
    // A sealed segment ends with its last record; only an open one has zeros after them.
    if size > 0, byte(fd, at: size - 1) == 0 {
      guard let records = try? JournalFiles.recordsEnd(fd, size: size, path: path) else {
        return nil
      }
      end = records
    }
    guard let firstLine = firstLine(fd, end: end), let first = SegmentChain.link(firstLine[...])
    else { return nil }
    guard last else { return (first, nil) }
    guard let lastLine = lastLine(fd, end: end), let final = SegmentChain.link(lastLine[...])
    else { return nil }
    return (first, final)
  }

  /// The byte at `offset` (nil when it cannot be read).
  private static func byte(_ fd: Int32, at offset: Int) -> UInt8? {
    var value: UInt8 = 0
    guard retryingOnInterrupt({ pread(fd, &value, 1, off_t(offset)) }) == 1 else { return nil }
    return value
  }

  /// The bytes of `range` of the file (nil when they cannot all be read).
  private static func bytes(_ fd: Int32, _ range: Range<Int>, size: Int) -> [UInt8]? {
    guard range.upperBound <= size else { return nil }
    var result = [UInt8](repeating: 0, count: range.count)
    var done = 0
    while done < range.count {
      let count = result.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt {
          pread(
            fd, buffer.baseAddress.map { $0 + done }, range.count - done,
            off_t(range.lowerBound + done))
        }
      }
      guard count > 0 else { return nil }
      done += count
    }
    return result
  }

  /// The file's first line up to `end`, without its newline (nil when there is no newline).
  private static func firstLine(_ fd: Int32, end: Int) -> [UInt8]? {
    var line: [UInt8] = []
    while line.count < end {
      let upper = min(end, line.count + chunk)
      guard let part = bytes(fd, line.count..<upper, size: end) else { return nil }
      if let newline = part.firstIndex(of: UInt8(ascii: "\n")) {
        return line + part[..<newline]
      }
      line += part
    }
    return nil
  }

  /// The file's last line before `end`, without its newline (nil when the file does not end
  /// with one).
  private static func lastLine(_ fd: Int32, end: Int) -> [UInt8]? {
    guard end > 0, byte(fd, at: end - 1) == UInt8(ascii: "\n") else { return nil }
    var line: [UInt8] = []
    var start = end - 1
    while start > 0 {
      let lower = max(0, start - chunk)
      guard let part = bytes(fd, lower..<start, size: end) else { return nil }
      if let newline = part.lastIndex(of: UInt8(ascii: "\n")) {
        return Array(part[(newline + 1)...]) + line
      }
      line = part + line
      start = lower
    }
    return line
  }
}
