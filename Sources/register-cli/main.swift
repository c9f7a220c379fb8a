import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Exit statuses, as documented in `register-cli help`.
enum ExitStatus: Int32 {
  case done = 0
  case refused = 1
  case usage = 2
  case unreachable = 3
}

enum CLI {
  static let usage = """
    usage: register-cli [--socket PATH] [--json] COMMAND [ARGS]

    Talks to registerd over its Unix socket (default: $REGISTER_SOCKET, else
    $XDG_RUNTIME_DIR/registerd.sock, else /tmp/registerd-UID.sock).

    Ringing up:
      catalog                          list products, prices and stock
      show                             the open order
      add SKU [QTY] [--option GROUP=CHOICE ...]
                                       ring up a product (each add is a new line)
      remove LINE                      take a line off the order
      qty LINE QTY                     change a line's quantity
      tender cash AMOUNT               take cash (change is given when over)
      tender card NUMBER --exp MM/YY --cvv CVV [--amount AMOUNT]
                                       take a card (amount defaults to the balance)
      discount [LINE] (--percent P | --amount A) --reason TEXT
                                       discount a line, or the whole order without LINE
                                       (0 removes the discount)
      override LINE PRICE --reason TEXT
                                       replace a line's unit price
      void [--reason TEXT]             cancel the open order and hand back its tenders
      void-line LINE                   void a line: it stays on the order, marked VOID
      park [--note TEXT]               set the open order aside and open a new one
      parked                           list parked orders
      resume ORDER                     bring a parked order back as the open order
      return RECEIPT LINE[:QTY]... --reason TEXT
                                       refund items of an earlier receipt to the tenders
                                       they were paid with
      watch [--topics order,sale,day] [--count N]
                                       the customer display: print the order as it
                                       changes; reconnects when registerd restarts
      receipt [NUMBER]                 reprint a receipt (default: the last one)
      hello                            check the daemon is there

    The business day:
      report [x]                       X report: the day's totals so far
      report z [--day N]               reprint the Z report of a closed day
      close-day [--counted-cash AMOUNT]
                                       Z report: print the totals and close the day

    People (once an operator exists, changes need someone signed in):
      operator add ID --name NAME --role cashier|manager --pin PIN
      operator list | remove ID | set-pin ID --pin PIN | unlock ID
      operator unlock ID --data-dir DIR  with registerd stopped: the owner's way to unlock
                                       (e.g. the last manager), journaled offline
      sign-in ID --pin PIN             sign in at the register
      sign-out
      --approve MANAGER:PIN            (on any command) a manager's approval, for voids,
                                       overrides, returns, no-sales, large discounts
      customer add NAME [--email E] [--phone P]
      customer find QUERY | attach ID | history ID

    Catalog and drawer:
      product add SKU --name N --category C --price P [--sale-price S] [--stock N]
                  [--tax-class T] [--description D] [--json '{...}']
      product update SKU [--price P] [--sale-price S|none] [--stock N] ... 
      product remove SKU
      catalog export [--data-dir DIR] [--to FILE]
                                       the live catalog (current stock included) as a
                                       catalog file, from registerd or, with --data-dir,
                                       from the journal offline; registerd never writes
                                       the file it imported
      stock adjust SKU DELTA --reason TEXT
      float AMOUNT                     the opening float
      paid-in AMOUNT --reason TEXT | paid-out AMOUNT --reason TEXT
      no-sale [--reason TEXT]          open the drawer without a sale (needs a manager)
      email RECEIPT [--to ADDRESS]     e-mail a receipt (to the customer's address by
                                       default); also: receipt N --email ADDRESS

    The journal, offline (no daemon needed):
      verify [--data-dir DIR]          check every record's checksum and the hash chain;
                                       exit 0 only when the journal is intact
      replay [--data-dir DIR] [--day N] [--receipt N]
                                       print a day's receipts exactly as printed at sale
                                       time, then its Z report (X report if still open)
    (DIR defaults to $REGISTER_DATA_DIR, else .registerd)

    Every change is sent with a fresh idempotency key; if the connection breaks before the
    reply, register-cli reconnects and retries with the same key, so it happens once.

    Scripting:
      batch, -                         read commands from standard input, one per line
      --json                           print each reply's JSON instead of text

    Exit status: 0 done, 1 the register refused (message on stderr), 2 usage error,
    3 registerd cannot be reached.
    """

  static func fail(_ status: ExitStatus, _ message: String) -> ExitStatus {
    writeStandardError("register-cli: \(message)\n")
    return status
  }
}

/// 128 random bits as hex, from /dev/urandom: an idempotency key.
func randomKey() -> String {
  hexString(RegisterService.systemRandom(16))
}

/// A session with the daemon: one connection, opened on first use.
final class Session {
  let socketPath: String
  let json: Bool
  private var connection: LineConnection?
  private var nextID = 1
  /// How long to keep retrying a request whose connection broke before its reply came.
  static let retryWindowMilliseconds = 15_000

  init(socketPath: String, json: Bool) {
    self.socketPath = socketPath
    self.json = json
  }

  /// Runs one invocation and returns its exit status.
  func run(_ invocation: Invocation) -> ExitStatus {
    switch invocation {
    case .help:
      writeStandardOutput(CLI.usage + "\n")
      return .done
    case .batch:
      return runBatch()
    case .local(let command):
      return Offline.run(command, json: json, environment: processEnvironment())
    case .exportCatalog(let directory, let path):
      return exportCatalog(dataDirectory: directory, to: path)
    case .watch(let topics, let count):
      return Watch(socketPath: socketPath, json: json, topics: topics, count: count).run()
    case .request(var object, let style):
      object["id"] = .int(nextID)
      nextID += 1
      if case .string(let op) = object["op"] ?? .null, CommandParser.mutatingOps.contains(op) {
        // A fresh key per change; the same key on every retry of it, so it happens once.
        object["key"] = .string(randomKey())
      }
      switch exchange(JSONValue.object(object).serialized) {
      case .success(let line):
        return show(line, style: style)
      case .failure(let failure):
        return CLI.fail(.unreachable, failure.message)
      }
    }
  }

  struct Unreachable: Error {
    var message: String
  }

  /// Sends a request and reads its reply. If the connection breaks after the request went out
  /// (the daemon restarting, say), reconnects and sends the same line again — with the same
  /// idempotency key, so a change is made at most once — for up to 15 seconds.
  private func exchange(_ line: String) -> Result<String, Unreachable> {
    var waited = 0
    var lastError = ""
    var sentOnce = false
    while true {
      do {
        let connection = try connect()
        try connection.send(line: line)
        sentOnce = true
        if let reply = try connection.readLine() { return .success(reply) }
        lastError = "registerd closed the connection before replying"
      } catch {
        lastError = error.description
      }
      self.connection = nil
      // Never reached it at all: registerd is not running; say so at once.
      guard sentOnce, waited < Self.retryWindowMilliseconds else {
        return .failure(
          Unreachable(
            message:
              "cannot reach registerd at \(socketPath) (\(lastError)); is registerd running? Start it with `swift run registerd` or pass --socket PATH"
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
      let line = JSONValue.object(["id": .int(nextID), "op": "catalog_export"]).serialized
      nextID += 1
      let reply: JSONValue
      switch exchange(line) {
      case .success(let text):
        guard let parsed = try? JSONParser.parse(text) else {
          return CLI.fail(.unreachable, "registerd sent a reply that is not JSON: \(text)")
        }
        reply = parsed
      case .failure(let failure):
        return CLI.fail(.unreachable, failure.message)
      }
      guard reply["ok"] == .bool(true), let document = reply["result"]?["catalog"] else {
        let message = reply["error"]?["message"]?.stringValue ?? "no catalog in the reply"
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
      writeStandardOutput("Wrote \(catalog.products.count) products to \(path).\n")
    }
    return .done
  }

  private func connect() throws(SystemError) -> LineConnection {
    if let connection { return connection }
    let made = try LineConnection(path: socketPath)
    connection = made
    return made
  }

  private func show(_ line: String, style: OutputStyle) -> ExitStatus {
    guard let reply = try? JSONParser.parse(line) else {
      return CLI.fail(.unreachable, "registerd sent a reply that is not JSON: \(line)")
    }
    if json { writeStandardOutput(line + "\n") }
    if reply["ok"] == .bool(true) {
      if !json { writeStandardOutput(Output.render(reply["result"] ?? .null, style: style)) }
      return .done
    }
    let code = reply["error"]?["code"]?.stringValue ?? "error"
    let message = reply["error"]?["message"]?.stringValue ?? "the register refused the request"
    return CLI.fail(.refused, "\(code): \(message)")
  }

  /// Runs commands from standard input; the status is the first failure's, or 0.
  private func runBatch() -> ExitStatus {
    var worst = ExitStatus.done
    var lineNumber = 0
    while let line = readLine(strippingNewline: true) {
      lineNumber += 1
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let status: ExitStatus
      do {
        let words = try splitWords(String(trimmed))
        let invocation = try CommandParser.parse(words)
        if case .batch = invocation {
          status = CLI.fail(.usage, "line \(lineNumber): batch cannot be nested")
        } else {
          status = run(invocation)
        }
      } catch {
        status = CLI.fail(.usage, "line \(lineNumber): \(error.message ?? "bad command")")
      }
      if status == .unreachable { return status }
      if worst == .done { worst = status }
    }
    return worst
  }
}

func main() -> ExitStatus {
  let environment = processEnvironment()
  var socketPath = defaultSocketPath(environment: environment)
  var json = false
  var words: [String] = []
  var arguments = Array(CommandLine.arguments.dropFirst())[...]
  // Global options come before the command.
  while let first = arguments.first, first.hasPrefix("--") || first == "-h" {
    if first == "--socket" {
      arguments.removeFirst()
      guard let path = arguments.popFirst() else {
        return CLI.fail(.usage, "--socket needs a path")
      }
      socketPath = path
    } else if first.hasPrefix("--socket=") {
      socketPath = String(first.dropFirst("--socket=".count))
      arguments.removeFirst()
    } else if first == "--json" {
      json = true
      arguments.removeFirst()
    } else {
      break
    }
  }
  words = Array(arguments)
  if let index = words.firstIndex(of: "--json") {
    json = true
    words.remove(at: index)
  }
  let invocation: Invocation
  do {
    invocation = try CommandParser.parse(words)
  } catch {
    guard let message = error.message else {
      writeStandardOutput(CLI.usage + "\n")
      return .done
    }
    writeStandardError("register-cli: \(message)\n\n\(CLI.usage)\n")
    return .usage
  }
  return Session(socketPath: socketPath, json: json).run(invocation)
}

exit(main().rawValue)
