import RegisterEngine

/// registerd's command line.
package struct Options {
  package var socketPath: String
  package var catalogPath = "Data/products.json"
  package var dataDirectory = ".registerd"
  package var socketMode: UInt32 = 0o600
  package var subscriberBacklog = 1 << 20
  package var socketGroup: String?
  /// The journal key file (`--journal-key`): every record then carries its HMAC.
  package var journalKeyPath: String?
  /// Connections served at once (nil: 1000, or fewer when the descriptor limit is low).
  package var maximumConnections: Int?
  /// Milliseconds a request line may stay incomplete before the client is disconnected.
  package var idleTimeoutMilliseconds: Int64 = 30_000
  /// The least severe messages logged (`--log-level`; nil: `$REGISTERD_LOG_LEVEL`, else info).
  package var logLevel: LogLevel?

  package static let usage = """
    usage: registerd [--socket PATH] [--catalog FILE] [--data-dir DIR] [--socket-mode MODE]

    Runs the register and serves it on a Unix-domain socket (newline-delimited JSON; see
    docs/PROTOCOL.md).

      --socket PATH       socket to listen on (default: $REGISTER_SOCKET, else
                          $XDG_RUNTIME_DIR/registerd.sock, else /tmp/registerd-UID.sock)
      --catalog FILE      catalog and store settings (default: Data/products.json)
      --data-dir DIR      where the journal and other data live (default:
                          $REGISTER_DATA_DIR, else .registerd)
      --socket-mode MODE  octal file mode of the socket (default: 600, owner only)
      --socket-group GROUP
                          give the socket to GROUP (use with --socket-mode 660 to let
                          the group's users connect)
      --max-subscriber-backlog BYTES
                          a live-event listener that falls this far behind is
                          disconnected (default: 1048576)
      --max-connections N clients served at once; more are answered
                          too_many_connections (default: 1000, or the open-file
                          limit minus 16 when that is lower)
      --idle-timeout SECONDS
                          disconnect a client whose request line stays incomplete
                          this long (default: 30; decimals allowed)
      --journal-key FILE  a secret kept outside the data directory (mode 600): every
                          journal record also carries its HMAC-SHA256 under it, which
                          `register-cli verify --journal-key FILE` checks
      --log-level LEVEL   log error, warning, info or debug messages and the more
                          severe ones (default: $REGISTERD_LOG_LEVEL, else info)
      -h, --help          show this help
      --version           print the version
    """

  /// Parses `arguments` (without the program name); throws a message for a usage error.
  package static func parse(_ arguments: [String], environment: [String: String])
    throws(OptionsError)
    -> Options
  {
    var options = Options(socketPath: defaultSocketPath(environment: environment))
    if let directory = environment["REGISTER_DATA_DIR"], !directory.isEmpty {
      options.dataDirectory = directory
    }
    var rest = arguments[...]
    func value(for flag: String) throws(OptionsError) -> String {
      guard let next = rest.popFirst(), !next.isEmpty else {
        throw OptionsError("\(flag) needs a value")
      }
      return next
    }
    while let argument = rest.popFirst() {
      var flag = argument
      if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
        flag = String(argument[..<equals])
        rest.insert(String(argument[argument.index(after: equals)...]), at: rest.startIndex)
      }
      switch flag {
      case "--socket": options.socketPath = try value(for: flag)
      case "--catalog": options.catalogPath = try value(for: flag)
      case "--data-dir": options.dataDirectory = try value(for: flag)
      case "--socket-mode":
        let text = try value(for: flag)
        guard let mode = UInt32(text, radix: 8), mode <= 0o777, mode & 0o600 == 0o600 else {
          throw OptionsError(
            "--socket-mode must be octal like 600 or 660 and let the owner read and write")
        }
        options.socketMode = mode
      case "--socket-group": options.socketGroup = try value(for: flag)
      case "--journal-key": options.journalKeyPath = try value(for: flag)
      case "--max-subscriber-backlog":
        let text = try value(for: flag)
        guard let bytes = Int(text), bytes >= 4096 else {
          throw OptionsError("--max-subscriber-backlog must be at least 4096 bytes")
        }
        options.subscriberBacklog = bytes
      case "--max-connections":
        let text = try value(for: flag)
        guard let count = Int(text), (1...100_000).contains(count) else {
          throw OptionsError("--max-connections must be a whole number from 1 to 100000")
        }
        options.maximumConnections = count
      case "--idle-timeout":
        let text = try value(for: flag)
        guard let milliseconds = parseSeconds(text), milliseconds >= 100 else {
          throw OptionsError("--idle-timeout must be a number of seconds, at least 0.1, like 30")
        }
        options.idleTimeoutMilliseconds = milliseconds
      case "--log-level":
        let text = try value(for: flag)
        guard let level = LogLevel(name: text) else {
          throw OptionsError("--log-level must be error, warning, info or debug")
        }
        options.logLevel = level
      case "-h", "--help": throw OptionsError(nil)
      case "--version": throw OptionsError.version
      default: throw OptionsError("unknown option \(argument)")
      }
    }
    return options
  }
}

/// "30" or "0.5" seconds as milliseconds (at most a day); nil when it is not that.
func parseSeconds(_ text: String) -> Int64? {
  let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
  guard let whole = Int64(parts[0]), whole >= 0, whole <= 86_400 else { return nil }
  var milliseconds = whole * 1000
  if parts.count == 2 {
    let fraction = parts[1]
    guard (1...3).contains(fraction.count), fraction.allSatisfy(\.isASCII),
      let digits = Int64(fraction), digits >= 0
    else { return nil }
    var scale: Int64 = 1
    for _ in fraction.count..<3 { scale *= 10 }
    milliseconds += digits * scale
  }
  return milliseconds
}

/// A command-line problem (message nil: just show the help).
package struct OptionsError: Error {
  package var message: String?
  package var isVersion = false

  init(_ message: String?) {
    self.message = message
  }

  static var version: OptionsError {
    var error = OptionsError(nil)
    error.isVersion = true
    return error
  }
}
