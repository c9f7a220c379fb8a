import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Exit statuses, as documented in `register-cli help` and register-cli(1) (both from
/// `meaning`).
package enum ExitStatus: Int32, CaseIterable {
  case done = 0
  case refused = 1
  case usage = 2
  case unreachable = 3

  /// What the status means, for the help and the manual page.
  package var meaning: String {
    switch self {
    case .done: "done"
    case .refused: "the register refused (the message is on standard error)"
    case .usage: "usage error, or a card that could not be read"
    case .unreachable: "registerd cannot be reached"
    }
  }
}

/// register-cli as a whole: its help, its failures and `run(arguments:environment:)`.
package enum CLI {
  /// The full help (from the command table).
  static var usage: String { CommandHelp.full }

  static func fail(_ status: ExitStatus, _ message: String) -> ExitStatus {
    writeStandardError("register-cli: \(message)\n")
    return status
  }
}

/// A session with the daemon: one connection, opened on first use.
final class Session {
  let socketPath: String
  let json: Bool
  private var connection: RegisterConnection?
  var nextID = 1
  /// How long to keep retrying a request whose connection broke before its reply came.
  static let retryWindowMilliseconds = 15_000

  init(socketPath: String, json: Bool) {
    self.socketPath = socketPath
    self.json = json
  }

  /// Runs one invocation and returns its exit status.
  func run(_ invocation: Invocation) -> ExitStatus {
    switch invocation {
    case .help(let command):
      writeStandardOutput(command.flatMap(CommandHelp.usage(of:)) ?? CLI.usage)
      return .done
    case .version:
      writeStandardOutput("register-cli \(registerdVersion)\n")
      return .done
    case .manual:
      writeStandardOutput(ManPage.registerCLI())
      return .done
    case .schema:
      writeStandardOutput(ProtocolSchema.text)
      return .done
    case .completion(let shell):
      switch shell {
      case .bash: writeStandardOutput(Completion.bash)
      case .zsh: writeStandardOutput(Completion.zsh)
      }
      return .done
    case .batch(let keepGoing):
      return runBatch(keepGoing: keepGoing)
    case .scanning:
      return runScanning()
    case .local(let command):
      return Offline.run(command, json: json, environment: processEnvironment())
    case .exportCatalog(let directory, let path):
      return exportCatalog(dataDirectory: directory, to: path)
    case .cardTender(let card):
      let tender: Requests.Tender
      do {
        tender = try CardEntry.request(card, read: Self.readCardField)
      } catch {
        return CLI.fail(.usage, error.message)
      }
      var approval = card.approval
      if let manager = approval?.operatorID, card.approvalPINToRead {
        do {
          guard
            let pin = try SecretEntry.read(
              prompt: PINRequest.approvalPrompt(manager), confirm: false)
          else { return CLI.fail(.usage, "no PIN given for \(manager)'s approval") }
          approval = Approval(operatorID: manager, pin: pin)
        } catch {
          return CLI.fail(.usage, error.message)
        }
      }
      return run(
        .request(
          TypedRequest(tender, envelope: RequestEnvelope(approval: approval)), .orderOrReceipt))
    case .pinRequest(let pinRequest):
      do {
        return run(.request(try pinRequest.filled(read: SecretEntry.read), pinRequest.style))
      } catch {
        return CLI.fail(.usage, error.message)
      }
    case .setup(let answers):
      return runSetup(answers)
    case .confirm(let question, let typed, let style):
      if isatty(0) == 1 {
        let terminal = TerminalReader() ?? TerminalReader(descriptor: 0)
        let answer = terminal.read(prompt: "\(question) [y/N] ", echo: true) ?? ""
        guard ["y", "yes"].contains(answer.lowercased()) else {
          writeStandardError("register-cli: nothing was done\n")
          return .usage
        }
      }
      return run(.request(typed, style))
    case .lane:
      // NO_COLOR (no-color.org): set and not empty, no colours; bold and reverse stay.
      let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
      return Lane(socketPath: socketPath, colors: !noColor).run()
    case .watch(let topics, let count):
      return Watch(socketPath: socketPath, json: json, topics: topics, count: count).run()
    case .refused(let error):
      // What registerd would have replied, had the request been sent.
      let line = JSONValue.object(["id": .int(nextID), "ok": false, "error": error.json])
      nextID += 1
      return show(line.serialized, style: .plain(""))
    case .request(var typed, let style):
      typed.envelope.id = .int(nextID)
      nextID += 1
      if typed.op.isMutation {
        // A fresh key per change (ops that change the register, from the engine's one op
        // table); the same key on every retry of it, so it happens once.
        typed.envelope.key = IdempotencyKey.random(RegisterService.systemRandom)
      }
      switch exchange(typed.line) {
      case .success(let line):
        return show(line, style: style)
      case .failure(let failure):
        return CLI.fail(.unreachable, failure.message)
      }
    }
  }

  /// Reads one field of a card: from the terminal (secrets without echo) when standard input
  /// is one, else the next line of standard input — which in `batch` is the line after the
  /// command, so a script gives the number and CVV on the lines that follow it.
  private static func readCardField(_ field: CardEntry.Field) -> String? {
    if isatty(0) == 1 {
      // The controlling terminal, else standard input itself: a terminal either way, so the
      // echo goes off for the secrets.
      let terminal = TerminalReader() ?? TerminalReader(descriptor: 0)
      return terminal.read(prompt: field.prompt, echo: !field.isSecret)
    }
    return readLine(strippingNewline: true)
  }

  struct Unreachable: Error {
    var message: String
  }

  /// Sends a request and reads its reply. If the connection breaks after the request went out
  /// (the daemon restarting, say), reconnects and sends the same line again — with the same
  /// idempotency key, so a change is made at most once — for up to 15 seconds.
  func exchange(_ line: String) -> Result<String, Unreachable> {
    var waited = 0
    var lastError = ""
    var sentOnce = false
    while true {
      do {
        let connection = try connect()
        try connection.send(line: line)
        sentOnce = true
        return .success(try connection.readLine())
      } catch {
        lastError = error.description
      }
      self.connection = nil
      // Never reached it at all: registerd is not running; say so at once.
      guard sentOnce, waited < Self.retryWindowMilliseconds else {
        return .failure(
          Unreachable(
            message:
              "cannot reach registerd at \(socketPath) (\(lastError)); is registerd running? \(StartAdvice.text())"
          ))
      }
      if waited == 0 {
        writeStandardError("register-cli: connection lost (\(lastError)); retrying…\n")
      }
      usleep(250_000)
      waited += 250
    }
  }

  /// `catalog export`: the live catalog as a file a store can edit and import again.
  private func exportCatalog(dataDirectory: String?, to path: String?) -> ExitStatus {
    let catalog: Catalog
    if let dataDirectory {
      guard let replayed = Offline.register(dataDirectory) else { return .refused }
      catalog = replayed.catalogDocument
    } else {
      let request = TypedRequest(
        Requests.CatalogExport(), envelope: RequestEnvelope(id: .int(nextID)))
      nextID += 1
      let reply: Reply
      switch exchange(request.line) {
      case .success(let text):
        do {
          reply = try Reply(line: text)
        } catch {
          return CLI.fail(.unreachable, error.description)
        }
      case .failure(let failure):
        return CLI.fail(.unreachable, failure.message)
      }
      guard let document = reply.result?["catalog"] else {
        let message = reply.error?.message ?? "no catalog in the reply"
        return CLI.fail(.refused, "catalog export refused: \(message)")
      }
      do {
        catalog = try Catalog(json: document)
      } catch {
        return CLI.fail(.refused, "registerd sent a catalog that does not validate: \(error)")
      }
    }
    let bytes = CatalogFile.serialize(catalog)
    guard let path else {
      writeStandardOutput(String(decoding: bytes, as: UTF8.self))
      return .done
    }
    do {
      try FileIO.writeAtomically(bytes, to: path)
    } catch {
      return CLI.fail(.refused, "cannot write \(path): \(error)")
    }
    if !json {
      writeStandardOutput("Wrote \(Words.count(catalog.products.count, "product")) to \(path).\n")
    }
    return .done
  }

  private func connect() throws(ClientError) -> RegisterConnection {
    if let connection { return connection }
    do {
      let made = try RegisterConnection(socketPath: socketPath)
      connection = made
      return made
    } catch {
      throw .system(error)
    }
  }

  /// Prints a reply line: as it came with `--json`, else the result for people, or the error.
  func show(_ line: String, style: OutputStyle) -> ExitStatus {
    let reply: Reply
    do {
      reply = try Reply(line: line)
    } catch {
      return CLI.fail(.unreachable, error.description)
    }
    if json { writeStandardOutput(line + "\n") }
    switch reply {
    case .success(_, let result):
      if json { return .done }
      if style == .escpos {
        guard let text = result["escpos"]?.stringValue, let bytes = Base64.decode(text) else {
          return CLI.fail(.unreachable, "registerd sent no ESC/POS bytes (an older registerd?)")
        }
        try? FileIO.writeAll(1, bytes)
        return .done
      }
      writeStandardOutput(Output.render(result, style: style))
      return .done
    case .failure(_, let error):
      return CLI.fail(.refused, "\(error.codeName): \(ErrorWords.said(error))")
    }
  }

  /// Scan mode: every line from standard input is a code a scanner read, sent as `scan`. A
  /// misread or unknown code is reported and the lane goes on scanning (the cashier scans it
  /// again or types the SKU); end of input ends it. The status is 0 when every scan was taken,
  /// else the status of a refusal.
  private func runScanning() -> ExitStatus {
    var worst = ExitStatus.done
    if isatty(0) == 1 && !json {
      writeStandardError("register-cli: scanning; each line read is a code (Ctrl-D ends)\n")
    }
    while let line = readLine(strippingNewline: true) {
      let code = String(
        line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed()
          .drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
      if code.isEmpty { continue }
      let status = run(.request(TypedRequest(Requests.Scan(code: code)), .scanned))
      if status == .unreachable { return status }
      if worst == .done { worst = status }
    }
    return worst
  }

  /// Runs commands from standard input. By default it stops at the first line that fails —
  /// a later line (a tender, say) must not land on an order an earlier refusal left short;
  /// with `keepGoing` it runs every line. The status is the first failure's, or 0.
  private func runBatch(keepGoing: Bool) -> ExitStatus {
    var worst = ExitStatus.done
    var lineNumber = 0
    while let line = readLine(strippingNewline: true) {
      lineNumber += 1
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let status: ExitStatus
      do throws(UsageError) {
        var words = try splitWords(String(trimmed))
        let globals = try GlobalOptions.extract(from: &words)
        guard globals.isEmpty else {
          throw UsageError(
            "global options (--socket, --json) go on the register-cli command line, not on a batch line"
          )
        }
        let invocation = try CommandParser.parse(words)
        if case .batch = invocation {
          status = CLI.fail(.usage, "line \(lineNumber): batch cannot be nested")
        } else if case .scanning = invocation {
          // Scan mode reads standard input, which is the batch's own input.
          status = CLI.fail(
            .usage,
            "line \(lineNumber): scan needs a CODE in a batch (scan mode reads standard input)")
        } else {
          status = run(invocation)
        }
      } catch {
        status = CLI.fail(.usage, "line \(lineNumber): \(error.message)")
      }
      if status == .unreachable { return status }
      if worst == .done { worst = status }
      if status != .done && !keepGoing {
        writeStandardError(
          "register-cli: stopped at input line \(lineNumber) (\(CardTender.redacted(String(trimmed)))); the lines after it were not run (--keep-going runs them anyway)\n"
        )
        return status
      }
    }
    return worst
  }
}

/// The options that apply to the whole run, wherever they appear on the command line.
package struct GlobalOptions {
  package var socketPath: String?
  package var json = false

  package var isEmpty: Bool { socketPath == nil && !json }

  /// Takes `--socket PATH`, `--socket=PATH` and `--json` out of `words`, wherever they are:
  /// `show --socket P` works like `--socket P show`. A word after `--` is left alone.
  package static func extract(from words: inout [String]) throws(UsageError) -> GlobalOptions {
    var options = GlobalOptions()
    var kept: [String] = []
    var index = 0
    while index < words.count {
      let word = words[index]
      index += 1
      if word == "--" {
        kept.append(contentsOf: words[index...])
        break
      } else if word == "--socket" {
        guard index < words.count else { throw UsageError("--socket needs a path") }
        options.socketPath = words[index]
        index += 1
      } else if word.hasPrefix("--socket=") {
        options.socketPath = String(word.dropFirst("--socket=".count))
      } else if word == "--json" {
        options.json = true
      } else {
        kept.append(word)
      }
    }
    words = kept
    return options
  }
}

/// Prints a usage error: the one-line cause, the usage of the command it concerns, and where
/// to read more — not the whole help, which would bury the cause.
func reportUsageError(_ error: UsageError) -> ExitStatus {
  var out = "register-cli: \(error.message)\n"
  if let command = error.command, let usage = CommandHelp.usage(of: command) {
    out += usage + "Run `register-cli help \(command)` for this command's usage.\n"
  } else {
    out += "Run `register-cli help` for the list of commands.\n"
  }
  writeStandardError(out)
  return .usage
}

extension CLI {
  /// Runs `register-cli` with `arguments` (without the program name) and returns its exit
  /// status.
  package static func run(arguments: [String], environment: [String: String]) -> ExitStatus {
    var words = arguments
    let invocation: Invocation
    let globals: GlobalOptions
    do {
      globals = try GlobalOptions.extract(from: &words)
      invocation = try CommandParser.parse(words)
    } catch {
      return reportUsageError(error)
    }
    // Only the process's own arguments are visible to `ps`; a batch line is not warned about.
    if case .cardTender(let card) = invocation, card.hasSecretInArguments {
      writeStandardError(CardTender.argumentWarning)
    }
    if case .cardTender(let card) = invocation, card.approvalPINInArguments {
      writeStandardError(PINRequest.argumentWarning)
    }
    if case .pinRequest(let request) = invocation, request.inArguments {
      writeStandardError(PINRequest.argumentWarning)
    }
    let socketPath = globals.socketPath ?? Paths.clientSocket(environment: environment)
    return Session(socketPath: socketPath, json: globals.json).run(invocation)
  }
}
