import RegisterEngine

extension CommandHelp {
  /// The commands of help's section "The journal, offline (no daemon needed)": each declared once — its words, its usage
  /// and help, and (on its first entry) how its arguments are read.
  static let journal: [CommandHelp] = [
    CommandHelp(
      ["verify"],
      "verify [--data-dir DIR] [--anchor SEQ:SUM ...] [--archive ADIR ...] [--journal-key FILE]\n"
        + "              [--events]",
      "check every record's checksum and the hash chain,\nthat each anchor (a Z report's journal head)\nis still there, and with the journal key every\nrecord's HMAC; exit 0 only when all holds;\nwith --archive, archived segments first (the\nwhole chain from record 1); with --events, also\nread every record and its event as registerd does",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let directory = try arguments.option("--data-dir")
        var anchors: [JournalHead] = []
        while let text = try arguments.option("--anchor") {
          guard let anchor = JournalHead(anchor: text) else {
            throw UsageError(
              "--anchor takes SEQ:SUM, a record's sequence number and its 64-hex-digit sum as the Z report prints them, got \"\(text)\""
            )
          }
          anchors.append(anchor)
        }
        var archives: [String] = []
        while let archive = try arguments.option("--archive") { archives.append(archive) }
        let key = try arguments.option("--journal-key")
        invocation = .local(
          .verify(
            dataDirectory: directory, anchors: anchors, archives: archives, journalKey: key,
            events: arguments.flag("--events")))
        return invocation
      }),
    CommandHelp(
      ["replay"], "replay [--data-dir DIR] [--day N] [--receipt N] [--from-journal]",
      "print a day's receipts (sales and returns) exactly\nas printed at the time, then its Z report (X report\nif still open); a closed day from its receipt\narchive, or with --from-journal worked out again\nfrom the journal's records",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let directory = try arguments.option("--data-dir")
        let day = try arguments.option("--day").map { text throws(UsageError) in
          guard let value = Int(text), value > 0 else {
            throw UsageError("--day must be a day number")
          }
          return value
        }
        let receipt = try arguments.option("--receipt").map { text throws(UsageError) in
          guard let value = Int(text), value > 0 else {
            throw UsageError("--receipt must be a receipt number")
          }
          return value
        }
        invocation = .local(
          .replay(
            dataDirectory: directory, day: day, receipt: receipt,
            fromJournal: arguments.flag("--from-journal")))
        return invocation
      }),
    CommandHelp(
      ["export"],
      "export [--data-dir DIR] [--after SEQ] [--follow] [--format ndjson|csv|sql]\n"
        + "              [--lane ID] [--to CSVDIR | --table NAME]",
      "the journal's sales, lines, tenders, returns,\nvoids, drawer moves and Z reports for a back\noffice, keyed by lane and seq; sql: statements\nfor psql that commit the lane's cursor with them\n(see docs/BACKOFFICE.md); --follow keeps going",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = .local(.export(try CommandParser.exportOptions(&arguments)))
        return invocation
      }),
    CommandHelp(
      ["backup"], "backup --to BDIR [--data-dir DIR] [--copy]",
      "a consistent copy of the data directory while\nregisterd runs (sealed segments hard-linked unless\n--copy or on another disk); BDIR must be new or\nempty; registerd --data-dir BDIR starts from it",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let directory = try arguments.option("--data-dir")
        let copy = arguments.flag("--copy")
        guard let target = try arguments.option("--to"), !target.isEmpty else {
          throw UsageError("backup needs --to DIR, a new (or empty) directory")
        }
        invocation = .local(.backup(dataDirectory: directory, to: target, copy: copy))
        return invocation
      }),
    CommandHelp(
      ["archive"], "archive --before-day N --to ADIR [--data-dir DIR]",
      "move sealed segments of days before N (and\nsnapshots that need them) to ADIR, recording what\nit moved in journal/archived.json; refuses to move\nwhat start-up needs",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let directory = try arguments.option("--data-dir")
        guard let dayText = try arguments.option("--before-day") else {
          throw UsageError("archive needs --before-day N: segments of days before N are moved")
        }
        guard let day = Int(dayText), day > 0 else {
          throw UsageError("--before-day must be a day number, got \"\(dayText)\"")
        }
        guard let target = try arguments.option("--to"), !target.isEmpty else {
          throw UsageError("archive needs --to DIR, where the old segments go")
        }
        invocation = .local(.archive(dataDirectory: directory, beforeDay: day, to: target))
        return invocation
      }),
  ]
}
