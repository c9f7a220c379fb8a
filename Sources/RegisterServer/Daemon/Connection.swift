import RegisterEngine

/// One client connection: the bytes it sent that have not been answered yet, and the bytes
/// waiting to be written.
///
/// What the client sent stays here from the moment it is read until its reply is queued — as
/// bytes (`input`) until a line is handed to the service, then as that line — so that
/// `heldInput` counts everything the daemon holds for the client's requests, handled or not;
/// `unreadReplies` counts the replies made for it and not yet written to its socket, and the
/// connection keeps the daemon-wide total (`ClientBytes`) up to date with it.
final class Connection {
  /// A request line held until its reply is queued.
  private struct HeldLine {
    /// The line (`nil`: a line that was too long).
    var bytes: [UInt8]?
    /// The size of its reply as made when the line was handed to the service (0 before, and
    /// for a reply worked out later): counted in `repliesInFlight` until the reply is queued.
    var replyBytes = 0
  }

  /// What one held line is counted as beyond its bytes (the array that holds it), so that a
  /// flood of tiny lines is bounded as well as a few long ones.
  static let lineOverhead = 64

  let id: Int
  let fd: Int32
  let peerUID: UInt32?
  /// The daemon-wide count of unread replies this connection adds its own to.
  let clientBytes: ClientBytes
  /// What the client sent and no line has been handed to the service for yet.
  private(set) var input = LineBuffer()
  /// Lines handed to the service, from `head` on, whose replies have not been queued yet.
  private var lines: [HeldLine] = []
  /// The first line not yet answered.
  private var head = 0
  /// Bytes (plus `lineOverhead` each) of the lines in `lines[head...]`.
  private(set) var heldLineBytes = 0
  /// Bytes of the replies made for lines handed to the service and not yet queued here (held
  /// by the service until their changes are durable).
  private(set) var repliesInFlight = 0
  /// When (monotonic milliseconds) the client last sent something, or connected.
  private(set) var lastActive: Int64
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
  /// In the queue of connections waiting for their next turn to have lines taken.
  var hasTurn = false
  /// On the list of connections in the middle of a line (watched for the idle timeout).
  var isListedPartial = false
  /// Closed and gone from the loop's tables: lists still holding it skip it.
  var isClosed = false

  init(
    id: Int, fd: Int32, peerUID: UInt32?, clientBytes: ClientBytes = ClientBytes(), now: Int64 = 0
  ) {
    self.id = id
    self.fd = fd
    self.peerUID = peerUID
    self.clientBytes = clientBytes
    self.lastActive = now
  }

  /// Bytes queued for the client and not yet written.
  var pendingOutput: Int { output.count - outputStart + laterBytes }

  /// Replies made for the client that it has not read: queued here, or still held by the
  /// service until durable.
  var unreadReplies: Int { pendingOutput + repliesInFlight }

  /// True when the daemon holds nothing for this client: no line read and unanswered, no
  /// unfinished line, no reply unwritten.
  var holdsNothing: Bool {
    lines.count == head && input.count == 0 && !input.isInsideLine && unreadReplies == 0
  }

  /// Input held for this client: what it sent that no line was taken for yet, and the lines
  /// being handled.
  var heldInput: Int { heldLineBytes + input.count }

  /// True when a line read may wait to be handed to the service.
  var hasWaitingLine: Bool { input.hasLine }

  /// Lines handed to the service whose replies have not been queued yet.
  var outstanding: Int { lines.count - head }

  /// Keeps received bytes until their lines are taken; `now` dates the start of an
  /// unfinished line.
  func receive(_ bytes: ArraySlice<UInt8>, now: Int64) {
    lastActive = now
    let finished = input.append(bytes)
    if !input.isInsideLine {
      partialLineSince = nil
    } else if finished > 0 || partialLineSince == nil {
      // A new line began in these bytes: its clock starts now. A line that only grows does
      // not restart it, so trickling a byte at a time does not keep a slot forever.
      partialLineSince = now
    }
  }

  /// The client shut down its side: an unfinished last line is a request too.
  func receiveEnd() {
    readClosed = true
    input.end()
    partialLineSince = nil
  }

  /// Hands the next waiting line to the service (nil: none waiting; `.some(nil)`: a line that
  /// was too long); it stays held until answered.
  func takeLine() -> [UInt8]?? {
    guard let line = input.nextLine() else { return nil }
    lines.append(HeldLine(bytes: line))
    heldLineBytes += (line?.count ?? 0) + Self.lineOverhead
    return .some(line)
  }

  /// The service made the reply to the line taken last: `bytes` long. It counts as unread
  /// from now on, here and daemon-wide, until it is written.
  func madeReply(bytes: Int) {
    guard lines.count > head else { return }
    lines[lines.count - 1].replyBytes += bytes
    repliesInFlight += bytes
    clientBytes.hold(bytes)
  }

  /// Queues the reply to the oldest unanswered line (a newline is added).
  func enqueue(reply line: ReplyPieces) {
    // The reply moves from the service to the output: counted once, as what is queued.
    var made = 0
    let before = pendingOutput
    defer { clientBytes.hold(pendingOutput - before - made) }
    if head < lines.count {
      heldLineBytes -= (lines[head].bytes?.count ?? 0) + Self.lineOverhead
      made = lines[head].replyBytes
      repliesInFlight -= made
      lines[head] = HeldLine()
      head += 1
      if head == lines.count {
        lines.removeAll(keepingCapacity: lines.capacity <= 1024)
        head = 0
      } else if head > 1024 && head * 2 > lines.count {
        lines.removeSubrange(0..<head)
        head = 0
      }
    }
    if let whole = line.whole, whole.count >= Self.largeReply {
      laterPieces.append(whole)
      laterBytes += whole.count
      lastPieceIsOpen = false
      write(size: 1) { $0.append(UInt8(ascii: "\n")) }
    } else {
      write(size: line.count + 1) { output in
        line.append(to: &output)
        output.append(UInt8(ascii: "\n"))
      }
    }
  }

  /// Queues one line that answers no request (an event, a last error) (a newline is added).
  func enqueue(line: String) {
    let before = pendingOutput
    defer { clientBytes.hold(pendingOutput - before) }
    write(size: line.utf8.count + 1) { output in
      output.append(contentsOf: line.utf8)
      output.append(UInt8(ascii: "\n"))
    }
  }

  /// Appends `size` bytes to the end of what is queued: `output`, or a piece of the
  /// connection's own after it. A piece takes no more once it holds `largeReply` bytes: the
  /// replies of a client that does not read are held in pieces that are never copied to grow
  /// past that, so what they take is close to their size.
  private func write(size: Int, _ append: (inout [UInt8]) -> Void) {
    if laterPieces.isEmpty && !outputIsLarge
      && (output.count == outputStart || output.count + size <= Self.largeReply)
    {
      append(&output)
      return
    }
    if !lastPieceIsOpen || laterPieces[laterPieces.count - 1].count + size > Self.largeReply {
      laterPieces.append([])
      lastPieceIsOpen = true
    }
    let last = laterPieces.count - 1
    let before = laterPieces[last].count
    append(&laterPieces[last])
    laterBytes += laterPieces[last].count - before
  }

  /// The storage the queued output takes, its unused capacity included (tests).
  var queuedCapacity: Int {
    laterPieces.reduce(output.capacity) { $0 + $1.capacity }
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
    let before = pendingOutput
    defer { clientBytes.hold(pendingOutput - before) }
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
      // A buffer that grew for a burst is let go of: an idle connection keeps little.
      output.removeAll(keepingCapacity: !outputIsLarge && output.capacity <= Self.largeReply)
      outputStart = 0
      outputIsLarge = false
    } else if !outputIsLarge && outputStart > 1 << 16 && outputStart * 2 > output.count {
      output.removeSubrange(0..<outputStart)
      outputStart = 0
    }
  }

  /// The connection is closed: what it held is let go of, and its unread replies no longer
  /// count daemon-wide.
  func closed() {
    clientBytes.hold(-unreadReplies)
    clientBytes.dropped(input: heldInput)
    repliesInFlight = 0
    output = []
    outputStart = 0
    outputIsLarge = false
    laterPieces = []
    laterBytes = 0
    lastPieceIsOpen = false
    lines = []
    head = 0
    heldLineBytes = 0
    input = LineBuffer()
  }

  /// True when there is nothing left to do and the connection can be closed: the client is
  /// done sending (or, draining, everything it had sent is read) and every line it sent has
  /// been answered and written (or it failed).
  var isFinished: Bool {
    broken
      || ((readClosed || drainInputDone) && !input.hasLine && lines.count == head
        && pendingOutput == 0)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
