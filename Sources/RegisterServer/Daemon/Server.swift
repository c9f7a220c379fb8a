import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The event loop: one thread waiting (`EventPoller`: epoll on Linux) on the listening socket,
/// the signal pipe, the worker threads' wake-ups and every client. Each pass reads what clients
/// sent, hands all complete lines to the service as one batch (one journal fsync per batch),
/// and writes the replies without blocking. A pass visits the connections something happened
/// to (`touched`), not every connection: a lane with hundreds of idle clients connected (a
/// display left open, a script that never hung up) answers as fast as one without.
package final class Server {
  /// A client whose unread replies pass this many bytes is not handed more of its requests
  /// (nor read from) until it catches up, so a client that never reads cannot grow the
  /// daemon's memory. Its replies are counted as they are made, one request at a time, so it
  /// holds at most one reply more.
  static let outputLimit = 1 << 20
  /// A client holding fewer unread reply bytes than this is handed its next request even
  /// while the clients together hold `unreadReplyLimit`: one that reads its replies is served
  /// whatever the others leave unread.
  static let replyReserve = 16 << 10
  /// Bytes of a client's complete lines read ahead of what is handed to the service: it is
  /// read from no further while this many wait (more than a pass takes would only be held,
  /// and a client at its reply bound would leave them held). An unfinished line is not
  /// counted: the framer keeps it, up to the line length limit.
  static let readAhead = 16 << 10
  /// Memory is given back to the system once this much of what clients held is let go of,
  /// or once a twelfth of it is and no client holds an unread reply (so that what the last
  /// of them let go of is not kept).
  static let returnMemoryAfter = 12 << 20
  /// A client is not read from while the daemon holds this many bytes of its request lines
  /// (read and not yet answered, counted with `Connection.lineOverhead` each) plus its
  /// unfinished line; reading resumes as they are answered. With `outputLimit` this bounds
  /// what one client can make the daemon hold.
  static let inputLimit = 1 << 20
  /// Lines taken in one pass, shared among the clients with lines waiting (each gets at least
  /// one), so that one busy client cannot starve the others.
  static let linesPerPass = 256
  /// How long (milliseconds) one pass hands lines to the service before it writes the
  /// replies and looks for new requests: the rest wait their turn in the next pass.
  static let passBudget: Int64 = 10
  /// Requests of one client being handled at once (their replies wait for the journal).
  static let maximumOutstanding = 256
  /// Descriptors kept for the daemon's own use when the connection limit is derived from the
  /// descriptor limit. It holds 19 once started: the standard streams, the spare descriptor,
  /// the lock, the open segment, the listener, eight pipe ends (signals, the journal writer,
  /// PIN checks, snapshots) and the three of libdispatch's thread pool (an eventfd, an epoll
  /// and a timerfd, made the first time a start-up loads a snapshot or reads the journal on
  /// a second thread). While serving it opens more: a socket to the customer display, one to
  /// the receipt printer per job, an e-mail in the outbox, and at a close of day the day's
  /// receipt archive, the next segment before the old one is closed, and a snapshot's
  /// temporary file and directory. Measured with every connection slot taken, a printer and
  /// a display connected, an e-mail and a close of day: 22 at the peak
  /// (`ConnectionEndToEndTests.filesWhileEverySlotIsTaken` fails with a reserve of 21). 32
  /// leaves ten for what that test does not do at the same moment (a catalog reloaded on
  /// SIGHUP, a print job and an e-mail at once).
  package static let reservedDescriptors = 32
  /// How long the listener rests after an accept error it cannot answer (descriptors or
  /// memory exhausted), unless a connection closes first.
  static let acceptBackOff: Int64 = 100
  /// How long an incomplete line may wait when fewer than `reservedSlots` slots are free.
  static let pressureIdleTimeout: Int64 = 1000
  /// How long (milliseconds) a drain (SIGTERM) waits for the clients still connected to take
  /// their last replies before they are dropped.
  static let drainGrace: Int64 = 5000

  /// Connections served at once; more are answered `too_many_connections` and closed.
  package var maximumConnections = 1000
  /// When fewer slots than this are free, clients in the middle of a line get only
  /// `pressureIdleTimeout` to finish it, so slow clients cannot keep new ones out.
  var reservedSlots: Int { max(1, min(8, maximumConnections / 8)) }
  /// A client whose line has been incomplete this long (milliseconds) is disconnected
  /// (`--idle-timeout`, default 30 s).
  package var idleTimeout: Int64 = 30_000
  /// A subscriber whose unread events pass this many bytes is cut off (with a last error line)
  /// rather than growing the daemon's memory (`--max-subscriber-backlog`, default 1 MiB).
  package var subscriberLimit = 1 << 20
  /// The unread replies of all clients together (`--max-unread-replies`, default 64 MiB): at
  /// this many bytes only clients holding less than `replyReserve` are handed more requests,
  /// and no large reply (`catalog_export`, `customer_history`) is worked out while a client
  /// holds one unread. So clients that never read hold at most this, their reserves and one
  /// large reply, however many they are; a client that reads is still served.
  package var unreadReplyLimit = 64 << 20
  /// The bytes of replies the clients have not read, kept up to date by each connection.
  private let clientBytes = ClientBytes()

  /// The listening socket (-1 once a drain has closed it).
  private var listenFD: Int32
  private let signalFD: Int32
  /// The socket file registerd made and removes when it stops (nil: the service manager
  /// passed the socket and owns its file).
  private let socketPath: String?
  private let service: RegisterService
  private let writer: JournalWriter?
  /// Hashes PINs off this thread (nil if its pipe could not be made: then `decide` hashes).
  private let pinChecks = PINChecks()
  /// The journal file, read to catch a reconnecting subscriber up.
  /// The data directory, whose journal a subscriber with `after` catches up from.
  package var dataDirectory: String?
  /// Writes snapshots when a day is closed or a segment fills (nil: none are written).
  package var snapshots: SnapshotWriter?
  /// A snapshot is wanted, at the next moment every change is durable.
  package var snapshotDue = false
  private var connections: [Connection] = []
  /// The same connections by id, for handing out replies, and by descriptor, for what the
  /// poller reports (kept as they open and close).
  private var connectionsByID: [Int: Connection] = [:]
  private var connectionsByFD = DescriptorTable<Connection>()
  /// The connections that subscribed to live events, in the order they did.
  private var subscribers: [Connection] = []
  /// Connections something happened to this pass (read, lines taken, replies queued, written,
  /// failed): after the pass their output is written and whether they are finished checked,
  /// and before the next wait what the poller watches them for is brought up to date. A pass
  /// visits these, not every connection.
  private var touched: [Connection] = []
  /// Connections that may have lines to hand to the service: touched since their lines were
  /// last looked at. One that cannot hand any over now (at a bound, or a PIN being checked)
  /// is touched again when that changes (its replies go out, its check is done).
  private var mayHaveLines: [Connection] = []
  /// Connections that had lines left after their share of a pass, in the order they are to
  /// be served again (from `turnsHead` on). A connection with no lines waiting until now is
  /// served before them, so a client that sends a request now and then is answered within a
  /// pass however many clients keep the loop busy.
  private var turns: [Connection] = []
  private var turnsHead = 0
  /// The connections whose lines are taken this pass before the turns (storage kept).
  private var fresh: [Connection] = []
  /// Connections in the middle of a line, for the idle timeout (pruned as they finish lines).
  private var partialLines: [Connection] = []
  /// What the loop waits on (epoll on Linux); told before a listed descriptor is closed.
  private let poller = EventPoller()
  private var nextConnectionID = 1
  private var stopping = false
  private var readBuffer = [UInt8](repeating: 0, count: 65_536)
  /// Reads the catalog file again (on SIGHUP), on a thread of its own: a large file takes a
  /// while to parse, and the lanes are served meanwhile. nil: SIGHUP reloads nothing.
  package var loadCatalog: (@Sendable () throws -> Catalog)?
  /// What to do with the catalog `loadCatalog` read, on the loop (import its changes).
  package var catalogLoaded: (Catalog) -> Void = { _ in }
  private let catalogLoader = BackgroundTask<Result<Catalog, any Error>>(
    label: "registerd.catalog")
  /// Works out the replies of reads whose work grows with the store (`catalog_export`,
  /// `customer_history`: `RegisterService.computesRepliesAway`), one after another, so the
  /// loop goes on serving the lanes meanwhile. nil (out of descriptors for its pipe): they
  /// are worked out on the loop.
  /// The thread runs at niceness 10: on a machine whose cores are all busy, the lanes' requests
  /// come first.
  private let replyComputer = BackgroundTask<(ticket: Int, connection: Int, bytes: [UInt8])>(
    label: "registerd.replies", niceness: 10)
  /// Connections with a reply being worked out, and how many: no more of their lines are
  /// taken until it is done (each such reply can be large, and its bytes go to the client's
  /// output whether or not the client reads; one at a time keeps that within the output
  /// bound).
  private var computingFor: [Int: Int] = [:]
  /// Replies to work out (`RegisterService.takeComputations`), oldest first, not started yet.
  private var waitingComputations: [ReplyComputation] = []
  /// A SIGHUP came while the catalog was being read: read it once more when that is done (the
  /// file may have changed again).
  private var reloadAgain = false
  /// A descriptor held in reserve (on /dev/null): when accept runs out of descriptors it is
  /// closed to accept the waiting client, answer it `too_many_connections` and reopened.
  private var spareFD: Int32 = -1
  /// While set (monotonic milliseconds), the listener is not polled: accept failed for want
  /// of resources. A closing connection ends the pause early.
  private var listenerPausedUntil: Int64?
  /// Why new clients are being refused (logged once when it starts), and how many were.
  private var refusing: String?
  private var refusedCount = 0
  /// True while the connection limit is reached and idle connections are closed to let new
  /// ones in (logged once when it starts), and how many were.
  private var makingRoom = false
  private var closedForRoom = 0
  /// When to try storage again after a failed write.
  private var storageRetry = StorageRetry()
  /// The receipt printer, when the store has one: jobs go to it one at a time, in order.
  package var printer: ReceiptPrinter?
  /// Print jobs whose `print_queued` is durable and that are not yet printed, oldest first
  /// (a job is printed only once it is on disk, so a rolled-back group prints nothing).
  private var printable: [PrintJob] = []
  /// The customer's pole display (`--display`), and what it shows.
  package var display: PoleDisplay?
  private var screen = CustomerDisplay()
  /// When (monotonic milliseconds) the display's thank-you gives way to the welcome: set while
  /// it shows the thank-you, again at each event (as `register-cli watch` waits for a quiet
  /// `CustomerDisplay.thanksMilliseconds`).
  private var welcomeDue: Int64?
  /// The service manager (systemd) told of readiness, reloads, stopping and liveness.
  package var notifier: ServiceNotifier?
  /// The one-line status sent with `READY=1`.
  package var readyStatus = "serving"
  /// When (monotonic milliseconds) the next `WATCHDOG=1` is due.
  private var nextWatchdog: Int64?
  /// Set by the first SIGTERM or SIGINT: no new clients; the connected ones are served until
  /// what they had sent is answered, or until `drainDeadline`.
  private var draining = false
  private var drainDeadline: Int64 = 0
  private var drainStartedWith = 0
  private var drainAnswered = 0

  package init(
    listenFD: Int32, signalFD: Int32, socketPath: String?, service: RegisterService,
    writer: JournalWriter?
  ) {
    self.listenFD = listenFD
    self.signalFD = signalFD
    self.socketPath = socketPath
    self.service = service
    self.writer = writer
    service.computesRepliesAway = replyComputer != nil
  }

  /// The connection limit the descriptor limit leaves room for (at most 1000).
  package static func defaultMaximumConnections() -> Int {
    guard let limit = descriptorLimit(), limit < 1_000_000 else { return 1000 }
    return max(1, min(1000, limit - reservedDescriptors))
  }

  /// Runs until SIGINT or SIGTERM (and the drain that follows) is over.
  package func run() {
    UnixSocket.setNonBlocking(listenFD)
    spareFD = openSpare()
    if let display {
      screen = CustomerDisplay(store: service.register.store.name)
      screen.apply(event: nil, order: service.register.orderJSON)
      display.show(
        EscPos.poleDisplay(screen.poleLines(), codePage: service.register.store.printerCodePage))
    }
    // Jobs queued before a restart and never printed come first, in their order.
    if printer != nil {
      printable = service.register.printQueue.pending
      if !printable.isEmpty {
        Log.info("\(printable.count) print job(s) from before the restart are waiting to print")
      }
    }
    // The socket listens and the loop starts serving now: a client that connects the moment
    // READY=1 arrives is accepted on the first pass.
    notifier?.ready(status: readyStatus)
    if let interval = notifier?.watchdogInterval {
      nextWatchdog = monotonicMilliseconds() + interval
    }
    let wakeUps = [
      signalFD, writer?.notifyFD, pinChecks?.notifyFD, snapshots?.notifyFD, printer?.notifyFD,
      catalogLoader?.notifyFD, replyComputer?.notifyFD,
    ]
    for case let fd? in wakeUps { poller.watch(fd, for: Int16(POLLIN)) }
    // What each wait found, in the same storage every pass.
    var ready: [ReadyDescriptor] = []
    var readable: [Connection] = []
    while !stopping {
      let now = monotonicMilliseconds()
      // The ping comes from the loop, so a loop that hangs stops pinging and is restarted.
      if let due = nextWatchdog, let interval = notifier?.watchdogInterval, due <= now {
        notifier?.watchdog()
        nextWatchdog = now + interval
      }
      if draining {
        if connections.isEmpty { break }
        if now >= drainDeadline {
          Log.warning(
            "drain: the grace of \(Self.drainGrace) ms is over; dropping \(connections.count) connection(s) that still had unwritten replies or unanswered requests"
          )
          break
        }
      }
      if let until = listenerPausedUntil, until <= now { listenerPausedUntil = nil }
      if let due = welcomeDue, due <= now { welcomeTheNextCustomer() }
      if listenFD >= 0 {
        poller.watch(listenFD, for: listenerPausedUntil == nil && !draining ? Int16(POLLIN) : 0)
      }
      settleTouched()
      let hasQueuedWork =
        turnsHead < turns.count || mayHaveLines.contains { !$0.isClosed && canTakeLines($0) }
      let count = poller.wait(timeout: hasQueuedWork ? 0 : pollTimeout(now: now), ready: &ready)
      if count < 0 {
        if errno == EINTR { continue }
        Log.error("poll failed: \(SystemError("poll"))")
        break
      }
      var signalled = false
      var written = false
      var connecting = false
      var snapshotted = false
      var printed = false
      var pinsChecked = false
      var catalogRead = false
      var computed = false
      readable.removeAll(keepingCapacity: true)
      for item in ready {
        let fd = item.fd
        if fd == signalFD {
          signalled = true
        } else if fd == writer?.notifyFD {
          written = true
        } else if fd == listenFD {
          connecting = item.events & Int16(POLLIN) != 0
        } else if fd == snapshots?.notifyFD {
          snapshotted = true
        } else if fd == printer?.notifyFD {
          printed = true
        } else if fd == pinChecks?.notifyFD {
          pinsChecked = true
        } else if fd == catalogLoader?.notifyFD {
          catalogRead = true
        } else if fd == replyComputer?.notifyFD {
          computed = true
        } else if let connection = connectionsByFD[fd] {
          // Only read when reading was asked for: a client at its bound may have hung up,
          // and that is found out when its replies are written (or when reading resumes).
          if connection.watchedEvents & Int16(POLLIN) != 0
            && item.events & Int16(POLLIN | POLLHUP | POLLERR) != 0
          {
            readable.append(connection)
          }
          // Writable again, or failed: its output is written (or its failure found) below.
          touch(connection)
        }
      }
      if signalled { handleSignals() }
      if written { collectWrites() }
      if !draining && connecting { acceptClients() }
      let afterPoll = monotonicMilliseconds()
      for connection in readable where !connection.isClosed {
        read(connection, now: afterPoll)
      }
      if snapshotted { collectSnapshots() }
      if printed { collectPrints() }
      if catalogRead { collectCatalog() }
      if computed { collectComputedReplies() }
      handleQueuedLines(pinsChecked: pinsChecked)
      startComputingReplies()
      startWrite()
      tendStorage(now: afterPoll)
      release()
      startPrint()
      startSnapshot()
      for connection in touched where connection.pendingOutput > 0 { connection.flush() }
      // A reply waiting for its client to read the one before may go now.
      if !waitingComputations.isEmpty { startComputingReplies() }
      closeIdle(now: afterPoll)
      closeFinished()
      returnFreedMemory()
    }
    if draining {
      Log.info(
        "drain finished: \(drainAnswered) request(s) answered during the drain; "
          + "\(drainStartedWith - connections.count) of \(drainStartedWith) connection(s) served to the end"
      )
    }
    shutdown()
  }

  /// True when the connection may be read from: it is open, below its input bound, has
  /// fewer than `readAhead` bytes of lines waiting, and may be handed lines as far as its
  /// unread replies go (a client at a bound is left in the kernel's buffers, which slows it
  /// down), and, while draining, still owes bytes it had sent before the drain began.
  private func wantsInput(_ connection: Connection) -> Bool {
    !connection.readClosed && !connection.broken && connection.heldInput < Self.inputLimit
      && connection.input.unframedCount < Self.readAhead && hasReplyRoom(connection)
      && !isCheckingPIN(connection) && (!draining || connection.drainAllowance > 0)
  }

  /// True when lines of the connection can be handed to the service now.
  private func canTakeLines(_ connection: Connection) -> Bool {
    !connection.broken && connection.hasWaitingLine && hasReplyRoom(connection)
      && connection.outstanding < Self.maximumOutstanding && !isCheckingPIN(connection)
      && (computingFor.isEmpty || computingFor[connection.id] == nil)
  }

  /// True when the client may be handed another request as far as unread replies go: it
  /// holds less than `replyReserve`, or less than its `outputLimit` while all clients
  /// together hold less than `unreadReplyLimit`. A client held back here has replies unread
  /// (queued, or waiting to be durable): it is touched, and looked at again, when they are
  /// written or released.
  private func hasReplyRoom(_ connection: Connection) -> Bool {
    let unread = connection.unreadReplies
    return unread < Self.replyReserve
      || (unread < Self.outputLimit && clientBytes.unreadReplies < unreadReplyLimit)
  }

  /// Notes that something happened to `connection` this pass (see `touched`).
  private func touch(_ connection: Connection) {
    if !connection.isTouched {
      connection.isTouched = true
      touched.append(connection)
    }
    if !connection.mayHaveLines {
      connection.mayHaveLines = true
      mayHaveLines.append(connection)
    }
  }

  /// Before a wait: what the poller watches each touched connection for, brought up to date,
  /// and a connection in the middle of a line listed for the idle timeout.
  private func settleTouched() {
    for connection in touched {
      connection.isTouched = false
      guard !connection.isClosed else { continue }
      var events: Int16 = 0
      if wantsInput(connection) { events |= Int16(POLLIN) }
      if connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
      // Nothing asked: not watched, or a hung-up peer's POLLHUP would wake the loop again and
      // again while its replies wait for the journal.
      if events != connection.watchedEvents {
        poller.watch(connection.fd, for: events)
        connection.watchedEvents = events
      }
      if connection.partialLineSince != nil && !connection.isListedPartial {
        connection.isListedPartial = true
        partialLines.append(connection)
      }
    }
    touched.removeAll(keepingCapacity: true)
  }

  /// Every connection touched (when something changes for all: a drain begins).
  private func touchAll() {
    for connection in connections { touch(connection) }
  }

  /// The connections still in the middle of a line (the list pruned of the others).
  private func prunePartialLines() {
    partialLines.removeAll { connection in
      let done = connection.isClosed || connection.readClosed || connection.partialLineSince == nil
      if done { connection.isListedPartial = false }
      return done
    }
  }

  /// How long poll may sleep: until the listener's pause or the first incomplete line's
  /// deadline, or for ever.
  private func pollTimeout(now: Int64) -> Int32 {
    var deadline = listenerPausedUntil
    if let due = nextWatchdog { deadline = min(deadline ?? .max, due) }
    if let due = welcomeDue { deadline = min(deadline ?? .max, due) }
    if let due = storageRetry.due { deadline = min(deadline ?? .max, due) }
    if draining { deadline = min(deadline ?? .max, drainDeadline) }
    let timeout = currentIdleTimeout
    prunePartialLines()
    for connection in partialLines {
      guard let since = connection.partialLineSince else { continue }
      deadline = min(deadline ?? .max, since + timeout)
    }
    guard let deadline else { return -1 }
    // A millisecond more, so the deadline has passed when poll returns.
    return Int32(clamping: max(0, deadline - now + 1))
  }

  /// The idle timeout in force: shorter when the connection table is nearly full.
  private var currentIdleTimeout: Int64 {
    maximumConnections - connections.count < reservedSlots
      ? min(idleTimeout, Self.pressureIdleTimeout) : idleTimeout
  }

  /// Disconnects clients whose line has stayed incomplete too long.
  private func closeIdle(now: Int64) {
    guard !partialLines.isEmpty else { return }
    let timeout = currentIdleTimeout
    prunePartialLines()
    for connection in partialLines where !connection.broken {
      guard let since = connection.partialLineSince, now - since >= timeout else { continue }
      connection.broken = true
      touch(connection)
      Log.info(
        "connection \(connection.id) timed out: a request line stayed incomplete for \(timeout) ms"
      )
    }
  }

  private func handleSignals() {
    for signal in SignalPipe.drain(signalFD) {
      switch signal {
      case SIGINT, SIGTERM:
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        if draining {
          // A second signal: stop now. Every change already acknowledged stays durable
          // (shutdown finishes the writes); requests not answered yet are dropped.
          Log.warning("received \(name) again during the drain; stopping now")
          stopping = true
        } else {
          startDrain(name)
        }
      case SIGHUP:
        startCatalogReload()
      default:
        break
      }
    }
  }

  /// Stops accepting and lets the connected clients finish: each is read up to what the
  /// kernel holds for it now (what it sent before the signal), every one of those lines is
  /// answered and made durable, then it is closed; `drainGrace` bounds the wait.
  private func startDrain(_ signalName: String) {
    // Clients that connected before the signal but were not accepted yet wait in the
    // listener's backlog: take them too (closing the listener would reset them).
    acceptClients()
    draining = true
    drainDeadline = monotonicMilliseconds() + Self.drainGrace
    drainStartedWith = connections.count
    notifier?.stopping(status: "draining \(connections.count) connection(s)")
    // Closed, not only left unpolled: new clients are refused at once (under socket
    // activation the service manager's copy stays open, and they wait for the next start).
    poller.forget(listenFD)
    close(listenFD)
    listenFD = -1
    if spareFD >= 0 {
      close(spareFD)
      spareFD = -1
    }
    // Whether each connection is read from changes with the drain.
    touchAll()
    var held = 0
    for connection in connections where !connection.readClosed && !connection.broken {
      var count: Int32 = 0
      if ioctl(connection.fd, UInt(FIONREAD), &count) == 0, count > 0 {
        connection.drainAllowance = Int(count)
        held += Int(count)
      } else {
        finishDrainInput(connection)
      }
    }
    Log.info(
      "received \(signalName): draining \(connections.count) connection(s) "
        + "(\(held) bytes of requests still to read), new connections refused"
    )
  }

  /// The connection has been read up to what it had sent when the drain began: no more of its
  /// input is read. A client that had also closed its side gets its unfinished last line
  /// answered, as usual at end of stream.
  private func finishDrainInput(_ connection: Connection) {
    connection.drainAllowance = 0
    var byte: UInt8 = 0
    let peeked = retryingOnInterrupt {
      recv(connection.fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
    }
    if peeked == 0 {
      connection.receiveEnd()
    } else {
      connection.drainInputDone = true
    }
  }

  private func acceptClients() {
    // Set once no connection could be closed to make room: nothing changes that before the
    // loop's next pass, so the clients still waiting are refused without looking again.
    var noneIdle = false
    while true {
      let fd = retryingOnInterrupt { accept(listenFD, nil, nil) }
      if fd < 0 {
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK:
          return
        case ECONNABORTED:
          continue
        case EMFILE, ENFILE:
          // Out of descriptors: the client would wait in the backlog, and poll would report
          // the listener ready again at once. Use the spare descriptor to answer it.
          startRefusing("out of file descriptors (\(SystemError("accept", code: code)))")
          if answerWithSpare() { continue }
          pauseListener()
          return
        default:
          startRefusing("accept failed: \(SystemError("accept", code: code))")
          pauseListener()
          return
        }
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      UnixSocket.setNonBlocking(fd)
      let now = monotonicMilliseconds()
      if connections.count >= maximumConnections {
        // Room is made by closing an idle connection, so that connections that send nothing
        // cannot keep a lane's terminal out; refused only when every one is busy.
        guard !noneIdle && closeIdlest(now: now) else {
          noneIdle = true
          if refusing == nil {
            let subscribed = connections.filter { $0.subscription != nil }.count
            startRefusing(
              "\(maximumConnections) clients are connected (the limit), none of them idle (\(subscribed) subscribed, \(connections.count - subscribed) with requests or replies in flight)"
            )
          }
          refuse(fd)
          continue
        }
      } else {
        stopMakingRoom()
      }
      stopRefusing()
      let connection = Connection(
        id: nextConnectionID, fd: fd, peerUID: UnixSocket.peerUID(fd), clientBytes: clientBytes,
        now: now)
      nextConnectionID += 1
      Log.debug(
        "connection \(connection.id) opened (uid \(connection.peerUID.map(String.init) ?? "unknown"))"
      )
      connections.append(connection)
      connectionsByID[connection.id] = connection
      connectionsByFD[connection.fd] = connection
      touch(connection)
    }
  }

  /// Answers a client that cannot be served `too_many_connections` and closes it.
  private func refuse(_ fd: Int32) {
    UnixSocket.setNonBlocking(fd)
    let line =
      JSONValue.object([
        "id": .null, "ok": false,
        "error": RegisterError(
          .tooManyConnections, "registerd has too many clients connected; try again later"
        ).json,
      ]).serialized + "\n"
    let bytes = Array(line.utf8)
    _ = bytes.withUnsafeBytes { raw -> Int in
      guard let base = raw.baseAddress else { return 0 }
      return UnixSocket.send(fd, base, raw.count)
    }
    // Closing with the client's request unread would reset the connection, and the client
    // could lose the line above; read what it sent so far first.
    _ = readBuffer.withUnsafeMutableBytes { raw in
      retryingOnInterrupt { recv(fd, raw.baseAddress, raw.count, 0) }
    }
    close(fd)
    refusedCount += 1
  }

  /// Frees the spare descriptor to accept one waiting client and refuse it, then takes the
  /// spare back. False when that was not possible (the caller backs off).
  private func answerWithSpare() -> Bool {
    guard spareFD >= 0 else {
      spareFD = openSpare()
      return false
    }
    close(spareFD)
    spareFD = -1
    let fd = retryingOnInterrupt { accept(listenFD, nil, nil) }
    if fd >= 0 { refuse(fd) }
    spareFD = openSpare()
    return fd >= 0 && spareFD >= 0
  }

  private func openSpare() -> Int32 {
    retryingOnInterrupt { open("/dev/null", O_RDONLY | O_CLOEXEC) }
  }

  /// Stops polling the listener for a while (a closing connection resumes it sooner).
  private func pauseListener() {
    listenerPausedUntil = monotonicMilliseconds() + Self.acceptBackOff
  }

  /// Logs, once per episode, why new clients are refused.
  private func startRefusing(_ reason: String) {
    guard refusing == nil else { return }
    refusing = reason
    Log.warning("refusing new connections: \(reason); they get too_many_connections")
  }

  /// Ends an episode of refusals (a client was accepted), saying how many were refused.
  private func stopRefusing() {
    guard refusing != nil else { return }
    Log.info("accepting connections again (\(refusedCount) refused meanwhile)")
    refusing = nil
    refusedCount = 0
  }

  private func read(_ connection: Connection, now: Int64) {
    touch(connection)
    // Read what is there now, up to 1 MiB a pass and never past the input bound; poll brings
    // us back for the rest.
    for _ in 0..<16 where wantsInput(connection) {
      // While draining, no byte past what the client had sent when the drain began.
      // No more than the read-ahead leaves room for.
      let room = Self.readAhead - connection.input.unframedCount
      let wanted = min(
        readBuffer.count, room, draining ? connection.drainAllowance : readBuffer.count)
      let count = readBuffer.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { recv(connection.fd, raw.baseAddress, wanted, 0) }
      }
      if count > 0 {
        connection.receive(readBuffer[0..<count], now: now)
        if draining {
          connection.drainAllowance -= count
          if connection.drainAllowance <= 0 {
            finishDrainInput(connection)
            return
          }
        }
        if count < wanted { return }
      } else if count == 0 {
        // End of stream: answer every line (an unfinished last one included), then close.
        connection.receiveEnd()
        return
      } else {
        if errno == EAGAIN || errno == EWOULDBLOCK { return }
        connection.readClosed = true
        connection.broken = true
        return
      }
    }
  }

  /// Hands the service the lines waiting on connections, after the lines whose PINs were
  /// hashed meanwhile (`pinsChecked`: the PIN checkers' wake-up was readable this pass; each
  /// finished line is put in the list before its byte is written, so a byte found means its
  /// line is there to take, and a byte left over from a line already taken only means an
  /// empty take on a later pass).
  private func handleQueuedLines(pinsChecked: Bool) {
    // Lines whose PINs were hashed meanwhile go first: their connections waited for them.
    if pinsChecked, let pinChecks {
      for line in pinChecks.takeFinished() {
        let bytes = service.submit(line)
        // The line it waited for was the last it took. Free for its next lines, and to be
        // read from again.
        if let connection = connectionsByID[line.connection] {
          connection.madeReply(bytes: bytes)
          touch(connection)
        }
      }
    }
    // Connections whose lines were not waiting their turn come first, then the turns.
    fresh.removeAll(keepingCapacity: true)
    for connection in mayHaveLines {
      connection.mayHaveLines = false
      if !connection.isClosed && !connection.hasTurn && canTakeLines(connection) {
        fresh.append(connection)
      }
    }
    mayHaveLines.removeAll(keepingCapacity: true)
    // The clients that sent least first: a lane with one request is not kept waiting behind
    // clients that arrived with a pile of them at the same moment.
    if fresh.count > 1 { fresh.sort { $0.input.unframedCount < $1.input.unframedCount } }
    let waitingTurns = turns.count - turnsHead
    let contenders = fresh.count + waitingTurns
    guard contenders > 0 else { return }
    let share = max(1, Self.linesPerPass / contenders)
    let deadline = monotonicMilliseconds() + Self.passBudget
    var next = 0
    while next < fresh.count && monotonicMilliseconds() < deadline {
      serve(fresh[next], share: share, until: deadline)
      next += 1
    }
    if next < fresh.count {
      // Out of time: they wait their turn like the others (a request that arrives meanwhile
      // comes first).
      for connection in fresh[next...] {
        connection.hasTurn = true
        turns.append(connection)
      }
    } else {
      // The turns waiting when the pass began, oldest first (one served goes to the back).
      var served = 0
      while served < waitingTurns && monotonicMilliseconds() < deadline {
        let connection = turns[turnsHead]
        turnsHead += 1
        served += 1
        connection.hasTurn = false
        guard !connection.isClosed, canTakeLines(connection) else { continue }
        serve(connection, share: share, until: deadline)
      }
    }
    if turnsHead == turns.count {
      turns.removeAll(keepingCapacity: true)
      turnsHead = 0
    } else if turnsHead > 256 && turnsHead * 2 > turns.count {
      turns.removeSubrange(0..<turnsHead)
      turnsHead = 0
    }
  }

  /// Hands the service up to `share` of the connection's lines (fewer at its bounds, or once
  /// `deadline` passes); one with lines left waits for its next turn.
  private func serve(_ connection: Connection, share: Int, until deadline: Int64) {
    // Looked at again next pass: its bounds change with what was taken.
    touch(connection)
    // One line at a time, its reply counted before the next is taken: a client that does not
    // read is handed no line once it is at its bound, whatever the size of its replies.
    var taken = 0
    while taken < share && connection.outstanding < Self.maximumOutstanding
      && hasReplyRoom(connection), let line = connection.takeLine()
    {
      taken += 1
      // A line with a PIN to hash stops this connection's lines here: the rest wait for it.
      if handOffPINCheck(line, of: connection) { return }
      connection.madeReply(
        bytes: service.submit(IncomingLine(connection: connection.id, bytes: line)))
      if taken & 15 == 0 && monotonicMilliseconds() >= deadline { break }
    }
    if canTakeLines(connection) {
      connection.hasTurn = true
      turns.append(connection)
    }
  }

  /// True while a line of `connection` has its PIN hashed: its later lines wait (order), and it
  /// is not read from (the cap on PIN checks in flight).
  private func isCheckingPIN(_ connection: Connection) -> Bool {
    pinChecks?.isBusy(connection.id) ?? false
  }

  /// Hands `line` to the PIN workers when it carries a PIN to hash; true when it did. The lines
  /// taken before it are submitted already, so its work is worked out against current state.
  private func handOffPINCheck(_ line: [UInt8]?, of connection: Connection) -> Bool {
    guard let pinChecks, let line, let work = service.pinWork(for: line) else { return false }
    pinChecks.start(IncomingLine(connection: connection.id, bytes: line), work: work)
    return true
  }

  /// Hands the staged groups of journal records to the writer thread, which writes them after
  /// the ones it has (without one, writes them here).
  private func startWrite() {
    guard let writer else {
      service.flush()
      return
    }
    while let work = service.nextWrite() { writer.start(work) }
  }

  /// Takes finished writes from the writer thread and (unless stopping) starts the next one.
  private func collectWrites(startNext: Bool = true) {
    guard let writer else { return }
    for (work, error) in writer.takeCompletions() {
      service.finished(work, error: error)
      if error == nil, work.endedSegment { snapshotDue = true }
    }
    if let tried = writer.takeResumed() { storageTried(tried, now: monotonicMilliseconds()) }
    if startNext { startWrite() }
  }

  /// After a failed write (the register was rebuilt from the journal and refuses changes):
  /// tries storage again when a try is due (`StorageRetry`) and no write is outstanding, on
  /// the writer's thread.
  private func tendStorage(now: Int64) {
    guard service.storageFailure != nil else { return }
    guard storageRetry.since != nil else {
      storageRetry.failed(at: now)
      return
    }
    guard let due = storageRetry.due, due <= now else { return }
    guard let writer else {
      storageRetry.trying()
      storageTried(
        service.retryStorage() ? nil : SystemError("retry", code: 5, reason: ""), now: now)
      return
    }
    guard !writer.isBusy, !writer.isResuming else { return }
    storageRetry.trying()
    writer.resume()
  }

  /// A try of storage came back: with no error (and the register read back if it had not
  /// been) the register takes changes again; otherwise the next try is scheduled.
  private func storageTried(_ error: SystemError?, now: Int64) {
    if error == nil, service.storageWorksAgain() {
      let (milliseconds, tries, last) = storageRetry.recovered(at: now)
      Log.info(
        "storage works again after \(milliseconds) ms (\(tries) failed tries"
          + (last.map { ", the last: \($0)" } ?? "") + "); taking changes")
    } else {
      storageRetry.failed(at: now, error)
    }
  }

  /// Starts working out the next reply when its thread is free: the oldest waiting whose
  /// connection has room in its output (a client that does not read is not given a second
  /// large reply before it has read the first), and none while the clients together hold
  /// `unreadReplyLimit` of replies unread and one of them holds a large reply unread; with
  /// `ignoringOutput`, at shutdown, any. One whose connection has gone is dropped unworked:
  /// its place among the held replies is given back empty, for no one.
  private func startComputingReplies(ignoringOutput: Bool = false) {
    guard let replyComputer else { return }
    let new = service.takeComputations()
    for computation in new { computingFor[computation.connection, default: 0] += 1 }
    waitingComputations.append(contentsOf: new)
    guard !replyComputer.isBusy, !waitingComputations.isEmpty else { return }
    let overLimit =
      !ignoringOutput && clientBytes.unreadReplies >= unreadReplyLimit && holdsLargeReply()
    var index = 0
    while index < waitingComputations.count {
      let computation = waitingComputations[index]
      guard let connection = connectionsByID[computation.connection], !connection.broken else {
        waitingComputations.remove(at: index)
        finishComputation(computation.ticket, for: computation.connection, bytes: [])
        continue
      }
      guard !overLimit && (ignoringOutput || connection.unreadReplies < Self.outputLimit) else {
        index += 1
        continue
      }
      waitingComputations.remove(at: index)
      replyComputer.start { (computation.ticket, computation.connection, computation.run()) }
      return
    }
  }

  /// True when a client holds more unread replies than its `outputLimit`: a large reply
  /// (an ordinary one is not handed out past that limit but for the last one taken). Asked
  /// only while a large reply waits and the clients are at `unreadReplyLimit`.
  private func holdsLargeReply() -> Bool {
    connections.contains { $0.pendingOutput > Self.outputLimit }
  }

  /// Takes the reply worked out meanwhile (`release` sends it, in its place) and starts the
  /// next.
  private func collectComputedReplies() {
    takeComputedReplies()
    startComputingReplies()
  }

  private func takeComputedReplies() {
    guard let replyComputer else { return }
    for (ticket, connection, bytes) in replyComputer.takeCompletions() {
      finishComputation(ticket, for: connection, bytes: bytes)
    }
  }

  private func finishComputation(_ ticket: Int, for connection: Int, bytes: [UInt8]) {
    service.computed(ticket, bytes: bytes)
    if let count = computingFor[connection], count > 1 {
      computingFor[connection] = count - 1
    } else {
      computingFor[connection] = nil
      // Its lines can be taken again.
      if let connection = connectionsByID[connection] { touch(connection) }
    }
  }

  /// Works out every reply still owed (shutdown): none is left waiting.
  private func finishComputingReplies() {
    guard let replyComputer else { return }
    while true {
      startComputingReplies(ignoringOutput: true)
      guard replyComputer.isBusy else { return }
      replyComputer.waitUntilIdle()
      takeComputedReplies()
    }
  }

  /// Starts a snapshot when one is due and every change is durable (under constant load it
  /// waits for the first pause: a snapshot is of a state that is all on disk).
  private func startSnapshot() {
    guard snapshotDue, let snapshots, !snapshots.isBusy, writer?.isBusy != true,
      let (register, head) = service.durableState
    else { return }
    snapshotDue = false
    snapshots.start(register, head: head)
  }

  /// Takes finished snapshots: the receipts they archived leave memory.
  /// Starts reading the catalog file on its own thread (SIGHUP); one already being read is
  /// followed by another once it is done.
  private func startCatalogReload() {
    guard let loadCatalog else { return }
    guard let catalogLoader else {
      // No thread to read it on (out of descriptors for its pipe): read it here.
      notifier?.reloading()
      finishCatalogReload(Result { try loadCatalog() })
      return
    }
    if catalogLoader.isBusy {
      reloadAgain = true
      return
    }
    notifier?.reloading()
    Log.info("SIGHUP: reading the catalog file again")
    catalogLoader.start { Result { try loadCatalog() } }
  }

  /// Imports the catalog the loader read (its changes are journaled like any change).
  private func collectCatalog() {
    guard let catalogLoader else { return }
    for result in catalogLoader.takeCompletions() { finishCatalogReload(result) }
    if reloadAgain && !catalogLoader.isBusy {
      reloadAgain = false
      startCatalogReload()
    }
  }

  private func finishCatalogReload(_ result: Result<Catalog, any Error>) {
    switch result {
    case .success(let catalog):
      catalogLoaded(catalog)
    case .failure(let error):
      Log.warning("SIGHUP: not reloading, keeping the current catalog: \(error)")
    }
    startWrite()
    release()
    notifier?.ready(status: readyStatus)
  }

  private func collectSnapshots() {
    guard let snapshots else { return }
    for result in snapshots.takeCompletions() {
      switch result {
      case .success(let written):
        service.archiveReceipts(written.archived)
        Log.info(
          "snapshot of record \(written.snapshot.sequence) written to \(written.snapshot.path) (\(written.bytes) bytes"
            + (written.archived.isEmpty
              ? ""
              : "; receipts of day(s) \(written.archived.map { String($0.day) }.joined(separator: ", ")) archived")
            + (written.removed > 0 ? "; \(written.removed) older snapshot(s) removed" : "") + ")")
      case .failure(let error):
        // Nothing is lost: start-up replays from the previous snapshot; the next close or
        // full segment tries again.
        Log.warning(
          "could not write a snapshot (\(error)); the journal has everything, start-up reads more of it"
        )
      }
    }
  }

  /// After a quiet spell on the thank-you, the pole display shows the welcome again.
  private func welcomeTheNextCustomer() {
    welcomeDue = nil
    guard let display else { return }
    let before = screen.poleLines()
    screen.idle()
    let after = screen.poleLines()
    if after != before {
      display.show(EscPos.poleDisplay(after, codePage: service.register.store.printerCodePage))
    }
  }

  /// Hands the oldest durable job to the printer when it is idle. Its bytes are rendered here,
  /// from the register (the journal keeps only the job); the worker does the I/O.
  private func startPrint() {
    guard let printer, !printer.isBusy, let job = printable.first else { return }
    guard let bytes = service.register.printBytes(for: job) else {
      Log.warning("print job \(job.id): its receipt is not there; dropped")
      printable.removeFirst()
      service.stageSystemEvents([.printDone(job: job.id)])
      return
    }
    printer.start(job: job.id, bytes: bytes)
  }

  /// Takes what the printer did: each job printed is journaled (`print_done`), so it is not
  /// printed again after a restart; its status goes to `hello`.
  private func collectPrints() {
    guard let printer else { return }
    let (printed, status) = printer.takeResults()
    if let status { service.printerStatus = status }
    guard !printed.isEmpty else { return }
    printable.removeAll { printed.contains($0.id) }
    service.stageSystemEvents(printed.map { .printDone(job: $0) })
  }

  /// Sends newly durable events to subscribers, then every reply whose changes are durable.
  private func release() {
    let result = service.takeReleasable()
    for event in result.events {
      logBusinessEvent(event)
      if printer != nil, case .printQueued(let job) = event.event { printable.append(job) }
    }
    if service.register.store.printer != nil { warnOfUnqueuedReceipts(result.events) }
    if let display, !result.events.isEmpty {
      // The same view as `register-cli watch`: each event, then the order after it. The
      // events are already applied, so the order after each is the register's open order
      // now: it is built once for the batch, not once an event.
      let before = screen.poleLines()
      let order = service.register.orderJSON
      for event in result.events {
        screen.apply(event: Topics.line(for: event), order: order)
      }
      let after = screen.poleLines()
      if after != before {
        display.show(EscPos.poleDisplay(after, codePage: service.register.store.printerCodePage))
      }
      welcomeDue =
        screen.screen == .thanks
        ? monotonicMilliseconds() + Int64(CustomerDisplay.thanksMilliseconds) : nil
    }
    if draining { drainAnswered += result.replies.count }
    if !result.events.isEmpty && !subscribers.isEmpty {
      // Each event's line is made once for every subscriber.
      let lines = result.events.map(JournalRecordLine.init)
      for connection in subscribers where !connection.broken {
        touch(connection)
        for line in lines {
          deliver(line, to: connection)
        }
        checkSubscriberBacklog(connection)
      }
    }
    for reply in result.replies {
      guard let connection = connectionsByID[reply.connection] else { continue }
      touch(connection)
      if let subscription = reply.subscription,
        let refusal = archivedHistoryRefusal(reply, subscription)
      {
        connection.enqueue(line: refusal)
        continue
      }
      connection.enqueue(reply: reply.pieces)
      if let subscription = reply.subscription {
        subscribe(connection, subscription)
      }
    }
  }

  /// Says which receipts of the sales and returns just made durable were not queued for the
  /// printer: past `PrintQueue.maximumPending` jobs waiting (a printer that has taken nothing
  /// for a long while) a sale still completes, but its receipt is not queued (nor its drawer
  /// kick), and the manager needs to know which ones to print again.
  private func warnOfUnqueuedReceipts(_ events: [CommittedEvent]) {
    var queued = Set<Int>()
    var completed: [Int] = []
    for committed in events {
      if case .printQueued(let job) = committed.event, case .receipt(let number, _) = job.document {
        queued.insert(number)
      } else if case .saleCompleted(_, let number, _, _, _) = committed.event {
        completed.append(number)
      } else if case .returnCompleted(let refund) = committed.event {
        completed.append(refund.receipt)
      }
    }
    for number in completed where !queued.contains(number) {
      Log.warning(
        "receipt \(number) was not queued for printing: \(PrintQueue.maximumPending) jobs are already waiting for the printer (\((service.printerStatus ?? .unknown).rawValue)); once it prints again, print it with `register-cli print \(number)`"
      )
    }
  }

  /// Logs what a store manager looks for among the events just made durable: a day closed,
  /// with its totals, and an operator locked out by wrong PINs.
  private func logBusinessEvent(_ committed: CommittedEvent) {
    // The register is read only for the events logged: a copy of it per event (every part
    // retained and released) cost more than the rest of a `paid_in`'s release.
    switch committed.event {
    case .dayClosed(let day, _, _):
      let register = service.register
      guard let closed = register.dayBook.closedDays[day] else { return }
      let currency = register.store.currency
      func amount(_ minorUnits: Int64) -> String {
        "\(Money(minorUnits: minorUnits, currency: currency).decimalString) \(currency.code)"
      }
      let totals = closed.totals
      Log.info(
        "day \(day) closed: \(totals.salesCount) sale(s), net sales \(amount(totals.netSales)), "
          + "tax \(amount(totals.tax)), total \(amount(totals.total)), "
          + "\(totals.returnsCount) return(s) totalling \(amount(totals.returnsTotal)) (record \(committed.sequence))"
      )
    case .pinFailed(let id):
      // Logged once, by the wrong PIN that locked the operator.
      let register = service.register
      guard let person = register.operators.first(where: { $0.id == id }), person.locked,
        person.lockedAt == committed.at
      else { return }
      Log.warning(
        "operator \(id) locked after \(Operator.attemptsBeforeLock) wrong PINs (for \(register.store.lockoutMinutes) minutes, or until a manager unlocks)"
      )
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderResumed, .pinAccepted,
      .customerAttached, .customerDetached, .printDone, .saleCompleted, .returnCompleted,
      .orderVoided, .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked,
      .signedIn, .signedOut, .customerAdded, .productAdded, .productUpdated, .productRemoved,
      .stockAdjusted, .printQueued, .receiptEmailed, .orderParked, .wishlistAdded,
      .wishlistRemoved, .floatSet, .paidIn, .paidOut, .noSale:
      // Journaled and sent to subscribers; nothing a manager looks for in the log.
      break
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
        Topics.line(type: record.type, sequence: record.sequence, at: record.at, data: record.data)
        .serialized
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
    if connection.subscription == nil { subscribers.append(connection) }
    connection.subscription = subscription
    Log.debug(
      "connection \(connection.id) subscribed to live events after seq \(subscription.cursor)")
    let durable = service.durableSequence
    if subscription.cursor < durable, let dataDirectory,
      let segments = try? JournalFiles.segments(in: dataDirectory)
    {
      // Only the segments from the one holding the cursor on are read.
      _ = try? JournalFiles.read(segments, after: subscription.cursor, sum: nil) {
        _, records throws(RecoveryError) in
        for record in records where record.sequence <= durable {
          deliver(JournalRecordLine(record), to: connection)
          if connection.pendingOutput > subscriberLimit {
            throw RecoveryError("the subscriber's backlog is full")
          }
        }
      }
    }
    if var current = connection.subscription, current.cursor < durable {
      current.cursor = durable
      connection.subscription = current
    }
    checkSubscriberBacklog(connection)
  }

  /// The refusal of a `subscribe` whose `after` lies before the journal's first segment (the
  /// records after it were archived): catching up from there would skip them silently. The
  /// reply keeps the request's id.
  private func archivedHistoryRefusal(_ reply: OutgoingReply, _ subscription: Subscription)
    -> String?
  {
    guard subscription.cursor < service.durableSequence, let dataDirectory,
      let first = (try? JournalFiles.segments(in: dataDirectory))?.first?.firstSequence,
      subscription.cursor < first - 1
    else { return nil }
    let id = subscription.requestID
    let error = RegisterError(
      .historyArchived,
      "records \(subscription.cursor + 1)-\(first - 1) were archived out of the data directory (register-cli archive); subscribe with after \(first - 1) or later (older ones are in the archive, offline)"
    )
    return JSONValue.object(["id": id, "ok": .bool(false), "error": error.json]).serialized
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
    Log.warning("connection \(connection.id) cut off: subscriber too slow")
  }

  /// Closes the connections that are finished. Only a connection touched this pass can have
  /// become finished (everything that finishes one touches it).
  private func closeFinished() {
    var closedAny = false
    for connection in touched where !connection.isClosed {
      // A PIN check in flight still owes the connection a reply.
      guard connection.isFinished && !isCheckingPIN(connection) else { continue }
      discard(connection)
      Log.debug("connection \(connection.id) closed")
      closedAny = true
    }
    if closedAny { connections.removeAll { $0.isClosed } }
  }

  /// Closes `connection` and forgets it (`connections` is pruned by the caller).
  private func discard(_ connection: Connection) {
    poller.forget(connection.fd)
    close(connection.fd)
    connection.closed()
    connection.isClosed = true
    connectionsByID[connection.id] = nil
    connectionsByFD[connection.fd] = nil
    if connection.subscription != nil { subscribers.removeAll { $0 === connection } }
    // A descriptor is free again: a paused listener can try once more.
    listenerPausedUntil = nil
  }

  /// True when `connection` may be closed to let a new client in, as far as the daemon's own
  /// state goes: it is idle between requests with nothing in flight — no line read and
  /// unanswered, none half sent, no reply unwritten, no PIN check or large reply being worked
  /// out — and has not subscribed (a display waiting for events is busy, not idle).
  private func isIdle(_ connection: Connection) -> Bool {
    !connection.isClosed && !connection.broken && !connection.readClosed
      && connection.subscription == nil && connection.holdsNothing && !connection.hasTurn
      && !isCheckingPIN(connection) && computingFor[connection.id] == nil
  }

  /// Closes the connection idle longest that may be closed (`isIdle`, and nothing in its
  /// socket either way: one with bytes waiting has just sent a request, or not read a reply
  /// yet), to let a new client in at the connection limit; false when there is none.
  private func closeIdlest(now: Int64) -> Bool {
    let candidates = connections.filter(isIdle).sorted {
      ($0.lastActive, $0.id) < ($1.lastActive, $1.id)
    }
    guard let connection = candidates.first(where: { UnixSocket.isQuiet($0.fd) }) else {
      return false
    }
    if !makingRoom {
      makingRoom = true
      Log.warning(
        "\(maximumConnections) clients are connected (the limit): closing the connections idle longest (not subscribed, nothing in flight) to let new ones in"
      )
    }
    closedForRoom += 1
    Log.debug(
      "connection \(connection.id) closed to let a new client in (idle \(now - connection.lastActive) ms)"
    )
    discard(connection)
    if let index = connections.firstIndex(where: { $0 === connection }) {
      connections.remove(at: index)
    }
    return true
  }

  /// Ends an episode at the connection limit (a client was let in without closing another),
  /// saying how many idle connections were closed.
  private func stopMakingRoom() {
    guard makingRoom else { return }
    Log.info(
      "below the connection limit again (\(closedForRoom) idle connection(s) were closed to let new ones in)"
    )
    makingRoom = false
    closedForRoom = 0
  }

  /// Gives freed memory back to the system once clients have let go of `returnMemoryAfter`
  /// bytes (replies read, connections closed): malloc keeps it otherwise, and the daemon's
  /// resident size would stay where clients that never read took it.
  private func returnFreedMemory() {
    guard clientBytes.hasFreed(atLeast: Self.returnMemoryAfter / 12),
      clientBytes.unreadReplies == 0 || clientBytes.hasFreed(atLeast: Self.returnMemoryAfter)
    else { return }
    _ = clientBytes.takeFreed()
    ProcessMemory.returnFree()
  }

  private func shutdown() {
    // Finish the PIN checks in flight and the write in flight, so the replies they owe can
    // still go out.
    if let pinChecks {
      pinChecks.waitUntilIdle()
      service.submit(pinChecks.takeFinished())
    }
    // The same for the replies being worked out.
    finishComputingReplies()
    // A job the printer finished is journaled as printed; one still trying stays pending and
    // prints at the next start.
    printer?.stop()
    collectPrints()
    writer?.waitUntilIdle()
    collectWrites(startNext: false)
    snapshots?.waitUntilIdle()
    collectSnapshots()
    service.flush()
    release()
    for connection in connections {
      connection.flush()
      close(connection.fd)
      connection.closed()
    }
    connections.removeAll()
    connectionsByID.removeAll()
    connectionsByFD.removeAll()
    subscribers.removeAll()
    if listenFD >= 0 { close(listenFD) }
    if spareFD >= 0 { close(spareFD) }
    if let socketPath {
      unlink(socketPath)
      Log.info("stopped; removed \(socketPath)")
    } else {
      Log.info("stopped; the service manager keeps the socket")
    }
  }
}
