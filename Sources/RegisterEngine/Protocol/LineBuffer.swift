/// A client's request bytes, framed into lines one line at a time, as each is taken.
///
/// What a client sends ahead of what is being handled stays here as its bytes, not as a line
/// each: a line held on its own costs an allocation (some 64 bytes) beyond its bytes, so
/// 16 KiB of two-byte requests framed at once would hold half a megabyte. Bytes that finish
/// no line are framed as they arrive (`LineFramer` keeps the unfinished line, and skips what
/// passes its length limit), so only complete lines, and the start of the next, wait here.
public struct LineBuffer: Sendable {
  private var framer = LineFramer()
  /// Received bytes not yet framed, from `start` on: complete lines, then possibly the start
  /// of the next.
  private var bytes: [UInt8] = []
  private var start = 0
  /// Newlines in `bytes[start...]`: how many lines wait (some may be blank).
  private var newlines = 0
  /// The stream ended: the unfinished last line is a line too, once the others are taken.
  private var ended = false
  /// What the framer reported while it was given an unfinished line (a line that passed the
  /// length limit, as nil), to be taken before anything that came after it.
  private var reported: [[UInt8]?] = []

  public init() {}

  /// Bytes held: waiting to be framed, and of the unfinished line the framer keeps.
  public var count: Int { bytes.count - start + framer.pendingCount }

  /// Bytes waiting to be framed (complete lines and what follows them).
  public var unframedCount: Int { bytes.count - start }

  /// True when `nextLine()` may return a line (it may still return none: blank lines are
  /// skipped).
  public var hasLine: Bool {
    !reported.isEmpty || newlines > 0 || (ended && framer.isInsideLine)
  }

  /// True while a line has begun and its newline has not arrived.
  public var isInsideLine: Bool {
    newlines == 0 ? framer.isInsideLine : bytes.last != UInt8(ascii: "\n")
  }

  /// Adds received bytes; returns how many newlines they hold (lines they finish).
  @discardableResult
  public mutating func append(_ received: ArraySlice<UInt8>) -> Int {
    let finished = received.withUnsafeBufferPointer { raw in
      var count = 0
      for byte in raw where byte == UInt8(ascii: "\n") { count += 1 }
      return count
    }
    if newlines == 0 && finished == 0 {
      // Part of an unfinished line: the framer keeps it (or skips it, past the limit).
      reported += framer.feed(received)
      return 0
    }
    if start == bytes.count {
      bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 16)
      start = 0
    }
    bytes.append(contentsOf: received)
    newlines += finished
    return finished
  }

  /// The stream ended: an unfinished last line is a request too (see `LineFramer.finish()`).
  public mutating func end() {
    ended = true
  }

  /// The next line (nil: none waiting; `.some(nil)`: a line that was too long).
  public mutating func nextLine() -> [UInt8]?? {
    if !reported.isEmpty { return .some(reported.removeFirst()) }
    while newlines > 0 {
      let end = bytes.withUnsafeBufferPointer { raw in
        var index = start
        while raw[index] != UInt8(ascii: "\n") { index += 1 }
        return index
      }
      let framed = framer.feed(bytes[start...end])
      start = end + 1
      newlines -= 1
      if newlines == 0 {
        // The rest is the start of the next line: the framer keeps it from now on.
        if start < bytes.count { reported += framer.feed(bytes[start...]) }
        bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 16)
        start = 0
      } else if start > 1 << 15 && start * 2 > bytes.count {
        bytes.removeSubrange(0..<start)
        start = 0
      }
      if let line = framed.first { return .some(line) }
      if !reported.isEmpty { return .some(reported.removeFirst()) }
    }
    if ended && framer.isInsideLine {
      if let line = framer.finish().first { return .some(line) }
    }
    return nil
  }
}
