import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Prints jobs on the receipt printer off the event loop, one at a time and in order, and
/// keeps asking the printer how it is.
///
/// A worker thread of its own asks the printer its real-time status (DLE EOT 1–4: on-line,
/// off-line cause, error cause, paper) every `idlePollMilliseconds` while there is nothing to
/// print, so a roll that runs out or a cover left open shows in `hello` before the next sale.
/// The loop hands over one job (its number and its bytes, rendered from the register on the
/// loop) when the printer is free. The worker then:
///
/// 1. connects and asks the status; a printer that is not `ok` is not sent the job (it waits,
///    retried with a back-off of 0.25 s doubling up to 5 s);
/// 2. writes the bytes and asks again: `ok` (on-line, no error, paper in) means the printer
///    took the job, and only then is it reported done, for the loop to journal `print_done`;
/// 3. any other answer means the printer holds the job (a cover opened, the roll ran out while
///    it printed): the job stays pending and the worker keeps the same connection, asking
///    every `heldPollMilliseconds`, until the printer says `ok` (it printed what it held: the
///    job is done, never sent again) or the connection is lost (switched off, what it held is
///    gone: the job is sent again once the printer is back).
///
/// A printer that never answers a status request (some network printers; a FIFO or a device
/// that can only be written cannot be asked) is reported `unknown`, and its job is done once it
/// accepted the bytes, as nothing better can be known. The daemon never trusts what a printer
/// sends: answers are single bytes of a fixed form, read with a timeout, anything else is
/// treated as no answer.
package final class ReceiptPrinter: @unchecked Sendable {
  /// How long the printer may take to answer one status request.
  static let statusWait: Int32 = 500
  static let firstBackOff: Int64 = 250
  static let longestBackOff: Int64 = 5000
  /// How often an idle printer is asked its status.
  package static let idlePollMilliseconds: Int64 = 3000
  /// How often a printer holding a job is asked whether it printed it.
  static let heldPollMilliseconds: Int64 = 500
  /// Unanswered requests in a row after which a printer holding a job is taken for gone.
  static let heldMisses = 3

  package let address: DeviceAddress
  private let lock = Lock()
  /// Guarded by `lock`: the job handed over and not yet taken by the worker, stopping.
  private var handedOver: (id: Int, bytes: [UInt8])?
  private var stopping = false
  /// What the worker tells the loop: a job printed, or the printer's status when it changed.
  private enum Report {
    case printed(Int)
    case status(PrinterStatus)
  }
  private let reports: Completions<Report>
  /// Wakes the worker early from its wait (a job handed over, a stop).
  private let nudge = DispatchSemaphore(value: 0)
  /// The job the worker has (touched on the loop thread only).
  package private(set) var inFlight: Int?
  /// The loop polls this.
  package var notifyFD: Int32 { reports.notifyFD }
  /// Worker thread only: the status last reported, and whether the printer was found silent.
  private var last: PrinterStatus?
  private var saidSilent = false

  package init?(address: DeviceAddress) {
    guard let reports = Completions<Report>() else { return nil }
    self.address = address
    self.reports = reports
    DispatchQueue.global().async { [self] in work() }
  }

  /// True while a job is with the worker.
  package var isBusy: Bool { inFlight != nil }

  /// Starts printing job `id` (from the loop thread; only when not busy).
  package func start(job id: Int, bytes: [UInt8]) {
    inFlight = id
    lock.withLock { handedOver = (id, bytes) }
    nudge.signal()
  }

  /// Jobs printed since the last call, and the newest status when it changed (on the loop
  /// thread, when `notifyFD` is readable).
  package func takeResults() -> (printed: [Int], status: PrinterStatus?) {
    var printed: [Int] = []
    var status: PrinterStatus?
    for report in reports.take() {
      switch report {
      case .printed(let id): printed.append(id)
      case .status(let newest): status = newest
      }
    }
    if let inFlight, printed.contains(inFlight) { self.inFlight = nil }
    return (printed, status)
  }

  /// Stops the worker (at shutdown): a job not yet done stays pending in the journal and is
  /// printed at the next start.
  package func stop() {
    lock.withLock { stopping = true }
    nudge.signal()
  }

  private var isStopping: Bool { lock.withLock { stopping } }

  // MARK: - The worker

  private func work() {
    while !isStopping {
      if let job = lock.withLock({ handedOver }) {
        printJob(id: job.id, bytes: job.bytes)
        lock.withLock { handedOver = nil }
        continue
      }
      report(probe())
      _ = nudge.wait(timeout: .now() + .milliseconds(Int(Self.idlePollMilliseconds)))
    }
  }

  /// The status of the printer now, on a connection of its own. A FIFO is not opened just to
  /// ask (it cannot answer, and its reader would see an end of file each time).
  private func probe() -> PrinterStatus {
    guard DeviceConnection.mayAnswer(address) else { return last ?? .unknown }
    guard let connection = connect() else { return .offline }
    return ask(connection) ?? .unknown
  }

  /// Tells the loop `status` when it changed, and logs the change.
  private func report(_ status: PrinterStatus, job: Int? = nil) {
    guard status != last else { return }
    let before = last
    last = status
    reports.post(.status(status))
    let waiting = job.map { "; job \($0) waits (sales go on)" } ?? ""
    switch status {
    case .ok:
      if before != nil && before != .unknown {
        Log.info("receipt printer \(address) is back")
      }
    case .unknown:
      if !saidSilent {
        saidSilent = true
        Log.info(
          "receipt printer \(address) does not answer status requests (DLE EOT): its faults are not seen, and a job counts as printed once it took the bytes"
        )
      }
    case .offline:
      Log.warning("receipt printer \(address) is off-line or cannot be reached\(waiting)")
    case .paperOut:
      Log.warning("receipt printer \(address) is out of paper\(waiting)")
    case .coverOpen:
      Log.warning("receipt printer \(address) has its cover open\(waiting)")
    case .error:
      Log.warning("receipt printer \(address) reports an error (cutter, or other)\(waiting)")
    }
  }

  /// Prints one job: returns once the printer has it (reported done) or at a stop.
  private func printJob(id: Int, bytes: [UInt8]) {
    var backOff = Self.firstBackOff
    while !isStopping {
      switch attempt(id: id, bytes) {
      case .printed(let status):
        reports.post(.printed(id))
        report(status)
        return
      case .waiting(let status):
        report(status, job: id)
        sleep(milliseconds: backOff)
        backOff = min(backOff * 2, Self.longestBackOff)
      case .held(let connection, let status):
        report(status, job: id)
        if watchHeld(connection, id: id) {
          reports.post(.printed(id))
          report(.ok)
          return
        }
        backOff = Self.firstBackOff
      }
    }
  }

  private enum Attempt {
    /// The printer has it; the status to show after.
    case printed(PrinterStatus)
    /// Not sent: the printer is not ready.
    case waiting(PrinterStatus)
    /// Sent, and the printer holds it.
    case held(DeviceConnection, PrinterStatus)
  }

  private func attempt(id: Int, _ bytes: [UInt8]) -> Attempt {
    guard let connection = connect() else { return .waiting(.offline) }
    let before = ask(connection)
    if let before, before != .ok { return .waiting(before) }
    do {
      try connection.write(bytes)
    } catch {
      Log.debug("receipt printer \(address): \(error)")
      return .waiting(.offline)
    }
    // A printer that did not answer before the job is not asked after it: it cannot say.
    guard before != nil else { return .printed(.unknown) }
    switch ask(connection) {
    case .ok?: return .printed(.ok)
    case let status?: return .held(connection, status)
    case nil: return .held(connection, .offline)
    }
  }

  /// Asks, on the connection that sent job `id`, until the printer says `ok` (true: it printed
  /// what it held) or the connection is lost (false: the job is to be sent again). A printer
  /// that answered before is given `heldMisses` unanswered requests in a row before it is
  /// taken for gone.
  private func watchHeld(_ connection: DeviceConnection, id: Int) -> Bool {
    var misses = 0
    while !isStopping {
      sleep(milliseconds: Self.heldPollMilliseconds)
      guard let status = ask(connection) else {
        misses += 1
        guard misses >= Self.heldMisses else { continue }
        Log.warning(
          "receipt printer \(address) went away while it held job \(id); the job is sent again when it is back"
        )
        report(.offline, job: id)
        return false
      }
      misses = 0
      if status == .ok { return true }
      report(status, job: id)
    }
    return false
  }

  private func connect() -> DeviceConnection? {
    do {
      return try DeviceConnection(address)
    } catch {
      Log.debug("receipt printer \(address): \(error)")
      return nil
    }
  }

  /// The printer's answers to DLE EOT 1–4, asked one at a time (so each answer is known for
  /// what it answers); nil when it cannot be asked, does not answer the first, or the
  /// connection fails.
  private func ask(_ connection: DeviceConnection) -> PrinterStatus? {
    guard connection.canRead, connection.discardInput() else { return nil }
    var answers: [UInt8?] = []
    for n: UInt8 in 1...4 {
      do {
        try connection.write(EscPos.statusRequest(n))
      } catch {
        return nil
      }
      let answer = connection.readByte(within: Self.statusWait)
      if n == 1 && answer == nil { return nil }
      answers.append(answer)
    }
    return EscPos.printerStatus(
      printer: answers[0], offlineCause: answers[1], errorCause: answers[2], paper: answers[3])
  }

  /// Sleeps in slices, so a stop or a job handed over is noticed.
  private func sleep(milliseconds: Int64) {
    _ = nudge.wait(timeout: .now() + .milliseconds(Int(milliseconds)))
  }
}
