/// What replies are read from beside the register (which each call is given `inout`, so it
/// is read in place): whether it still takes changes, and the printer's last word.
protocol ReplySource: AnyObject {
  /// Why the register stopped taking changes, when storage has failed.
  var storageFailure: String? { get }
  /// True for an installed register, which must be set up before it serves (the register's
  /// state is not read through the source: it is passed in, held for the reply).
  var requiresSetup: Bool { get }
  /// What the receipt printer said last (`PrinterStatus`), set by the daemon;
  /// nil before it tried.
  var printerStatus: PrinterStatus? { get }
  /// The customer's pole display, when the daemon drives one.
  var customerDisplay: (any CustomerDisplayLink)? { get }
}

/// The protocol's answers, read from a register: what the reads (`Query.answer`) share, and a
/// mutation's result from the state after its events.
///
/// The open order's view and `hello` are kept rendered between changes (`stateChanged()` drops
/// them; `hello` also shows the journal's counters, compared each time): displays and lanes ask
/// for them far more often than they change.
struct Replies {
  /// The time replies are stamped with (an operator's lockout, the X report).
  let clock: any RegisterClock
  /// For `hello`'s write counters.
  private let journal: Journal?
  /// The open order's view as `order` answers it, or nil when the state changed since.
  private var renderedOrder: [UInt8]?
  /// `hello`'s result as last rendered, and the journal and storage state it showed.
  private var renderedHello: (bytes: [UInt8], stamp: HelloStamp)?

  /// What `hello` shows that is not the register's state.
  private struct HelloStamp: Equatable {
    var readOnly: Bool
    var records: Int
    var fsyncs: Int
    var lastSequence: Int64
    var printer: PrinterStatus?
    var printJobs: Int
    var display: DisplayStatus?
  }

  init(clock: any RegisterClock, journal: Journal?) {
    self.clock = clock
    self.journal = journal
  }

  /// Drops what was rendered from the state before a change.
  mutating func stateChanged() {
    renderedOrder = nil
    renderedHello = nil
  }

  /// `hello`'s reply, rendered again only when what it shows changed.
  ///
  /// The register is `inout` (here and in every `Query.answer`) though nothing changes it, as
  /// in `RegisterService.decide`: read through the service (a class's property) each use
  /// copied the whole register (every part retained, then released) — `hello` did it once a
  /// request; an `inout` parameter is exclusive, so every read is in place.
  mutating func hello<Source: ReplySource>(from source: Source, register: inout Register)
    -> ReplyResult
  {
    let counts = journal?.counts
    let stamp = HelloStamp(
      readOnly: source.storageFailure != nil, records: counts?.records ?? -1,
      fsyncs: counts?.fsyncs ?? -1, lastSequence: counts?.lastSequence ?? -1,
      printer: source.printerStatus, printJobs: register.printQueue.pending.count,
      display: source.customerDisplay?.status)
    if let renderedHello, renderedHello.stamp == stamp { return .encoded(renderedHello.bytes) }
    let rendered = renderHello(from: source, register: &register)
    renderedHello = (rendered, stamp)
    return .encoded(rendered)
  }

  /// The open order's view, rendered again only after a change.
  mutating func order(register: inout Register) -> ReplyResult {
    if let renderedOrder { return .encoded(renderedOrder) }
    let rendered = register.orderJSON.serializedBytes
    renderedOrder = rendered
    return .encoded(rendered)
  }

  /// A reply with the printer's bytes added as `escpos` (base64), when there are any.
  static func withBytes(_ reply: JSONValue, _ bytes: [UInt8]?) -> JSONValue {
    guard let bytes, case .object(var object) = reply else { return reply }
    object["escpos"] = .string(Base64.encode(bytes))
    return .object(object)
  }

  /// `hello`'s result, written straight to bytes: it is the most frequent request there is
  /// (a display or a lane's health check asks it again and again).
  private func renderHello<Source: ReplySource>(
    from source: Source, register: inout Register
  ) -> [UInt8] {
    var object = JSONObjectWriter(capacity: 1024)
    object.int("protocol", 1)
    object.string("server", "registerd")
    object.string("version", registerdVersion)
    object.string("store", register.store.name)
    object.string("currency", register.store.currency.code)
    object.int("day", register.day.number)
    object.int("journal_seq", register.lastSequence)
    object.bool("read_only", source.storageFailure != nil)
    if source.requiresSetup && !register.isSetUp {
      object.value("setup_needed", .array(register.setupNeeds.map(JSONValue.string)))
    }
    if let journal {
      object.object("journal") { counts in
        counts.int("records", journal.recordsWritten)
        counts.int("fsyncs", journal.batchesWritten)
        counts.int("last_seq", journal.lastSequence)
      }
    }
    if let printer = register.store.printer {
      object.object("printer") { fields in
        fields.string("device", printer.description)
        fields.string("status", (source.printerStatus ?? .unknown).rawValue)
        fields.int("pending", register.printQueue.pending.count)
      }
    }
    if let display = source.customerDisplay {
      object.object("display") { fields in
        fields.string("device", display.device)
        fields.string("status", display.status.rawValue)
      }
    }
    if !register.store.tenders.isEmpty {
      object.value("tenders", .array(register.store.tenders.map(JSONValue.string)))
    }
    object.encoded("ops", Self.opNamesJSON)
    return object.finished()
  }

  /// `hello`'s list of ops, encoded once.
  private static let opNamesJSON = JSONValue.array(RequestDecoder.opNames.map(JSONValue.string))
    .serializedBytes

  /// A mutation's result written straight to bytes where it has such a form — a drawer move
  /// (float, paid in, paid out, no sale), the most frequent change after the sale itself — or
  /// nil. The bytes are what `result` gives, serialized.
  func encodedResult(of events: [Event], register: inout Register) -> [UInt8]? {
    guard events.count == 1 else { return nil }
    switch events[0].eventType {
    case .floatSet, .paidIn, .paidOut, .noSale:
      return Self.drawerReply(register: &register)
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderResumed, .pinFailed, .pinAccepted,
      .customerAttached, .customerDetached, .printDone, .saleCompleted, .dayClosed,
      .returnCompleted, .orderVoided, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .signedIn, .signedOut, .customerAdded, .productAdded, .productUpdated,
      .productRemoved, .stockAdjusted, .printQueued, .receiptEmailed, .orderParked,
      .wishlistAdded, .wishlistRemoved:
      return nil
    }
  }

  /// `{"drawer":{…}}` (the register read in place, not copied).
  private static func drawerReply(register: inout Register) -> [UInt8] {
    var object = JSONObjectWriter(capacity: 340)
    object.object("drawer") { drawer in
      Register.writeDrawer(
        to: &drawer, register.day.totals, day: register.day.number,
        currency: register.store.currency)
    }
    return object.finished()
  }

  /// The reply to a mutation, from the state after its events: the first event that has a
  /// result of its own gives it; otherwise the open order.
  func result(
    of request: any Mutation, events: [Event], outbox: ReceiptOutbox?, register: inout Register
  ) -> JSONValue {
    if request is Requests.Setup {
      // What the register has now, and what it still needs (setup may give one part at a time).
      let manager = register.operators.first { $0.role == .manager }
      return .object([
        "set_up": .bool(register.isSetUp), "store": .string(register.store.name),
        "currency": .string(register.store.currency.code),
        "operator": manager.map { register.publicJSON(of: $0, at: clock.now()) },
        "setup_needed": register.isSetUp
          ? nil : .array(register.setupNeeds.map(JSONValue.string)),
      ])
    }
    for event in events {
      switch event {
      case .saleCompleted(_, let number, _, _, _):
        guard let sale = register.receipts[number],
          case .object(var object) = sale.orderJSON
        else { continue }
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
        object["reversed_tenders"] = .array(reversed.map(\.publicJSON))
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
        return .object([
          "product": register.productJSON(register.products[product.sku] ?? product)
        ])
      case .productRemoved(let sku):
        return .object(["removed": .string(sku)])
      case .stockAdjusted(let sku, _, _):
        return register.products[sku].map {
          .object(["product": register.productJSON($0)])
        }
          ?? .null
      case .floatSet, .paidIn, .paidOut, .noSale:
        return .parsingOwnOutput(Self.drawerReply(register: &register))
      case .printQueued(let job):
        return .object(["print_job": job.json])
      case .receiptEmailed(let number, let to, let messageID):
        let sequence = register.lastSequence
        return .object([
          "emailed": .object([
            "receipt": .int(number), "to": .string(to), "message_id": .string(messageID),
            "file": outbox.map { .string($0.path(receipt: number, sequence: sequence)) },
          ])
        ])
      case .orderParked(let orderID, _):
        guard let parked = register.parked.first(where: { $0.id == orderID }),
          case .object(var object) = register.orderJSON
        else { continue }
        object["parked"] = register.parkedJSON(parked)
        return .object(object)
      case .wishlistAdded(let customerID, _), .wishlistRemoved(let customerID, _, nil):
        return (try? register.wishlistJSON(customerID)) ?? .null
      case .wishlistRemoved(let customerID, _, .some):
        // Moved onto the order: the order, and what is left on the wishlist.
        guard case .object(var object) = register.orderJSON,
          case .object(let list)? = try? register.wishlistJSON(customerID)
        else { continue }
        object["wishlist"] = list["wishlist"]
        return .object(object)
      case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
        .discountSet, .priceOverridden, .lineVoided, .orderResumed, .pinFailed, .pinAccepted,
        .customerAttached, .customerDetached, .printDone:
        // The open order, as it stands after the change, answers these.
        continue
      }
    }
    return register.orderJSON
  }
}
