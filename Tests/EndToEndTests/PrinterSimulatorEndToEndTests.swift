import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// emupos (PyPI), an Epson TM printer simulator written apart from this project: it answers
/// DLE EOT as the Epson reference says, holds print data while a fault (paper out, cover open,
/// off-line) lasts and prints it when the fault clears, and renders each receipt as text at the
/// paper's width. `.ci/run` installs it (it needs Python 3.13 or later); the tests find it
/// through `REGISTERD_EMUPOS`, `.build/emupos-venv/bin/emupos` or `PATH`.
final class Emupos: @unchecked Sendable {
  static let executable: String? = {
    var candidates: [String] = []
    if let named = ProcessInfo.processInfo.environment["REGISTERD_EMUPOS"], !named.isEmpty {
      candidates.append(named)
    }
    candidates.append(
      Binaries.repository.appendingPathComponent(".build/emupos-venv/bin/emupos").path)
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      candidates.append("\(directory)/emupos")
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  let directory: TemporaryDirectory
  let printerPort: Int
  let apiPort: Int
  let process = Process()

  /// Starts a simulated Epson TM-T20III (576 dots: 48 columns of font A) on 127.0.0.1.
  init() throws {
    guard let executable = Self.executable else { throw HarnessError("emupos is not installed") }
    directory = try TemporaryDirectory()
    printerPort = try Self.freePort()
    apiPort = try Self.freePort()
    let config = """
      schema: 1
      api: { host: 127.0.0.1, port: \(apiPort) }
      devices:
        - id: front
          type: printer
          profile: epson-tm-t20iii
          connections:
            - tcp: { host: 127.0.0.1, port: \(printerPort) }
          receipts_dir: \(directory.path("receipts"))
      """
    try config.write(toFile: directory.path("emupos.yaml"), atomically: true, encoding: .utf8)
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["run", "--config", directory.path("emupos.yaml")]
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    if waitUntil(within: 30, every: 0.2, { (try? control(["devices"]))?.status == 0 }) { return }
    stop()
    throw HarnessError("emupos did not start")
  }

  /// SIGTERM, then SIGKILL if it has not exited within five seconds (asked of the kernel, as
  /// `Daemon` does: a test never hangs here).
  func stop() {
    if exitStatus(of: process, timeout: 0) == nil {
      kill(process.processIdentifier, SIGTERM)
      if exitStatus(of: process, timeout: 5) == nil {
        kill(process.processIdentifier, SIGKILL)
        _ = exitStatus(of: process, timeout: 10)
      }
    }
    directory.cleanup()
  }

  var address: String { "tcp:127.0.0.1:\(printerPort)" }

  /// Runs `emupos ARGUMENTS` against this simulator's control API.
  @discardableResult
  func control(_ arguments: [String]) throws -> CLIResult {
    guard let executable = Self.executable else { throw HarnessError("emupos is not installed") }
    return try runProgram(
      URL(fileURLWithPath: executable), ["--api", "http://127.0.0.1:\(apiPort)"] + arguments)
  }

  /// Sets (or clears) a fault: paper-out, cover-open, offline.
  func fault(_ name: String, _ active: Bool) throws {
    let result = try control(["fault", active ? "set" : "clear", "front", name])
    guard result.status == 0 else { throw HarnessError("emupos fault: \(result.stderr)") }
  }

  /// The text of every receipt it printed, oldest first.
  var receipts: [String] {
    let folder = directory.path("receipts")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
      .filter { $0.hasSuffix(".txt") }.sorted()
    return names.compactMap { try? String(contentsOfFile: "\(folder)/\($0)", encoding: .utf8) }
  }

  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw HarnessError("bind: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

@Suite("The receipt printer against emupos, an independent Epson TM simulator", .serialized)
struct PrinterSimulatorEndToEndTests {
  func printer(_ daemon: Daemon) -> JSONValue? {
    guard let hello = try? daemon.cli(["--json", "hello"]) else { return nil }
    return (try? JSONParser.parse(Array(hello.stdout.utf8.dropLast())))?.result["printer"]
  }

  func wait(seconds: Double = 20, until condition: () -> Bool) -> Bool {
    waitUntil(within: seconds, every: 0.1, condition)
  }

  @Test(
    "faults show while idle; a job is not done while the printer holds it, prints once when the fault clears; centred lines centred on a 32-column receipt on 48-column paper",
    .enabled(
      if: Emupos.executable != nil,
      "emupos is not installed (.ci/run installs it: pip install emupos, Python 3.13 or later)"))
  func faultsAndHeldJobs() throws {
    let emupos = try Emupos()
    defer { emupos.stop() }
    let catalog = try String(
      contentsOf: Binaries.repository.appendingPathComponent("Data/products.json"), encoding: .utf8
    ).replacingOccurrences(
      of: #""tenders": ["check", "voucher"]"#,
      with: #""tenders": ["check", "voucher"], "receipt_width": 32"#)
    let daemon = try Daemon(catalog: catalog, arguments: ["--printer", emupos.address])
    defer { daemon.cleanup() }
    func status() -> JSONValue? { printer(daemon)?["status"] }
    func printDone() -> Int {
      ((try? journalText(daemon.dataDirectory)) ?? "").components(separatedBy: "\"print_done\"")
        .count - 1
    }
    #expect(wait { status() == "ok" }, "\(daemon.log)")

    // Idle: the roll runs out, and hello says so with no sale made.
    try emupos.fault("paper-out", true)
    #expect(wait { status() == "paper_out" }, "\(String(describing: status()))")
    try emupos.fault("paper-out", false)
    #expect(wait { status() == "ok" })

    // Cover open, then off-line: the sale completes, its job waits (not journaled printed, not
    // printed), and prints once the fault clears — once.
    var sales = 0
    for (fault, shown) in [("cover-open", "cover_open"), ("offline", "offline")] {
      try emupos.fault(fault, true)
      #expect(wait { status() == .string(shown) }, "\(fault): \(String(describing: status()))")
      #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
      #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
      sales += 1
      // emupos does not say when it is asked how it is, and nothing else shows that registerd
      // looked again: time for a few of its checks (a back-off from 0.25 s) must pass.
      usleep(2_000_000)
      #expect(printer(daemon)?["pending"] == .int(1), "\(fault)")
      #expect(printer(daemon)?["status"] == .string(shown))
      #expect(printDone() == sales - 1, "\(fault): not journaled as printed while held")
      #expect(emupos.receipts.count == sales - 1, "\(fault): nothing printed while held")
      try emupos.fault(fault, false)
      #expect(wait { printer(daemon)?["pending"] == .int(0) }, "\(fault)")
      #expect(wait { emupos.receipts.count == sales }, "\(fault)")
      #expect(printDone() == sales)
      // As above: time for registerd to have sent the job again, were it to, must pass.
      usleep(2_000_000)
      #expect(emupos.receipts.count == sales, "\(fault): printed once")
      #expect(status() == "ok")
    }

    // The receipt as the paper has it: 48 columns, the receipt's 32 on the left, and its
    // centred lines in the middle of those 32, not of the paper.
    let lines = try #require(emupos.receipts.first).split(separator: "\n").map(String.init)
    for centred in ["Lane & Thread Outfitters", "120 Market Street", "(217) 555-0142"] {
      let expected = String(repeating: " ", count: (32 - centred.count) / 2) + centred
      #expect(
        lines.contains { $0.trimmingTrailingSpaces == expected },
        "\(centred): \(lines.first { $0.contains(centred) } ?? "missing")")
    }
  }
}

extension String {
  fileprivate var trimmingTrailingSpaces: String {
    var text = self
    while text.last == " " { text.removeLast() }
    return text
  }
}
