import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Nothing the starter left open stays open in a process that runs for months (but the socket
// a service manager passed does).
InheritedDescriptors.closeAll()

let environment = processEnvironment()
Log.configure(environment: environment)

let options: Options
do {
  options = try Options.parse(Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
  if error.isVersion {
    print("registerd \(registerdVersion)")
    exit(0)
  }
  if let message = error.message {
    Log.error(message)
    if error.showsUsage { writeStandardError(Options.usage + "\n") }
    exit(error.exitStatus)
  }
  print(Options.usage)
  exit(0)
}
if let level = options.logLevel {
  Log.level = level
} else if let name = environment["REGISTERD_LOG_LEVEL"], !name.isEmpty {
  if let level = LogLevel(name: name) {
    Log.level = level
  } else {
    Log.warning("REGISTERD_LOG_LEVEL=\(name) is not error, warning, info or debug; logging at info")
  }
}

/// The catalog file as registerd serves it: `--printer` names the receipt printer over the
/// store setting (so it is journaled with the store settings, and a restart without it goes
/// back to the setting).
func servedCatalog(_ loaded: Catalog) -> Catalog {
  var catalog = loaded
  if let printer = options.printer { catalog.store.printer = printer }
  return catalog
}

// A printer or display named by a path must be a character device or a FIFO: anything else (a
// regular file above all, written over from its start job after job) is refused here, and by
// every open after (`DeviceConnection`).
for (flag, address) in [("--printer", options.printer), ("--display", options.display)] {
  if case .device(let path)? = address, let refusal = DeviceConnection.refusal(of: path) {
    Log.error("cannot start: \(flag) \(refusal.path ?? path) \(refusal.reason)")
    exit(1)
  }
}

/// The catalog and store files, read: nil for an installed register that none configures (see
/// `Options.configuredCatalog`).
let configured: Catalog?
do {
  configured = try options.configuredCatalog().map(servedCatalog)
} catch {
  Log.error(options.checkOnly ? "\(error)" : "cannot start: \(error)")
  exit(1)
}

if options.checkOnly {
  // For an admin who edited /etc/registerd before `systemctl reload registerd`.
  guard let catalog = configured else {
    Log.error(
      "no catalog (\(options.catalogPath)) and no store file (\(options.installedStoreFile ?? "--store")) to check; the register keeps the settings `register-cli setup` gave it"
    )
    exit(1)
  }
  let store = catalog.store
  let promotions = catalog.promotions.isEmpty ? "" : ", \(catalog.promotions.count) promotions"
  print(
    """
    catalog:  \(options.catalogPath) (\(catalog.products.count) products\(promotions))
    store:    \(store.name), \(store.currency.code) (settings from \(options.currentStorePath ?? options.catalogPath))
    data:     \(options.dataDirectory)
    socket:   \(options.socketPath)
    """)
  // The register the file would be imported into, when there is one: what the file may not
  // change (its currency, once the register holds amounts) is checked against it too, so that
  // `systemctl reload` fails before the SIGHUP rather than after. Read as `register-cli replay`
  // reads it (the newest snapshot, then the journal after it), alongside a running registerd.
  if let segments = try? JournalFiles.segments(in: options.dataDirectory), !segments.isEmpty {
    do {
      let loaded = try JournalFiles.load(options.dataDirectory, segments: segments)
      if let reason = loaded.register.currencyChangeRefusal(to: store.currency) {
        Log.error("\(options.catalogPath): \(reason)")
        exit(1)
      }
    } catch {
      Log.warning(
        "could not read the register in \(options.dataDirectory) to check against it: \(error)")
    }
  }
  exit(0)
}

// REGISTERD_FIXED_TIME freezes the clock (for tests and demos that must print the same bytes).
let clock: any RegisterClock
if let fixed = environment["REGISTERD_FIXED_TIME"], !fixed.isEmpty {
  guard let start = Timestamp.parse(fixed) else {
    Log.error("REGISTERD_FIXED_TIME must look like 2026-11-22T14:03:05.000-05:00")
    exit(2)
  }
  clock = ManualClock(start)
} else {
  clock = SystemClock()
}

// One daemon per data directory: a second one (or an offline command that writes) would
// interleave its records with ours and break the chain. Held until the process exits.
// Nothing is created in a data directory that is a symbolic link or open to others (the lock
// file included); recovery checks again once the directory exists.
if let reason = FileIO.unsafeDirectoryReason(options.dataDirectory, what: "the data directory") {
  Log.error("cannot start: \(reason). Nothing was changed.")
  exit(1)
}
let dataDirectoryLock: DataDirectoryLock
do {
  try FileIO.makeDirectories(options.dataDirectory)
  dataDirectoryLock = try DataDirectoryLock.acquire(options.dataDirectory)
} catch let error as DataDirectoryLockError {
  Log.error("cannot start: \(error)")
  exit(1)
} catch {
  Log.error("cannot start: cannot create the data directory \(options.dataDirectory): \(error)")
  exit(1)
}

// The key is read before the journal: every record start-up replays must carry a MAC it made.
var journalKey: HMACSHA256?
if let path = options.journalKeyPath {
  do {
    journalKey = try JournalKey.load(path, dataDirectory: options.dataDirectory)
  } catch {
    Log.error("cannot start: \(error)")
    exit(1)
  }
}

var recovery: JournalFiles.Recovery
do {
  recovery = try JournalFiles.recover(
    directory: options.dataDirectory, now: clock.now(), key: journalKey)
} catch {
  Log.error("cannot start: \(error)")
  exit(1)
}
for skipped in recovery.skippedSnapshots {
  Log.warning("skipped a snapshot that cannot be used: \(skipped)")
}
if let snapshot = recovery.snapshot {
  Log.info("started from the snapshot \(snapshot.path) (record \(snapshot.sequence))")
}
if recovery.migratedLegacyJournal {
  Log.info(
    "moved the journal of an older registerd into \(JournalFiles.segmentDirectory(in: options.dataDirectory)) as its first segment"
  )
}
if !recovery.removedSegments.isEmpty {
  Log.warning(
    "removed \(recovery.removedSegments.count) journal segment file(s) without a record, left by a new segment that could not be made: \(recovery.removedSegments.joined(separator: ", "))"
  )
}
if let aside = recovery.setAside {
  Log.warning(
    "the journal ended with a torn or unreadable tail (\(aside.reason)); "
      + "moved its \(aside.length) bytes to \(aside.path) and kept all complete records (up to seq \(recovery.lastSequence))"
  )
}
// The outbox gets e-mailed receipts: like the data directory it must not be a link or open
// to others (the data directory and the journal are checked by recovery).
if let reason = FileIO.unsafeDirectoryReason(
  options.dataDirectory + "/outbox", what: "the e-mail outbox")
{
  Log.error("cannot start: \(reason)")
  exit(1)
}

// A crash in the middle of writing an e-mail, a snapshot or a day's receipt archive, or of
// setting a torn tail aside, leaves its temporary file behind; nothing else writes here while
// we hold the lock.
for directory in [
  options.dataDirectory, options.dataDirectory + "/outbox",
  SnapshotFiles.directory(in: options.dataDirectory),
  SnapshotFiles.receiptsDirectory(in: options.dataDirectory),
] {
  let removed = FileIO.removeStaleTemporaries(in: directory)
  if removed > 0 {
    Log.warning("removed \(removed) half-written temporary file(s) left in \(directory) by a crash")
  }
}

let journal: Journal
do {
  journal = Journal(
    storage: try recovery.openStorage(), lastSum: recovery.lastSum,
    lastSequence: recovery.lastSequence)
} catch {
  Log.error("cannot open the journal: \(error)")
  exit(1)
}
journal.macKey = journalKey
if recovery.register.lastSequence > 0 {
  let recovered = recovery.register
  Log.info(
    "recovered \(recovery.recordsRead) journal records: day \(recovered.day.number), "
      + "\(recovered.lastReceiptNumber ?? 0) receipts, open order \(recovered.order.id) with \(recovered.order.lines.count) lines"
  )
}

let service = RegisterService(register: recovery.takeRegister(), clock: clock, journal: journal)
// Installed, the register serves nobody until it has store settings and a manager.
service.requiresSetup = options.installedLayout
// What is durable is the truth: after a failed write the register is read back from the
// snapshot and the journal, through the last record on disk.
service.rebuildFromDurable = { [dataDirectory = options.dataDirectory, journalKey] sequence in
  try JournalFiles.rebuild(dataDirectory, through: sequence, key: journalKey)
}
service.onStorageFailure = { message in
  Log.error("STORAGE FAILED: \(message)")
}
service.outboxDirectory = options.dataDirectory + "/outbox"
journal.onSegmentFailure = { error in
  Log.warning(
    "could not start a new journal segment (\(error)); the records go on in the open one, and it is tried again after the next write"
  )
}
journal.onEffectFailure = { path, error in
  Log.warning(
    "could not write \(path) (\(error)); the journal has the change, the file will be rewritten")
}

/// When the catalog file is imported, as the log names it.
enum ImportMoment: String {
  case startUp = "start-up"
  case sighup = "SIGHUP"
}

/// Logs the events that import what changed in the catalog file.
func logImported(_ events: [Event], note: String = "") {
  for change in events {
    Log.info(
      change.eventType == .catalogLoaded
        ? "imported the changes in \(options.catalogPath)\(note)"
        : "store settings updated from \(options.currentStorePath ?? options.catalogPath)\(note)")
  }
}

/// The events that import what changed in the catalog file since the register last imported
/// it, said in the log (none when it would reprice a payment under way, or storage has failed:
/// the import then waits, see `RegisterService.importCatalog` and `stageImport`). The file is
/// an import source: registerd never writes it (`register-cli catalog export` writes the live
/// catalog to a file on request).
func catalogChanges(_ outcome: RegisterService.CatalogImport, when: ImportMoment) -> [Event] {
  switch outcome {
  case .unchanged:
    // Said when asked (SIGHUP); a start-up without changes is the usual case.
    if when == .sighup { Log.info("\(when.rawValue): \(options.catalogPath) has no changes") }
    return []
  case .changes(let events):
    logImported(events)
    return events
  case .refused(let reason):
    // Like a bad file: on SIGHUP the current catalog is kept; at start-up registerd stops
    // rather than serve under a currency the file no longer names.
    guard when == .sighup else {
      Log.error("cannot start: \(options.catalogPath): \(reason)")
      exit(1)
    }
    Log.warning(
      "\(when.rawValue): not reloading, keeping the current catalog: \(options.catalogPath): \(reason)"
    )
    return []
  case .deferred(let order, let reason):
    Log.warning(
      "\(when.rawValue): the changes in \(options.catalogPath) wait for order \(order), which payment has started on: \(reason). They are imported when that order is completed or voided"
    )
    return []
  case .waitsForStorage(let reason):
    Log.warning(
      "\(when.rawValue): the changes in \(options.catalogPath) wait for the journal to take writes again (\(reason)); they are imported then"
    )
    return []
  }
}
service.onDeferredImport = { events, waitedFor in
  logImported(events, note: " (it had waited for \(waitedFor))")
}

do {
  if let configured {
    try service.commit(
      catalogChanges(
        service.importCatalog(
          configured, into: service.register.lastSequence > 0 ? service.register : nil),
        when: .startUp))
  }
} catch {
  // No exit (a full disk would have the service manager restart registerd over and over, and
  // the lane stay dark): the register was rebuilt from the journal, serves reads, and takes
  // changes once a write succeeds; the catalog's changes wait for that too.
  Log.error(
    "could not journal the changes in \(options.catalogPath) (\(error)); serving the register as it was, without them until a write succeeds again"
  )
  if let configured { _ = service.stageImport(configured) }
}

// Under socket activation the service manager made the socket (and owns its file): serve on
// it, and leave its path, mode and group alone.
let passedSocket: PassedSocket?
do {
  passedSocket = try PassedSocket.take()
} catch {
  Log.error("cannot start: \(error)")
  exit(1)
}

// Installed and started by hand (not by systemd, which makes it): /run/registerd may not
// exist yet.
if passedSocket == nil && options.installedLayout
  && FileIO.parentDirectory(of: options.socketPath) == Paths.runtimeDirectory
{
  try? FileIO.makeDirectories(Paths.runtimeDirectory, mode: 0o755)
}

let signalFD = SignalPipe.install()
let listenFD: Int32
let listeningOn: String
if let passedSocket {
  listenFD = passedSocket.fd
  listeningOn = "\(passedSocket.path) (the socket the service manager passed)"
  if options.socketGroup != nil || options.socketMode != 0o600 {
    Log.info(
      "--socket-mode and --socket-group do not apply: the service manager made \(passedSocket.path) (SocketMode= and SocketGroup= in the .socket unit)"
    )
  }
} else {
  switch UnixSocket.probe(options.socketPath) {
  case .live:
    Log.error(
      "another registerd is already listening on \(options.socketPath); stop it first or use --socket"
    )
    exit(1)
  case .notASocket:
    Log.error("\(options.socketPath) exists and is not a socket; refusing to replace it")
    exit(1)
  case .stale:
    Log.warning("removing stale socket \(options.socketPath)")
    unlink(options.socketPath)
  case .absent:
    break
  }

  do {
    listenFD = try UnixSocket.listen(at: options.socketPath, mode: mode_t(options.socketMode))
  } catch {
    Log.error("cannot listen: \(error)")
    exit(1)
  }

  if let group = options.socketGroup {
    guard let entry = getgrnam(group) else {
      Log.error("no group \"\(group)\" for --socket-group")
      unlink(options.socketPath)
      exit(1)
    }
    guard lchown(options.socketPath, uid_t.max, entry.pointee.gr_gid) == 0 else {
      Log.error("cannot give \(options.socketPath) to group \(group): \(SystemError("chown"))")
      unlink(options.socketPath)
      exit(1)
    }
  }
  listeningOn = options.socketPath
}

// The start-up summary a store manager looks for.
if service.awaitsSetup {
  Log.warning(
    "registerd \(registerdVersion) is not set up: it needs \(service.register.setupNeeds.joined(separator: " and ")) and answers only hello and setup until then. Run `register-cli setup` on this machine (it asks for the store's name, tax rate and first manager); data in \(options.dataDirectory); listening on \(listeningOn)"
  )
} else {
  Log.info(
    "registerd \(registerdVersion) serving \(service.register.store.name): \(service.register.products.count) products "
      + "(settings from \(options.configurationSource)), day \(service.register.day.number), "
      + "\(recovery.recordsRead) journal records recovered, data in \(options.dataDirectory); "
      + "listening on \(listeningOn)"
  )
}
let server = Server(
  listenFD: listenFD, signalFD: signalFD,
  socketPath: passedSocket == nil ? options.socketPath : nil, service: service,
  writer: JournalWriter(journal: journal))
server.notifier = ServiceNotifier(environment: environment)
server.readyStatus =
  service.awaitsSetup
  ? "not set up: run register-cli setup"
  : "serving \(service.register.store.name) on \(passedSocket?.path ?? options.socketPath), day \(service.register.day.number)"
server.dataDirectory = options.dataDirectory
server.snapshots = SnapshotWriter(dataDirectory: options.dataDirectory)
// A long replay at this start (no snapshot yet, or an old one): take one as soon as all is
// durable, so the next start reads less.
server.snapshotDue = recovery.recordsRead > 20_000
server.subscriberLimit = options.subscriberBacklog
server.unreadReplyLimit = options.unreadReplies
server.maximumConnections = options.maximumConnections ?? Server.defaultMaximumConnections()
server.idleTimeout = options.idleTimeoutMilliseconds
if let address = options.display {
  server.display = PoleDisplay(address: address)
  Log.info("showing the order on the customer display \(address)")
}
if let address = service.register.store.printer {
  // A printer named later (SIGHUP) is used from the next start.
  server.printer = ReceiptPrinter(address: address)
  Log.info("printing receipts on \(address)")
  if case .device(let path) = address, let refusal = DeviceConnection.refusal(of: path) {
    Log.error(
      "the store's printer \(path) \(refusal.reason); nothing is written to it, and its jobs wait"
    )
  }
}
// On SIGHUP the catalog file is read again (on a thread of its own) and what changed in it
// is imported; a bad file is refused, the old catalog kept.
server.loadCatalog = { [options] in
  guard let catalog = try options.configuredCatalog() else {
    throw CatalogError(
      file: options.catalogPath,
      message:
        "no catalog or store file to read; the register keeps the settings `register-cli setup` gave it"
    )
  }
  return servedCatalog(catalog)
}
server.catalogLoaded = { reloaded in
  _ = catalogChanges(service.stageImport(reloaded), when: .sighup)
}
server.run()
// Every write is done (the server waited for the writer): the open segment is cut to its
// records, the zeros written ahead of them dropped.
journal.storage.close()
exit(0)
