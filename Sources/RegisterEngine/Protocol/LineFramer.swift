/// Splits a byte stream into newline-terminated lines, with a bound on line length.
///
/// A line longer than `maximumLineLength` is reported once (as a `nil` line) and the rest of
/// it is skipped up to its newline, so one oversized request never grows memory and the
/// connection stays usable. A trailing `\r` is dropped; blank lines are skipped.
public struct LineFramer: Sendable {
  /// 64 KiB: far more than any request needs.
  public static let maximumLineLength = 65_536

  private var buffer: [UInt8] = []
  private var discarding = false
  public let limit: Int

  public init(limit: Int = LineFramer.maximumLineLength) {
    self.limit = limit
  }

  /// Bytes buffered towards an incomplete line.
  public var pendingCount: Int { buffer.count }

  /// True while a line has begun and its newline has not arrived (including an oversized line
  /// whose rest is being skipped).
  public var isInsideLine: Bool { discarding || !buffer.isEmpty }

  /// Feeds bytes in; returns the complete lines they finish (`nil` for an oversized line).
  public mutating func feed(_ bytes: [UInt8]) -> [[UInt8]?] {
    bytes.withUnsafeBufferPointer { feed(contiguous: $0) }
  }

  /// Feeds bytes in; returns the complete lines they finish (`nil` for an oversized line).
  public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [[UInt8]?] {
    bytes.withUnsafeBufferPointer { feed(contiguous: $0) }
  }

  /// The framing itself, over contiguous bytes (a concrete type: this runs for every byte a
  /// client sends, and a generic version called from another module is not specialized).
  private mutating func feed(contiguous bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]?] {
    var lines: [[UInt8]?] = []
    var start = 0
    let count = bytes.count
    while start < count {
      var newline = start
      while newline < count && bytes[newline] != UInt8(ascii: "\n") { newline += 1 }
      guard newline < count else {
        if !discarding {
          buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
          // A CRLF line exactly at the limit may hold one byte more, its "\r".
          let over = buffer.count - limit
          if over > 1 || (over == 1 && buffer.last != UInt8(ascii: "\r")) {
            lines.append(nil)
            buffer.removeAll()
            discarding = true
          }
        }
        break
      }
      if discarding {
        discarding = false
      } else if buffer.isEmpty {
        // The whole line is in these bytes (the usual case): copied once.
        var end = newline
        if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if line.count > limit {
          lines.append(nil)
        } else if !Self.isBlank(line) {
          lines.append(Array(line))
        }
      } else {
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<newline]))
        if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
        if buffer.count > limit {
          lines.append(nil)
        } else if !buffer.withUnsafeBufferPointer(Self.isBlank) {
          lines.append(buffer)
        }
        buffer = []
      }
      start = newline + 1
    }
    return lines
  }

  /// Only spaces and tabs (or nothing): a line to skip.
  private static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
    line.allSatisfy { $0 == 0x20 || $0 == 0x09 }
  }

  /// Ends the stream: the bytes after the last newline are a line too (a client may send its
  /// last request without a newline and then shut down its side). Returns that line, `nil` for
  /// one that was too long, or nothing when there was no unfinished line.
  public mutating func finish() -> [[UInt8]?] {
    defer {
      buffer.removeAll()
      discarding = false
    }
    // An oversized line was already reported when it passed the limit.
    guard !discarding else { return [] }
    return feed([UInt8(ascii: "\n")])
  }
}
