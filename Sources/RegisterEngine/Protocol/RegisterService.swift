/// The version this build reports in `hello`.
public let registerdVersion = "0.1.0"

/// One request line as it arrived, tagged with the connection it came from.
public struct IncomingLine: Sendable {
  public var connection: Int
  /// The line without its newline, or `nil` when the line was too long and has been dropped.
  public var bytes: [UInt8]?
  /// PIN hashing done for this line off the event loop (see `RegisterService.pinWork(for:)`).
  public var prepared: PreparedPINs?

  public init(connection: Int, bytes: [UInt8]?, prepared: PreparedPINs? = nil) {
    self.connection = connection
    self.bytes = bytes
    self.prepared = prepared
  }
}

/// One reply line, for the connection that asked.
public struct OutgoingReply: Sendable {
  public var connection: Int
  /// The serialized reply as UTF-8, without a trailing newline.
  public var bytes: [UInt8]
  /// When the request was a successful `subscribe`: what the connection now listens to.
  public var subscription: Subscription?

  /// The serialized reply as text.
  public var line: String { String(decoding: bytes, as: UTF8.self) }
}

/// A connection's live-event subscription: the event types it wants (nil: all) and the last
/// sequence number it has been sent (or said it has seen).
public struct Subscription: Sendable, Equatable {
  public var topics: Set<String>?
  public var cursor: Int64

  public init(topics: Set<String>?, cursor: Int64) {
    self.topics = topics
    self.cursor = cursor
  }

  public func wants(_ type: String) -> Bool { topics?.contains(type) ?? true }
}

/// What a request's reply carries as its result.
enum ReplyResult {
  case value(JSONValue)
  /// JSON text already encoded (a reply written straight to bytes).
  case encoded([UInt8])
  /// A successful `subscribe`: the result, and what the connection now listens to.
  case subscribed(Subscription, JSONValue)
}

/// What one batch produced: a reply per line, and the events that became durable (for live
/// subscribers), in journal order.
public struct BatchResult: Sendable {
  public var replies: [OutgoingReply]
  public var events: [CommittedEvent]
}

/// The register behind the protocol: decodes request lines, decides, applies, journals and
/// replies.
///
/// Requests are handled one at a time in arrival order, each against the state the previous
/// ones left. Their events go into the open *group*; no reply leaves before every change it
/// could have seen is durable. A group is written with one write and one fsync (group commit):
/// while one group is being written, the requests that arrive meanwhile fill the next one, so
/// under load many clients share each fsync.
///
/// If storage fails, the failed group and everything staged after it are rolled back (the
/// state before the group is restored), every mutation among them is refused with
/// `storage_failed`, reads among them are answered again from the restored state, and the
/// register takes no more mutations until restarted.
public final class RegisterService {
  /// The state. Every change to it goes through this property, so its observer can drop what
  /// was rendered from the old state.
  public private(set) var register: Register {
    didSet {
      renderedOrder = nil
      renderedHello = nil
    }
  }
  /// The open order's view as `order` answers it, rendered once per change: displays and lanes
  /// ask for it far more often than it changes.
  private var renderedOrder: [UInt8]?
  /// `hello`'s result as last rendered, and the journal and storage state it showed (what
  /// the register's own state shows is dropped with `renderedOrder`).
  private var renderedHello: (bytes: [UInt8], stamp: HelloStamp)?

  /// What `hello` shows that is not the register's state.
  private struct HelloStamp: Equatable {
    var readOnly: Bool
    var records: Int
    var fsyncs: Int
    var lastSequence: Int64
  }
  private let clock: any RegisterClock
  private let journal: Journal?
  /// Why the register stopped taking mutations, when storage has failed.
  public private(set) var storageFailure: String?
  /// Called with a message when storage fails (the daemon logs it).
  public var onStorageFailure: (String) -> Void = { _ in }
  /// Where e-mailed receipts are written (nil: e-mail is refused).
  public var outboxDirectory: String?
  /// Random bytes for PIN salts and message ids (the platform's: RegisterServer's
  /// `RegisterService.systemRandom`, which its `init(register:clock:journal:)` passes).
  public var random: @Sendable (Int) -> [UInt8]

  /// A reply waiting until the group it depends on is durable.
  private struct Held {
    var incoming: IncomingLine
    /// The reply, serialized when it was made (the state it describes may change before it
    /// is released).
    var reply: [UInt8]
    /// The newest group with staged changes when the reply was made (nil: nothing pending).
    var group: Int?
    var subscription: Subscription?
  }

  /// The sequence number of the last record known to be on disk.
  public private(set) var durableSequence: Int64 = 0

  /// What to restore if a group fails: the state and the journal chain before it.
  private struct Checkpoint {
    var register: Register
    var sum: String
    var sequence: Int64
  }

  private var held: [Held] = []
  /// The group being filled, and its records.
  private var openGroup = 1
  private var openRecords: [PendingRecord] = []
  /// The group being written, if any, with its records.
  private var writing: (group: Int, records: [PendingRecord])?
  private var checkpoints: [Int: Checkpoint] = [:]
  /// Events that became durable and have not been handed out yet.
  private var committed: [CommittedEvent] = []

  /// A service over `register`, with the time from `clock` and random bytes from `random`;
  /// with a `journal`, every change is made durable before its reply is released.
  public init(
    register: Register, clock: any RegisterClock, random: @escaping @Sendable (Int) -> [UInt8],
    journal: Journal? = nil
  ) {
    self.register = register
    self.clock = clock
    self.random = random
    self.journal = journal
    durableSequence = journal?.lastSequence ?? register.lastSequence
  }

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
    for incoming in batch {
      let reply = reply(to: incoming)
      let pending = !openRecords.isEmpty ? openGroup : writing?.group
      held.append(
        Held(
          incoming: incoming, reply: reply.bytes, group: pending, subscription: reply.subscription))
    }
  }

  /// The next group to write when nothing is being written: seals the open group.
  public func nextWrite() -> JournalWrite? {
    guard writing == nil, !openRecords.isEmpty, let journal else { return nil }
    let group = openGroup
    let records = openRecords
    do {
      var work = try journal.encode(records, group: group)
      work.effects = effects(of: records)
      writing = (group, records)
      openRecords = []
      openGroup += 1
      return work
    } catch {
      // Cannot happen with sequence numbers the service assigned; treat it as a storage failure.
      writing = (group, records)
      openRecords = []
      openGroup += 1
      fail(group: group, error: error)
      return nil
    }
  }

  /// The writer finished `work`: with `error`, the group was not made durable.
  public func finished(_ work: JournalWrite, error: SystemError?) {
    guard let current = writing, current.group == work.group else { return }
    if let error {
      fail(group: work.group, error: error)
      return
    }
    journal?.noteWritten(work)
    durableSequence = current.records.last?.sequence ?? durableSequence
    writing = nil
    checkpoints[work.group] = nil
    committed.append(contentsOf: current.records.map(Self.committedEvent))
  }

  /// The replies that may be sent now (in arrival order) and the newly durable events.
  public func takeReleasable() -> BatchResult {
    // Everything staged before the open group and not being written is durable.
    let durable = (writing?.group ?? openGroup) - 1
    let ready = held.prefix { ($0.group ?? 0) <= durable }
    held.removeFirst(ready.count)
    let replies = ready.map {
      OutgoingReply(
        connection: $0.incoming.connection, bytes: $0.reply, subscription: $0.subscription)
    }
    let events = committed
    committed = []
    return BatchResult(replies: replies, events: events)
  }

  /// True while changes are staged or being written.
  public var hasPendingWrites: Bool { writing != nil || !openRecords.isEmpty }

  private func fail(group: Int, error: SystemError) {
    let message = error.description
    guard let checkpoint = checkpoints[group] else { return }
    let live = register.keys
    register = checkpoint.register
    register.keys.restoreOpenDay(register.day.number, from: live, upTo: checkpoint.sequence)
    journal?.rewind(toSum: checkpoint.sum, sequence: checkpoint.sequence)
    storageFailure = message
    onStorageFailure(message)
    writing = nil
    openRecords = []
    checkpoints = [:]
    // Answer again, from the restored state, every request whose reply depended on the lost
    // changes: mutations are now refused with storage_failed.
    for index in held.indices where (held[index].group ?? 0) >= group {
      let reply = reply(to: held[index].incoming)
      held[index].reply = reply.bytes
      held[index].group = nil
      held[index].subscription = reply.subscription
    }
  }

  /// The files a group's events call for, built from the state after the group: each e-mailed
  /// receipt. (The catalog file is never written: it is an import source.)
  private func effects(of records: [PendingRecord]) -> [FileEffect] {
    var effects: [FileEffect] = []
    for record in records {
      guard case .receiptEmailed(let number, let to, let messageID) = record.event,
        let outboxDirectory,
        let message = emailMessage(number, to: to, messageID: messageID, at: record.at)
      else { continue }
      effects.append(
        FileEffect(
          path: "\(outboxDirectory)/receipt-\(number)-\(record.sequence).eml", bytes: message,
          mode: 0o640))
    }
    return effects
  }

  private func emailMessage(_ number: Int, to: String, messageID: String, at time: Timestamp)
    -> [UInt8]?
  {
    let text: String
    let isReturn: Bool
    let storeName: String
    if let sale = register.receipts[number] {
      text = ReceiptRenderer.text(sale)
      isReturn = false
      storeName = sale.header.storeName
    } else if let refund = register.returns[number] {
      text = ReceiptRenderer.text(refund)
      isReturn = true
      storeName = refund.header.storeName
    } else {
      return nil
    }
    return EmailMessage.render(
      receiptText: text, receiptNumber: number, storeName: storeName,
      from: register.store.emailFrom,
      to: to, messageID: messageID, at: time, isReturn: isReturn)
  }

  static func committedEvent(_ record: PendingRecord) -> CommittedEvent {
    CommittedEvent(
      sequence: record.sequence, at: record.at, event: record.event, operatorID: record.operatorID)
  }

  // MARK: - Synchronous use

  /// Handles one batch of lines, writes its changes (one fsync), and returns one reply per line
  /// in the same order, plus the events that were committed.
  public func process(_ batch: [IncomingLine]) -> BatchResult {
    submit(batch)
    flush()
    if journal == nil {
      committed.append(contentsOf: openRecords.map(Self.committedEvent))
      durableSequence = openRecords.last?.sequence ?? durableSequence
      openRecords = []
      openGroup += 1
    }
    return takeReleasable()
  }

  /// Writes every staged group now, on this thread.
  public func flush() {
    while let work = nextWrite() {
      finished(work, error: journal?.write(work))
    }
  }

  /// Handles one batch of lines and returns one reply for each.
  public func handle(_ batch: [IncomingLine]) -> [OutgoingReply] {
    process(batch).replies
  }

  /// Handles a single line (a batch of one).
  public func handle(line: String, connection: Int = 0) -> String {
    handle([IncomingLine(connection: connection, bytes: Array(line.utf8))])[0].line
  }

  /// Journals and applies events that do not come from a client (start-up catalog changes).
  public func commit(_ events: [Event]) throws(SystemError) {
    guard !events.isEmpty else { return }
    let snapshot = register
    var pending: [PendingRecord] = []
    record(events, at: clock.now(), key: nil, into: &pending)
    do {
      try journal?.append(pending)
    } catch {
      register = snapshot
      throw error
    }
  }

  /// The serialized reply to one line, and the subscription it starts (a `subscribe`).
  private func reply(to incoming: IncomingLine) -> (
    bytes: [UInt8], subscription: Subscription?
  ) {
    guard let bytes = incoming.bytes else {
      return (
        Self.failure(
          id: .null,
          RegisterError(
            .lineTooLong,
            "the line is longer than \(LineFramer.maximumLineLength) bytes and was discarded; send one request per line"
          )), nil
      )
    }
    let request: Request
    do {
      request = try RequestDecoder.decode(bytes, currency: register.store.currency)
    } catch {
      return (Self.failure(id: error.id, error.error), nil)
    }
    do {
      switch try execute(request, prepared: incoming.prepared ?? PreparedPINs()) {
      case .value(let result):
        return (Self.success(id: request.id, result), nil)
      case .encoded(let result):
        return (Self.success(id: request.id, encoded: result), nil)
      case .subscribed(let subscription, let result):
        return (Self.success(id: request.id, result), subscription)
      }
    } catch {
      return (Self.failure(id: request.id, error), nil)
    }
  }

  private func execute(_ request: Request, prepared: PreparedPINs) throws(RegisterError)
    -> ReplyResult
  {
    guard request.command.isMutation else { return try query(request.command) }
    // A repeated key gets the original reply and changes nothing — even after a restart.
    var fingerprint = ""
    if let key = request.key, let content = request.fingerprint {
      fingerprint = SHA256.hex(Array(content.utf8))
      if let stored = register.keys[key] {
        guard stored.fingerprint == fingerprint else {
          throw RegisterError(
            .keyReused,
            "key \"\(key)\" was already used for a different request; use a fresh key for a new change"
          )
        }
        return .value(stored.reply)
      }
    }
    if let storageFailure {
      throw RegisterError(
        .storageFailed,
        "the register cannot store changes (\(storageFailure)); nothing was changed. Fix the storage and restart registerd"
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
    if case .closeDay = request.command, let journal {
      // The Z report anchors the chain at the record before its own (a record cannot hold
      // its own sum); staged records not encoded yet are chained here as they will be.
      let head = journal.head(after: openRecords)
      if head.sequence > 0 { context.journalHead = head }
    }
    let events: [Event]
    switch register.decide(request.command, context: context) {
    case .accepted(let accepted, let approvedBy):
      events = accepted
      stage(events, at: now, approvedBy: approvedBy)
    case .rejected(let error, let standing):
      // Some refusals still change something: a wrong PIN is counted. Those events are
      // journaled like any other; the request itself is refused.
      if !standing.isEmpty { stage(standing, at: now, approvedBy: nil) }
      throw error
    }
    let reply = result(of: request.command, events: events)
    if let key = request.key, !openRecords.isEmpty {
      let stored = KeyRecord(key: key, fingerprint: fingerprint, reply: reply)
      openRecords[openRecords.count - 1].key = stored
      register.remember(stored)
    }
    return .value(reply)
  }

  /// Applies a request's events and queues them in the open group.
  private func stage(_ events: [Event], at time: Timestamp, approvedBy: String?) {
    if openRecords.isEmpty, let journal, checkpoints[openGroup] == nil {
      // The checkpoint leaves out the open day's keys (restored from the live table on a
      // rollback): sharing them would make the next keyed request copy every one of them.
      var saved = register
      saved.keys = register.keys.checkpointCopy(openDay: register.day.number)
      checkpoints[openGroup] = Checkpoint(
        register: saved, sum: journal.lastSum, sequence: journal.lastSequence)
    }
    record(events, at: time, key: nil, approvedBy: approvedBy, into: &openRecords)
  }

  /// Applies events and queues their journal records (one request's records are linked with
  /// `more`, so recovery applies all of them or none). Each record names the operator signed
  /// in (for a sign-in, the one signing in).
  private func record(
    _ events: [Event], at time: Timestamp, key: KeyRecord?, approvedBy: String? = nil,
    into pending: inout [PendingRecord]
  ) {
    for (index, event) in events.enumerated() {
      let sequence = register.lastSequence + 1
      var operatorID = register.signedIn
      if case .signedIn(let id) = event { operatorID = id }
      register.apply(event, at: time, operatorID: operatorID, sequence: sequence)
      let last = index == events.count - 1
      pending.append(
        PendingRecord(
          sequence: sequence, at: time, event: event, operatorID: operatorID,
          approvedBy: approvedBy, key: last ? key : nil, more: !last))
    }
  }

  /// Stages events that come from the daemon rather than a client (a catalog reloaded on
  /// SIGHUP); they are written with the next group.
  public func stageSystemEvents(_ events: [Event]) {
    guard storageFailure == nil, !events.isEmpty else { return }
    stage(events, at: clock.now(), approvedBy: nil)
  }

  /// The reply to a read-only command.
  private func query(_ command: Command) throws(RegisterError) -> ReplyResult {
    switch command {
    case .hello:
      let stamp = HelloStamp(
        readOnly: storageFailure != nil, records: journal?.recordsWritten ?? -1,
        fsyncs: journal?.batchesWritten ?? -1, lastSequence: journal?.lastSequence ?? -1)
      if let renderedHello, renderedHello.stamp == stamp { return .encoded(renderedHello.bytes) }
      let rendered = helloReply()
      renderedHello = (rendered, stamp)
      return .encoded(rendered)
    case .catalog:
      return .value(register.catalogJSON)
    case .catalogExport:
      return .value(.object(["catalog": register.catalogDocument.json]))
    case .showOrder:
      if let renderedOrder { return .encoded(renderedOrder) }
      let rendered = register.orderJSON.serializedBytes
      renderedOrder = rendered
      return .encoded(rendered)
    case .receipt(let number):
      guard let wanted = number ?? register.lastReceiptNumber else {
        throw RegisterError(.receiptNotFound, "no sale has been completed yet")
      }
      if let sale = register.receipts[wanted] { return .value(sale.receiptReply(reprint: true)) }
      if let refund = register.returns[wanted] {
        return .value(refund.receiptReply(reprint: true))
      }
      throw RegisterError(.receiptNotFound, "there is no receipt \(wanted)")
    case .listParked:
      return .value(.object(["parked": .array(register.parked.map(register.parkedJSON))]))
    case .operatorList:
      return .value(register.operatorsJSON(at: clock.now()))
    case .customerFind(let query):
      return .value(.object(["customers": .array(register.findCustomers(query).map(\.json))]))
    case .customerHistory(let id):
      return .value(try register.customerHistory(id))
    case .subscribe(let topics, let after):
      let start = after ?? register.lastSequence
      guard start <= register.lastSequence else {
        throw RegisterError(
          .badRequest, "after \(start) is beyond the last event (\(register.lastSequence))")
      }
      return .subscribed(
        Subscription(topics: topics, cursor: start),
        .object([
          "subscribed": true,
          "topics": topics.map { .array($0.sorted().map(JSONValue.string)) } ?? .string("all"),
          "after": .int(start),
        ]))
    case .report(.x, _):
      return .value(ReportRenderer.reply(DayReport(openDayOf: register, at: clock.now())))
    case .report(.z, let day):
      guard let number = day ?? register.closedDays.keys.max() else {
        throw RegisterError(.dayNotFound, "no day has been closed yet")
      }
      guard let closed = register.closedDays[number] else {
        throw RegisterError(
          .dayNotFound, "day \(number) has not been closed (the open day is \(register.day.number))"
        )
      }
      return .value(ReportRenderer.reply(DayReport(closed: closed, reprint: true)))
    case .add, .remove, .setQuantity, .tender, .void, .discount, .overridePrice, .voidLine, .park,
      .resume, .returnItems, .operatorAdd, .operatorRemove, .operatorSetPIN, .operatorUnlock,
      .signIn, .signOut, .customerAdd, .attachCustomer, .productAdd, .productUpdate, .productRemove,
      .stockAdjust, .setFloat, .paidIn, .paidOut, .noSale, .emailReceipt, .closeDay:
      // Not a read: `execute` sends changes through decide and apply, never here.
      return .value(register.orderJSON)
    }
  }

  /// `hello`'s result, written straight to bytes: it is the most frequent request there is
  /// (a display or a lane's health check asks it again and again).
  private func helloReply() -> [UInt8] {
    var object = JSONObjectWriter(capacity: 1024)
    object.int("protocol", 1)
    object.string("server", "registerd")
    object.string("version", registerdVersion)
    object.string("store", register.store.name)
    object.string("currency", register.store.currency.code)
    object.int("day", register.day.number)
    object.int("journal_seq", register.lastSequence)
    object.bool("read_only", storageFailure != nil)
    if let journal {
      object.object("journal") { counts in
        counts.int("records", journal.recordsWritten)
        counts.int("fsyncs", journal.batchesWritten)
        counts.int("last_seq", journal.lastSequence)
      }
    }
    object.encoded("ops", Self.opNamesJSON)
    return object.finished()
  }

  /// The reply to a mutation, from the state after its events.
  private func result(of command: Command, events: [Event]) -> JSONValue {
    for event in events {
      switch event {
      case .saleCompleted(_, let number, _, _):
        guard let sale = register.receipts[number], case .object(var object) = sale.orderJSON else {
          continue
        }
        object["receipt"] = sale.receiptReply(reprint: false)
        return .object(object)
      case .dayClosed(let number, _, _):
        guard let closed = register.closedDays[number] else { continue }
        return ReportRenderer.reply(DayReport(closed: closed))
      case .returnCompleted(let event):
        guard let refund = register.returns[event.receipt] else { continue }
        return refund.receiptReply(reprint: false)
      case .orderVoided(let orderID, _, let reversed):
        // The new open order, and what the void handed back.
        guard case .object(var object) = register.orderJSON else { continue }
        object["voided_order_id"] = .int(orderID)
        object["reversed_tenders"] = .array(reversed.map(\.json))
        return .object(object)
      case .operatorAdded(let person):
        return .object(["operator": register.publicJSON(of: person, at: clock.now())])
      case .operatorRemoved(let id):
        return .object(["removed": .string(id)])
      case .operatorPINSet(let id, _), .operatorUnlocked(let id):
        return register.operators.first { $0.id == id }.map {
          .object(["operator": register.publicJSON(of: $0, at: clock.now())])
        } ?? .null
      case .signedIn(let id):
        return .object([
          "signed_in": .string(id), "name": register.operatorName(id).map(JSONValue.string),
          "role": register.currentOperator.map { .string($0.role.rawValue) },
        ])
      case .signedOut(let id):
        return .object(["signed_out": .string(id)])
      case .customerAdded(let customer):
        return customer.json
      case .productAdded(let product), .productUpdated(let product):
        return .object(["product": register.productJSON(register.products[product.sku] ?? product)])
      case .productRemoved(let sku):
        return .object(["removed": .string(sku)])
      case .stockAdjusted(let sku, _, _):
        return register.products[sku].map { .object(["product": register.productJSON($0)]) }
          ?? .null
      case .floatSet, .paidIn, .paidOut, .noSale:
        return .object(["drawer": register.drawerJSON])
      case .receiptEmailed(let number, let to, let messageID):
        return .object([
          "emailed": .object([
            "receipt": .int(number), "to": .string(to), "message_id": .string(messageID),
            "file": outboxDirectory.map {
              .string("\($0)/receipt-\(number)-\(register.lastSequence).eml")
            },
          ])
        ])
      case .orderParked(let orderID, _):
        guard let parked = register.parked.first(where: { $0.id == orderID }),
          case .object(var object) = register.orderJSON
        else { continue }
        object["parked"] = register.parkedJSON(parked)
        return .object(object)
      default:
        continue
      }
    }
    return register.orderJSON
  }

  /// `hello`'s list of ops, encoded once.
  private static let opNamesJSON = JSONValue.array(RequestDecoder.opNames.map(JSONValue.string))
    .serializedBytes

  /// `{"id":…,"ok":true,"result":…}`, written straight to bytes.
  static func success(id: JSONValue, _ result: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    output.append(contentsOf: #"{"id":"#.utf8)
    id.write(to: &output)
    output.append(contentsOf: #","ok":true,"result":"#.utf8)
    result.write(to: &output)
    output.append(UInt8(ascii: "}"))
    return output
  }

  /// A success whose result is JSON text already encoded.
  static func success(id: JSONValue, encoded result: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(result.count + 64)
    output.append(contentsOf: #"{"id":"#.utf8)
    id.write(to: &output)
    output.append(contentsOf: #","ok":true,"result":"#.utf8)
    output.append(contentsOf: result)
    output.append(UInt8(ascii: "}"))
    return output
  }

  /// `{"id":…,"ok":false,"error":{…}}`, written straight to bytes.
  static func failure(id: JSONValue, _ error: RegisterError) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    output.append(contentsOf: #"{"id":"#.utf8)
    id.write(to: &output)
    output.append(contentsOf: #","ok":false,"error":"#.utf8)
    error.json.write(to: &output)
    output.append(UInt8(ascii: "}"))
    return output
  }
}
