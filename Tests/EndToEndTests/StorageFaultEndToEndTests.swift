import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// strace (Debian package `strace`; .ci/run installs it), which makes a system call of a
/// running process fail on purpose (`-e inject=SYSCALL:error=EIO:when=N`: the Nth call, counted
/// in each thread).
enum Strace {
  static let path: String? = ExternalProgram.strace.path

  /// True when strace, if installed, may trace here (a container can forbid ptrace). Tests
  /// also require `.strace`, which says when it is not installed at all.
  static let isUsable: Bool = {
    guard let path else { return true }
    let probe = try? runProgram(
      URL(fileURLWithPath: path), ["-f", "-qq", "-e", "trace=none", "/bin/true"])
    return probe?.status == 0
  }()

  static let unusable = "strace is installed but may not trace processes here (ptrace refused)"

  /// A kind of system call made to fail, and how.
  struct Fault: Sendable, CustomTestStringConvertible {
    /// strace's names for one call (the C library may make it as any of them). Each is
    /// counted on its own: naming two different calls here would fail both at once.
    var calls: String
    var error: String

    var testDescription: String { "\(calls) failing with \(error)" }

    /// strace's options that make call `n` of these fail, in every thread, logging them (with
    /// the paths of descriptors), or with `n` nil only log them.
    func options(at n: Int?, log: String) -> [String] {
      options(when: n.map(String.init), log: log)
    }

    /// The same, with strace's `when` as it is written: `5` (the fifth call), `5+` (the fifth
    /// and every one after it), `5..8`.
    func options(when: String?, log: String) -> [String] {
      ["-f", "-y", "-o", log, "-e", "trace=\(calls)"]
        + (when.map { ["-e", "inject=\(calls):error=\(error):when=\($0)"] } ?? [])
    }
  }

  /// strace attached to a running process, injecting a fault.
  final class Attached {
    let process = Process()
    let log: String

    /// Attaches to every thread of process `pid` and returns once strace says it has.
    convenience init(
      to pid: Int32, injecting fault: Fault, at n: Int, in directory: TemporaryDirectory
    ) throws {
      try self.init(to: pid, injecting: fault, when: String(n), in: directory)
    }

    /// Attaches to every thread of process `pid`, the fault made at the calls `when` names
    /// (strace's syntax), and returns once strace says it has.
    init(to pid: Int32, injecting fault: Fault, when: String, in directory: TemporaryDirectory)
      throws
    {
      let name = when.filter { $0.isNumber }
      log = directory.path("strace-\(name)-\(UUID().uuidString.prefix(6)).log")
      let said = log + ".err"
      _ = FileManager.default.createFile(atPath: said, contents: nil)
      let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: said))
      defer { try? errors.close() }
      process.executableURL = URL(fileURLWithPath: path ?? "strace")
      process.arguments = fault.options(when: when, log: log) + ["-p", String(pid)]
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      // strace says so on its standard error once it has attached (or exits).
      var attached = false
      _ = FileChanges.wait(for: said, within: 10) {
        let text = (try? String(contentsOfFile: said, encoding: .utf8)) ?? ""
        attached = text.contains("attached")
        return attached || exitStatus(of: process, timeout: 0) != nil
      }
      if attached { return }
      kill(process.processIdentifier, SIGKILL)
      throw HarnessError(
        "strace did not attach: \((try? String(contentsOfFile: said, encoding: .utf8)) ?? "")")
    }

    /// Lets go of the process (the fault ends). strace would detach on SIGINT, but a process
    /// the test runner starts inherits its blocked signals; killed, strace leaves the process
    /// it attached to (`-p`) running, untraced (the kernel detaches a dead tracer's tracees).
    func detach() {
      kill(process.processIdentifier, SIGKILL)
      _ = exitStatus(of: process, timeout: 10)
    }

    /// Waits for strace to end (its tracee has gone) and says whether the fault was made.
    func finish() -> Bool {
      if exitStatus(of: process, timeout: 10) == nil {
        kill(process.processIdentifier, SIGKILL)
        _ = exitStatus(of: process, timeout: 10)
      }
      return injected(log)
    }
  }

  /// Whether strace's log `path` shows a call it made fail.
  static func injected(_ path: String) -> Bool {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains("(INJECTED)")
  }
}

/// What a lane was told was done: each receipt as printed, and the days closed.
struct Acknowledged {
  var receipts: [Int: String] = [:]
  var closedDays: [Int] = []

  /// Rings up a sale paid in cash; a sale acknowledged is kept.
  mutating func sale(_ client: Client) throws {
    _ = try client.send(#"{"op":"add","sku":"TEE-WHT-M"}"#)
    let paid = try client.send(#"{"op":"tender","type":"cash","amount":"50"}"#)
    if let number = paid.result["receipt"]?["number"]?.int64Value.map(Int.init),
      let text = paid.result["receipt"]?["text"]?.stringValue
    {
      receipts[number] = text
    }
  }

  /// Closes the day; a close acknowledged is kept.
  mutating func closeDay(_ client: Client) throws {
    let closed = try client.send(#"{"op":"close_day"}"#)
    if let day = closed.result["report"]?["day"]?.int64Value.map(Int.init) {
      closedDays.append(day)
    }
  }

  /// Checks that `daemon` has every receipt as printed (bar the reprint mark) and every close.
  func check(_ daemon: Daemon, _ context: String) throws {
    let client = try daemon.connect()
    func unmarked(_ text: String?) -> [Substring] {
      (text ?? "").split(separator: "\n").filter { !$0.contains("REPRINT") }
    }
    for (number, text) in receipts.sorted(by: { $0.key < $1.key }) {
      let reprint = try client.send(#"{"op":"receipt","number":\#(number)}"#)
      #expect(
        unmarked(reprint.result["text"]?.stringValue) == unmarked(text),
        "\(context): receipt \(number): \(reprint.serialized)")
    }
    for day in closedDays {
      let report = try client.send(#"{"op":"report","kind":"z","day":\#(day)}"#)
      #expect(report.isOK, "\(context): day \(day)'s close: \(report.serialized)")
    }
  }
}

/// Every failure while a day is closed, its next segment made and its snapshot and receipt
/// archive written — each fsync, fdatasync, open, rename, truncate and mkdir failing in turn,
/// through strace — leaves a data directory that registerd starts from with every
/// acknowledged sale and close, that `verify` passes, and that takes more days after it; and
/// so does every failure while `register-cli backup` or `archive` runs.
@Suite("Storage faults at a close of day, its snapshot, a backup and an archive")
struct StorageFaultEndToEndTests {
  static let daemonFaults: [Strace.Fault] = [
    .init(calls: "fsync", error: "EIO"),
    .init(calls: "fdatasync", error: "EIO"),
    .init(calls: "openat", error: "ENOSPC"),
    .init(calls: "rename,renameat,renameat2", error: "EIO"),
    .init(calls: "ftruncate", error: "EIO"),
    .init(calls: "mkdir,mkdirat", error: "EIO"),
  ]

  /// The most calls of one kind a thread of registerd makes in the scenario, with room.
  static let mostCalls = 40

  /// Waits (a second at most) until the log tells of `count` snapshots, written or failed.
  func waitForSnapshots(_ daemon: Daemon, count: Int) {
    _ = daemon.waitForLogs(["snapshot of record", "could not write a snapshot"], count: count)
  }

  @Test(
    "a fault at any call of a close of day and its snapshot loses no acknowledged record",
    .tags(.outsideProgram), .requires(.strace),
    .enabled(if: Strace.isUsable, Comment(rawValue: Strace.unusable)),
    arguments: daemonFaults)
  func faultAtEveryCall(fault: Strace.Fault) throws {
    var reached = 0
    for n in 1...Self.mostCalls {
      guard try run(fault, at: n) else { break }
      reached = n
    }
    #expect(reached > 0, "\(fault.testDescription): no call was made to fail")
    #expect(reached < Self.mostCalls, "\(fault.testDescription): still failing calls at the end")
  }

  /// One run: a fresh registerd, the fault injected at call `n`, sales and two closes of day;
  /// then it is killed and started again without the fault, checked, rung for another day,
  /// killed, started and checked again, and `verify` run. Returns whether the fault was made.
  func run(_ fault: Strace.Fault, at n: Int) throws -> Bool {
    let context = "\(fault.testDescription), call \(n)"
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    var acknowledged = Acknowledged()
    do {
      let client = try daemon.connect()
      try acknowledged.sale(client)
      let trace = try Strace.Attached(
        to: daemon.process.processIdentifier, injecting: fault, at: n, in: daemon.directory)
      try acknowledged.closeDay(client)
      try acknowledged.sale(client)
      try acknowledged.sale(client)
      try acknowledged.closeDay(client)
      try acknowledged.sale(client)
      waitForSnapshots(daemon, count: acknowledged.closedDays.count)
      daemon.kill9()
      guard trace.finish() else { return false }
    }
    do {
      try daemon.start()
    } catch {
      Issue.record("\(context): registerd does not start again: \(error)")
      return true
    }
    try acknowledged.check(daemon, context + ", restarted")
    // Another day on the directory as the fault left it: its open segment, the names of the
    // segments and the snapshots must take it, and a restart after it too.
    let client = try daemon.connect()
    try acknowledged.sale(client)
    try acknowledged.closeDay(client)
    try acknowledged.sale(client)
    waitForSnapshots(daemon, count: 1)
    daemon.kill9()
    do {
      try daemon.start()
    } catch {
      Issue.record("\(context): registerd does not start after another day: \(error)")
      return true
    }
    try acknowledged.check(daemon, context + ", a day later")
    #expect(daemon.stop() == 0, "\(context)")
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(context): \(verify.stderr)")
    return true
  }

  static let backupFaults: [Strace.Fault] = [
    .init(calls: "fsync", error: "EIO"),
    .init(calls: "openat", error: "ENOSPC"),
    .init(calls: "rename,renameat,renameat2", error: "EIO"),
    .init(calls: "mkdir,mkdirat", error: "EIO"),
    .init(calls: "link,linkat", error: "EIO"),
  ]

  @Test(
    "a fault at any call of a backup leaves a whole backup or none, and the lane as it was",
    .tags(.outsideProgram), .requires(.strace),
    .enabled(if: Strace.isUsable, Comment(rawValue: Strace.unusable)),
    arguments: backupFaults)
  func backupFaultAtEveryCall(fault: Strace.Fault) throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    var acknowledged = Acknowledged()
    let client = try daemon.connect()
    for _ in 0..<2 {
      try acknowledged.sale(client)
      try acknowledged.closeDay(client)
      waitForSnapshots(daemon, count: acknowledged.closedDays.count)
    }
    try acknowledged.sale(client)
    // Killed: the open segment keeps the zeros written ahead of its records.
    daemon.kill9()
    let before = try JournalFiles.readAll(in: daemon.dataDirectory)
    func backup(to target: String, failing n: Int?, log: String) throws -> CLIResult {
      try runProgram(
        URL(fileURLWithPath: Strace.path ?? "strace"),
        fault.options(at: n, log: log) + [
          Binaries.registerCLI.path, "backup", "--data-dir", daemon.dataDirectory, "--to", target,
        ])
    }
    // The calls made before the backup's own (loading the program's libraries) are not tried.
    let dryLog = daemon.directory.path("backup-strace.log")
    #expect(
      try backup(to: daemon.directory.path("backup-0"), failing: nil, log: dryLog).status == 0)
    let calls = try String(contentsOfFile: dryLog, encoding: .utf8).split(separator: "\n")
    let first = try #require(calls.firstIndex { $0.contains(daemon.directory.url.path) }) + 1
    var made: [String] = []
    var reached = 0
    for n in first...calls.count + 1 {
      let target = daemon.directory.path("backup-\(n)")
      let log = daemon.directory.path("backup-strace-\(n).log")
      let result = try backup(to: target, failing: n, log: log)
      guard Strace.injected(log) else { break }
      reached = n
      let context = "\(fault.testDescription), call \(n)"
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: daemon.directory.url.path)
        .filter { $0.hasPrefix("backup-\(n).tmp-") }
      #expect(leftovers.isEmpty, "\(context): \(leftovers) left behind")
      if result.status == 0 {
        let verify = try runCLI(["verify", "--data-dir", target])
        #expect(verify.status == 0, "\(context): the backup does not verify: \(verify.stderr)")
        made.append(target)
      } else {
        #expect(
          !FileManager.default.fileExists(atPath: target),
          "\(context): a backup that failed left \(target): \(result.stderr)")
      }
    }
    #expect(reached > 0, "\(fault.testDescription): no call was made to fail")
    #expect(try JournalFiles.readAll(in: daemon.dataDirectory) == before, "the lane is untouched")
    // The lane starts as it was; so does the last whole backup made under a fault.
    try daemon.start()
    try acknowledged.check(daemon, "\(fault.testDescription): the lane after the backups")
    #expect(daemon.stop() == 0)
    if let backup = made.last {
      let restoredDirectory = try TemporaryDirectory()
      try FileManager.default.moveItem(atPath: backup, toPath: restoredDirectory.path("data"))
      let restored = try Daemon(directory: restoredDirectory)
      defer { restored.cleanup() }
      try acknowledged.check(restored, "\(fault.testDescription): \(backup)")
    }
  }
  static let archiveFaults: [Strace.Fault] = [
    .init(calls: "fsync", error: "EIO"),
    .init(calls: "openat", error: "ENOSPC"),
    .init(calls: "rename,renameat,renameat2", error: "EIO"),
    .init(calls: "link,linkat", error: "EIO"),
    .init(calls: "unlink,unlinkat", error: "EIO"),
  ]

  @Test(
    "a fault at any call of an archive leaves a lane that verifies and starts with every record",
    .tags(.outsideProgram), .requires(.strace),
    .enabled(if: Strace.isUsable, Comment(rawValue: Strace.unusable)),
    arguments: archiveFaults)
  func archiveFaultAtEveryCall(fault: Strace.Fault) throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    var acknowledged = Acknowledged()
    let client = try daemon.connect()
    for _ in 0..<3 {
      try acknowledged.sale(client)
      try acknowledged.closeDay(client)
      waitForSnapshots(daemon, count: acknowledged.closedDays.count)
    }
    try acknowledged.sale(client)
    daemon.kill9()
    /// A copy of the lane's data directory, archived up to day 3 with call `n` failing.
    func archive(_ name: String, failing n: Int?, log: String) throws -> (
      data: String, target: String, result: CLIResult
    ) {
      let data = daemon.directory.path("lane-" + name)
      let copied = try runProgram(
        URL(fileURLWithPath: "/bin/cp"), ["-a", daemon.dataDirectory, data])
      #expect(copied.status == 0, "\(copied.stderr)")
      let target = daemon.directory.path("archive-" + name)
      let result = try runProgram(
        URL(fileURLWithPath: Strace.path ?? "strace"),
        fault.options(at: n, log: log) + [
          Binaries.registerCLI.path, "archive", "--data-dir", data, "--before-day", "3", "--to",
          target,
        ])
      return (data, target, result)
    }
    // The calls made before the archive's own (loading the program's libraries) are not tried.
    let dryLog = daemon.directory.path("archive-strace.log")
    #expect(try archive("0", failing: nil, log: dryLog).result.status == 0)
    let calls = try String(contentsOfFile: dryLog, encoding: .utf8).split(separator: "\n")
    let first = try #require(calls.firstIndex { $0.contains(daemon.directory.url.path) }) + 1
    var reached = 0
    for n in first...calls.count + 1 {
      let log = daemon.directory.path("archive-strace-\(n).log")
      let (data, target, result) = try archive(String(n), failing: n, log: log)
      guard Strace.injected(log) else { break }
      reached = n
      let context = "\(fault.testDescription), call \(n)"
      let verify = try runCLI(["verify", "--data-dir", data])
      #expect(verify.status == 0, "\(context): \(result.stderr) then \(verify.stderr)")
      if result.status == 0 {
        let whole = try runCLI(["verify", "--data-dir", data, "--archive", target])
        #expect(whole.status == 0, "\(context): \(whole.stderr)")
        continue
      }
      // Stopped half way: registerd starts from what it left, with every record.
      let laneDirectory = try TemporaryDirectory()
      try FileManager.default.moveItem(atPath: data, toPath: laneDirectory.path("data"))
      do {
        let lane = try Daemon(directory: laneDirectory)
        defer { lane.cleanup() }
        try acknowledged.check(lane, context)
      } catch {
        Issue.record("\(context): registerd does not start after \(result.stderr): \(error)")
        laneDirectory.cleanup()
      }
    }
    #expect(reached > 0, "\(fault.testDescription): no call was made to fail")
  }
}
