import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The event loop: one thread, `poll(2)` over the listening socket, the signal pipe and every
/// client. Each pass reads what clients sent, hands all complete lines to the service as one
/// batch (one journal fsync per batch), and writes the replies without blocking.
final class Server {
  /// A client whose unread replies pass this many bytes is not read from until it catches up,
  /// so a client that never reads cannot grow the daemon's memory.
  static let outputLimit = 1 << 20
  /// Lines taken from one client in one pass, so one busy client cannot starve the others.
  static let linesPerPass = 256
  static let maximumConnections = 1000
  /// A subscriber whose unread events pass this many bytes is cut off (with a last error line)
  /// rather than growing the daemon's memory (`--max-subscriber-backlog`, default 1 MiB).
  var subscriberLimit = 1 << 20

  private let listenFD: Int32
  private let signalFD: Int32
  private let socketPath: String
  private let service: RegisterService
  private let writer: JournalWriter?
  /// The journal file, read to catch a reconnecting subscriber up.
  var journalPath: String?
  private var connections: [Connection] = []
  private var nextConnectionID = 1
  private var stopping = false
  private var readBuffer = [UInt8](repeating: 0, count: 65_536)
  var onHangup: () -> Void = {}

  init(
    listenFD: Int32, signalFD: Int32, socketPath: String, service: RegisterService,
    writer: JournalWriter?
  ) {
    self.listenFD = listenFD
    self.signalFD = signalFD
    self.socketPath = socketPath
    self.service = service
    self.writer = writer
  }

  /// Runs until SIGINT or SIGTERM.
  func run() {
    UnixSocket.setNonBlocking(listenFD)
    while !stopping {
      var fds = [
        pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
        pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
        pollfd(fd: writer?.notifyFD ?? -1, events: Int16(POLLIN), revents: 0),
      ]
      var hasQueuedWork = false
      for connection in connections {
        var events: Int16 = 0
        if !connection.readClosed && connection.pendingOutput < Self.outputLimit {
          events |= Int16(POLLIN)
        }
        if connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
        if !connection.queue.isEmpty && connection.pendingOutput < Self.outputLimit {
          hasQueuedWork = true
        }
        fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
      }
      let ready = poll(&fds, nfds_t(fds.count), hasQueuedWork ? 0 : -1)
      if ready < 0 {
        if errno == EINTR { continue }
        log("poll failed: \(SystemError("poll"))")
        break
      }
      if fds[1].revents != 0 { handleSignals() }
      if fds[2].revents != 0 { collectWrites() }
      if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
      for (offset, connection) in connections.enumerated() {
        let revents = fds.count > offset + 3 ? fds[offset + 3].revents : 0
        if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(connection) }
      }
      handleQueuedLines()
      startWrite()
      release()
      for connection in connections where connection.pendingOutput > 0 { connection.flush() }
      closeFinished()
    }
    shutdown()
  }

  private func handleSignals() {
    for signal in SignalPipe.drain(signalFD) {
      switch signal {
      case SIGINT, SIGTERM:
        log("received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), shutting down")
        stopping = true
      case SIGHUP:
        onHangup()
        startWrite()
        release()
      default:
        break
      }
    }
  }

  private func acceptClients() {
    while true {
      let fd = retryingOnInterrupt { accept(listenFD, nil, nil) }
      if fd < 0 {
        if errno != EAGAIN && errno != EWOULDBLOCK {
          log("accept failed: \(SystemError("accept"))")
        }
        return
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      UnixSocket.setNonBlocking(fd)
      let connection = Connection(id: nextConnectionID, fd: fd, peerUID: UnixSocket.peerUID(fd))
      nextConnectionID += 1
      if connections.count >= Self.maximumConnections {
        connection.enqueue(
          line:
            #"{"id":null,"ok":false,"error":{"code":"too_many_connections","message":"registerd has too many clients connected; try again later"}}"#
        )
        connection.flush()
        close(fd)
        log("connection \(connection.id) refused: too many connections")
        continue
      }
      log(
        "connection \(connection.id) opened (uid \(connection.peerUID.map(String.init) ?? "unknown"))"
      )
      connections.append(connection)
    }
  }

  private func read(_ connection: Connection) {
    // Read what is there now, up to 1 MiB a pass; poll brings us back for the rest.
    for _ in 0..<16 {
      let count = readBuffer.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { recv(connection.fd, raw.baseAddress, raw.count, 0) }
      }
      if count > 0 {
        connection.queue.append(contentsOf: connection.framer.feed(readBuffer[0..<count]))
        if count < readBuffer.count { return }
      } else if count == 0 {
        // A partial line at end of stream is dropped: the client never finished it.
        connection.readClosed = true
        return
      } else {
        if errno == EAGAIN || errno == EWOULDBLOCK { return }
        connection.readClosed = true
        connection.broken = true
        return
      }
    }
  }

  private func handleQueuedLines() {
    var batch: [IncomingLine] = []
    for connection in connections
    where !connection.broken && !connection.queue.isEmpty
      && connection.pendingOutput < Self.outputLimit
    {
      let take = min(Self.linesPerPass, connection.queue.count)
      for line in connection.queue.prefix(take) {
        batch.append(IncomingLine(connection: connection.id, bytes: line))
      }
      connection.queue.removeFirst(take)
    }
    guard !batch.isEmpty else { return }
    service.submit(batch)
  }

  /// Hands the next group of journal records to the writer thread when it is idle (without
  /// one, writes it here).
  private func startWrite() {
    guard let writer else {
      service.flush()
      return
    }
    guard !writer.isBusy, let work = service.nextWrite() else { return }
    writer.start(work)
  }

  /// Takes finished writes from the writer thread and (unless stopping) starts the next one.
  private func collectWrites(startNext: Bool = true) {
    guard let writer else { return }
    for (work, error) in writer.takeCompletions() {
      service.finished(work, error: error)
    }
    if startNext { startWrite() }
  }

  /// Sends newly durable events to subscribers, then every reply whose changes are durable.
  private func release() {
    let result = service.takeReleasable()
    if !result.events.isEmpty {
      for connection in connections where connection.subscription != nil && !connection.broken {
        for event in result.events {
          deliver(JournalRecordLine(event), to: connection)
        }
        checkSubscriberBacklog(connection)
      }
    }
    guard !result.replies.isEmpty else { return }
    var byID: [Int: Connection] = [:]
    for connection in connections { byID[connection.id] = connection }
    for reply in result.replies {
      guard let connection = byID[reply.connection] else { continue }
      connection.enqueue(line: reply.line)
      if let subscription = reply.subscription {
        subscribe(connection, subscription)
      }
    }
  }

  /// An event as a subscriber receives it.
  private struct JournalRecordLine {
    var sequence: Int64
    var type: String
    var line: String

    init(_ event: CommittedEvent) {
      sequence = event.sequence
      type = event.event.type
      line = Topics.line(for: event).serialized
    }

    init(_ record: JournalRecord) {
      sequence = record.sequence
      type = record.type
      line =
        JSONValue.object([
          "event": .string(record.type), "seq": .int(record.sequence),
          "at": .string(record.at.iso8601), "data": record.data,
        ]).serialized
    }
  }

  private func deliver(_ event: JournalRecordLine, to connection: Connection) {
    guard var subscription = connection.subscription, event.sequence > subscription.cursor else {
      return
    }
    if subscription.wants(event.type) { connection.enqueue(line: event.line) }
    subscription.cursor = event.sequence
    connection.subscription = subscription
  }

  /// Starts a subscription; with `after`, first replays from the journal every durable event
  /// after it, so a reconnecting display catches up without a gap.
  private func subscribe(_ connection: Connection, _ subscription: Subscription) {
    connection.subscription = subscription
    log("connection \(connection.id) subscribed to live events after seq \(subscription.cursor)")
    let durable = service.durableSequence
    if subscription.cursor < durable, let journalPath {
      let bytes = (try? FileIO.read(journalPath)) ?? []
      for record in JournalScanner.scan(bytes).records
      where record.sequence > subscription.cursor && record.sequence <= durable {
        deliver(JournalRecordLine(record), to: connection)
        if connection.pendingOutput > subscriberLimit { break }
      }
    }
    if var current = connection.subscription, current.cursor < durable {
      current.cursor = durable
      connection.subscription = current
    }
    checkSubscriberBacklog(connection)
  }

  /// Cuts off a subscriber that has fallen too far behind: one last error line, then close.
  private func checkSubscriberBacklog(_ connection: Connection) {
    guard connection.pendingOutput > subscriberLimit else { return }
    connection.enqueue(
      line: JSONValue.object([
        "event": "error",
        "error": .object([
          "code": .string(ErrorCode.subscriberTooSlow.rawValue),
          "message": .string(
            "this listener fell more than \(subscriberLimit) bytes behind and was disconnected; reconnect and subscribe with after to catch up"
          ),
        ]),
      ]).serialized)
    connection.flush()
    connection.broken = true
    log("connection \(connection.id) cut off: subscriber too slow")
  }

  private func closeFinished() {
    connections.removeAll { connection in
      guard connection.isFinished else { return false }
      close(connection.fd)
      log("connection \(connection.id) closed")
      return true
    }
  }

  private func shutdown() {
    // Let the write in flight finish, so the replies it owes can still go out.
    writer?.waitUntilIdle()
    collectWrites(startNext: false)
    service.flush()
    release()
    for connection in connections {
      connection.flush()
      close(connection.fd)
    }
    connections.removeAll()
    close(listenFD)
    unlink(socketPath)
    log("stopped; removed \(socketPath)")
  }
}

/// Writes one line to standard error, prefixed with the program name.
func log(_ message: String) {
  // Nothing that looks like a card number reaches the log, whatever the message quotes.
  writeStandardError("registerd: \(CardNumberMask.mask(message))\n")
}
