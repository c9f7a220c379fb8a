import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Prints jobs on the receipt printer off the event loop, one at a time and in order.
///
/// The loop hands over one job (its number and its bytes, rendered from the register on the
/// loop) when the printer is idle; a worker thread connects, asks the printer for its paper
/// status (DLE EOT 4: a printer that answers "roll end" is out of paper, and the job waits),
/// writes the bytes and reports the job done through a pipe the loop polls. The loop then
/// journals `print_done`. A printer that cannot be reached or is out of paper is retried with
/// a back-off (0.25 s doubling up to 5 s) until it takes the job; meanwhile sales go on, and
/// the status (`ok`, `offline`, `paper_out`) is reported for `hello`.
package final class ReceiptPrinter: @unchecked Sendable {
  /// How long the printer may take to answer the status request.
  static let statusWait: Int32 = 300
  static let firstBackOff: Int64 = 250
  static let longestBackOff: Int64 = 5000

  package let address: DeviceAddress
  private let lock = Lock()
  private var finished: [Int] = []
  private var reported: PrinterStatus?
  private var stopping = false
  private let wakePipe: WakePipe
  /// The job the worker has (touched on the loop thread only).
  package private(set) var inFlight: Int?
  /// The loop polls this.
  package var notifyFD: Int32 { wakePipe.readFD }

  package init?(address: DeviceAddress) {
    guard let wakePipe = WakePipe() else { return nil }
    self.address = address
    self.wakePipe = wakePipe
  }

  /// True while a job is with the worker.
  package var isBusy: Bool { inFlight != nil }

  /// Starts printing job `id` (from the loop thread; only when not busy).
  package func start(job id: Int, bytes: [UInt8]) {
    inFlight = id
    DispatchQueue.global().async { [self] in run(id: id, bytes: bytes) }
  }

  /// Jobs printed since the last call, and the newest status when it changed (on the loop
  /// thread, when `notifyFD` is readable).
  package func takeResults() -> (printed: [Int], status: PrinterStatus?) {
    wakePipe.drain()
    let (printed, status) = lock.withLock {
      let taken = (finished, reported)
      finished = []
      reported = nil
      return taken
    }
    if let inFlight, printed.contains(inFlight) { self.inFlight = nil }
    return (printed, status)
  }

  /// Stops retrying (at shutdown): a job not yet written stays pending in the journal and is
  /// printed at the next start.
  package func stop() {
    lock.withLock { stopping = true }
  }

  private var isStopping: Bool { lock.withLock { stopping } }

  private func report(_ status: PrinterStatus) {
    lock.withLock { reported = status }
    wakePipe.wake()
  }

  private func run(id: Int, bytes: [UInt8]) {
    var backOff = Self.firstBackOff
    var last: PrinterStatus?
    while !isStopping {
      let status = attempt(bytes)
      if status == .ok {
        lock.withLock {
          finished.append(id)
          reported = .ok
        }
        wakePipe.wake()
        if last != nil && last != .ok {
          Log.info("receipt printer \(address) is back: printed job \(id)")
        }
        return
      }
      if status != last {
        report(status)
        Log.warning(
          status == .paperOut
            ? "receipt printer \(address) is out of paper; job \(id) waits (sales go on)"
            : "receipt printer \(address) cannot be reached; job \(id) waits and is retried (sales go on)"
        )
        last = status
      }
      // Sleep in slices so a stop is noticed.
      var slept: Int64 = 0
      while slept < backOff && !isStopping {
        usleep(50_000)
        slept += 50
      }
      backOff = min(backOff * 2, Self.longestBackOff)
    }
  }

  /// One try: `.ok` when the printer took every byte.
  private func attempt(_ bytes: [UInt8]) -> PrinterStatus {
    let connection: DeviceConnection
    do {
      connection = try DeviceConnection(address)
    } catch {
      Log.debug("receipt printer \(address): \(error)")
      return .offline
    }
    if case .tcp = address {
      // A network printer answers its status on the same connection; a device file opened
      // for writing cannot be read, so it is not asked.
      do {
        try connection.write(EscPos.paperStatusRequest)
      } catch {
        return .offline
      }
      if let answer = connection.readByte(within: Self.statusWait),
        EscPos.paperOut(status: answer) == true
      {
        return .paperOut
      }
    }
    do {
      try connection.write(bytes)
    } catch {
      Log.debug("receipt printer \(address): \(error)")
      return .offline
    }
    return .ok
  }
}
