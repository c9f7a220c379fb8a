import RegisterEngine

/// The store's devices the loop drives: the receipt printer (jobs whose `print_queued` is
/// durable, one at a time, in order; each printed one journaled as `print_done`) and the
/// customer's pole display (the same view as `register-cli watch`, and the welcome again after
/// a quiet spell on the thank-you).
final class Peripherals {
  /// The receipt printer, when the store has one: jobs go to it one at a time, in order.
  var printer: ReceiptPrinter?
  /// Print jobs whose `print_queued` is durable and that are not yet printed, oldest first
  /// (a job is printed only once it is on disk, so a rolled-back group prints nothing).
  private var printable: [PrintJob] = []
  /// The customer's pole display (`--display`), and what it shows.
  var display: PoleDisplay?
  private var screen = CustomerDisplay()
  /// When (monotonic milliseconds) the display's thank-you gives way to the welcome: set while
  /// it shows the thank-you, again at each event (as `register-cli watch` waits for a quiet
  /// `CustomerDisplay.thanksMilliseconds`).
  private(set) var welcomeDue: Int64?
  private let service: RegisterService

  init(service: RegisterService) {
    self.service = service
  }

  /// At start: the display shows the open order, and jobs queued before a restart and never
  /// printed come first, in their order.
  func start() {
    if let display {
      screen = CustomerDisplay(store: service.register.store.name)
      screen.apply(event: nil, order: service.register.orderJSON)
      display.show(
        EscPos.poleDisplay(screen.poleLines(), codePage: service.register.store.printerCodePage))
    }
    if printer != nil {
      printable = service.register.printQueue.pending
      if !printable.isEmpty {
        Log.info("\(printable.count) print job(s) from before the restart are waiting to print")
      }
    }
  }

  /// The welcome, when it is due.
  func welcomeIfDue(now: Int64) {
    if let due = welcomeDue, due <= now { welcomeTheNextCustomer() }
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
  func startPrint() {
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
  func collectPrints() {
    guard let printer else { return }
    let (printed, status) = printer.takeResults()
    if let status { service.printerStatus = status }
    guard !printed.isEmpty else { return }
    printable.removeAll { printed.contains($0.id) }
    service.stageSystemEvents(printed.map { .printDone(job: $0) })
  }

  /// After a storage failure: the jobs printed while it lasted (their `print_done` could not be
  /// journaled, or was in a group the failure dropped) are journaled now, so that a restart
  /// does not print them — and kick the drawer — again. They are the ones the register still
  /// holds as pending that are no longer waiting here (taken by the printer, or dropped).
  func journalWhatWasPrinted() {
    guard printer != nil else { return }
    let waiting = Set(printable.map(\.id))
    let printed = service.register.printQueue.pending.filter { !waiting.contains($0.id) }
    guard !printed.isEmpty else { return }
    Log.info("\(printed.count) print job(s) printed while storage failed are journaled as printed")
    service.stageSystemEvents(printed.map { .printDone(job: $0.id) })
  }

  /// A durable event: a job it queued is printable.
  func queue(_ committed: CommittedEvent) {
    if printer != nil, case .printQueued(let job) = committed.event { printable.append(job) }
  }

  /// The display after the events just made durable.
  func show(_ events: [CommittedEvent]) {
    guard let display, !events.isEmpty else { return }
    // The same view as `register-cli watch`: each event, then the order after it. The
    // events are already applied, so the order after each is the register's open order
    // now: it is built once for the batch, not once an event.
    let before = screen.poleLines()
    let order = service.register.orderJSON
    for event in events {
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
}
