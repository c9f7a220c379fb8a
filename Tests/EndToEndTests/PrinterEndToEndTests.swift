import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A network receipt printer stood in for by a TCP listener on 127.0.0.1: it keeps the bytes of
/// each connection (registerd opens one per job, and one each time it asks an idle printer how
/// it is), and answers the real-time status requests (DLE EOT 1–4) with the bytes it is given
/// — by default none, like many printers. `stop()` and `start()` take it off and put it back on
/// the same port; `powerOff()` also drops the connections it has.
final class TestPrinter: @unchecked Sendable {
  private(set) var port: UInt16 = 0
  private var listener: Int32 = -1
  private let lock = NSLock()
  private var received: [[UInt8]] = []
  private var clients: Set<Int32> = []
  private var generation = 0
  /// The answers to DLE EOT 1, 2, 3 and 4 (nil: it does not answer).
  private var status: [UInt8]?
  /// The answers it switches to once it has been sent a whole job (a cut): a fault that came
  /// while it printed, so that it holds the job.
  private var faultAfterJob: [UInt8]?
  private(set) var statusRequests = 0
  /// Connections that asked how it is and sent no job: registerd's worker asking an idle
  /// printer, which it does only with no job to print.
  private(set) var idleChecks = 0

  /// Answers: on-line, no error, paper in.
  static let ok: [UInt8] = [0x12, 0x12, 0x12, 0x12]
  /// Answers: off-line, stopped by the paper end, roll not present.
  static let paperOut: [UInt8] = [0x1A, 0x32, 0x12, 0x7E]
  /// Answers: off-line, cover open.
  static let coverOpen: [UInt8] = [0x1A, 0x16, 0x12, 0x12]

  /// Answers the status requests with `answers` (DLE EOT 1–4) from now on; nil: no answer.
  func answerStatus(_ answers: [UInt8]?) {
    lock.lock()
    status = answers
    lock.unlock()
  }

  /// After the next whole job it receives, answers `answers`.
  func fault(afterNextJob answers: [UInt8]) {
    lock.lock()
    faultAfterJob = answers
    lock.unlock()
  }

  init() throws { try start() }

  deinit { stop() }

  func start() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 8) == 0 else {
      close(fd)
      throw HarnessError("bind/listen on port \(port): \(errno)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    lock.lock()
    listener = fd
    generation += 1
    let current = generation
    lock.unlock()
    Thread.detachNewThread { [self] in accept(on: fd, generation: current) }
  }

  func stop() {
    lock.lock()
    let fd = listener
    listener = -1
    generation += 1
    lock.unlock()
    if fd >= 0 {
      shutdown(fd, Int32(SHUT_RDWR))
      close(fd)
    }
  }

  /// Switched off: no new connections, and the open ones dropped (what it held is lost).
  func powerOff() {
    stop()
    lock.lock()
    let open = clients
    lock.unlock()
    for client in open { shutdown(client, Int32(SHUT_RDWR)) }
  }

  private func accept(on fd: Int32, generation current: Int) {
    while true {
      let client = Glibc.accept(fd, nil, nil)
      if client < 0 { return }
      lock.lock()
      let live = generation == current
      if live { clients.insert(client) }
      lock.unlock()
      guard live else {
        close(client)
        return
      }
      Thread.detachNewThread { [self] in read(client) }
    }
  }

  /// Reads a connection: status requests are answered (and kept apart), the rest is the job.
  private func read(_ client: Int32) {
    var bytes: [UInt8] = []
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var sawCut = false
    var asked = false
    while true {
      let count = Glibc.read(client, &buffer, buffer.count)
      if count <= 0 { break }
      pending += buffer[0..<count]
      var index = 0
      while index < pending.count {
        if pending[index] == 0x10 {
          guard index + 2 < pending.count else { break }
          if pending[index + 1] == 0x04, (1...4).contains(pending[index + 2]) {
            asked = true
            lock.lock()
            statusRequests += 1
            let answer = status.map { $0[Int(pending[index + 2]) - 1] }
            lock.unlock()
            if var answer { _ = Glibc.write(client, &answer, 1) }
            index += 3
            continue
          }
        }
        bytes.append(pending[index])
        index += 1
        // GS V: the job is whole; a status request after it sees the fault.
        if !sawCut, bytes.count >= 2, bytes[bytes.count - 2] == 0x1D, bytes.last == 0x56 {
          sawCut = true
          lock.lock()
          if let fault = faultAfterJob {
            status = fault
            faultAfterJob = nil
          }
          lock.unlock()
        }
      }
      pending.removeFirst(index)
    }
    close(client)
    lock.lock()
    clients.remove(client)
    if !bytes.isEmpty { received.append(bytes) }
    if bytes.isEmpty && asked { idleChecks += 1 }
    lock.unlock()
  }

  /// Every connection's bytes so far, decoded.
  var jobs: [EscPosDecoder] {
    lock.lock()
    defer { lock.unlock() }
    return received.map { EscPosDecoder($0) }
  }

  /// How many jobs carried the receipt code `code`.
  func printed(_ code: String) -> Int { jobs.filter { $0.codes.contains(code) }.count }

  /// Waits up to `seconds` until `condition` holds.
  func wait(seconds: Double = 20, until condition: () -> Bool) -> Bool {
    waitUntil(within: seconds, every: 0.05, condition)
  }

  /// Waits until registerd has asked the idle printer how it is `count` more times: its
  /// worker had no job to print through a whole idle wait (it is woken at once for a job), so
  /// a job it was to send again would have come by now.
  func waitForIdleChecks(_ count: Int = 2, seconds: Double = 20) -> Bool {
    let start = lock.withLock { idleChecks }
    return wait(seconds: seconds) { lock.withLock { idleChecks } >= start + count }
  }

  /// Waits until registerd has asked the printer how it is `count` more times (a check
  /// asks DLE EOT 1 to 4): it looked again, and decided again, since now.
  func waitForStatusRequests(_ count: Int, seconds: Double = 20) -> Bool {
    let start = lock.withLock { statusRequests }
    return wait(seconds: seconds) { lock.withLock { statusRequests } >= start + count }
  }
}

@Suite("The receipt printer: printed once, in order, never in the way of a sale", .serialized)
struct PrinterEndToEndTests {
  func printerStatus(_ daemon: Daemon) throws -> JSONValue? {
    let hello = try daemon.cli(["--json", "hello"])
    return try JSONParser.parse(Array(hello.stdout.utf8.dropLast())).result["printer"]
  }

  @Test(
    "a sale prints; a printer that is down never fails a sale; its job prints once when it is back, also across restarts"
  )
  func printsOnceInOrder() throws {
    let printer = try TestPrinter()
    defer { printer.stop() }
    printer.answerStatus(TestPrinter.ok)
    let daemon = try Daemon(arguments: ["--printer", "tcp:127.0.0.1:\(printer.port)"])
    defer { daemon.cleanup() }

    // Printer up: a cash sale prints, the drawer kick first.
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(printer.wait { printer.printed("R1") == 1 }, "\(daemon.log)")
    let first = try #require(printer.jobs.first { $0.codes == ["R1"] })
    #expect(first.unknown.isEmpty, "\(first.transcript)")
    #expect(first.items.first == .initialize)
    let kick = try #require(first.position { if case .drawerKick = $0 { true } else { false } })
    let line = try #require(first.position { if case .line = $0 { true } else { false } })
    #expect(kick < line, "drawer kick before the receipt")
    #expect(first.items.last == .cut(mode: 66, feed: 3))
    #expect(
      printer.wait { (try? self.printerStatus(daemon))??["status"] == "ok" },
      "\(String(describing: try? printerStatus(daemon)))")

    // Printer off: the sale completes at once all the same, and the job waits.
    printer.stop()
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    let started = Date()
    let sale = try daemon.cli([
      "tender", "card", "4242 4242 4242 4242", "--exp", "12/30", "--cvv", "123",
    ])
    #expect(sale.status == 0, "\(sale.stderr)")
    #expect(Date().timeIntervalSince(started) < 5, "a sale does not wait for the printer")
    #expect(sale.stdout.contains("Receipt 2"))
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "offline" })
    #expect(try printerStatus(daemon)?["pending"] == .int(1))
    let status = try daemon.cli(["status"])
    #expect(
      status.stdout.hasSuffix("Printer tcp:127.0.0.1:\(printer.port): offline, 1 job waiting\n"),
      "\(status.stdout)")

    // A restart while it is off: the job is still pending, from the journal.
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(try printerStatus(daemon)?["pending"] == .int(1))

    // Back on: receipt 2 prints, once; receipt 1 is not printed again.
    try printer.start()
    #expect(printer.wait { printer.printed("R2") == 1 }, "\(daemon.log)")
    #expect(printer.wait { (try? self.printerStatus(daemon))??["pending"] == .int(0) })
    let second = try #require(printer.jobs.first { $0.codes == ["R2"] })
    #expect(
      !second.items.contains { if case .drawerKick = $0 { true } else { false } },
      "a card sale does not open the drawer")
    #expect(printer.waitForIdleChecks(), "\(daemon.log)")
    #expect(printer.printed("R1") == 1)
    #expect(printer.printed("R2") == 1)

    // Another restart: nothing printed twice.
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(printer.waitForIdleChecks(), "\(daemon.log)")
    #expect(printer.printed("R1") == 1)
    #expect(printer.printed("R2") == 1)

    // register-cli print reprints, marked as a reprint; no_sale only kicks the drawer.
    let reprint = try daemon.cli(["print", "1"])
    #expect(reprint.status == 0, "\(reprint.stderr)")
    #expect(printer.wait { printer.printed("R1") == 2 })
    #expect(
      printer.jobs.last { $0.codes == ["R1"] }?.unpaddedLines.contains("*** REPRINT ***") == true)
    #expect(try daemon.cli(["no-sale"]).status == 0)
    #expect(
      printer.wait {
        printer.jobs.contains {
          $0.items == [.initialize, .drawerKick(pin: 0, on: 25, off: 250)]
        }
      })
  }
}

extension PrinterEndToEndTests {
  @Test(
    "an idle printer is asked how it is: paper out shows before any sale; the sale completes, its job waits and prints once paper is in"
  )
  func paperOut() throws {
    let printer = try TestPrinter()
    defer { printer.stop() }
    printer.answerStatus(TestPrinter.ok)
    let daemon = try Daemon(arguments: ["--printer", "tcp:127.0.0.1:\(printer.port)"])
    defer { daemon.cleanup() }
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "ok" })
    // The roll runs out with nothing to print: hello says so within a few seconds.
    printer.answerStatus(TestPrinter.paperOut)
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "paper_out" })
    #expect(printer.jobs.isEmpty)
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    // Asked twice more (two checks of four requests) with the paper out: held back each time.
    #expect(printer.waitForStatusRequests(8), "\(daemon.log)")
    #expect(printer.printed("R1") == 0, "a printer out of paper is not sent the job")
    #expect(try daemon.cli(["status"]).stdout.contains(": paper out, 1 job waiting"))
    #expect(try !journalText(daemon.dataDirectory).contains("print_done"))
    printer.answerStatus(TestPrinter.ok)
    #expect(printer.wait { printer.printed("R1") == 1 })
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "ok" })
    #expect(printer.wait { (try? self.printerStatus(daemon))??["pending"] == .int(0) })
    #expect(printer.waitForIdleChecks(), "\(daemon.log)")
    #expect(printer.printed("R1") == 1)
  }

  @Test(
    "a job the printer holds (its cover opened while it printed) is not done until it says it printed it, and is never sent twice"
  )
  func heldJob() throws {
    let printer = try TestPrinter()
    defer { printer.stop() }
    printer.answerStatus(TestPrinter.ok)
    let daemon = try Daemon(arguments: ["--printer", "tcp:127.0.0.1:\(printer.port)"])
    defer { daemon.cleanup() }
    printer.fault(afterNextJob: TestPrinter.coverOpen)
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "cover_open" })
    // Asked twice more (every 0.5 s while it holds the job) with the cover still open.
    #expect(printer.waitForStatusRequests(8), "\(daemon.log)")
    #expect(try printerStatus(daemon)?["pending"] == .int(1))
    #expect(try !journalText(daemon.dataDirectory).contains("print_done"), "held, not printed")
    // The cover is closed: the printer prints what it held; registerd sends nothing again.
    printer.answerStatus(TestPrinter.ok)
    #expect(printer.wait { (try? self.printerStatus(daemon))??["pending"] == .int(0) })
    #expect(try printerStatus(daemon)?["status"] == "ok")
    #expect(printer.wait { printer.printed("R1") == 1 })
    #expect(printer.waitForIdleChecks(), "\(daemon.log)")
    #expect(printer.printed("R1") == 1)
    #expect(try journalText(daemon.dataDirectory).components(separatedBy: "print_done").count == 2)

    // Held again, and this time switched off: what it held is gone, so the job is sent again
    // once the printer is back, and only then done.
    printer.fault(afterNextJob: TestPrinter.coverOpen)
    #expect(try daemon.cli(["print", "1"]).status == 0)
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "cover_open" })
    printer.powerOff()
    #expect(printer.wait { (try? self.printerStatus(daemon))??["status"] == "offline" })
    #expect(try printerStatus(daemon)?["pending"] == .int(1))
    printer.answerStatus(TestPrinter.ok)
    try printer.start()
    #expect(printer.wait { (try? self.printerStatus(daemon))??["pending"] == .int(0) })
    #expect(
      printer.wait { printer.printed("R1") == 3 }, "R1, its lost reprint, and the reprint again")
    #expect(try journalText(daemon.dataDirectory).components(separatedBy: "print_done").count == 3)
  }
}

@Suite("The customer's pole display", .serialized)
struct PoleDisplayEndToEndTests {
  @Test(
    "--display shows the last item and the total, then the change, then the welcome again; a display that is away does not hold up a sale"
  )
  func poleDisplay() throws {
    let pole = try TestPrinter()
    defer { pole.stop() }
    let daemon = try Daemon(arguments: ["--display", "tcp:127.0.0.1:\(pole.port)"])
    defer { daemon.cleanup() }
    func shown(_ lines: [String]) -> Bool {
      pole.jobs.contains { Array($0.lines.suffix(2)) == lines }
    }
    #expect(
      pole.wait { shown(["      Welcome!      ", "Lane & Thread Outfit"]) },
      "\(pole.jobs.map(\.transcript))")
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    // 29.99 + 7.5 % (2.25) = 32.24.
    #expect(
      pole.wait { shown(["Oxford Button- 29.99", "TOTAL          32.24"]) },
      "\(pole.jobs.map(\.transcript))")
    #expect(try daemon.cli(["tender", "cash", "40"]).status == 0)
    #expect(
      pole.wait { shown(["     Thank you!     ", "Change          7.76"]) },
      "\(pole.jobs.map(\.transcript))")
    // Back to the welcome for the next customer, after the same quiet spell as watch.
    let thanked = Date()
    let welcomes = pole.jobs.filter {
      Array($0.lines.suffix(2)) == ["      Welcome!      ", "Lane & Thread Outfit"]
    }.count
    func welcomedAgain() -> Bool {
      pole.jobs.filter {
        Array($0.lines.suffix(2)) == ["      Welcome!      ", "Lane & Thread Outfit"]
      }.count > welcomes
    }
    #expect(pole.wait(seconds: 20, until: welcomedAgain), "\(pole.jobs.map(\.transcript))")
    let waited = Date().timeIntervalSince(thanked)
    let delay = Double(CustomerDisplay.thanksMilliseconds) / 1000
    #expect(waited > delay - 1.5 && waited < delay + 3, "welcome after \(waited) s")
    // Away: the sale goes on.
    pole.stop()
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "40"]).status == 0)
  }
}

extension PrinterEndToEndTests {
  @Test(
    "with the print queue full, a sale still completes, and the log names the receipt that was not queued"
  )
  func fullQueueIsNotSilent() throws {
    let printer = try TestPrinter()
    printer.stop()
    let daemon = try Daemon(arguments: ["--printer", "tcp:127.0.0.1:\(printer.port)"])
    defer { daemon.cleanup() }
    // A printer away for a long while: a drawer job for each no-sale fills the queue.
    let client = try daemon.connect()
    let line = #"{"op":"no_sale"}"# + "\n"
    try client.sendRaw(Array(String(repeating: line, count: PrintQueue.maximumPending).utf8))
    for _ in 0..<PrintQueue.maximumPending { #expect(try client.read().isOK) }
    #expect(try printerStatus(daemon)?["pending"] == .int(Int64(PrintQueue.maximumPending)))

    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    let sale = try daemon.cli(["tender", "cash", "50"])
    #expect(sale.status == 0, "\(sale.stderr)")
    #expect(sale.stdout.contains("Receipt 1"))
    #expect(daemon.waitForLog("receipt 1 was not queued"), "\(daemon.log.suffix(2000))")
    #expect(
      daemon.log.contains(
        "receipt 1 was not queued for printing: 1000 jobs are already waiting for the printer"),
      "\(daemon.log.suffix(2000))")
    #expect(daemon.log.contains("print it with `register-cli print 1`"))
    #expect(try printerStatus(daemon)?["pending"] == .int(Int64(PrintQueue.maximumPending)))
  }
}

@Suite("A printer or display path that is not a device", .serialized)
struct DevicePathEndToEndTests {
  @Test(
    "--printer or --display naming a regular file is refused at start; a store setting naming one is never written to"
  )
  func regularFileRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let file = directory.path("receipts.log")
    let content = Array(String(repeating: "an earlier, longer job\n", count: 20).utf8)
    try Data(content).write(to: URL(fileURLWithPath: file))
    for flag in ["--printer", "--display"] {
      do {
        let daemon = try Daemon(arguments: [flag, file])
        daemon.cleanup()
        Issue.record("registerd started with \(flag) \(file)")
      } catch {
        #expect("\(error)".contains("cannot start: \(flag) \(file) is a regular file"), "\(error)")
      }
    }
    #expect(try Array(Data(contentsOf: URL(fileURLWithPath: file))) == content)

    // Named by the store settings: the sale completes, nothing is written, the log says why.
    let catalog = try String(
      contentsOf: Binaries.repository.appendingPathComponent("Data/products.json"), encoding: .utf8
    ).replacingOccurrences(
      of: #""tenders": ["check", "voucher"]"#,
      with: #""tenders": ["check", "voucher"], "printer": "\#(file)""#)
    let daemon = try Daemon(catalog: catalog)
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    let hello = try daemon.cli(["--json", "hello"])
    let printer = try JSONParser.parse(Array(hello.stdout.utf8.dropLast())).result["printer"]
    #expect(printer?["pending"] == .int(1))
    // Once it has said it will not write there, it never does.
    #expect(
      daemon.waitForLog("the store's printer \(file) is a regular file"), "\(daemon.log)")
    #expect(try Array(Data(contentsOf: URL(fileURLWithPath: file))) == content)
  }
}

extension PrinterEndToEndTests {
  @Test(
    "a receipt printed while storage failed is journaled as printed once storage works again: a restart does not print it, nor kick the drawer, again",
    .tags(.outsideProgram), .requires(.strace),
    .enabled(if: Strace.isUsable, Comment(rawValue: Strace.unusable)))
  func printedWhileStorageFailed() throws {
    let printer = try TestPrinter()
    defer { printer.stop() }
    printer.answerStatus(TestPrinter.ok)
    // Away at first: the sale's job waits, durable, for the printer.
    printer.stop()
    let daemon = try Daemon(arguments: ["--printer", "tcp:127.0.0.1:\(printer.port)"])
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try printerStatus(daemon)?["pending"] == .int(1))
    // Every fdatasync fails from now until strace lets go.
    let trace = try Strace.Attached(
      to: daemon.process.processIdentifier,
      injecting: Strace.Fault(calls: "fdatasync", error: "EIO"), when: "1+",
      in: daemon.directory)
    let client = try daemon.connect()
    let refused = try client.send(#"{"op":"paid_in","amount":"1.00","reason":"till"}"#)
    #expect(refused.errorCode == "storage_failed")
    #expect(daemon.waitForLog("STORAGE FAILED"), "\(daemon.log)")
    // The printer comes back while storage still fails: the job prints, and its print_done
    // cannot be journaled.
    try printer.start()
    #expect(printer.wait { printer.printed("R1") == 1 }, "\(daemon.log)")
    // The loop takes the printer's report a moment after the bytes arrive; it must do so while
    // storage still fails, so time must pass before strace lets go.
    usleep(500_000)
    trace.detach()
    #expect(daemon.waitForLog("storage works again"), "\(daemon.log)")
    #expect(daemon.waitForLog("journaled as printed"), "\(daemon.log)")
    #expect(printer.wait { (try? self.printerStatus(daemon))??["pending"] == .int(0) })
    daemon.kill9()
    try daemon.start()
    #expect(try printerStatus(daemon)?["pending"] == .int(0), "\(daemon.log)")
    #expect(!daemon.log.contains("from before the restart are waiting to print"), "\(daemon.log)")
    #expect(printer.printed("R1") == 1)
  }
}
