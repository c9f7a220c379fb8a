/// One command's entry in the help: the names it answers to, its synopsis and what it does.
/// The full help, `help COMMAND` and the usage printed with a usage error all come from
/// `CommandHelp.sections`, so they cannot disagree.
struct CommandHelp {
  /// The command word and its aliases (`remove`, `rm`).
  var names: [String]
  var synopsis: String
  var about: String

  init(_ names: [String], _ synopsis: String, _ about: String = "") {
    self.names = names
    self.synopsis = synopsis
    self.about = about
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
    (
      "Ringing up",
      [
        CommandHelp(
          ["catalog", "products"], "catalog [--category C] [--limit N] [--after SKU]",
          "list products, prices and stock (1000 at a time\nunless --limit says; --after the last one shown\nfor the next)"
        ),
        CommandHelp(["show", "order"], "show", "the open order"),
        CommandHelp(
          ["add"], "add SKU [QTY] [--option GROUP=CHOICE ...] [--amount A]",
          "ring up a product (each add is a new line)"),
        CommandHelp(
          ["scan"], "scan [CODE]",
          "ring up the product a barcode (EAN-13, UPC-A,\nEAN-8) or SKU names; without CODE, scan mode:\nevery line read from standard input is a code"
        ),
        CommandHelp(["remove", "rm"], "remove LINE", "take a line off the order"),
        CommandHelp(["qty", "set-qty"], "qty LINE QTY", "change a line's quantity"),
        CommandHelp(
          ["tender", "pay"], "tender cash AMOUNT", "take cash (change is given when over)"),
        CommandHelp(
          ["tender", "pay"], "tender card [--exp MM/YY] [--amount AMOUNT]",
          "take a card (amount defaults to the balance); the\nnumber and CVV (and the expiry without --exp) are\nasked for without echo, or read from standard\ninput, one per line, when it is not a terminal;\nthe old form `tender card NUMBER --cvv CVV` works\nbut shows them to `ps` and shell history"
        ),
        CommandHelp(
          ["tender", "pay"], "tender gift-card NUMBER [--amount AMOUNT]",
          "pay with a gift card (amount defaults to the lesser\nof its balance and the balance due)"
        ),
        CommandHelp(
          ["tender", "pay"], "tender store-credit CUSTOMER [--amount AMOUNT]",
          "pay with a customer's store credit"),
        CommandHelp(
          ["tender", "pay"], "tender other NAME AMOUNT [--reference R]",
          "take one of the store's own tenders (check,\nvoucher, ...: store setting \"tenders\"); no change"
        ),
        CommandHelp(
          ["tender", "pay"], "tender card-present AMOUNT --brand B --last4 NNNN --auth CODE",
          "record a card payment an external terminal\napproved (no card number reaches registerd)"),
        CommandHelp(
          ["gift-card", "giftcard"], "gift-card balance NUMBER",
          "a gift card's balance, when it was issued and\nlast used"),
        CommandHelp(
          ["gift-card", "giftcard"], "gift-card reload NUMBER AMOUNT",
          "load AMOUNT onto a gift card, as a line of the\norder (the card has it once the sale completes)"
        ),
        CommandHelp(
          ["discount"], "discount [LINE] (--percent P | --amount A) --reason TEXT",
          "discount a line, or the whole order without LINE\n(0 removes the discount)"),
        CommandHelp(
          ["override", "override-price"], "override LINE PRICE --reason TEXT",
          "replace a line's unit price"),
        CommandHelp(
          ["void"], "void [--reason TEXT] [--yes]",
          "cancel the open order and hand back its tenders\n(asked to confirm at a terminal, unless --yes)"
        ),
        CommandHelp(
          ["void-line", "void_line"], "void-line LINE",
          "void a line: it stays on the order, marked VOID"),
        CommandHelp(["park"], "park [--note TEXT]", "set the open order aside and open a new one"),
        CommandHelp(["parked"], "parked", "list parked orders"),
        CommandHelp(
          ["resume"], "resume ORDER", "bring a parked order back as the open order"),
        CommandHelp(
          ["return", "refund"], "return RECEIPT ITEM[:QTY]... --reason TEXT",
          "refund items of an earlier receipt (RECEIPT as\nprinted or scanned: 42 or R42); ITEM is a SKU or\nbarcode on it (scan the item), or a line number\n(1-4 digits); refunded to the cards, gift cards\nand other tenders that paid, the rest in cash"
        ),
        CommandHelp(
          ["return", "refund"],
          "return RECEIPT ITEM[:QTY]... --reason TEXT --to-cash",
          "all in cash (a sale paid otherwise too: only where\nthe store allows it, cash_refunds)"),
        CommandHelp(
          ["return", "refund"],
          "return RECEIPT ITEM[:QTY]... --reason TEXT --to-store-credit [--customer ID]",
          "refund to the store credit of the sale's customer\n(or the one named)"),
        CommandHelp(
          ["watch"], "watch [--topics order,sale,day] [--count N]",
          "the customer display: last item, big total,\nchange and thank-you (plain lines when piped,\nevents with --json); reconnects when registerd\nrestarts"
        ),
        CommandHelp(
          ["receipt", "reprint"], "receipt [NUMBER] [--email ADDRESS]",
          "reprint a receipt (default: the last one)"),
        CommandHelp(
          ["print"], "print [NUMBER]",
          "print a receipt again on the receipt printer\n(default: the last one)"),
        CommandHelp(
          ["receipt", "reprint"], "receipt [NUMBER] --escpos > FILE",
          "the receipt as ESC/POS bytes for a receipt printer\n(cat FILE > /dev/usb/lp0)"),
        CommandHelp(["hello", "status"], "hello", "check the daemon is there"),
      ]
    ),
    (
      "The business day",
      [
        CommandHelp(["report"], "report [x]", "X report: the day's totals so far"),
        CommandHelp(["report"], "report z [--day N]", "reprint the Z report of a closed day"),
        CommandHelp(
          ["report"], "report [x|z] [--day N] --escpos > FILE",
          "the report as ESC/POS bytes for a receipt printer"),
        CommandHelp(
          ["close-day", "close_day"], "close-day [--counted-cash AMOUNT] [--yes]",
          "Z report: print the totals and close the day\n(asked to confirm at a terminal, unless --yes)"
        ),
      ]
    ),
    (
      "People (once an operator exists, changes need someone signed in)",
      [
        CommandHelp(
          ["setup"], "setup [--store-name NAME] [--tax-rate PERCENT] [--currency CODE]",
          "first run of an installed register, which serves\nnothing until it is set up: the store's name, tax\nrate and currency (default USD), and its first\nmanager; what is not given is asked for, or read\nfrom standard input one per line"
        ),
        CommandHelp(
          ["setup"], "setup [--manager ID] [--manager-name NAME]",
          "the first manager; the PIN is asked for without\necho (twice), or read from standard input"
        ),
        CommandHelp(
          ["operator"], "operator add ID --name NAME --role cashier|manager",
          "the new operator's PIN is asked for without echo\n(twice), or read from standard input"),
        CommandHelp(["operator"], "operator list | remove ID | set-pin ID | unlock ID"),
        CommandHelp(
          ["operator"], "operator unlock ID --data-dir DIR",
          "with registerd stopped: the owner's way to unlock\n(e.g. the last manager), journaled offline"
        ),
        CommandHelp(
          ["sign-in", "signin", "login"], "sign-in ID",
          "sign in at the register; the PIN is asked for\nwithout echo, or read from standard input (the\nold `--pin PIN` works but shows it to `ps`)"
        ),
        CommandHelp(["sign-out", "signout", "logout"], "sign-out"),
        CommandHelp(
          ["--approve"], "--approve MANAGER",
          "(on any command) a manager's approval; the manager\ntypes their PIN when asked (a wrong one counts\ntoward their lockout)"
        ),
        CommandHelp(
          ["customer"], "customer add NAME [--email E] [--phone P] [--tax-exempt CERTIFICATE]"),
        CommandHelp(
          ["customer"], "customer find QUERY [--limit N] | attach ID | detach | history ID"),
        CommandHelp(
          ["wishlist"], "wishlist CUSTOMER_ID",
          "a customer's wishlist, with what is in stock here\nand at other stores"),
        CommandHelp(
          ["wishlist"], "wishlist add|remove CUSTOMER_ID SKU",
          "put a product on the wishlist (in stock or not),\nor take it off"),
        CommandHelp(
          ["wishlist"], "wishlist to-order CUSTOMER_ID SKU",
          "one unit onto the open order, off the wishlist\n(it stays on the list when out of stock)"
        ),
      ]
    ),
    (
      "Catalog and drawer",
      [
        CommandHelp(
          ["product"],
          "product add SKU --name N --category C --price P [--sale-price S] [--stock N]\n"
            + "              [--tax-class T] [--description D] [--fields '{...}']",
          "--fields: product fields as a JSON object, as in\nthe catalog file; flags override its members"
        ),
        CommandHelp(
          ["product"], "product update SKU [--price P] [--sale-price S|none] [--stock N] ...",
          "also --name, --description, --category,\n--tax-class, --image, --colors A,B, --barcode\nCODE[,CODE] (none clears) and --fields '{...}'"
        ),
        CommandHelp(["product"], "product remove SKU"),
        CommandHelp(
          ["product"], "product SKU|BARCODE",
          "one product: price, stock and what is available\nhere, and stock at the chain's other stores"
        ),
        CommandHelp(
          ["catalog", "products"], "catalog export [--data-dir DIR] [--to FILE]",
          "the live catalog (current stock included) as a\ncatalog file, from registerd or, with --data-dir,\nfrom the journal offline; registerd never writes\nthe file it imported"
        ),
        CommandHelp(["stock"], "stock adjust SKU DELTA --reason TEXT"),
        CommandHelp(["float"], "float AMOUNT", "the opening float"),
        CommandHelp(
          ["paid-in", "paid-out"], "paid-in AMOUNT --reason TEXT | paid-out AMOUNT --reason TEXT"),
        CommandHelp(
          ["no-sale"], "no-sale [--reason TEXT]", "open the drawer without a sale (needs a manager)"
        ),
        CommandHelp(
          ["email"], "email RECEIPT [--to ADDRESS]",
          "e-mail a receipt (to the customer's address by\ndefault): registerd queues it in its outbox;\nalso: receipt N --email ADDRESS"
        ),
      ]
    ),
    (
      "The journal, offline (no daemon needed)",
      [
        CommandHelp(
          ["verify"],
          "verify [--data-dir DIR] [--anchor SEQ:SUM ...] [--archive ADIR ...] [--journal-key FILE]\n"
            + "              [--events]",
          "check every record's checksum and the hash chain,\nthat each anchor (a Z report's journal head)\nis still there, and with the journal key every\nrecord's HMAC; exit 0 only when all holds;\nwith --archive, archived segments first (the\nwhole chain from record 1); with --events, also\nread every record and its event as registerd does"
        ),
        CommandHelp(
          ["replay"], "replay [--data-dir DIR] [--day N] [--receipt N] [--from-journal]",
          "print a day's receipts (sales and returns) exactly\nas printed at the time, then its Z report (X report\nif still open); a closed day from its receipt\narchive, or with --from-journal worked out again\nfrom the journal's records"
        ),
        CommandHelp(
          ["export"],
          "export [--data-dir DIR] [--after SEQ] [--follow] [--format ndjson|csv|sql]\n"
            + "              [--lane ID] [--to CSVDIR | --table NAME]",
          "the journal's sales, lines, tenders, returns,\nvoids, drawer moves and Z reports for a back\noffice, keyed by lane and seq; sql: statements\nfor psql that commit the lane's cursor with them\n(see docs/BACKOFFICE.md); --follow keeps going"
        ),
        CommandHelp(
          ["backup"], "backup --to BDIR [--data-dir DIR] [--copy]",
          "a consistent copy of the data directory while\nregisterd runs (sealed segments hard-linked unless\n--copy or on another disk); BDIR must be new or\nempty; registerd --data-dir BDIR starts from it"
        ),
        CommandHelp(
          ["archive"], "archive --before-day N --to ADIR [--data-dir DIR]",
          "move sealed segments of days before N (and\nsnapshots that need them) to ADIR, recording what\nit moved in journal/archived.json; refuses to move\nwhat start-up needs"
        ),
      ]
    ),
    (
      "Scripting",
      [
        CommandHelp(
          ["batch", "-"], "batch [--keep-going]",
          "read commands from standard input, one per line\n(`-` for short); stops at the first line that is\nrefused unless --keep-going; a `tender card` line\ntakes its number and CVV from the lines after it\n(typed at a terminal: asked for without echo)"
        ),
        CommandHelp(["--json"], "--json", "print each reply's JSON instead of text"),
        CommandHelp(["help"], "help [COMMAND]", "this help, or one command's"),
        CommandHelp(
          ["help"], "help --man",
          "the manual page register-cli(1) as roff, made\nfrom this same table (`man -l` reads it)"),
        CommandHelp(
          ["completion"], "completion bash|zsh",
          "a completion script for the shell, made from\nthis same table: eval \"$(register-cli completion\nbash)\" or install it where the shell looks"
        ),
        CommandHelp(
          ["schema"], "schema",
          "the protocol as a JSON Schema (2020-12): every\nrequest, reply, event and error code; the same\nas docs/protocol.schema.json"
        ),
        CommandHelp(["--version", "version"], "--version", "print register-cli's version"),
      ]
    ),
  ]

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
