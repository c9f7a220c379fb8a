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
///
/// The loop and its dispatch are here; each of its jobs is a part of its own: accepting
/// (`Acceptor`, `Server+Accepting`), reading and the fair share of lines (`Server+Reading`,
/// `Server+Lines`), the journal (`JournalHandOff`), large replies (`Server+ReplyComputation`),
/// snapshots, the catalog reload, the drain, the printer and display (`Peripherals`),
/// subscribers (`Subscriptions`), the business log (`BusinessLog`) and idle timeouts
/// (`IdleTimeouts`).
package final class Server {
  /// Connections served at once; more are answered `too_many_connections` and closed.
  package var maximumConnections = 1000
  /// A client whose line has been incomplete this long (milliseconds) is disconnected
  /// (`--idle-timeout`, default 30 s).
  package var idleTimeout: Int64 = 30_000
  /// A subscriber whose unread events pass this many bytes is cut off (with a last error line)
  /// rather than growing the daemon's memory (`--max-subscriber-backlog`, default 1 MiB).
  package var subscriberLimit: Int {
    get { subscriptions.limit }
    set { subscriptions.limit = newValue }
  }
  /// The unread replies of all clients together (`--max-unread-replies`, default 64 MiB): at
  /// this many bytes only clients holding less than `replyReserve` are handed more requests,
  /// and no large reply (`catalog_export`, `customer_history`) is worked out while a client
  /// holds one unread. So clients that never read hold at most this, their reserves and one
  /// large reply, however many they are; a client that reads is still served.
  package var unreadReplyLimit = 64 << 20
  /// The bytes of replies the clients have not read, kept up to date by each connection.
  let clientBytes = ClientBytes()

  let acceptor: Acceptor
  private let signalFD: Int32
  /// The socket file registerd made and removes when it stops (nil: the service manager
  /// passed the socket and owns its file).
  let socketPath: String?
  let service: RegisterService
  /// The journal writer and storage retries.
  let journal: JournalHandOff
  /// Hashes PINs off this thread (nil if its pipe could not be made: then `decide` hashes).
  let pinChecks = PINChecks()
  /// The data directory, whose journal a subscriber with `after` catches up from.
  package var dataDirectory: String? {
    get { subscriptions.dataDirectory }
    set { subscriptions.dataDirectory = newValue }
  }
  /// Writes snapshots when a day is closed or a segment fills (nil: none are written).
  package var snapshots: SnapshotWriter?
  /// A snapshot is wanted, at the next moment every change is durable.
  package var snapshotDue = false
  var connections: [Connection] = []
  /// The same connections by id, for handing out replies, and by descriptor, for what the
  /// poller reports (kept as they open and close).
  var connectionsByID: [Int: Connection] = [:]
  var connectionsByFD = DescriptorTable<Connection>()
  /// The connections that subscribed to live events.
  let subscriptions: Subscriptions
  /// Connections something happened to this pass (read, lines taken, replies queued, written,
  /// failed): after the pass their output is written and whether they are finished checked,
  /// and before the next wait what the poller watches them for is brought up to date. A pass
  /// visits these, not every connection.
  var touched: [Connection] = []
  /// Connections that may have lines to hand to the service: touched since their lines were
  /// last looked at. One that cannot hand any over now (at a bound, or a PIN being checked)
  /// is touched again when that changes (its replies go out, its check is done).
  var mayHaveLines: [Connection] = []
  /// Connections that had lines left after their share of a pass, in the order they are to
  /// be served again (from `turnsHead` on). A connection with no lines waiting until now is
  /// served before them, so a client that sends a request now and then is answered within a
  /// pass however many clients keep the loop busy.
  var turns: [Connection] = []
  var turnsHead = 0
  /// The connections whose lines are taken this pass before the turns (storage kept).
  var fresh: [Connection] = []
  /// Connections in the middle of a line, for the idle timeout.
  private var idle = IdleTimeouts()
  /// What the loop waits on (epoll on Linux); told before a listed descriptor is closed.
  let poller = EventPoller()
  var nextConnectionID = 1
  private var stopping = false
  var readBuffer = [UInt8](repeating: 0, count: 65_536)
  /// Reads the catalog file again (on SIGHUP), on a thread of its own: a large file takes a
  /// while to parse, and the lanes are served meanwhile. nil: SIGHUP reloads nothing.
  package var loadCatalog: (@Sendable () throws -> Catalog)?
  /// What to do with the catalog `loadCatalog` read, on the loop (import its changes).
  package var catalogLoaded: (Catalog) -> Void = { _ in }
  let catalogLoader = BackgroundTask<Result<Catalog, any Error>>(label: "registerd.catalog")
  /// A SIGHUP came while the catalog was being read: read it once more when that is done (the
  /// file may have changed again).
  var reloadAgain = false
  /// Works out the replies of reads whose work grows with the store (`catalog_export`,
  /// `customer_history`: `RegisterService.computesRepliesAway`), one after another, so the
  /// loop goes on serving the lanes meanwhile. nil (out of descriptors for its pipe): they
  /// are worked out on the loop.
  /// The thread runs at niceness 10: on a machine whose cores are all busy, the lanes' requests
  /// come first.
  let replyComputer = BackgroundTask<(ticket: Int, connection: Int, bytes: [UInt8])>(
    label: "registerd.replies", niceness: 10)
  /// Connections with a reply being worked out, and how many: no more of their lines are
  /// taken until it is done (each such reply can be large, and its bytes go to the client's
  /// output whether or not the client reads; one at a time keeps that within the output
  /// bound).
  var computingFor: [Int: Int] = [:]
  /// Replies to work out (`RegisterService.takeComputations`), oldest first, not started yet.
  var waitingComputations: [ReplyComputation] = []
  /// The receipt printer and the customer's pole display.
  let peripherals: Peripherals
  /// The receipt printer, when the store has one: jobs go to it one at a time, in order.
  package var printer: ReceiptPrinter? {
    get { peripherals.printer }
    set { peripherals.printer = newValue }
  }
  /// The customer's pole display (`--display`).
  package var display: PoleDisplay? {
    get { peripherals.display }
    set {
      peripherals.display = newValue
      service.customerDisplay = newValue
    }
  }
  /// The service manager (systemd) told of readiness, reloads, stopping and liveness.
  package var notifier: ServiceNotifier?
  /// The one-line status sent with `READY=1`.
  package var readyStatus = "serving"
  /// When (monotonic milliseconds) the next `WATCHDOG=1` is due.
  private var nextWatchdog: Int64?
  /// Set by the first SIGTERM or SIGINT.
  var drain = Drain()

  package init(
    listenFD: Int32, signalFD: Int32, socketPath: String?, service: RegisterService,
    writer: JournalWriter?
  ) {
    acceptor = Acceptor(listenFD: listenFD)
    self.signalFD = signalFD
    self.socketPath = socketPath
    self.service = service
    journal = JournalHandOff(writer: writer, service: service)
    subscriptions = Subscriptions(service: service)
    peripherals = Peripherals(service: service)
    service.computesRepliesAway = replyComputer != nil
    journal.onStorageWorksAgain = { [peripherals] in peripherals.journalWhatWasPrinted() }
  }

  /// Runs until SIGINT or SIGTERM (and the drain that follows) is over.
  package func run() {
    acceptor.start()
    peripherals.start()
    // The socket listens and the loop starts serving now: a client that connects the moment
    // READY=1 arrives is accepted on the first pass.
    notifier?.ready(status: readyStatus)
    if let interval = notifier?.watchdogInterval {
      nextWatchdog = monotonicMilliseconds() + interval
    }
    let wakeUps = [
      signalFD, journal.notifyFD, pinChecks?.notifyFD, snapshots?.notifyFD, printer?.notifyFD,
      catalogLoader?.notifyFD, replyComputer?.notifyFD, subscriptions.notifyFD,
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
      if drain.isActive {
        if connections.isEmpty { break }
        if now >= drain.deadline {
          Log.warning(
            "drain: the grace of \(Drain.grace) ms is over; dropping \(connections.count) connection(s) that still had unwritten replies or unanswered requests"
          )
          break
        }
      }
      acceptor.endPause(now: now)
      peripherals.welcomeIfDue(now: now)
      acceptor.watch(with: poller, draining: drain.isActive)
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
      var caughtUp = false
      readable.removeAll(keepingCapacity: true)
      for item in ready {
        let fd = item.fd
        if fd == signalFD {
          signalled = true
        } else if fd == journal.notifyFD {
          written = true
        } else if fd == acceptor.listenFD {
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
        } else if fd == subscriptions.notifyFD {
          caughtUp = true
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
      if !drain.isActive && connecting { acceptClients() }
      let afterPoll = monotonicMilliseconds()
      for connection in readable where !connection.isClosed {
        read(connection, now: afterPoll)
      }
      if snapshotted { collectSnapshots() }
      if printed { peripherals.collectPrints() }
      if catalogRead { collectCatalog() }
      if computed { collectComputedReplies() }
      if caughtUp { subscriptions.collectCatchUps { touch($0) } }
      handleQueuedLines(pinsChecked: pinsChecked)
      startComputingReplies()
      journal.startWrite()
      journal.tendStorage(now: afterPoll)
      release()
      peripherals.startPrint()
      startSnapshot()
      for connection in touched where connection.pendingOutput > 0 { connection.flush() }
      // A reply waiting for its client to read the one before may go now.
      if !waitingComputations.isEmpty { startComputingReplies() }
      idle.closeIdle(now: afterPoll, timeout: currentIdleTimeout) { touch($0) }
      closeFinished()
      returnFreedMemory()
    }
    if drain.isActive {
      Log.info(
        "drain finished: \(drain.answered) request(s) answered during the drain; "
          + "\(drain.startedWith - connections.count) of \(drain.startedWith) connection(s) served to the end"
      )
    }
    shutdown()
  }

  /// Notes that something happened to `connection` this pass (see `touched`).
  func touch(_ connection: Connection) {
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
      idle.note(connection)
    }
    touched.removeAll(keepingCapacity: true)
  }

  /// Every connection touched (when something changes for all: a drain begins).
  func touchAll() {
    for connection in connections { touch(connection) }
  }

  /// How long poll may sleep: until the listener's pause or the first incomplete line's
  /// deadline, or for ever.
  private func pollTimeout(now: Int64) -> Int32 {
    var deadline = acceptor.pausedUntil
    if let due = nextWatchdog { deadline = min(deadline ?? .max, due) }
    if let due = peripherals.welcomeDue { deadline = min(deadline ?? .max, due) }
    if let due = journal.retryDue { deadline = min(deadline ?? .max, due) }
    if drain.isActive { deadline = min(deadline ?? .max, drain.deadline) }
    if let due = idle.firstDeadline(timeout: currentIdleTimeout) {
      deadline = min(deadline ?? .max, due)
    }
    guard let deadline else { return -1 }
    // A millisecond more, so the deadline has passed when poll returns.
    return Int32(clamping: max(0, deadline - now + 1))
  }

  private func handleSignals() {
    for signal in SignalPipe.drain(signalFD) {
      switch signal {
      case SIGINT, SIGTERM:
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        if drain.isActive {
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

  /// Takes finished writes from the writer thread and (unless stopping) starts the next one;
  /// a segment that ended makes a snapshot due.
  func collectWrites(startNext: Bool = true) {
    if journal.collectWrites(startNext: startNext) { snapshotDue = true }
  }

  /// Sends newly durable events to subscribers, then every reply whose changes are durable.
  func release() {
    let result = service.takeReleasable()
    for event in result.events {
      BusinessLog.log(event, of: service)
      peripherals.queue(event)
    }
    if service.register.store.printer != nil {
      BusinessLog.warnOfUnqueuedReceipts(result.events, of: service)
    }
    peripherals.show(result.events)
    if drain.isActive { drain.answered += result.replies.count }
    subscriptions.publish(result.events) { touch($0) }
    for reply in result.replies {
      guard let connection = connectionsByID[reply.connection] else { continue }
      touch(connection)
      if subscriptions.holdReply(reply, for: connection) { continue }
      if let subscription = reply.subscription,
        let refusal = subscriptions.archivedHistoryRefusal(subscription)
      {
        connection.enqueue(line: refusal)
        continue
      }
      connection.enqueue(reply: reply.pieces)
      if let subscription = reply.subscription {
        subscriptions.subscribe(connection, subscription)
      }
    }
  }
}
