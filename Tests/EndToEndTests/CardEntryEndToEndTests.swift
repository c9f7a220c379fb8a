import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// A process's arguments as the kernel shows them to `ps`.
private func arguments(ofProcess pid: Int32) -> [String] {
  guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
  return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

@Suite("The card number never in argv", .serialized)
struct CardEntryEndToEndTests {
  @Test("tender card reads the number and CVV from standard input; its argv never holds them")
  func cardFromStandardInput() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)

    let process = Process()
    process.executableURL = Binaries.registerCLI
    process.arguments = ["--socket", daemon.socketPath, "tender", "card", "--exp", "12/30"]
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let pid = process.processIdentifier

    // Once it has become register-cli (its own arguments show), it waits for the number.
    var argv: [String] = []
    _ = waitUntil(within: 10, every: 0.01) {
      argv = arguments(ofProcess: pid)
      return argv.contains("tender")
    }
    #expect(argv.contains("tender"), "\(argv)")
    // That it waits is what is checked: a while passes, and it has not exited.
    usleep(200_000)
    #expect(exitStatus(of: process, timeout: 0) == nil, "it waits for the number on stdin")
    argv = arguments(ofProcess: pid)
    #expect(argv.contains("--exp"))
    for word in argv {
      #expect(!word.contains("4242"), "the number is not in argv")
      #expect(word != "737", "the CVV is not in argv")
    }

    input.fileHandleForWriting.write(Data("4242 4242 4242 4242\n 737 \n".utf8))
    try input.fileHandleForWriting.close()
    let collected = collectOutput(
      of: process, from: [output.fileHandleForReading, errors.fileHandleForReading], timeout: 30)
    let stdout = collected.text(0)
    let stderr = collected.text(1)
    let status = try #require(collected.status)
    #expect(status == 0, "\(stderr)")
    #expect(stdout.contains("VISA ****4242"), "\(stdout)")
    #expect(stdout.contains("Sale complete"))
    for text in [stdout, stderr] {
      #expect(!text.contains("4242 4242 4242 4242"))
      #expect(!text.contains("4242424242424242"))
      #expect(!text.contains("737"))
    }
    #expect(!stderr.contains("warning"), "the new form does not warn: \(stderr)")
    // The order is paid: the register has moved on to a new, empty one.
    let order = try daemon.connect().send(#"{"op":"order"}"#)
    #expect(order.result["item_count"] == .int(0))
    let receipt = try daemon.connect().send(#"{"op":"receipt","number":1}"#)
    #expect(receipt.result["text"]?.stringValue?.contains("VISA ****4242") == true)
  }

  @Test("without --exp the expiry is the third line; short input is refused without echo")
  func expiryFromStandardInputAndShortInput() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let short = try daemon.cli(["tender", "card", "--exp", "12/30"], stdin: "4242424242424242\n")
    #expect(short.status == 2)
    #expect(short.stderr.contains("no CVV given"), "\(short.stderr)")
    #expect(!short.stderr.contains("4242"))
    let badExpiry = try daemon.cli(["tender", "card"], stdin: "4242424242424242\n123\n1230\n")
    #expect(badExpiry.status == 2)
    #expect(badExpiry.stderr.contains("MM/YY"), "\(badExpiry.stderr)")
    #expect(!badExpiry.stderr.contains("4242") && !badExpiry.stderr.contains("123\n"))
    #expect(try daemon.connect().send(#"{"op":"order"}"#).result["item_count"] == .int(1))

    let full = try daemon.cli(["tender", "card"], stdin: "5555-5555-5555-4444\n321\n01/31\n")
    #expect(full.status == 0, "\(full.stderr)")
    #expect(full.stdout.contains("MASTERCARD ****4444"))
    #expect(!full.stdout.contains("5555-5555") && !full.stderr.contains("5555"))
  }

  @Test("the old form still works but warns once, without echoing the number")
  func oldFormWarns() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let old = try daemon.cli([
      "tender", "card", "4242424242424242", "--exp", "12/30", "--cvv", "123",
    ])
    #expect(old.status == 0, "\(old.stderr)")
    #expect(old.stdout.contains("VISA ****4242"))
    let warnings = old.stderr.components(separatedBy: "warning").count - 1
    #expect(warnings == 1, "\(old.stderr)")
    #expect(old.stderr.contains("`ps`") && old.stderr.contains("shell history"))
    #expect(old.stderr.contains("tender card --exp MM/YY"), "says how to avoid it")
    #expect(!old.stderr.contains("4242424242424242") && !old.stderr.contains("123 "))

    // A refused old-form card does not echo the number either (a failing Luhn check).
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let refused = try daemon.cli([
      "tender", "card", "4242424242424241", "--exp", "12/30", "--cvv", "123",
    ])
    #expect(refused.status == 1)
    #expect(!refused.stderr.contains("4242424242424241"), "\(refused.stderr)")
    // Nor a stray word that may be a CVV typed without --cvv.
    let stray = try daemon.cli(["tender", "card", "4242424242424242", "987", "--exp", "12/30"])
    #expect(stray.status == 2)
    #expect(!stray.stderr.contains("987") && !stray.stderr.contains("4242424242424242"))
  }

  @Test("in batch, the card's lines follow its command; a refused card line is not echoed")
  func batchReadsTheCardFromTheNextLines() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let script = """
      add CAP-BSB
      tender card --exp 12/30
      4242424242424242
      123
      show
      """
    let result = try daemon.cli(["batch"], stdin: script)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("VISA ****4242"))
    #expect(result.stdout.contains("(no items)"), "show ran after the card: \(result.stdout)")
    #expect(!result.stderr.contains("warning"), "a batch line is not in argv")

    let bad = """
      add CAP-BSB
      tender card 4242424242424241 --exp 12/30 --cvv 123
      """
    let refused = try daemon.cli(["batch"], stdin: bad)
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("stopped at input line 2 (tender card …)"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("4242424242424241"))
  }
}

/// register-cli with a terminal of its own: under script(1), which gives the shell command a
/// pseudo-terminal as its controlling terminal and relays standard input to it.
private func onTerminal(_ command: String) throws -> (
  Process, input: FileHandle, output: FileHandle
) {
  let process = Process()
  process.executableURL = try ExternalProgram.script.located()
  process.arguments = ["-qefc", command, "/dev/null"]
  var environment = ProcessInfo.processInfo.environment
  environment["SHELL"] = "/bin/sh"
  process.environment = environment
  let input = Pipe()
  let output = Pipe()
  process.standardInput = input
  process.standardOutput = output
  process.standardError = FileHandle.nullDevice
  try process.run()
  return (process, input.fileHandleForWriting, output.fileHandleForReading)
}

@Suite("The card typed at a terminal", .serialized, .tags(.outsideProgram), .requires(.script))
struct CardAtTerminalTests {
  @Test("the number and CVV are not echoed, and the echo is back on afterwards")
  func noEcho() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let cli = "'\(Binaries.registerCLI.path)' --socket '\(daemon.socketPath)'"
    let (process, input, output) = try onTerminal(
      "\(cli) tender card --exp 12/30; echo status=$?; stty -a")
    var text = read(output, until: "Card number: ")
    input.write(Data("4242424242424242\n".utf8))
    text += read(output, until: "CVV: ")
    input.write(Data("737\n".utf8))
    #expect(exitStatus(of: process, timeout: 20) != nil)
    try? input.close()
    text += String(decoding: readAvailable(output), as: UTF8.self)
    #expect(text.contains("VISA ****4242"), "\(text)")
    #expect(text.contains("status=0"))
    #expect(!text.contains("4242424242424242"), "the number was not echoed")
    #expect(!text.contains("737"), "the CVV was not echoed")
    #expect(text.contains(" echo ") && !text.contains("-echo "), "echo is on again: \(text)")
  }

  @Test("in batch typed at a terminal, a card line asks for the number and CVV without echo")
  func batchAtTerminal() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let cli = "'\(Binaries.registerCLI.path)' --socket '\(daemon.socketPath)'"
    let (process, input, output) = try onTerminal("\(cli) batch; echo status=$?")
    input.write(Data("add CAP-BSB\n".utf8))
    var text = read(output, until: "Baseball Cap")
    input.write(Data("tender card --exp 12/30\n".utf8))
    text += read(output, until: "Card number: ")
    input.write(Data("4242 4242 4242 4242\n".utf8))
    text += read(output, until: "CVV: ")
    input.write(Data("737\n".utf8))
    text += read(output, until: "Sale complete")
    input.write(Data("show\n".utf8))
    text += read(output, until: "(no items)")
    input.write(Data([4]))  // Ctrl-D: the end of the batch.
    #expect(exitStatus(of: process, timeout: 20) != nil)
    try? input.close()
    text += String(decoding: readAvailable(output), as: UTF8.self)
    #expect(text.contains("VISA ****4242") && text.contains("(no items)"), "\(text)")
    #expect(text.contains("status=0"), "\(text)")
    #expect(!text.contains("4242 4242") && !text.contains("737"), "nothing echoed: \(text)")
  }

  @Test("Ctrl-C while it waits for the number ends it with the echo back on")
  func interruptRestoresEcho() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let cli = "'\(Binaries.registerCLI.path)' --socket '\(daemon.socketPath)'"
    // The shell ignores the Ctrl-C itself so that it lives on to print the terminal's state.
    let (process, input, output) = try onTerminal(
      "trap '' INT; \(cli) tender card --exp 12/30; echo status=$?; stty -a")
    var text = read(output, until: "Card number: ")
    input.write(Data([3]))  // Ctrl-C: the terminal sends SIGINT to its foreground processes.
    if exitStatus(of: process, timeout: 20) == nil { process.terminate() }
    try? input.close()
    text += String(decoding: readAvailable(output), as: UTF8.self)
    #expect(text.contains("status=130"), "ended by SIGINT: \(text)")
    #expect(text.contains(" echo ") && !text.contains("-echo "), "echo is on again: \(text)")
    #expect(try daemon.connect().send(#"{"op":"order"}"#).result["item_count"] == .int(1))
  }
}

@Suite("register-cli watch as a customer display", .serialized)
struct CustomerDisplayEndToEndTests {
  @Test("not on a terminal: plain screens, no escape codes — welcome, item and total, thank-you")
  func plainDisplay() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let watch = Process()
    watch.executableURL = Binaries.registerCLI
    watch.arguments = ["--socket", daemon.socketPath, "watch", "--count", "3"]
    let output = Pipe()
    watch.standardOutput = output
    watch.standardError = Pipe()
    try watch.run()
    // The welcome screen is drawn once it has subscribed, so it sees every change after it.
    var text = read(output.fileHandleForReading, until: "Your items will show here.")
    #expect(text.contains("Welcome!") && text.contains("Lane & Thread Outfitters"), "\(text)")
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    text += collectOutput(of: watch, from: [output.fileHandleForReading], timeout: 15).text()
    #expect(!text.contains("\u{1B}"), "no escape codes when not on a terminal")
    let order = try daemon.connect().send(#"{"op":"receipt","number":1}"#)
    let receipt = try #require(order.result["text"]?.stringValue)
    #expect(receipt.contains("Baseball Cap"), "\(receipt)")
    #expect(text.contains("Baseball Cap"), "the last item: \(text)")
    #expect(text.contains("1 item"))
    #expect(text.split(separator: "\n").contains { $0.hasPrefix("TOTAL ") })
    #expect(text.contains("Thank you!") && text.contains("Receipt 1"), "\(text)")
    #expect(text.split(separator: "\n").contains { $0.hasPrefix("CHANGE ") })
  }
}
