/// What a print job prints: a receipt (the bytes are made again from the journaled receipt
/// whenever the job is printed, so the journal keeps the number, not the bytes), or nothing
/// but the drawer kick.
public enum PrintDocument: Sendable, Equatable {
  case receipt(Int, reprint: Bool)
  /// Only opens the cash drawer (a float, a paid in or out, a no-sale).
  case drawer
}

/// How the receipt printer is, as `hello` shows it: what it answered to its real-time status
/// requests (DLE EOT 1–4), asked every few seconds while it is idle and around every job.
public enum PrinterStatus: String, Sendable, Equatable, CaseIterable {
  /// Online, no error, paper in.
  case ok
  /// It could not be reached (off, unplugged, the network down), or it says it is off-line
  /// for no reason it names.
  case offline
  /// Its roll is out (jobs wait).
  case paperOut = "paper_out"
  /// Its cover is open (jobs wait).
  case coverOpen = "cover_open"
  /// It reports an error: the cutter jammed, an unrecoverable error, or one it recovers from
  /// by itself (jobs wait).
  case error
  /// Nothing known: not asked yet since registerd started, or a printer that never answers a
  /// status request (its jobs are done once it accepts their bytes; its faults cannot be seen).
  case unknown
}

/// Whether the customer's pole display took the last screen sent to it, as `hello` reports it.
public enum DisplayStatus: String, Sendable, Equatable, CaseIterable {
  /// The last screen reached it.
  case ok
  /// The last screen could not be written (off, unplugged, the network down); sales go on.
  case offline
  /// Nothing sent yet since registerd started.
  case unknown
}

/// The customer's pole display as the daemon drives it: where it is, and how the last write
/// went (read from any thread).
public protocol CustomerDisplayLink: AnyObject, Sendable {
  var device: String { get }
  var status: DisplayStatus { get }
}

/// One job for the receipt printer, journaled when it is queued (`print_queued`) and again
/// when the printer took it (`print_done`).
public struct PrintJob: Sendable, Equatable {
  /// Jobs are numbered 1, 2, … in the order they are queued, and printed in that order.
  public var id: Int
  public var document: PrintDocument
  /// Kick the cash drawer open before printing (a sale or refund with cash in it).
  public var drawer: Bool

  public init(id: Int, document: PrintDocument, drawer: Bool) {
    self.id = id
    self.document = document
    self.drawer = drawer
  }

  /// As journaled: `{job, document: "receipt"|"drawer", receipt?, reprint?, drawer}`.
  public var json: JSONValue {
    switch document {
    case .receipt(let number, let reprint):
      .object([
        "job": .int(id), "document": .string("receipt"), "receipt": .int(number),
        "reprint": reprint ? .bool(true) : nil, "drawer": .bool(drawer),
      ])
    case .drawer:
      .object(["job": .int(id), "document": .string("drawer"), "drawer": .bool(drawer)])
    }
  }

  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    id = try fields.int("job", in: SnapshotRange.positive)
    drawer = try fields.required("drawer", as: Bool.self)
    switch try fields.required("document", as: String.self) {
    case "receipt":
      let number = try fields.int("receipt", in: SnapshotRange.positive)
      document = .receipt(number, reprint: try fields.optional("reprint", as: Bool.self) ?? false)
    case "drawer":
      document = .drawer
    case let other:
      throw JSONShapeError(
        path: fields.pathOf("document"),
        message: "must be \"receipt\" or \"drawer\", got \"\(other)\"")
    }
    try fields.rejectUnknown()
  }
}

/// The receipt printer's queue: jobs journaled as queued and not yet printed, in order.
///
/// Jobs are queued by `decide` only while the store has a printer (`StoreSettings.printer`,
/// or registerd's `--printer`): a completed sale or return (with a drawer kick when cash
/// changed hands), a float, paid in, paid out or no-sale (the drawer alone), and `print`.
/// registerd prints them in order and journals `print_done` for each once the printer took
/// its bytes; a job still here after a restart is printed then.
public struct PrintQueue: Sendable, Equatable {
  /// The most jobs kept waiting; past it a sale still completes but its receipt is not queued
  /// (it can be printed later with `print`).
  public static let maximumPending = 1000

  /// Queued and not yet printed, oldest first.
  public internal(set) var pending: [PrintJob] = []
  /// The number the next job gets.
  public internal(set) var nextJob = 1

  public init() {}

  mutating func apply(_ event: Event) {
    switch event {
    case .printQueued(let job):
      // Applied once per record: a job number is never reused.
      guard job.id >= nextJob else { return }
      pending.append(job)
      nextJob = job.id + 1
    case .printDone(let id):
      pending.removeAll { $0.id == id }
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .saleCompleted, .lineVoided, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .customerAttached, .customerDetached, .productAdded, .productUpdated, .productRemoved,
      .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale, .receiptEmailed, .dayClosed,
      .wishlistAdded, .wishlistRemoved:
      break
    }
  }
}

extension Register {
  /// The print jobs `events` call for, numbered after those queued: a receipt for each sale
  /// and return (kicking the drawer when cash was taken or refunded), the drawer alone for a
  /// float, paid in, paid out and no-sale. None while the store has no printer.
  func printJobs(for events: [Event]) -> [Event] {
    guard store.printer != nil else { return [] }
    var jobs: [Event] = []
    var next = printQueue.nextJob
    func queue(_ document: PrintDocument, drawer: Bool) {
      guard printQueue.pending.count + jobs.count < PrintQueue.maximumPending else { return }
      jobs.append(.printQueued(PrintJob(id: next, document: document, drawer: drawer)))
      next += 1
    }
    let tendered = events.compactMap { event -> Tender? in
      if case .tenderAdded(_, let tender) = event { return tender }
      return nil
    }
    for event in events {
      if case .saleCompleted(_, let receipt, _, _, _) = event {
        let cash = (order.tenders + tendered).contains { $0.type == .cash }
        queue(.receipt(receipt, reprint: false), drawer: cash)
      } else if case .returnCompleted(let refund) = event {
        let cash = refund.refunds.contains { $0.type == .cash && $0.amount.minorUnits != 0 }
        queue(.receipt(refund.receipt, reprint: false), drawer: cash)
      } else if event.opensDrawer {
        queue(.drawer, drawer: true)
      }
    }
    return jobs
  }

  /// The bytes of a job, in the store's code page and with its symbol; nil when its receipt
  /// is not there (it always is: receipts are never removed).
  public func printBytes(for job: PrintJob) -> [UInt8]? {
    var options = EscPosOptions(store: store)
    options.drawerKick = job.drawer
    switch job.document {
    case .drawer:
      return EscPos.drawerOnly
    case .receipt(let number, let reprint):
      if let sale = receipts[number] {
        return ReceiptRenderer.escpos(sale, reprint: reprint, options: options)
      }
      if let refund = returns[number] {
        return ReceiptRenderer.escpos(refund, reprint: reprint, options: options)
      }
      return nil
    }
  }
}

extension Event {
  /// True for the events that open the cash drawer with no receipt to print: a float, paid in,
  /// paid out and no-sale.
  var opensDrawer: Bool {
    switch self {
    case .floatSet, .paidIn, .paidOut, .noSale: true
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .saleCompleted, .lineVoided, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .customerAttached, .customerDetached, .productAdded, .productUpdated, .productRemoved,
      .stockAdjusted, .receiptEmailed, .dayClosed, .printQueued, .printDone, .wishlistAdded,
      .wishlistRemoved:
      false
    }
  }
}
