import Dispatch
import RegisterEngine

/// Reads and scans journal segments on another thread, in order and one ahead of the reader
/// that takes them, while that reader does other work (loading a snapshot, applying the
/// segment before). At most two scanned segments are in memory at once (the one being applied
/// and the next), and the bytes of the one holding the point until it is taken.
///
/// It starts from a chain point known from a snapshot's name alone (the one start-up or a
/// replay expects to load): the segment holding the point is only read (its last line is all
/// `JournalFiles.read` looks at, usually), each one after it is also scanned — with the
/// chain checked from its own first record on, since the sum of the record before is not known
/// yet. `JournalFiles.read` uses such a scan only when it is the very scan it would have made:
/// same first sequence number, and the first record's `prev` the sum it expects. Otherwise
/// (a damaged or renamed segment, a broken link between segments) it scans again itself, so
/// what is found and reported does not depend on this.
final class SegmentsAhead: @unchecked Sendable {
  struct Prepared {
    var bytes: Result<[UInt8], SystemError>
    /// The scan from the segment's own first sequence number, previous sum unknown (nil for
    /// the segment holding the point, or when it could not be read).
    var scan: JournalScan?
  }

  let segments: [JournalFiles.Segment]
  /// The index of the segment holding the point (or the first one), and the point.
  let start: Int
  let point: Int64

  private var prepared: [Int: Prepared] = [:]
  private var stopped = false
  // Every semaphore starts at zero and is given its permits by signalling: libdispatch traps
  // when a semaphore is released with a value below the one it was made with, which a
  // reading stopped half-way leaves.
  private let lock = DispatchSemaphore(value: 0)
  /// Signalled once per segment prepared.
  private let ready = DispatchSemaphore(value: 0)
  /// How many more segments may be prepared before one is taken.
  private let room = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)
  private var next: Int

  /// Where reading ahead stops: the first segment not read (past the day asked for).
  let end: Int
  /// The journal key the scans check MACs with (`JournalFiles.read` is given the same).
  let key: HMACSHA256?

  /// Starts reading `segments` from the one holding record `point` (the record a snapshot
  /// is the state as of), up to the last one of day `throughDay` when given (a replay of that
  /// day reads no further).
  init(
    segments: [JournalFiles.Segment], after point: Int64, throughDay: Int? = nil,
    key: HMACSHA256? = nil
  ) {
    self.segments = segments
    self.point = point
    self.key = key
    let first = JournalFiles.pointSegment(in: segments, after: point)
    start = first
    end =
      throughDay.flatMap { day in
        segments.indices.first { $0 > first && segments[$0].day > day }
      } ?? segments.count
    next = first
    lock.signal()
    room.signal()
    // The segment holding the point is not scanned (its last line is all that is looked at,
    // usually): it does not take the place of the next one.
    if start < end, point > 0, segments[start].firstSequence <= point {
      room.signal()
    }
    DispatchQueue.global().async { [self] in
      run()
      finished.signal()
    }
  }

  private func run() {
    for index in start..<end {
      room.wait()
      lock.wait()
      let stop = stopped
      lock.signal()
      if stop { return }
      let segment = segments[index]
      let bytes = Result { () throws(SystemError) in try JournalFiles.readSegment(segment.path) }
      let holdsPoint = index == start && point > 0 && segment.firstSequence <= point
      var scan: JournalScan?
      if !holdsPoint, case .success(let read) = bytes {
        scan = JournalScanner.scan(
          read, firstSequence: segment.firstSequence, previousSum: nil, macKey: key)
      }
      lock.wait()
      prepared[index] = Prepared(bytes: bytes, scan: scan)
      lock.signal()
      ready.signal()
    }
  }

  /// The next segment in order (`index` must be the one after the last taken, from `start`),
  /// waiting for it if it is not prepared yet; nil for one it does not read (or once stopped).
  func take(_ index: Int) -> Prepared? {
    lock.wait()
    let stop = stopped
    lock.signal()
    guard !stop, index == next, index < end else { return nil }
    next += 1
    ready.wait()
    lock.wait()
    let item = prepared.removeValue(forKey: index)
    lock.signal()
    room.signal()
    return item
  }

  /// Stops reading ahead and waits until the reading thread has finished.
  func stop() {
    lock.wait()
    let already = stopped
    stopped = true
    lock.signal()
    if already { return }
    room.signal()
    finished.wait()
  }
}
