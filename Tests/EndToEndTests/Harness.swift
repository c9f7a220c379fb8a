import Foundation
import RegisterClient
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// Where the built programs are: next to the test bundle in the build directory.
enum Binaries {
  static let directory: URL = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    // On macOS the tests run inside an .xctest bundle; walk up to the build directory.
    while directory.path != "/"
      && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("registerd").path)
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory
  }()

  static var registerd: URL { directory.appendingPathComponent("registerd") }
  static var registerCLI: URL { directory.appendingPathComponent("register-cli") }

  /// The repository root (for Data/products.json).
  static let repository: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A fresh temporary directory, removed by `cleanup()`.
final class TemporaryDirectory: @unchecked Sendable {
  let url: URL

  init() throws {
    // Short paths: Unix socket paths are limited to about 100 bytes.
    let base = URL(fileURLWithPath: "/tmp")
    url = base.appendingPathComponent("rt-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  func cleanup() { try? FileManager.default.removeItem(at: url) }
}

/// Daemons a test run started and could not stop: a run killed before its tests' `cleanup`
/// ran (stopped with ^C, or its output piped into `head`) leaves them running, and nothing
/// else would stop them. Each daemon started is listed with the test process's id; the first
/// daemon a later run starts stops every listed daemon whose test process is gone.
enum LeftoverDaemons {
  static let listPath = "/tmp/registerd-e2e-daemons"
  private static let lock = NSLock()
  nonisolated(unsafe) private static var swept = false

  /// Lists `daemon` as started by this test process (after sweeping the list once).
  static func record(_ daemon: Int32) {
    lock.withLock {
      if !swept {
        sweep()
        swept = true
      }
      append(daemon, startedBy: getpid())
    }
  }

  /// Lists `daemon` as started by test process `testProcess` (a test of the sweep lists one
  /// whose process is gone). Under the lock: a sweep rewrites the list, and would drop a line
  /// appended between its read and its write.
  static func record(_ daemon: Int32, startedBy testProcess: Int32) {
    lock.withLock { append(daemon, startedBy: testProcess) }
  }

  private static func append(_ daemon: Int32, startedBy testProcess: Int32) {
    let fd = open(listPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let line = Array("\(testProcess) \(daemon)\n".utf8)
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  /// Sweeps the list now (see `sweep`).
  static func sweepListed() {
    lock.withLock { sweep() }
  }

  /// Kills the listed daemons whose test process has exited, and keeps the rest listed. A
  /// process id is killed only while it is still a registerd (ids are reused).
  private static func sweep() {
    guard let text = try? String(contentsOfFile: listPath, encoding: .utf8) else { return }
    var kept = ""
    for entry in text.split(separator: "\n") {
      let ids = entry.split(separator: " ").compactMap { Int32($0) }
      guard ids.count == 2 else { continue }
      if kill(ids[0], 0) == 0 || errno == EPERM {
        kept += entry + "\n"
        continue
      }
      if isRegisterd(ids[1]) { kill(ids[1], SIGKILL) }
    }
    try? kept.write(toFile: listPath, atomically: true, encoding: .utf8)
  }

  /// True when process `id` runs a registerd executable.
  static func isRegisterd(_ id: Int32) -> Bool {
    let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(id)/exe")
    return executable.map { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("registerd") }
      ?? false
  }
}

/// The fixed time the daemon runs at in tests, so receipts print the same bytes every run.
let fixedTime = "2026-11-22T14:03:05.000-05:00"

/// A running `registerd` on a temporary socket.
final class Daemon: @unchecked Sendable {
  let directory: TemporaryDirectory
  let socketPath: String
  let dataDirectory: String
  let catalogPath: String
  private(set) var process: Process
  private let stderrFile: URL
  var environment: [String: String]
  let extraArguments: [String]
  /// The open-file limit (`ulimit -n`) the daemon runs under, when set.
  let fileLimit: Int?

  /// Starts registerd with the repository's catalog (or `catalog` JSON text) and waits until
  /// it answers.
  init(
    catalog: String? = nil, environment: [String: String] = [:], arguments: [String] = [],
    directory: TemporaryDirectory? = nil, fileLimit: Int? = nil
  ) throws {
    self.directory = try directory ?? TemporaryDirectory()
    socketPath = self.directory.path("s.sock")
    dataDirectory = self.directory.path("data")
    catalogPath = self.directory.path("products.json")
    if !FileManager.default.fileExists(atPath: catalogPath) {
      if let catalog {
        try catalog.write(toFile: catalogPath, atomically: true, encoding: .utf8)
      } else {
        try FileManager.default.copyItem(
          atPath: Binaries.repository.appendingPathComponent("Data/products.json").path,
          toPath: catalogPath)
      }
    }
    stderrFile = self.directory.url.appendingPathComponent(
      "registerd-\(UUID().uuidString.prefix(6)).log")
    var env = ProcessInfo.processInfo.environment
    env["REGISTERD_FIXED_TIME"] = fixedTime
    env["TZ"] = "UTC"
    for (key, value) in environment { env[key] = value }
    self.environment = env
    self.extraArguments = arguments
    self.fileLimit = fileLimit
    process = Process()
    try start()
  }

  /// Starts (or restarts) the daemon process and waits for its socket.
  func start() throws {
    if !FileManager.default.fileExists(atPath: stderrFile.path) {
      _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
    }
    let handle = try FileHandle(forWritingTo: stderrFile)
    handle.seekToEndOfFile()
    process = Process()
    process.executableURL = Binaries.registerd
    process.arguments =
      ["--socket", socketPath, "--data-dir", dataDirectory, "--catalog", catalogPath]
      + extraArguments
    if let fileLimit {
      // The shell sets the limit and then becomes registerd (exec keeps the process id).
      process.arguments =
        ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", Binaries.registerd.path]
        + (process.arguments ?? [])
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
    }
    process.environment = environment
    process.standardError = handle
    process.standardOutput = FileHandle.nullDevice
    defer { try? handle.close() }  // the child has its own; see runProgram on descriptors
    try process.run()
    LeftoverDaemons.record(process.processIdentifier)
    var exited: Int32?
    let listening = waitUntil(within: 20) {
      exited = exitStatus(of: process, timeout: 0)
      return exited != nil || UnixSocket.probe(socketPath) == .live
    }
    if let exited { throw HarnessError("registerd exited with \(exited): \(log)") }
    guard listening else { throw HarnessError("registerd did not start listening: \(log)") }
  }

  /// What the daemon wrote to stderr so far.
  var log: String {
    (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
  }

  /// Waits until the daemon's log holds `text` at least `count` times, woken by each write to
  /// the log (inotify) rather than polling; false when `seconds` pass first.
  func waitForLog(_ text: String, count: Int = 1, within seconds: Double = 10) -> Bool {
    waitForLogs([text], count: count, within: seconds)
  }

  /// Waits until the daemon's log holds any of `texts` at least `count` times in all.
  func waitForLogs(_ texts: [String], count: Int = 1, within seconds: Double = 10) -> Bool {
    FileChanges.wait(for: stderrFile.path, within: seconds) {
      let log = log
      return texts.reduce(0) { $0 + log.components(separatedBy: $1).count - 1 } >= count
    }
  }

  /// How many connections the daemon has logged as opened and as closed (it logs each at
  /// `--log-level debug`; the start-up probe is the first).
  var connectionsLogged: (opened: Int, closed: Int) {
    let log = log
    return (
      log.ranges(of: /connection \d+ opened/).count, log.ranges(of: /connection \d+ closed/).count
    )
  }

  /// Waits until the daemon has logged at least `opened` connections opened and `closed`
  /// closed (needs `--log-level debug`): it has accepted a client, or seen one go.
  func waitForConnections(opened: Int = 0, closed: Int = 0, within seconds: Double = 10) -> Bool {
    FileChanges.wait(for: stderrFile.path, within: seconds) {
      let logged = connectionsLogged
      return logged.opened >= opened && logged.closed >= closed
    }
  }

  /// Waits until the daemon has closed every connection it opened — the start-up probe's
  /// too, which it holds until it sees the probe hang up (needs `--log-level debug`).
  func waitForConnectionsClosed(within seconds: Double = 10) -> Bool {
    FileChanges.wait(for: stderrFile.path, within: seconds) {
      let logged = connectionsLogged
      return logged.opened > 0 && logged.opened == logged.closed
    }
  }

  /// SIGTERM and wait; returns the exit status. A daemon that does not stop within ten
  /// seconds is killed and reported as status -1 (so a test can never hang here).
  @discardableResult
  func stop() -> Int32 {
    if let status = exitStatus(of: process, timeout: 0) { return status }
    process.terminate()
    if let status = exitStatus(of: process, timeout: 10) { return status }
    kill9()
    return -1
  }

  /// True while the daemon process has not exited (asked of the kernel: Foundation's
  /// `Process.isRunning` can miss an exit when many children come and go, see `exitStatus`).
  var isRunning: Bool { exitStatus(of: process, timeout: 0) == nil }

  /// How the daemon process ended (nil while it runs). Asked of the kernel too: Foundation's
  /// `terminationStatus` traps when read before Foundation has seen the exit.
  var exitCode: Int32? { exitStatus(of: process, timeout: 0) }

  /// SIGKILL and wait.
  func kill9() {
    guard exitStatus(of: process, timeout: 0) == nil else { return }
    kill(process.processIdentifier, SIGKILL)
    _ = exitStatus(of: process, timeout: 30)
  }

  /// A new raw client connection.
  func connect() throws -> Client {
    try Client(path: socketPath)
  }

  /// Runs register-cli against this daemon.
  func cli(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws
    -> CLIResult
  {
    try runCLI(["--socket", socketPath] + arguments, stdin: stdin, environment: environment)
  }

  /// Stops the daemon and removes its directory.
  func cleanup() {
    stop()
    directory.cleanup()
  }
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// A raw socket client that sends lines and reads reply lines, with a timeout.
final class Client: @unchecked Sendable {
  let connection: LineConnection

  init(path: String) throws {
    connection = try LineConnection(path: path)
    connection.setReceiveTimeout(milliseconds: 10_000)
  }

  /// The request lines sent with `send` whose replies have not been read, oldest first: each
  /// reply read is checked against the schema's reply to its op.
  private var awaiting: [String] = []
  /// Set once raw bytes were sent: replies can no longer be paired with requests, and are
  /// checked against the schema's replies to any op.
  private var unpaired = false

  /// Sends a request line and returns the parsed reply.
  func send(_ line: String) throws -> JSONValue {
    try connection.send(line: line)
    awaiting.append(line)
    return try read()
  }

  /// Sends raw bytes (no newline added).
  func sendRaw(_ bytes: [UInt8]) throws {
    try connection.send(bytes: bytes)
    unpaired = true
  }

  /// Waits until the daemon has read every byte sent on this connection: it has the requests
  /// in hand (answered or not).
  func waitUntilRead(within seconds: Double = 10) -> Bool {
    connection.waitUntilRead(within: seconds)
  }

  /// Reads and parses the next line, and holds it to the protocol's schema (an event line to
  /// `event`, a reply to the reply of the op it answers).
  func read() throws -> JSONValue {
    guard let line = try connection.readLine() else { throw HarnessError("connection closed") }
    let value = try JSONParser.parse(line)
    if value["event"] != nil {
      let problems = SchemaValidator.protocol.problems(value, as: "event")
      #expect(problems.isEmpty, "event off the schema: \(problems) in \(line.prefix(600))")
    } else if !unpaired, !awaiting.isEmpty {
      SchemaCheck.exchange(request: awaiting.removeFirst(), reply: value)
    } else {
      let problems = SchemaValidator.protocol.problems(value, as: "reply")
      #expect(problems.isEmpty, "reply off the schema: \(problems) in \(line.prefix(600))")
    }
    return value
  }
}

/// What a register-cli run printed and how it exited.
struct CLIResult {
  var status: Int32
  var stdout: String
  var stderr: String
  /// Standard output as bytes (for output that is not text, such as ESC/POS).
  var stdoutBytes: [UInt8] = []
}

/// Runs register-cli with `arguments`, feeding `stdin`.
func runCLI(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws
  -> CLIResult
{
  try runProgram(Binaries.registerCLI, arguments, stdin: stdin, environment: environment)
}

/// Runs `executable` with `arguments`, feeding `stdin` (the test's environment plus
/// `environment`), and returns its status and output once it exits (within a minute).
func runProgram(
  _ executable: URL, _ arguments: [String], stdin: String? = nil,
  environment: [String: String] = [:]
) throws -> CLIResult {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  for (key, value) in environment { env[key] = value }
  process.environment = env
  let output = Pipe()
  let errors = Pipe()
  let input = Pipe()
  process.standardOutput = output
  process.standardError = errors
  process.standardInput = input
  try process.run()
  if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
  try input.fileHandleForWriting.close()
  // Both pipes are read while it runs (a large output cannot block it), until it exits, not
  // to end of file (`collectOutput` says why).
  let collected = collectOutput(
    of: process, from: [output.fileHandleForReading, errors.fileHandleForReading], timeout: 60)
  // Closed now, not whenever Foundation lets go of the Process: a suite that runs hundreds of
  // programs otherwise holds a thousand pipe descriptors, and Foundation's Process.run on
  // Linux reads past its buffer while listing /proc/self/fd when there are that many
  // (swift-corelibs-foundation PR #5472, fixed after Swift 6.3.1), crashing the suite.
  for handle in [
    output.fileHandleForReading, output.fileHandleForWriting, errors.fileHandleForReading,
    errors.fileHandleForWriting, input.fileHandleForReading,
  ] {
    try? handle.close()
  }
  guard let status = collected.status else {
    throw HarnessError("\(executable.lastPathComponent) \(arguments) did not exit within a minute")
  }
  let outData = collected.data[0]
  let errData = collected.data[1]
  return CLIResult(
    status: status, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: [UInt8](outData))
}

extension JSONValue {
  /// `result` of a successful reply (or `.null`).
  var result: JSONValue { self["result"] ?? .null }
  /// The error code of a failed reply.
  var errorCode: String? { self["error"]?["code"]?.stringValue }
  var isOK: Bool { self["ok"] == .bool(true) }
}

/// A process's resident memory in KiB (`VmRSS` in /proc; nil where there is no /proc).
func residentKiB(_ pid: Int32) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
    return nil
  }
  for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
    return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
  }
  return nil
}
