import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// A log line outside journald: RFC 3339 time with milliseconds and offset, program[pid], level.
private var plainLine: Regex<(Substring, Substring, Substring, Substring)> {
  #/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d) registerd\[(\d+)\] (error|warning|info|debug): .+$/#
}

private func lines(_ log: String) -> [Substring] {
  log.split(separator: "\n")
}

@Suite("registerd's log: levels, format, journald", .serialized)
struct LogEndToEndTests {
  @Test(
    "outside journald every line is RFC 3339 time, registerd[PID] and a level; debug only at --log-level debug"
  )
  func plainFormat() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    _ = try daemon.connect().send(#"{"op":"hello"}"#)
    daemon.stop()
    let log = daemon.log
    #expect(!lines(log).isEmpty)
    for line in lines(log) {
      let match = try #require(line.wholeMatch(of: plainLine), "\(line)")
      #expect(Int32(match.2) == daemon.process.processIdentifier)
      #expect(match.3 != "debug", "no debug at info: \(line)")
      // The real time, not REGISTERD_FIXED_TIME's frozen 2026-11-22T14:03:05.
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      let when = try #require(formatter.date(from: String(match.1)))
      #expect(abs(when.timeIntervalSinceNow) < 120, "\(line)")
    }
    #expect(log.contains("info: registerd \(registerdVersion) serving "))
    #expect(log.contains("info: received SIGTERM: draining"))

    for (arguments, environment) in [
      (["--log-level", "debug"], [String: String]()), ([], ["REGISTERD_LOG_LEVEL": "debug"]),
    ] {
      let verbose = try Daemon(environment: environment, arguments: arguments)
      defer { verbose.cleanup() }
      _ = try verbose.connect().send(#"{"op":"hello"}"#)
      verbose.stop()
      #expect(
        verbose.log.contains("debug: connection 1 opened (uid \(getuid()))"), "\(verbose.log)")
      #expect(verbose.log.contains("debug: connection 1 closed"))
    }

    // --log-level error: the start-up summary (info) is gone.
    let quiet = try Daemon(arguments: ["--log-level", "error"])
    defer { quiet.cleanup() }
    quiet.stop()
    #expect(quiet.log.isEmpty, "\(quiet.log)")
  }

  @Test(
    "a bad --log-level is a usage error; a bad REGISTERD_LOG_LEVEL is a warning and info is used")
  func badLevels() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let refused = try LaunchedDaemon(
      directory: directory, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(directory) + ["--log-level", "loud"])
    #expect(exitStatus(of: refused.process, timeout: 20) == 2)
    #expect(refused.log.contains("--log-level must be error, warning, info or debug"))

    let daemon = try Daemon(environment: ["REGISTERD_LOG_LEVEL": "chatty"])
    defer { daemon.cleanup() }
    _ = try daemon.connect().send(#"{"op":"hello"}"#)
    daemon.stop()
    #expect(daemon.log.contains("warning: REGISTERD_LOG_LEVEL=chatty is not error"))
    #expect(daemon.log.contains("info: registerd "))
    #expect(!daemon.log.contains("debug:"))
  }

  @Test(
    "under journald (JOURNAL_STREAM is stderr's dev:ino) lines are <N>message; a JOURNAL_STREAM naming another file is ignored"
  )
  func journaldFormat() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let logPath = directory.path("journal.log")
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    let daemon = try LaunchedDaemon(
      directory: directory, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(directory) + ["--log-level", "debug"],
      environment: ["JOURNAL_STREAM": journalStream(of: logPath)], logPath: logPath)
    _ = try daemon.connect(directory.path("bound.sock")).send(#"{"op":"hello"}"#)
    #expect(daemon.stop() == 0)
    let log = daemon.log
    for line in lines(log) {
      #expect(line.wholeMatch(of: #/<[3467]>[^<].*/#) != nil, "\(line)")
      #expect(line.firstMatch(of: #/\d{4}-\d\d-\d\dT/#) == nil, "no timestamp: \(line)")
    }
    #expect(log.contains("<6>registerd \(registerdVersion) serving "), "\(log)")
    #expect(log.contains("<7>connection 1 opened"))
    #expect(log.contains("<6>received SIGTERM: draining"))

    // Inherited from a parent whose stderr was the journal, while ours is another file.
    let other = try TemporaryDirectory()
    defer { other.cleanup() }
    let elsewhere = other.path("elsewhere.log")
    _ = FileManager.default.createFile(atPath: elsewhere, contents: nil)
    let plain = try LaunchedDaemon(
      directory: other, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(other),
      environment: ["JOURNAL_STREAM": journalStream(of: elsewhere)])
    _ = try plain.connect(other.path("bound.sock")).send(#"{"op":"hello"}"#)
    #expect(plain.stop() == 0)
    #expect(!plain.log.contains("<6>"))
    for line in lines(plain.log) { #expect(line.wholeMatch(of: plainLine) != nil, "\(line)") }
    for bad in ["", "garbage", "1:", ":2", "18446744073709551616:1"] {
      #expect(!Log.standardErrorIsJournal(bad), "\(bad)")
    }
  }

  @Test("a message that quotes a newline stays one line (the catalog path here)")
  func newlinesEscaped() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let odd = directory.path("pro\nducts.json")
    try FileManager.default.copyItem(
      atPath: Binaries.repository.appendingPathComponent("Data/products.json").path, toPath: odd)
    let daemon = try LaunchedDaemon(
      directory: directory, executable: Binaries.registerd.path,
      arguments: [
        "--socket", directory.path("bound.sock"), "--data-dir", directory.path("data"),
        "--catalog", odd,
      ])
    _ = try daemon.connect(directory.path("bound.sock")).send(#"{"op":"hello"}"#)
    #expect(daemon.stop() == 0)
    #expect(daemon.log.contains("pro\\nducts.json"), "\(daemon.log)")
    for line in lines(daemon.log) { #expect(line.wholeMatch(of: plainLine) != nil, "\(line)") }
  }

  @Test(
    "business events at info or above: day closed with totals, operator locked, catalog reloaded; never the card number or CVV"
  )
  func businessEvents() throws {
    let daemon = try Daemon(catalog: try fastPINCatalog(), arguments: ["--log-level", "debug"])
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    for line in [
      #"{"op":"operator_add","operator_id":"mo","name":"Mo","role":"manager","pin":"9876"}"#,
      #"{"op":"sign_in","operator":"mo","pin":"9876"}"#,
      #"{"op":"operator_add","operator_id":"amy","name":"Amy","role":"cashier","pin":"1234"}"#,
      #"{"op":"add","sku":"CAP-BSB"}"#,
      #"{"op":"tender","type":"card","card":{"number":"378282246310005","exp_month":12,"exp_year":2030,"cvv":"7391"}}"#,
    ] {
      let reply = try client.send(line)
      #expect(reply.isOK, "\(line) → \(reply.serialized)")
    }
    for _ in 1...5 {
      let reply = try client.send(#"{"op":"sign_in","operator":"amy","pin":"0000"}"#)
      #expect(reply.errorCode == "wrong_pin")
    }
    #expect(try client.send(#"{"op":"sign_in","operator":"mo","pin":"9876"}"#).isOK)
    let closed = try client.send(#"{"op":"close_day"}"#)
    #expect(closed.isOK, "\(closed.serialized)")
    kill(daemon.process.processIdentifier, SIGHUP)
    _ = daemon.waitForLog("SIGHUP")
    #expect(daemon.stop() == 0)
    let log = daemon.log
    #expect(log.contains("info: day 1 closed: 1 sale(s), net sales 22.00 USD"), "\(log)")
    #expect(log.contains("warning: operator amy locked after 5 wrong PINs"), "\(log)")
    #expect(log.contains("info: SIGHUP: "), "\(log)")
    // What the messages say (times, pids and the temporary directory's name left out, as
    // digits there are chance).
    let messages = lines(log).compactMap { $0.wholeMatch(of: plainLine)?.output.0 }
      .map { $0.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? "" }
      .map { $0.replacingOccurrences(of: daemon.directory.url.path, with: "DIR") }
      .joined(separator: "\n")
    #expect(!messages.isEmpty)
    for secret in ["378282246310005", "7391", "9876", "1234"] {
      #expect(!messages.contains(secret), "\(secret) in the log")
    }
  }
}
