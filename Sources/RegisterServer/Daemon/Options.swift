import RegisterEngine

/// registerd's command line.
package struct Options {
  package var socketPath: String
  package var catalogPath = Paths.repositoryCatalog
  /// The store settings file (`--store`), kept apart from the catalog; nil: the catalog's own.
  package var storePath: String?
  package var dataDirectory = Paths.repositoryDataDirectory
  /// True when the defaults are an installation's (/etc, /var/lib, /run), not a checkout's.
  /// An installed register serves only once it is set up (`RegisterService.requiresSetup`),
  /// and its catalog and store files are optional (`configuredCatalog`).
  package var installedLayout = false
  /// Installed, the store file looked for when `--store` names none: read when it exists, at
  /// start-up and on SIGHUP (an administrator may write it after registerd started).
  package var installedStoreFile: String?
  /// `--check`: validate the catalog and store files, say what would be served, and exit.
  package var checkOnly = false
  package var socketMode: UInt32 = 0o600
  package var subscriberBacklog = 1 << 20
  /// `--max-unread-replies`: see `Server.unreadReplyLimit`.
  package var unreadReplies = 64 << 20
  package var socketGroup: String?
  /// The journal key file (`--journal-key`): every record then carries its HMAC.
  package var journalKeyPath: String?
  /// Connections served at once (nil: 1000, or fewer when the descriptor limit is low).
  package var maximumConnections: Int?
  /// Milliseconds a request line may stay incomplete before the client is disconnected.
  package var idleTimeoutMilliseconds: Int64 = 30_000
  /// The least severe messages logged (`--log-level`; nil: `$REGISTERD_LOG_LEVEL`, else info).
  package var logLevel: LogLevel?
  /// The receipt printer (`--printer`), over the store setting `printer`.
  package var printer: DeviceAddress?
  /// The customer's pole display (`--display`).
  package var display: DeviceAddress?

  package static let usage = """
    usage: registerd [--socket PATH] [--catalog FILE] [--store FILE] [--data-dir DIR]
                     [--socket-mode MODE]

    Runs the register and serves it on a Unix-domain socket (newline-delimited JSON; see
    docs/PROTOCOL.md).

    Defaults: run from a source checkout (Data/products.json here), the checkout's files;
    installed (/etc/registerd/products.json exists), /etc/registerd, /var/lib/registerd and
    /run/registerd, or the directories systemd gives ($CONFIGURATION_DIRECTORY,
    $STATE_DIRECTORY, $RUNTIME_DIRECTORY).

      --socket PATH       socket to listen on (default: $REGISTER_SOCKET, else
                          $RUNTIME_DIRECTORY/registerd.sock; installed
                          /run/registerd/registerd.sock; in a checkout
                          $XDG_RUNTIME_DIR/registerd.sock, else /tmp/registerd-UID.sock)
      --catalog FILE      the products, and the store settings unless --store gives them
                          (default: Data/products.json in a checkout, else
                          /etc/registerd/products.json); a regular file of at most
                          64 MiB, read again on SIGHUP
      --store FILE        the store settings (name, address, tax, rounding, limits) in a
                          file of their own; the catalog's store section is then ignored
                          (default when installed: /etc/registerd/store.json if present);
                          a regular file of at most 64 MiB
      --data-dir DIR      where the journal and other data live (default:
                          $REGISTER_DATA_DIR, else $STATE_DIRECTORY; installed
                          /var/lib/registerd; in a checkout .registerd)
      --socket-mode MODE  octal file mode of the socket (default: 600, owner only)
      --socket-group GROUP
                          give the socket to GROUP (use with --socket-mode 660 to let
                          the group's users connect)
      --max-subscriber-backlog BYTES
                          a live-event listener that falls this far behind is
                          disconnected (default: 1048576)
      --max-unread-replies BYTES
                          replies clients may leave unread, all together: beyond
                          it only clients that read theirs are served, and no
                          further catalog export or customer history is worked
                          out (default: 67108864)
      --max-connections N clients served at once; more are answered
                          too_many_connections (default: 1000, or the open-file
                          limit minus 32 when that is lower)
      --idle-timeout SECONDS
                          disconnect a client whose request line stays incomplete
                          this long (default: 30; decimals allowed)
      --journal-key FILE  a secret kept outside the data directory (mode 600): every
                          journal record also carries its HMAC-SHA256 under it, which
                          `register-cli verify --journal-key FILE` checks
      --printer PATH|tcp:HOST:PORT
                          the ESC/POS receipt printer (and the cash drawer on it): a
                          device such as /dev/usb/lp0, or a network printer such as
                          tcp:192.168.1.50:9100 (default: the store setting "printer");
                          a PATH must be a character device or a FIFO, a regular
                          file is refused
      --display PATH|tcp:HOST:PORT
                          a two-line, 20-column ESC/POS customer display (pole
                          display): the last item and the total, then the change;
                          a PATH must be a character device or a FIFO
      --check             check the catalog and store files, print what would be served
                          and where, and exit (0 when they are good); nothing is written
      --log-level LEVEL   log error, warning, info or debug messages and the more
                          severe ones (default: $REGISTERD_LOG_LEVEL, else info)
      -h, --help          show this help
      --version           print the version
    """

  /// Parses `arguments` (without the program name) and fills in the defaults of the layout
  /// registerd runs in (see `Paths`); throws a message for a usage error, or when no catalog
  /// was named and none is where one is looked for. `exists` answers whether a file exists.
  package static func parse(
    _ arguments: [String], environment: [String: String],
    exists: (String) -> Bool = FileIO.exists
  ) throws(OptionsError) -> Options {
    var options = Options(socketPath: "")
    var named = Named()
    try options.read(arguments, into: &named)
    try options.resolve(named, environment: environment, exists: exists)
    return options
  }

  /// The paths the command line named.
  private struct Named {
    var socket: String?
    var catalog: String?
    var store: String?
    var dataDirectory: String?
  }

  /// Fills in what the command line left out: flags, then `REGISTER_*` variables, then the
  /// service manager's directories, then the layout's own places.
  private mutating func resolve(
    _ named: Named, environment: [String: String], exists: (String) -> Bool
  ) throws(OptionsError) {
    let configuration = Paths.configuration(in: environment)
    let installedCatalog = configuration + "/" + Paths.catalogName
    if let catalog = named.catalog {
      catalogPath = catalog
    } else if environment["CONFIGURATION_DIRECTORY"]?.isEmpty == false {
      catalogPath = installedCatalog
      installedLayout = true
    } else if exists(Paths.repositoryCatalog) {
      catalogPath = Paths.repositoryCatalog
    } else if exists(installedCatalog) || exists(configuration) {
      // Installed (`make install` makes the configuration directory): a catalog of the
      // store's own there, or none yet (set up with `register-cli setup`).
      catalogPath = installedCatalog
      installedLayout = true
    } else {
      throw OptionsError.notConfigured(
        """
        no catalog to serve: looked for \(Paths.repositoryCatalog) in the current directory \
        (\(FileIO.currentDirectory() ?? "?")) and for the configuration directory \
        \(configuration); neither exists. Run registerd from its source checkout, give a \
        catalog with --catalog FILE (and the store settings with --store FILE if they are kept \
        apart), or install registerd (`make install`) and set it up (`register-cli setup`).
        """)
    }
    if let store = named.store {
      storePath = store
    } else if installedLayout {
      installedStoreFile = configuration + "/" + Paths.storeName
    }
    if let directory = named.dataDirectory {
      dataDirectory = directory
    } else if let directory = environment["REGISTER_DATA_DIR"], !directory.isEmpty {
      dataDirectory = directory
    } else if let directory = Paths.serviceDirectory("STATE_DIRECTORY", in: environment) {
      dataDirectory = Paths.resolved(directory)
    } else {
      dataDirectory = installedLayout ? Paths.stateDirectory : Paths.repositoryDataDirectory
    }
    if let socket = named.socket {
      socketPath = socket
    } else if let socket = environment["REGISTER_SOCKET"], !socket.isEmpty {
      socketPath = socket
    } else if let runtime = Paths.serviceDirectory("RUNTIME_DIRECTORY", in: environment) {
      socketPath = runtime + "/" + Paths.socketName
    } else if installedLayout {
      socketPath = Paths.runtimeDirectory + "/" + Paths.socketName
    } else {
      socketPath = defaultSocketPath(environment: environment)
    }
  }

  private mutating func read(_ arguments: [String], into named: inout Named) throws(OptionsError) {
    var options = self
    defer { self = options }
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
      case "--socket": named.socket = try value(for: flag)
      case "--catalog": named.catalog = try value(for: flag)
      case "--store": named.store = try value(for: flag)
      case "--data-dir": named.dataDirectory = try value(for: flag)
      case "--socket-mode":
        let text = try value(for: flag)
        guard let mode = UInt32(text, radix: 8), mode <= 0o777, mode & 0o600 == 0o600 else {
          throw OptionsError(
            "--socket-mode must be octal like 600 or 660 and let the owner read and write")
        }
        options.socketMode = mode
      case "--socket-group": options.socketGroup = try value(for: flag)
      case "--journal-key": options.journalKeyPath = try value(for: flag)
      case "--display":
        let text = try value(for: flag)
        guard let address = DeviceAddress(text) else {
          throw OptionsError("--display must be \(DeviceAddress.expected), got \"\(text)\"")
        }
        options.display = address
      case "--printer":
        let text = try value(for: flag)
        guard let address = DeviceAddress(text) else {
          throw OptionsError("--printer must be \(DeviceAddress.expected), got \"\(text)\"")
        }
        options.printer = address
      case "--max-subscriber-backlog":
        let text = try value(for: flag)
        guard let bytes = Int(text), bytes >= 4096 else {
          throw OptionsError("--max-subscriber-backlog must be at least 4096 bytes")
        }
        options.subscriberBacklog = bytes
      case "--max-unread-replies":
        let text = try value(for: flag)
        guard let bytes = Int(text), bytes >= 1 << 20 else {
          throw OptionsError("--max-unread-replies must be at least 1048576 bytes")
        }
        options.unreadReplies = bytes
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
      case "--check": options.checkOnly = true
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
  /// True when the usage should follow the message (a mistake on the command line).
  package var showsUsage = true
  /// The exit status: 2 for a usage error, 78 (EX_CONFIG) when there is nothing to serve.
  package var exitStatus: Int32 = 2

  init(_ message: String?) {
    self.message = message
  }

  static func notConfigured(_ message: String) -> OptionsError {
    var error = OptionsError(message)
    error.showsUsage = false
    error.exitStatus = 78
    return error
  }

  static var version: OptionsError {
    var error = OptionsError(nil)
    error.isVersion = true
    return error
  }
}

extension Options {
  /// The store file read now: `--store`, else (installed) the configuration directory's when
  /// it exists.
  package var currentStorePath: String? {
    storePath ?? installedStoreFile.flatMap { FileIO.exists($0) ? $0 : nil }
  }

  /// The catalog and store files as registerd imports them. Nil for an installed register
  /// with neither file: nothing to import — its store settings are the ones `setup` gave (or
  /// none yet), its products those added through the protocol. Installed with only a store
  /// file, the catalog is empty.
  package func configuredCatalog() throws(CatalogError) -> Catalog? {
    let store = currentStorePath
    guard installedLayout, !FileIO.exists(catalogPath) else {
      return try CatalogFile.load(catalogPath, storePath: store)
    }
    guard let store else { return nil }
    return Catalog(store: try CatalogFile.loadStore(store), products: [])
  }

  /// Where the imported settings come from, for the log.
  package var configurationSource: String {
    if installedLayout && !FileIO.exists(catalogPath) {
      return currentStorePath ?? "no file (the settings given by register-cli setup)"
    }
    return catalogPath
  }
}
