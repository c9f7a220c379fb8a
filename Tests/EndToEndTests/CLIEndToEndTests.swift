import Foundation
import RegisterEngine
import RegisterServer
import Testing

/// The journal's text: every segment under `dataDirectory`, in order.
func journalText(_ dataDirectory: String) throws -> String {
  String(decoding: try JournalFiles.readAll(in: dataDirectory), as: UTF8.self)
}

/// The open (last) journal segment under `dataDirectory`.
func openSegmentPath(_ dataDirectory: String) throws -> String {
  try #require(JournalFiles.openSegmentPath(in: dataDirectory))
}

/// The journal's records as parsed JSON, in order.
func journalRecords(_ daemon: Daemon) throws -> [JSONValue] {
  try journalText(daemon.dataDirectory).split(separator: "\n").map {
    try JSONParser.parse(String($0))
  }
}

@Suite("Offline replay and verify: every receipt, and the Z report's journal head", .serialized)
struct ReplayAndAnchorTests {
  @Test("replay prints sale and return receipts, byte for byte as printed live, in number order")
  func replayIncludesReturns() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    var texts: [String] = []
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB","qty":2}"#).isOK)
    let first = try client.send(#"{"op":"tender","type":"cash","amount":"100"}"#)
    texts.append(try #require(first.result["receipt"]?["text"]?.stringValue))
    #expect(try client.send(#"{"op":"add","sku":"OXF-BLU-15"}"#).isOK)
    let second = try client.send(#"{"op":"tender","type":"card","card":\#(visa)}"#)
    texts.append(try #require(second.result["receipt"]?["text"]?.stringValue))
    // Receipt 3 is a return of receipt 1, printed at the register like any receipt.
    let refund = try daemon.cli(["return", "1", "1:1", "--reason", "wrong size"])
    #expect(refund.status == 0, "\(refund.stderr)")
    #expect(refund.stdout.contains("RETURN"))
    texts.append(refund.stdout)
    #expect(try client.send(#"{"op":"add","sku":"SOCK-3PK"}"#).isOK)
    let fourth = try client.send(#"{"op":"tender","type":"cash","amount":"50"}"#)
    texts.append(try #require(fourth.result["receipt"]?["text"]?.stringValue))
    let returnReply = try client.send(
      #"{"op":"return","receipt":2,"lines":[{"line":1,"qty":1}],"reason":"torn"}"#)
    texts.append(try #require(returnReply.result["text"]?.stringValue))

    // Before the close: the open day's receipts, then an X report.
    let open = try runCLI(["replay", "--data-dir", daemon.dataDirectory])
    #expect(open.status == 0, "\(open.stderr)")
    #expect(open.stdout.hasPrefix(texts.map { $0 + "\n" }.joined()))
    #expect(open.stdout.contains("X REPORT - DAY 1"))

    let closed = try client.send(#"{"op":"close_day"}"#)
    let zText = try #require(closed.result["text"]?.stringValue)
    daemon.stop()

    let plain = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1"])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stdout == texts.map { $0 + "\n" }.joined() + zText)

    let json = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1", "--json"])
    let value = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
    let receipts = value["receipts"]?.arrayValue ?? []
    #expect(receipts.compactMap { $0["number"]?.int64Value } == [1, 2, 3, 4, 5])
    #expect(receipts.compactMap { $0["text"]?.stringValue } == texts)
    #expect(receipts[2]["receipt"]?["kind"] == "return")

    // A return is found by number, like a sale; the live reprint of it says REPRINT, the
    // replay prints it as it was.
    let one = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "3"])
    #expect(one.status == 0, "\(one.stderr)")
    #expect(one.stdout == texts[2])
    let oneJSON = try runCLI([
      "replay", "--data-dir", daemon.dataDirectory, "--receipt", "5", "--json",
    ])
    let reply = try JSONParser.parse(oneJSON.stdout.trimmingCharacters(in: .newlines))
    #expect(reply["text"]?.stringValue == texts[4])
    #expect(reply["receipt"]?["original_receipt"] == .int(2))
    let missing = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "6"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("no receipt 6"))
  }

  @Test("the Z report prints the journal head; verify --anchor checks it; a cut journal fails")
  func journalHeadAnchors() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // Several requests in one write, so they are staged in one group with the close: the head
    // must be the sum the record gets on disk, not one computed before it was chained.
    let client = try daemon.connect()
    let lines = [
      #"{"id":1,"op":"add","sku":"CAP-BSB"}"#,
      #"{"id":2,"op":"tender","type":"cash","amount":"50"}"#,
      #"{"id":3,"op":"add","sku":"TOTE-CNV"}"#, #"{"id":4,"op":"void","reason":"left"}"#,
      #"{"id":5,"op":"close_day","key":"k-close-1"}"#,
    ]
    try client.sendRaw(Array(lines.map { $0 + "\n" }.joined().utf8))
    var replies: [JSONValue] = []
    for _ in lines { replies.append(try client.read()) }
    #expect(replies.allSatisfy { $0.isOK }, "\(replies)")
    let report = try #require(replies.last?.result["report"])
    let head = try #require(report["journal_head"])
    let sequence = try #require(head["seq"]?.int64Value)
    let sum = try #require(head["sum"]?.stringValue)
    #expect(report["journal_seq"]?.int64Value == sequence + 1, "the record before the close")

    var records = try journalRecords(daemon)
    let anchored = try #require(records.first { $0["seq"]?.int64Value == sequence })
    #expect(anchored["sum"]?.stringValue == sum)
    let close = try #require(records.last)
    #expect(close["type"] == "day_closed")
    #expect(close["prev"]?.stringValue == sum)

    let text = try #require(replies.last?.result["text"]?.stringValue)
    #expect(text.contains("Anchor (register-cli verify --anchor):\n"))
    let anchor = "\(sequence):\(sum)"
    let anchorLines = stride(from: 0, to: anchor.count, by: 32).map {
      "  " + anchor.dropFirst($0).prefix(32) + "\n"
    }
    #expect(text.contains(anchorLines.joined()), "\(text)")

    // Day 2: one sale, then its close; its head is the sale's last record.
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    let day2Segment = try openSegmentPath(daemon.dataDirectory)
    let lengthBeforeSale = try JournalFiles.readSegment(day2Segment).count
    #expect(try daemon.cli(["tender", "cash", "20"]).status == 0)
    let second = try daemon.cli(["--json", "close-day"])
    #expect(second.status == 0, "\(second.stderr)")
    let secondReport = try JSONParser.parse(second.stdout.trimmingCharacters(in: .newlines))
    let secondHead = try #require(secondReport.result["report"]?["journal_head"])
    let anchor1 = "\(sequence):\(sum)"
    let anchor2 =
      "\(secondHead["seq"]?.int64Value ?? 0):\(secondHead["sum"]?.stringValue ?? "")"
    daemon.stop()

    // Replay reprints both Z reports byte for byte, head included.
    let replay = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1"])
    #expect(replay.stdout.hasSuffix(text))

    let good = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", anchor1, "--anchor", anchor2,
    ])
    #expect(good.status == 0, "\(good.stderr)")
    #expect(good.stdout.contains("anchor \(sequence): record present"))
    let upper = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", anchor1.uppercased(),
    ])
    #expect(upper.status == 0, "hex digits in either case: \(upper.stderr)")

    // A wrong sum fails, naming the record.
    let flipped = String(anchor1.dropLast()) + (anchor1.hasSuffix("0") ? "1" : "0")
    let wrong = try runCLI(["verify", "--data-dir", daemon.dataDirectory, "--anchor", flipped])
    #expect(wrong.status == 1)
    #expect(wrong.stderr.contains("record \(sequence) has sum \(sum)"), "\(wrong.stderr)")
    let wrongJSON = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", flipped, "--json",
    ])
    #expect(wrongJSON.status == 1)
    let verdict = try JSONParser.parse(
      String(wrongJSON.stdout.split(separator: "\n").first ?? ""))
    #expect(verdict["intact"] == .bool(false))
    #expect(verdict["anchors"]?.arrayValue?.first?["problem"] != nil)

    // Cut the journal at a request boundary: the day-2 sale and close are gone. The chain that
    // is left is intact; the snapshot written after the close still tells (start-up would not
    // start on it, and verify says so), but with it gone too only the paper anchor can tell.
    // (Day 2's segment is cut, and the empty day-3 segment the close started goes too.)
    let path = day2Segment
    let bytes = try JournalFiles.readSegment(path)
    try Data(bytes.prefix(lengthBeforeSale)).write(to: URL(fileURLWithPath: path))
    let day3Segment = try openSegmentPath(daemon.dataDirectory)
    #expect(day3Segment != day2Segment)
    try FileManager.default.removeItem(atPath: day3Segment)
    records = try journalRecords(daemon)
    #expect(records.last?["more"] == nil, "cut after a request's last record")
    let told = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(told.status == 1)
    #expect(told.stderr.contains("registerd does not start on it"), "\(told.stderr)")
    let cutAt = try #require(records.last?["seq"]?.int64Value)
    for snapshot in SnapshotFiles.list(in: daemon.dataDirectory) where snapshot.sequence > cutAt {
      try FileManager.default.removeItem(atPath: snapshot.path)
    }
    let plain = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(plain.status == 0, "\(plain.stderr)")
    let cut = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", anchor1, "--anchor", anchor2,
    ])
    #expect(cut.status == 1)
    #expect(cut.stderr.contains("no record \(secondHead["seq"]?.int64Value ?? 0)"), "\(cut.stderr)")
    #expect(cut.stderr.contains("cut off"))
  }

  @Test(
    "a malformed --anchor is a usage error",
    arguments: [
      "57", "57:", ":abc", "abc:def", "0:" + String(repeating: "a", count: 64),
      "-3:" + String(repeating: "a", count: 64), "5:" + String(repeating: "a", count: 63),
      "5:" + String(repeating: "g", count: 64), "5:" + String(repeating: "a", count: 64) + ":1",
      "99999999999999999999:" + String(repeating: "a", count: 64),
    ])
  func malformedAnchor(anchor: String) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let result = try runCLI(["verify", "--data-dir", directory.path("data"), "--anchor", anchor])
    #expect(result.status == 2)
    #expect(result.stderr.contains("--anchor takes SEQ:SUM"), "\(result.stderr)")
  }
}

@Suite("register-cli as a new user meets it", .serialized)
struct CLINewUserTests {
  @Test("--version prints the version and exits 0, with or without a daemon")
  func version() throws {
    for words in [["--version"], ["version"], ["--socket", "/nonexistent/s", "--version"]] {
      let result = try runCLI(words)
      #expect(result.status == 0, "\(words): \(result.stderr)")
      #expect(result.stdout == "register-cli \(registerdVersion)\n")
    }
  }

  @Test("a usage error prints the cause, that command's usage and a hint — not the whole help")
  func usageErrors() throws {
    let missing = try runCLI(["add"])
    #expect(missing.status == 2)
    let lines = missing.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "register-cli: add needs SKU")
    #expect(
      missing.stderr.contains(
        "  register-cli add SKU [QTY] [--option GROUP=CHOICE ...] [--amount A]\n"))
    #expect(missing.stderr.contains("register-cli help add"))
    #expect(!missing.stderr.contains("tender card"), "only the usage of add")
    #expect(lines.count < 10, "\(missing.stderr)")
    #expect(missing.stdout.isEmpty)

    let bad = try runCLI(["tender", "cash"])
    #expect(bad.status == 2)
    #expect(bad.stderr.hasPrefix("register-cli: tender needs AMOUNT\n"))
    #expect(bad.stderr.contains("register-cli tender card [--exp MM/YY]"))

    // help COMMAND and COMMAND --help print the same usage, on stdout, exit 0.
    let help = try runCLI(["help", "return"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("register-cli return RECEIPT ITEM[:QTY]... --reason TEXT"))
    #expect(try runCLI(["return", "--help"]).stdout == help.stdout)
    #expect(try runCLI(["help", "refund"]).stdout == help.stdout, "aliases too")
    let full = try runCLI(["help"])
    #expect(full.status == 0)
    #expect(full.stdout.contains("Ringing up:"))
    #expect(full.stdout.contains("--fields"))
  }

  @Test(
    "a near-miss command name gets a suggestion; a far one does not",
    arguments: [
      ("shwo", "show"), ("ad", "add"), ("clos-day", "close-day"), ("tendr", "tender"),
      ("REPLAY", "replay"), ("verfiy", "verify"),
    ])
  func didYouMean(typed: String, meant: String) throws {
    let result = try runCLI([typed])
    #expect(result.status == 2)
    #expect(
      result.stderr.hasPrefix(
        "register-cli: unknown command \"\(typed)\"; did you mean \"\(meant)\"?\n"),
      "\(result.stderr)")
    #expect(result.stderr.contains("register-cli help"))
  }

  @Test("an unknown command far from every name is just unknown", arguments: ["frobnicate", "xyz"])
  func unknownCommand(typed: String) throws {
    let result = try runCLI([typed])
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("register-cli: unknown command \"\(typed)\"\n"))
    #expect(!result.stderr.contains("did you mean"))
    #expect(result.stderr.split(separator: "\n").count == 2)
  }

  @Test("global options go anywhere: show --socket P, show --json, --socket=P")
  func globalOptionsAnywhere() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let after = try runCLI(["show", "--socket", daemon.socketPath])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(after.stdout.contains("(no items)"))
    let equals = try runCLI(["add", "CAP-BSB", "--socket=\(daemon.socketPath)", "2"])
    #expect(equals.status == 0, "\(equals.stderr)")
    let json = try runCLI(["show", "--socket", daemon.socketPath, "--json"])
    let reply = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
    #expect(reply.result["lines"]?.arrayValue?.first?["qty"] == .int(2))
    let noPath = try runCLI(["show", "--socket"])
    #expect(noPath.status == 2)
    #expect(noPath.stderr.contains("--socket needs a path"))
  }

  @Test("product add --fields takes the product's JSON; --json stays the output option")
  func productFields() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // The documented syntax, together with the global --json.
    let added = try daemon.cli([
      "product", "add", "BEANIE-KNT", "--fields",
      #"{"name":"Knit Beanie","category":"Accessories","price":"30.00","stock":4,"colors":["grey"]}"#,
      "--json",
    ])
    #expect(added.status == 0, "\(added.stderr)")
    let reply = try JSONParser.parse(added.stdout.trimmingCharacters(in: .newlines))
    #expect(reply.result["product"]?["name"] == "Knit Beanie")
    #expect(reply.result["product"]?["stock"] == .int(4))
    // Flags override the object's members.
    let mixed = try daemon.cli([
      "product", "add", "BEANIE-SLK", "--fields", #"{"name":"Silk","category":"Accessories"}"#,
      "--price", "45.00",
    ])
    #expect(mixed.status == 0, "\(mixed.stderr)")
    #expect(mixed.stdout.contains("BEANIE-SLK  Silk  45.00"))
    let update = try daemon.cli(["product", "update", "BEANIE-SLK", "--fields", #"{"stock":2}"#])
    #expect(update.status == 0, "\(update.stderr)")
    #expect(update.stdout.contains("stock 2"))
    for bad in ["[1,2]", "{", "\"name\""] {
      let refused = try daemon.cli(["product", "add", "X-1", "--fields", bad])
      #expect(refused.status == 2, "\(bad)")
      #expect(refused.stderr.contains("--fields must be a JSON object"))
    }
  }

  @Test("batch stops at the first refused line, naming it; --keep-going runs the rest")
  func batchStops() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let script = "# a sale\nadd CAP-BSB\nadd NOPE\ntender cash 100\n"
    let stopped = try daemon.cli(["-"], stdin: script)
    #expect(stopped.status == 1)
    #expect(stopped.stderr.contains("unknown_sku"))
    #expect(stopped.stderr.contains("stopped at input line 3 (add NOPE)"), "\(stopped.stderr)")
    // The tender never ran: the order is still open with the one cap.
    let order = try daemon.connect().send(#"{"op":"order"}"#).result
    #expect(order["status"] == "open")
    #expect(order["tenders"]?.arrayValue?.isEmpty ?? true)
    #expect(order["lines"]?.arrayValue?.count == 1)

    // A usage error in a line stops it too, with status 2.
    let usage = try daemon.cli(["batch"], stdin: "show\nadd\nvoid\n")
    #expect(usage.status == 2)
    #expect(usage.stderr.contains("line 2: add needs SKU"))
    #expect(usage.stderr.contains("stopped at input line 2"))
    #expect(try daemon.connect().send(#"{"op":"order"}"#).result["lines"]?.arrayValue?.count == 1)

    // The old behaviour on request: every line runs, the status is the first failure's.
    let kept = try daemon.cli(["batch", "--keep-going"], stdin: "add NOPE\nadd SOCK-3PK\nshow\n")
    #expect(kept.status == 1)
    #expect(kept.stdout.contains("Cotton Socks"))
    #expect(!kept.stderr.contains("stopped at"))
    let clean = try daemon.cli(["-"], stdin: "void --reason test\nadd TOTE-CNV\n")
    #expect(clean.status == 0, "\(clean.stderr)")
  }

  @Test("refusals say what to type at the command line, not protocol")
  func cliWords() throws {
    let daemon = try Daemon(catalog: try fastPINCatalog())
    defer { daemon.cleanup() }
    let unknown = try daemon.cli(["add", "NOPE"])
    #expect(unknown.stderr.contains("`register-cli catalog` lists them"), "\(unknown.stderr)")
    #expect(!unknown.stderr.contains("catalog op"))
    let exists = try daemon.cli([
      "product", "add", "CAP-BSB", "--name", "Cap", "--category", "Hats", "--price", "1.00",
    ])
    #expect(exists.stderr.contains("register-cli product update CAP-BSB"), "\(exists.stderr)")
    #expect(!exists.stderr.contains("product_update"))

    #expect(
      try daemon.cli([
        "operator", "add", "mo", "--name", "Mo", "--role", "manager", "--pin", "9876",
      ]).status == 0)
    let nobody = try daemon.cli(["add", "CAP-BSB"])
    #expect(nobody.stderr.contains("register-cli sign-in ID"), "\(nobody.stderr)")
    #expect(!nobody.stderr.contains("op sign_in"))
    #expect(try daemon.cli(["sign-in", "mo"], stdin: "9876\n").status == 0)
    #expect(
      try daemon.cli(
        ["operator", "add", "cy", "--name", "Cy", "--role", "cashier"], stdin: "1234\n"
      )
      .status == 0)
    #expect(try daemon.cli(["sign-in", "cy"], stdin: "1234\n").status == 0)
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let needsManager = try daemon.cli(["void", "--reason", "left"])
    #expect(needsManager.status == 1)
    #expect(needsManager.stderr.contains("approval_required"))
    #expect(needsManager.stderr.contains("--approve MANAGER "), "\(needsManager.stderr)")
    #expect(!needsManager.stderr.contains("{operator, pin}"))
    // The manager approves by typing their PIN when asked; nothing of it reaches argv.
    let approved = try daemon.cli(["void", "--reason", "left", "--approve", "mo"], stdin: "9876\n")
    #expect(approved.status == 0, "\(approved.stderr)")
    #expect(approved.stderr.isEmpty, "no warning: \(approved.stderr)")
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    // The old forms still work, with a warning that the PIN shows in `ps` and shell history.
    let old = try daemon.cli(["void", "--reason", "left", "--approve", "mo:9876"])
    #expect(old.status == 0, "\(old.stderr)")
    #expect(old.stderr.contains("a PIN on the command line is visible to other users"))
    let oldSignIn = try daemon.cli(["sign-in", "cy", "--pin", "1234"])
    #expect(oldSignIn.status == 0)
    #expect(oldSignIn.stderr.contains("a PIN on the command line is visible to other users"))
    let newSignIn = try daemon.cli(["sign-in", "cy"], stdin: "1234\n")
    #expect(newSignIn.status == 0 && newSignIn.stderr.isEmpty, "\(newSignIn.stderr)")
    // No PIN on standard input: a usage error, nothing sent.
    let noPIN = try daemon.cli(["sign-in", "cy"], stdin: "")
    #expect(noPIN.status == 2, "\(noPIN.stderr)")
    #expect(noPIN.stderr.contains("no PIN given"))
    // A cashier cannot reprice the catalog, remove a product or close the day.
    for words in [
      ["product", "update", "CAP-BSB", "--price", "0.01"], ["product", "remove", "CAP-BSB"],
      ["close-day"],
    ] {
      let refused = try daemon.cli(words)
      #expect(refused.status == 1, "\(words)")
      #expect(refused.stderr.contains("approval_required"), "\(words): \(refused.stderr)")
    }
    // The raw protocol keeps its own words for raw-socket clients.
    let raw = try daemon.connect().send(#"{"op":"void","reason":"left"}"#)
    #expect(raw["error"]?["message"]?.stringValue?.contains("approve: {operator, pin}") == true)
  }
}

@Suite("Small things a store notices", .serialized)
struct StoreNoticesTests {
  @Test("parked orders and customer history print a short local time in the zone of TZ")
  func localTimes() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // The daemon's clock stands at 2026-11-22T14:03:05-05:00, a Sunday (19:03 UTC).
    let newYork = ["TZ": "EST5"]
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    #expect(try daemon.cli(["park", "--note", "back soon"]).status == 0)
    let parked = try daemon.cli(["parked"], environment: newYork)
    // "Sun 22 Nov 14:03" (with the year when this runs after 2026).
    #expect(parked.stdout.contains("1 item, total"), "\(parked.stdout)")
    #expect(parked.stdout.contains("parked Sun 22 Nov "), "\(parked.stdout)")
    #expect(parked.stdout.hasSuffix(" 14:03\n"), "\(parked.stdout)")
    #expect(!parked.stdout.contains("T14:03") && !parked.stdout.contains("2026-11-22"))
    let utc = try daemon.cli(["parked"], environment: ["TZ": "UTC"])
    #expect(utc.stdout.hasSuffix(" 19:03\n"), "\(utc.stdout)")
    // --json keeps the protocol's ISO form.
    let json = try daemon.cli(["parked", "--json"], environment: newYork)
    #expect(json.stdout.contains("2026-11-22T14:03:05.000-05:00"))
    #expect(try daemon.cli(["customer", "add", "Dana Li"]).status == 0)
    #expect(try daemon.cli(["customer", "attach", "C1"]).status == 0)
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    let history = try daemon.cli(["customer", "history", "C1"], environment: newYork)
    #expect(history.stdout.contains("Sun 22 Nov "), "\(history.stdout)")
    #expect(history.stdout.contains(" 14:03 "), "\(history.stdout)")
    #expect(!history.stdout.contains("T14:03") && !history.stdout.contains("2026-11-22"))
  }

  @Test("an e-mail is reported as queued to the outbox, with its file")
  func emailQueued() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    let sent = try daemon.cli(["email", "1", "--to", "dana@example.com"])
    #expect(sent.status == 0, "\(sent.stderr)")
    #expect(!sent.stdout.contains("E-mailed"))
    #expect(sent.stdout.hasPrefix("Queued for e-mail: \(daemon.dataDirectory)/outbox/"))
    let file = String(
      sent.stdout.dropFirst("Queued for e-mail: ".count).prefix { $0 != " " })
    #expect(FileManager.default.fileExists(atPath: file), "\(file)")
    let again = try daemon.cli(["receipt", "1", "--email", "dana@example.com"])
    #expect(again.stdout.hasPrefix("Queued for e-mail: "))
  }

  @Test("the X/Z report shows price overrides as a memo, not as a deduction from net sales")
  func overridesMemo() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "CAP-BSB", "2"]).status == 0)
    #expect(try daemon.cli(["override", "1", "20.00", "--reason", "scuffed"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "100"]).status == 0)
    let report = try daemon.cli(["report"])
    let lines = report.stdout.split(separator: "\n").map(String.init)
    let gross = try #require(lines.firstIndex { $0.hasPrefix("Gross sales") })
    let net = try #require(lines.firstIndex { $0.hasPrefix("Net sales") })
    // Between gross and net only discounts, which are subtracted.
    #expect(!lines[gross...net].contains { $0.contains("override") }, "\(report.stdout)")
    #expect(lines[gross].hasSuffix(" 40.00"), "two caps at the overridden 20.00")
    #expect(lines[net].hasSuffix(" 40.00"))
    #expect(lines.contains("Price overrides (1), in gross:"))
    #expect(lines.contains("  below list price by" + String(repeating: " ", count: 15) + "4.00"))
  }

  @Test("a Z report reprinted after the close is marked as a reprint")
  func zReprint() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let closed = try daemon.cli(["close-day"])
    #expect(closed.status == 0)
    #expect(!closed.stdout.contains("REPRINT"))
    let again = try daemon.cli(["report", "z"])
    #expect(again.status == 0)
    #expect(again.stdout.contains("*** REPRINT ***"))
    let json = try daemon.cli(["report", "z", "--day", "1", "--json"])
    let reply = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
    #expect(reply.result["report"]?["reprint"] == .bool(true))
  }

  @Test("the start-up log counts the products served, not the file's")
  func startupCount() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let fileCount = 26
    #expect(daemon.log.contains(": \(fileCount) products "), "\(daemon.log)")
    #expect(
      try daemon.cli([
        "product", "add", "BEANIE-KNT", "--name", "Knit Beanie", "--category", "Accessories",
        "--price", "30.00",
      ]).status == 0)
    daemon.stop()
    // The file does not list the new product (registerd never writes it); it is served.
    let served = fileCount + 1
    try daemon.start()
    let catalog = try daemon.connect().send(#"{"op":"catalog"}"#)
    #expect(catalog.result["products"]?.arrayValue?.count == served)
    #expect(daemon.log.contains(": \(served) products "), "\(daemon.log)")
  }
}

@Suite("Duplicate member names", .serialized)
struct DuplicateKeyTests {
  @Test("a request with a member name twice is bad_json and changes nothing")
  func duplicateKeys() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    let reply = try client.send(#"{"op":"add","sku":"CAP-BSB","sku":"TOTE-CNV"}"#)
    #expect(reply.errorCode == "bad_json")
    #expect(try client.send(#"{"op":"order"}"#).result["lines"]?.arrayValue?.isEmpty == true)
  }
}

@Suite("register-cli refuses what registerd would refuse, as registerd would")
struct CLILocalRefusalTests {
  @Test("an amount that is not one gets registerd's own refusal and exit status 1")
  func badAmount() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let raw = try daemon.connect().send(#"{"id":1,"op":"tender","type":"cash","amount":"abc"}"#)
    let error = try #require(raw["error"])
    let plain = try daemon.cli(["tender", "cash", "abc"])
    #expect(plain.status == 1)
    #expect(
      plain.stderr.hasPrefix("register-cli: invalid_amount: amount: \"abc\" is not an amount"))
    let json = try daemon.cli(["--json", "tender", "cash", "abc"])
    #expect(json.status == 1)
    let reply = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
    #expect(reply["ok"] == .bool(false))
    #expect(reply["error"] == error, "the same code and message as registerd's")
    // A usage error on the same line still wins, as when only registerd checked the amount.
    #expect(try daemon.cli(["paid-in", "abc"]).status == 2)
  }
}

@Suite("register-cli prints hello and the drawer from their typed views")
struct CLITypedViewTests {
  @Test func helloAndDrawer() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let hello = try daemon.cli(["hello"])
    #expect(hello.status == 0)
    #expect(hello.stdout.hasPrefix("registerd \(registerdVersion) serving "), "\(hello.stdout)")
    #expect(hello.stdout.hasSuffix(" (protocol 1)\n"), "\(hello.stdout)")
    let float = try daemon.cli(["float", "150"])
    #expect(float.status == 0, "\(float.stderr)")
    #expect(
      float.stdout
        == "Drawer, day 1: float 150.00, cash taken 0.00, change 0.00, refunds 0.00, paid in 0.00, paid out 0.00; expected 150.00\n"
    )
    let paidOut = try daemon.cli(["paid-out", "12.5", "--reason", "stamps"])
    #expect(paidOut.stdout.contains("paid out 12.50; expected 137.50"), "\(paidOut.stdout)")
  }
}
