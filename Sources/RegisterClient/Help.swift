/// One entry of a register-cli command: the names it answers to, its synopsis, what it does,
/// and on the command's first entry how its arguments are read. Each command is declared once,
/// in the `Commands+*.swift` file of its help section; the parser, the full help, `help
/// COMMAND`, the usage printed with a usage error, the man page and the shell completions all
/// come from `CommandHelp.sections`, so they cannot disagree.
struct CommandHelp: Sendable {
  /// The command word and its aliases (`remove`, `rm`).
  var names: [String]
  var synopsis: String
  var about: String

  /// Reads the command's arguments (after its word, given as `name`) into what to do: on the
  /// command's first entry only (a command with several usages lists them as entries of its
  /// own); nil on the others and on entries that are no command (`--json`).
  var parse: Parser?

  typealias Parser =
    @Sendable (_ name: String, _ arguments: inout ArgumentList) throws(UsageError) -> Invocation

  init(_ names: [String], _ synopsis: String, _ about: String = "", parse: Parser? = nil) {
    self.names = names
    self.synopsis = synopsis
    self.about = about
    self.parse = parse
  }

  /// Synopses up to this width share their line with the description.
  private static let synopsisColumn = 33

  /// The entry as help lines: synopsis, then the description in its column.
  var text: String {
    let indent = String(repeating: " ", count: Self.synopsisColumn + 2)
    let about = about.split(separator: "\n", omittingEmptySubsequences: false)
    guard let first = about.first, !first.isEmpty else { return "  \(synopsis)\n" }
    var out = ""
    if synopsis.count < Self.synopsisColumn {
      out +=
        "  " + synopsis + String(repeating: " ", count: Self.synopsisColumn - synopsis.count)
        + first + "\n"
    } else {
      out += "  \(synopsis)\n\(indent)\(first)\n"
    }
    for line in about.dropFirst() { out += line.isEmpty ? "\n" : indent + line + "\n" }
    return out
  }

  static let sections: [(title: String, commands: [CommandHelp])] = [
    ("Ringing up", ringingUp),
    ("The business day", businessDay),
    ("People (once an operator exists, changes need someone signed in)", people),
    ("Catalog and drawer", catalogAndDrawer),
    ("The journal, offline (no daemon needed)", journal),
    ("Scripting", scripting),
  ]

  /// The parser of the command named `name` (`-h` and `--help` are `help`).
  static func parser(for name: String) -> Parser? {
    let word = name == "-h" || name == "--help" ? "help" : name
    return sections.flatMap(\.commands).first { $0.names.contains(word) && $0.parse != nil }?
      .parse
  }

  /// Every command word the parser knows, with its entries.
  static func entries(for name: String) -> [CommandHelp] {
    sections.flatMap(\.commands).filter { $0.names.contains(name) }
  }

  /// The usage lines of one command, for a usage error or `help COMMAND`.
  static func usage(of name: String) -> String? {
    let found = entries(for: name)
    guard !found.isEmpty else { return nil }
    var out = "usage:\n"
    for entry in found {
      out += "  register-cli \(entry.synopsis)\n"
      for line in entry.about.split(separator: "\n") { out += "      \(line)\n" }
    }
    return out
  }

  /// The command word closest to `name` when it is a likely typo (small edit distance).
  static func suggestion(for name: String) -> String? {
    let names = Set(sections.flatMap(\.commands).flatMap(\.names).filter { !$0.hasPrefix("-") })
    let scored = names.map { ($0, editDistance(name.lowercased(), $0)) }
    guard
      let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }),
      best.1 <= (best.0.count <= 4 ? 1 : 2)
    else { return nil }
    return best.0
  }

  /// Edit distance counting insertions, deletions, substitutions and swaps of two neighbours
  /// (optimal string alignment): `shwo` is one edit from `show`.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          best = min(best, table[i - 2][j - 2] + 1)
        }
        table[i][j] = best
      }
    }
    return table[a.count][b.count]
  }

  /// The full help text.
  static var full: String {
    var out = """
      usage: register-cli [--socket PATH] [--json] COMMAND [ARGS]

      Talks to registerd over its Unix socket (default: $REGISTER_SOCKET, else the first that
      exists of $XDG_RUNTIME_DIR/registerd.sock, /tmp/registerd-UID.sock and an installed
      daemon's /run/registerd/registerd.sock). The global options
      --socket PATH and --json may go anywhere on the command line.

      """
    for section in sections {
      out += "\n\(section.title):\n"
      out += section.commands.map(\.text).joined()
      if let note = note(of: section.title) { out += "  (\(note))\n" }
    }
    out += """

      Every change is sent with a fresh idempotency key; if the connection breaks before the
      reply, register-cli reconnects and retries with the same key, so it happens once.

      Exit status:

      """
    for status in ExitStatus.allCases { out += "  \(status.rawValue)  \(status.meaning)\n" }
    return out
  }

  /// A line said under a section, after its commands.
  static func note(of section: String) -> String? {
    section.hasPrefix("The journal")
      ? "DIR defaults to $REGISTER_DATA_DIR, else .registerd here, else an installed daemon's /var/lib/registerd when it exists"
      : nil
  }

  /// The options that go anywhere on the command line (see `GlobalOptions`), and what they do.
  static let globalOptions: [(flag: String, value: String?, about: String)] = [
    (
      "--socket", "PATH",
      "the socket registerd listens on (default: $REGISTER_SOCKET, else the first that exists of $XDG_RUNTIME_DIR/registerd.sock, /tmp/registerd-UID.sock and an installed daemon's /run/registerd/registerd.sock)"
    ),
    ("--json", nil, "print each reply's JSON, one line per reply, instead of text"),
    ("--help", nil, "with a command: that command's usage; alone: the whole help"),
    ("--version", nil, "print register-cli's version"),
  ]

  /// The environment variables register-cli reads, and what for.
  static let environment: [(name: String, about: String)] = [
    ("REGISTER_SOCKET", "the socket registerd listens on, when --socket is not given"),
    (
      "XDG_RUNTIME_DIR",
      "without REGISTER_SOCKET, the socket is registerd.sock in this directory when it exists"
    ),
    (
      "REGISTER_DATA_DIR",
      "the data directory of the offline commands, when --data-dir is not given"
    ),
    ("TZ", "the time zone that times are shown in (receipts keep the store's own time)"),
  ]
}
