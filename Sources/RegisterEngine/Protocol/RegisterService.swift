/// The version this build reports in `hello`.
public let registerdVersion = "0.1.0"

/// The register behind the protocol: decodes each request line, executes it against the
/// register, stages its changes and hands its reply to group commit.
///
/// Requests are handled one at a time in arrival order, each against the state the previous
/// ones left. The parts it coordinates each do one job: `GroupCommit` (groups, held replies,
/// answering again after a failed write), `Replies` (queries and mutation results, from the state),
/// `ReceiptOutbox` (the e-mail files a group calls for); the synchronous API tests use is in
/// RegisterService+Synchronous.swift.
///
/// What is durable is the truth. If storage fails, the failed group and everything staged
/// after it are dropped and the register is rebuilt from the journal (`rebuildFromDurable`:
/// the newest snapshot and the records through the last one known to be on disk); every
/// mutation among them is refused with `storage_failed`, reads among them are answered again
/// from the rebuilt state, and mutations are refused until a write succeeds again
/// (`retryStorage`, or the daemon's writer trying and `storageWorksAgain`). Nothing is copied
/// ahead of a change in case it fails.
public final class RegisterService {
  /// The state. Every change to it goes through this property, so its observer can drop what
  /// was rendered from the old state.
  ///
  /// The read is inlinable so that a reader in another module (the daemon reading
  /// `register.store.printer` after each batch) borrows the state in place: through a
  /// non-inlinable read the caller copied the whole `Register` (every part retained, then
  /// released) for each read.
  public private(set) var register: Register {
    @inlinable _read { yield state }
    _modify {
      defer { replies.stateChanged() }
      yield &state
    }
  }
  /// The register's storage. Every change goes through `register`, which drops what was
  /// rendered from the state before it; `decide` reads it directly (it changes nothing), and
  /// `record` applies a request's events to it directly and then drops the rendering itself.
  @usableFromInline private(set) var state: Register
  /// The answers read from `register`, with the rendering kept between changes.
  private var replies: Replies
  /// Groups and held replies; it calls back (GroupCommitOwner) when a write failed and for a
  /// fresh answer.
  let groups: GroupCommit<RegisterService>
  /// The time each change is recorded at.
  let clock: any RegisterClock
  /// Where changes are made durable (nil: in memory only, for tests and demos).
  let journal: Journal?
  /// Why the register stopped taking mutations, when storage has failed (cleared once a
  /// write succeeds again).
  public private(set) var storageFailure: String?
  /// Why the register could not be rebuilt from the journal after a failed write, when it
  /// could not: its state is then unknown, and every request but `hello` is refused until a
  /// rebuild succeeds (tried again with the storage).
  public private(set) var rebuildFailure: String?
  /// The register as the durable records through the given sequence number leave it: the
  /// daemon reads the newest snapshot and the journal's segments (`JournalFiles.rebuild`).
  /// nil: a failed write leaves the register's state unknown (see `rebuildFailure`).
  public var rebuildFromDurable: ((Int64) throws -> Register)?
  /// What the receipt printer said last; the daemon's printer thread reports it.
  public var printerStatus: PrinterStatus?
  /// The customer's pole display, when the daemon drives one (`hello` shows its status).
  public var customerDisplay: (any CustomerDisplayLink)?
  /// Called with a message when storage fails, once for each time it does until it works
  /// again (the daemon logs it).
  public var onStorageFailure: (String) -> Void = { _ in }
  /// A catalog import waiting for the open order's payment to finish (`importCatalog`), or
  /// for storage to work again (`stageImport`).
  public internal(set) var deferredImport: Catalog?
  /// What the waiting import waits for, in words ("the order being paid to be finished").
  var deferredBecause = ""
  /// The catalog `stageImport` last staged changes from, and the last record they were
  /// staged as: a failed write that drops them leaves the import to be done again once
  /// storage works.
  var stagedImport: (catalog: Catalog, through: Int64)?
  /// Called with the events of a waiting catalog import when they are staged, and what it
  /// waited for (the daemon logs it).
  public var onDeferredImport: ([Event], String) -> Void = { _, _ in }
  /// Where e-mailed receipts are written (nil: e-mail is refused).
  public var outboxDirectory: String?
  /// Set for an installed register (not a source checkout): until it is set up — store
  /// settings of its own and a manager (`Register.isSetUp`) — it answers only `hello` and
  /// `setup`, so an install never serves anyone in the socket's group as an open register.
  public var requiresSetup = false
  /// True while the register must be set up before it serves (see `requiresSetup`).
  public var awaitsSetup: Bool { requiresSetup && !register.isSetUp }
  /// When set (the daemon, which has a thread for it), a read whose work grows with the
  /// store — `catalog_export` (every product), `customer_history` (every receipt of the
  /// customer, read from the archive) — is not worked out in `submit`: its reply is held as a
  /// `ReplyComputation` (`takeComputations`), run elsewhere and handed back (`computed`), so
  /// the event loop, and every lane waiting on it, does not stop for it. Unset (tests, tools),
  /// it is worked out in `submit`, as every other reply.
  public var computesRepliesAway = false
  /// Random bytes for PIN salts and message ids (the platform's: RegisterServer's
  /// `RegisterService.systemRandom`, which its `init(register:clock:journal:)` passes).
  public let random: @Sendable (Int) -> [UInt8]

  /// The sequence number of the last record known to be on disk.
  public var durableSequence: Int64 { groups.durableSequence }

  /// A service over `register`, with the time from `clock` and random bytes from `random`;
  /// with a `journal`, every change is made durable before its reply is released.
  public init(
    register: Register, clock: any RegisterClock, random: @escaping @Sendable (Int) -> [UInt8],
    journal: Journal? = nil
  ) {
    self.state = register
    self.clock = clock
    self.random = random
    self.journal = journal
    replies = Replies(clock: clock, journal: journal)
    groups = GroupCommit(
      journal: journal, durableSequence: journal?.lastSequence ?? register.lastSequence)
  }

  /// The outbox e-mailed receipts go to, when there is one.
  private var outbox: ReceiptOutbox? { outboxDirectory.map(ReceiptOutbox.init(directory:)) }

  // MARK: - Staged use (the daemon: a writer thread does the fsyncs)

  /// The PIN hashing a request line will need, or nil when it needs none (or cannot be
  /// decoded). The daemon does this work on another thread and then submits the line with the
  /// result in `IncomingLine.prepared`, so the event loop never stops for a PBKDF2. Computed
  /// against the state now; if that changes before the line is handled, `decide` falls back to
  /// hashing itself.
  public func pinWork(for bytes: [UInt8]) -> PINWork? {
    // Most lines carry no PIN: a scan for the member name spares them a second decode.
    guard Self.mayCarryPIN(bytes),
      let request = try? RequestDecoder.decode(bytes, currency: register.store.currency)
    else { return nil }
    let work = register.pinWork(for: request, random: random)
    return work.isEmpty ? nil : work
  }

  /// False only when `bytes` cannot hold a `"pin"` member: every PIN travels in one (`sign_in`,
  /// `approve`, `operator_add`, `operator_set_pin`), and a member name spelled with escapes
  /// needs a backslash.
  static func mayCarryPIN(_ bytes: [UInt8]) -> Bool {
    let quote = UInt8(ascii: "\"")
    let backslash = UInt8(ascii: "\\")
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == backslash { return true }
      if byte == quote, index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "p"),
        bytes[index + 2] == UInt8(ascii: "i"), bytes[index + 3] == UInt8(ascii: "n"),
        bytes[index + 4] == quote
      {
        return true
      }
      index += 1
    }
    return false
  }

  /// Handles lines now (state changes in memory); their replies are held until durable.
  public func submit(_ batch: [IncomingLine]) {
    for incoming in batch { submit(incoming) }
  }

  /// Handles one line now (state changes in memory); its reply is held until durable.
  /// Returns the size of the reply in bytes (0 for one worked out later, see
  /// `computesRepliesAway`): the daemon counts it against what the client may leave unread
  /// before it hands over the client's next line.
  @discardableResult
  public func submit(_ incoming: IncomingLine) -> Int {
    let made = reply(to: incoming)
    groups.hold(incoming, made)
    // After the request's own records (and its idempotency key, which goes on its last
    // record), before the next request is decided.
    if deferredImport != nil { stageDeferredImport(at: clock.now()) }
    return made.pieces.count
  }

  /// Replies to work out away from the loop (see `computesRepliesAway`), held since the last
  /// call. Run each anywhere and hand its bytes to `computed(_:bytes:)`: until then, it and
  /// the later replies to its connection wait.
  public func takeComputations() -> [ReplyComputation] { groups.takeComputations() }

  /// A reply from `takeComputations` was worked out: `bytes` is what `ReplyComputation.run`
  /// returned.
  public func computed(_ ticket: Int, bytes: [UInt8]) { groups.computed(ticket, bytes: bytes) }

  /// True while a held reply is being worked out away from the loop.
  public var isComputingReplies: Bool { groups.isComputing }

  /// The next group to write when nothing is being written: seals the open group.
  public func nextWrite() -> JournalWrite? { groups.nextWrite(for: self) }

  /// The writer finished `work`: with `error`, the group was not made durable.
  public func finished(_ work: JournalWrite, error: SystemError?) {
    groups.finished(work, error: error, for: self)
  }

  /// The replies that may be sent now (in arrival order) and the newly durable events.
  public func takeReleasable() -> BatchResult { groups.takeReleasable() }

  /// True while changes are staged or being written.
  public var hasPendingWrites: Bool { groups.hasPendingWrites }

  /// The register with the journal record it is the state as of, when every change is durable
  /// (nil while changes are staged or written, or without a journal): what a snapshot takes.
  public var durableState: (register: Register, head: JournalHead)? {
    guard !groups.hasPendingWrites, let journal, journal.lastSequence > 0,
      register.lastSequence == journal.lastSequence
    else { return nil }
    return (register, JournalHead(sequence: journal.lastSequence, sum: journal.lastSum))
  }

  /// The receipts of `days` are in their archive files now (written by a snapshot): the
  /// register reads them from there and keeps them in memory no more. Nothing a client sees
  /// changes.
  public func archiveReceipts(_ days: [ArchivedDay]) {
    guard !days.isEmpty else { return }
    register.archiveReceipts(days, reader: nil)
  }

  /// Stages events that come from the daemon rather than a client (a receipt printed); they
  /// are written with the next group.
  public func stageSystemEvents(_ events: [Event]) {
    guard storageFailure == nil, !events.isEmpty else { return }
    let now = clock.now()
    stage(events, at: now, approvedBy: nil)
    if deferredImport != nil { stageDeferredImport(at: now) }
  }

  // MARK: - Execution

  /// The serialized reply to one line, and the subscription it starts (a `subscribe`). With
  /// `inline`, a reply that could be worked out away from the loop is worked out here.
  private func reply(to incoming: IncomingLine, inline: Bool = false) -> SerializedReply {
    guard let bytes = incoming.bytes else {
      return SerializedReply(
        bytes: ReplyEnvelope.failure(
          id: .null,
          RegisterError(
            .lineTooLong,
            "the line is longer than \(LineFramer.maximumLineLength) bytes and was discarded; send one request per line"
          )))
    }
    let request: Request
    do {
      request = try RequestDecoder.decode(bytes, currency: register.store.currency)
    } catch {
      return SerializedReply(bytes: ReplyEnvelope.failure(id: error.id, error.error))
    }
    // The id is taken out first: read from `request` after `execute`, it made the whole request
    // be copied for the call.
    let id = request.id
    do {
      switch try execute(consume request, prepared: incoming.prepared ?? PreparedPINs()) {
      case .value(let result):
        return SerializedReply(bytes: ReplyEnvelope.success(id: id, result))
      case .encoded(let result):
        return SerializedReply(pieces: ReplyEnvelope.success(id: id, encoded: result))
      case .subscribed(var subscription, let result):
        subscription.requestID = id
        return SerializedReply(
          bytes: ReplyEnvelope.success(id: id, result), subscription: subscription)
      case .computed(let work):
        let line: @Sendable () -> [UInt8] = {
          switch work() {
          case .success(let result): ReplyEnvelope.success(id: id, result)
          case .failure(let error): ReplyEnvelope.failure(id: id, error)
          }
        }
        guard computesRepliesAway && !inline else { return SerializedReply(bytes: line()) }
        return SerializedReply(computing: line)
      }
    } catch {
      return SerializedReply(bytes: ReplyEnvelope.failure(id: id, error))
    }
  }

  private func execute(_ request: consuming Request, prepared: PreparedPINs) throws(RegisterError)
    -> ReplyResult
  {
    if let rebuildFailure, !(request.body is Requests.Hello) {
      throw RegisterError(
        .storageFailed,
        "the register cannot read its journal back after a failed write (\(rebuildFailure)); it answers again once it can. Nothing was changed"
      )
    }
    if awaitsSetup, !(request.body is Requests.Hello), !(request.body is Requests.Setup) {
      throw RegisterError(
        .notSetUp,
        "this register is not set up yet: it needs \(register.setupNeeds.joined(separator: " and ")). Run `register-cli setup` on the lane machine (as the store's administrator); until then it answers only hello and setup"
      )
    }
    let mutation: any Mutation
    switch request.operation {
    case .query(let query):
      return try query.answer(&replies, from: self, register: &state)
    case .mutation(let change):
      mutation = change
    }
    // A repeated key gets the original reply and changes nothing — even after a restart.
    var fingerprint = ""
    if let key = request.key, let content = request.fingerprint {
      fingerprint = SHA256.hex(Array(content.utf8))
      if let stored = register.keys[key] {
        guard stored.fingerprint == fingerprint else {
          throw RegisterError(
            .keyReused,
            "key \"\(id: key)\" was already used for a different request; use a fresh key for a new change"
          )
        }
        return .value(stored.reply)
      }
    }
    if let storageFailure {
      throw RegisterError(
        .storageFailed,
        "the register cannot store changes (\(storageFailure)); nothing was changed. It takes changes again as soon as a write to its disk succeeds (tried every few seconds)"
      )
    }
    if let expected = request.expectVersion, expected != register.order.version {
      throw RegisterError(
        .versionConflict,
        "order \(register.order.id) is at version \(register.order.version), not \(expected); look at it again before changing it",
        data: register.orderJSON)
    }
    let now = clock.now()
    var context = CommandContext(
      now: now, approval: request.approval, random: random, prepared: prepared)
    if mutation is Requests.CloseDay, let head = groups.journalHead() {
      // The Z report anchors the chain at the record before its own (a record cannot hold
      // its own sum); staged records not encoded yet are chained here as they will be.
      if head.sequence > 0 { context.journalHead = head }
    }
    let events: [Event]
    // `decide` reads the register where it lies (`state`), not through `register`.
    let (decision, priced) = Self.decide(mutation, context: context, on: &state)
    switch decision {
    case .accepted(let accepted, let approvedBy):
      events = accepted
      stage(events, at: now, approvedBy: approvedBy, priced: priced)
    case .rejected(let error, let standing):
      // Some refusals still change something: a wrong PIN is counted. Those events are
      // journaled like any other; the request itself is refused.
      if !standing.isEmpty { stage(standing, at: now, approvedBy: nil) }
      throw error
    }
    if request.key == nil,
      let encoded = replies.encodedResult(of: events, register: &state)
    {
      return .encoded(encoded)
    }
    let reply = replies.result(of: mutation, events: events, outbox: outbox, register: &state)
    if let key = request.key {
      let stored = KeyRecord(key: key, fingerprint: fingerprint, reply: reply)
      if groups.attachKey(stored) { register.remember(stored) }
    }
    return .value(reply)
  }

  /// `register.decideAndPrice`, borrowing the register where it lies. Called on a value read
  /// from memory that might change during the call (a class's property, a pointer's pointee),
  /// the compiler copies the whole register for the call (every part of it retained, then
  /// released); an `inout` parameter is exclusive, so the call reads it in place.
  private static func decide(
    _ request: any Mutation, context: CommandContext, on register: inout Register
  ) -> (decision: Decision, priced: PricedOrder?) {
    register.decideAndPrice(request, context: context)
  }

  /// Applies a request's events and queues them in the open group.
  func stage(
    _ events: [Event], at time: Timestamp, approvedBy: String?, priced: PricedOrder? = nil
  ) {
    groups.willStage()
    groups.stage(record(events, at: time, approvedBy: approvedBy, priced: priced))
  }

  /// Applies events and returns their journal records (one request's records are linked with
  /// `more`, so recovery applies all of them or none). Each record names the operator signed
  /// in (for a sign-in, the one signing in).
  func record(
    _ events: [Event], at time: Timestamp, approvedBy: String? = nil, priced: PricedOrder? = nil
  ) -> [PendingRecord] {
    // The register is changed where it lies, through one access (`register`'s observer is
    // told once, after): reading and changing it through the property for every event made
    // three accesses each, and each access to a class's property is checked at run time.
    let records = Self.record(
      events, at: time, approvedBy: approvedBy, priced: priced, on: &state)
    replies.stateChanged()
    return records
  }

  private static func record(
    _ events: [Event], at time: Timestamp, approvedBy: String?, priced: PricedOrder?,
    on register: inout Register
  ) -> [PendingRecord] {
    var records: [PendingRecord] = []
    records.reserveCapacity(events.count)
    for (index, event) in events.enumerated() {
      let sequence = register.lastSequence + 1
      var operatorID = register.signedIn
      if case .signedIn(let id) = event { operatorID = id }
      register.apply(
        event, at: time, operatorID: operatorID, sequence: sequence, priced: priced)
      records.append(
        PendingRecord(
          sequence: sequence, at: time, event: event, operatorID: operatorID,
          approvedBy: approvedBy, key: nil, more: index != events.count - 1))
    }
    return records
  }

  /// Storage failed with `failure`: the register is rebuilt from the records through
  /// `sequence` (what is on disk) and takes no change until storage works again.
  func storageFailed(durableThrough sequence: Int64, failure: SystemError) {
    let message = failure.description
    let first = storageFailure == nil
    storageFailure = message
    rebuild(through: sequence)
    // A catalog import the failure dropped is done again once storage works (a later one,
    // already waiting, stands).
    if let stagedImport, stagedImport.through > sequence, deferredImport == nil {
      deferredImport = stagedImport.catalog
      deferredBecause = "storage to work again (the failure dropped it)"
    }
    stagedImport = nil
    guard first else { return }
    if let rebuildFailure {
      onStorageFailure(
        "\(message); the register could not be read back from its journal (\(rebuildFailure)), and refuses every request but hello until it can (tried again with the storage)"
      )
    } else {
      onStorageFailure(
        "\(message); the register was rebuilt from its journal through record \(sequence) (nothing acknowledged is lost), answers reads, and refuses changes until a write succeeds again"
      )
    }
  }

  /// Replaces the register with the one the durable records through `sequence` leave.
  private func rebuild(through sequence: Int64) {
    do {
      guard let rebuildFromDurable else {
        throw RecoveryError("nothing to rebuild the register from")
      }
      let rebuilt = try rebuildFromDurable(sequence)
      guard rebuilt.lastSequence == sequence else {
        throw RecoveryError(
          "the journal read back ends at record \(rebuilt.lastSequence), not at \(sequence)")
      }
      register = rebuilt
      rebuildFailure = nil
    } catch {
      rebuildFailure = "\(error)"
    }
  }

  /// Storage took a write and a sync again after a failure (the daemon's writer tried it):
  /// the register takes changes again. False (still failed) when the register could not be
  /// rebuilt from the journal and still cannot.
  @discardableResult
  public func storageWorksAgain() -> Bool {
    guard storageFailure != nil else { return true }
    if rebuildFailure != nil { rebuild(through: durableSequence) }
    guard rebuildFailure == nil else { return false }
    storageFailure = nil
    importWhatWaitedForStorage()
    return true
  }

  /// Tries storage again after a failure, on this thread (the synchronous API): true when it
  /// works again and the register takes changes.
  public func retryStorage() -> Bool {
    guard storageFailure != nil else { return true }
    if let journal, journal.resume() != nil { return false }
    return storageWorksAgain()
  }
}

extension RegisterService: GroupCommitOwner {
  func answer(_ incoming: IncomingLine) -> SerializedReply {
    reply(to: incoming, inline: true)
  }

  func effects(of records: [PendingRecord]) -> [FileEffect] {
    // Most groups e-mail nothing, and the register is read only for those that do: passed by
    // value from this class's property, it is copied whole (every part retained, released).
    guard let outbox, records.contains(where: { $0.event.eventType == .receiptEmailed }) else {
      return []
    }
    return outbox.effects(of: records, in: register)
  }
}

extension RegisterService: ReplySource {}
