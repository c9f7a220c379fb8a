import RegisterEngine

/// One client connection: its framing state, the request lines it sent that have not been
/// answered yet, and the bytes waiting to be written.
///
/// Request lines stay here from the moment they are read until their reply is queued, so that
/// `heldBytes` counts everything the daemon holds for the client's requests, handled or not.
final class Connection {
  /// What one held line is counted as beyond its bytes (the array that holds it), so that a
  /// flood of tiny lines is bounded as well as a few long ones.
  static let lineOverhead = 64

  let id: Int
  let fd: Int32
  let peerUID: UInt32?
  var framer = LineFramer()
  /// Request lines not yet answered (`nil`: a line that was too long): those before
  /// `submitted` are being handled by the service, the rest wait to be handed over.
  private var lines: [[UInt8]?] = []
  /// The first line not yet answered.
  private var head = 0
  /// The first line not yet handed to the service.
  private var submitted = 0
  /// Bytes (plus `lineOverhead` each) of the lines in `lines[head...]`.
  private(set) var heldLineBytes = 0
  /// The bytes being written, from `outputStart` on.
  private var output: [UInt8] = []
  private var outputStart = 0
  /// True while `output` is a large reply's own storage (shared, not to be appended to).
  private var outputIsLarge = false
  /// What is queued after `output`, in order: a large reply in its own storage (not copied:
  /// a 100,000-product export is 15 MB, and copying it held the event loop for milliseconds),
  /// and what was queued after it in a piece of its own. Empty nearly always.
  private var laterPieces: [[UInt8]] = []
  private var laterBytes = 0
  /// True while the last of `laterPieces` is this connection's own, to append to.
  private var lastPieceIsOpen = false
  /// A reply at least this long is queued in its own storage rather than copied.
  static let largeReply = 1 << 16
  /// The client will send nothing more (it shut down its side or disconnected).
  var readClosed = false
  /// The connection failed; close it without writing anything more.
  var broken = false
  /// While the daemon drains: bytes the client had sent when the drain began that are still
  /// to be read (nothing it sends later is read).
  var drainAllowance = 0
  /// While the daemon drains: everything the client had sent is read; it is closed once
  /// those requests are answered.
  var drainInputDone = false
  /// Live events this connection listens to, once it has subscribed.
  var subscription: Subscription?
  /// When (monotonic milliseconds) the line the client is in the middle of sending began;
  /// nil between lines.
  private(set) var partialLineSince: Int64?

  // The event loop's bookkeeping (see `Server`): what it asked the poller for, and which of
  // its lists this connection is on, so a pass visits only the connections something
  // happened to.
  /// The events the poller watches this connection's socket for.
  var watchedEvents: Int16 = 0
  /// On the list of connections touched this pass.
  var isTouched = false
  /// On the list of connections whose lines may be taken.
  var mayHaveLines = false
  /// On the list of connections in the middle of a line (watched for the idle timeout).
  var isListedPartial = false
  /// Closed and gone from the loop's tables: lists still holding it skip it.
  var isClosed = false

  init(id: Int, fd: Int32, peerUID: UInt32?) {
    self.id = id
    self.fd = fd
    self.peerUID = peerUID
  }

  /// Bytes queued for the client and not yet written.
  var pendingOutput: Int { output.count - outputStart + laterBytes }

  /// Input held for this client: unanswered lines and the unfinished one.
  var heldInput: Int { heldLineBytes + framer.pendingCount }

  /// Lines read and not yet handed to the service.
  var waitingLines: Int { lines.count - submitted }

  /// Lines handed to the service whose replies have not been queued yet.
  var outstanding: Int { submitted - head }

  /// Frames received bytes into lines; `now` dates the start of an unfinished line.
  func receive(_ bytes: ArraySlice<UInt8>, now: Int64) {
    let complete = framer.feed(bytes)
    append(complete)
    if !framer.isInsideLine {
      partialLineSince = nil
    } else if !complete.isEmpty || partialLineSince == nil {
      // A new line began in these bytes: its clock starts now. A line that only grows does
      // not restart it, so trickling a byte at a time does not keep a slot forever.
      partialLineSince = now
    }
  }

  /// The client shut down its side: an unfinished last line is a request too.
  func receiveEnd() {
    readClosed = true
    append(framer.finish())
    partialLineSince = nil
  }

  private func append(_ complete: [[UInt8]?]) {
    for line in complete {
      lines.append(line)
      heldLineBytes += (line?.count ?? 0) + Self.lineOverhead
    }
  }

  /// Hands the next waiting line to the service (nil: none waiting; `.some(nil)`: a line that
  /// was too long); it stays held until answered.
  func takeLine() -> [UInt8]?? {
    guard waitingLines > 0 else { return nil }
    submitted += 1
    return .some(lines[submitted - 1])
  }

  /// Queues the reply to the oldest unanswered line (a newline is added).
  func enqueue(reply line: ReplyPieces) {
    if head < submitted {
      heldLineBytes -= (lines[head]?.count ?? 0) + Self.lineOverhead
      lines[head] = nil
      head += 1
      if head == lines.count {
        lines.removeAll(keepingCapacity: lines.capacity <= 4096)
        head = 0
        submitted = 0
      } else if head > 1024 && head * 2 > lines.count {
        lines.removeSubrange(0..<head)
        submitted -= head
        head = 0
      }
    }
    if let whole = line.whole, whole.count >= Self.largeReply {
      laterPieces.append(whole)
      laterBytes += whole.count
      lastPieceIsOpen = false
      write { $0.append(UInt8(ascii: "\n")) }
    } else {
      write { output in
        line.append(to: &output)
        output.append(UInt8(ascii: "\n"))
      }
    }
  }

  /// Queues one line that answers no request (an event, a last error) (a newline is added).
  func enqueue(line: String) {
    write { output in
      output.append(contentsOf: line.utf8)
      output.append(UInt8(ascii: "\n"))
    }
  }

  /// Appends to the end of what is queued: `output`, or after a large reply a piece of the
  /// connection's own.
  private func write(_ append: (inout [UInt8]) -> Void) {
    if laterPieces.isEmpty && !outputIsLarge {
      append(&output)
      return
    }
    if !lastPieceIsOpen {
      laterPieces.append([])
      lastPieceIsOpen = true
    }
    let last = laterPieces.count - 1
    let before = laterPieces[last].count
    append(&laterPieces[last])
    laterBytes += laterPieces[last].count - before
  }

  /// True when `bytes` is queued in place, not copied (tests).
  func queuesInPlace(_ bytes: [UInt8]) -> Bool {
    let pieces = [output] + laterPieces
    return pieces.contains { piece in
      piece.withUnsafeBufferPointer { mine in
        bytes.withUnsafeBufferPointer { mine.baseAddress == $0.baseAddress }
      }
    }
  }

  /// Writes as much queued output as the socket takes without blocking.
  func flush() {
    while pendingOutput > 0 && !broken {
      if outputStart == output.count {
        // `output` is written: the next piece takes its place (its storage, not a copy).
        output = laterPieces.removeFirst()
        laterBytes -= output.count
        outputStart = 0
        outputIsLarge = true
        if laterPieces.isEmpty { lastPieceIsOpen = false }
        continue
      }
      let sent = output.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return UnixSocket.send(fd, base + outputStart, output.count - outputStart)
      }
      if sent < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK { break }
        broken = true
        break
      }
      outputStart += sent
    }
    if outputStart == output.count && laterPieces.isEmpty {
      output.removeAll(keepingCapacity: !outputIsLarge && output.capacity <= 1 << 20)
      outputStart = 0
      outputIsLarge = false
    } else if !outputIsLarge && outputStart > 1 << 16 && outputStart * 2 > output.count {
      output.removeSubrange(0..<outputStart)
      outputStart = 0
    }
  }

  /// True when there is nothing left to do and the connection can be closed: the client is
  /// done sending (or, draining, everything it had sent is read) and every line it sent has
  /// been answered and written (or it failed).
  var isFinished: Bool {
    broken || ((readClosed || drainInputDone) && lines.count == head && pendingOutput == 0)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
