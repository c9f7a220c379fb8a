import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// A PostgreSQL server of its own in a temporary directory (initdb, pg_ctl; as the `postgres`
/// user when the tests run as root, which initdb refuses), on a Unix socket only.
final class TemporaryPostgres: @unchecked Sendable {
  /// Where the server programs are (initdb's directory: pg_ctl is beside it), when
  /// PostgreSQL is installed (PATH, or Debian's layout).
  static let binaries: URL? = ExternalProgram.initdb.path.map {
    URL(fileURLWithPath: $0).deletingLastPathComponent()
  }
  static let psql: URL? = ExternalProgram.psql.path.map { URL(fileURLWithPath: $0) }

  let directory: TemporaryDirectory
  let url: String
  private let asUser: [String]
  private let psql: URL

  init() throws {
    guard let binaries = Self.binaries, let psql = Self.psql else {
      throw HarnessError("PostgreSQL is not installed")
    }
    self.psql = psql
    directory = try TemporaryDirectory()
    asUser = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
    url = "postgresql:///postgres?host=\(directory.url.path)&user=postgres"
    if getuid() == 0 {
      _ = try runProgram(URL(fileURLWithPath: "/bin/chown"), ["postgres", directory.url.path])
    }
    let data = directory.path("data")
    try run(
      binaries.appendingPathComponent("initdb"), ["-D", data, "--auth=trust", "-U", "postgres"])
    try run(
      binaries.appendingPathComponent("pg_ctl"),
      [
        "-D", data, "-o", "-k \(directory.url.path) -c listen_addresses=''", "-l",
        directory.path("log"), "-w", "start",
      ])
  }

  /// Runs a server program (as `postgres` when root) with its output to the log: the server
  /// pg_ctl starts keeps what it inherits open, so no pipe may be handed to it.
  private func run(_ program: URL, _ arguments: [String]) throws {
    let log = directory.path("programs.log")
    let result = try runProgram(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "exec \"$@\" </dev/null >>'\(log)' 2>&1", "sh"] + asUser + [program.path]
        + arguments)
    guard result.status == 0 else {
      let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      throw HarnessError("\(program.lastPathComponent) failed: \(output)")
    }
  }

  /// Runs `sql` with psql; the rows unaligned, `|`-separated.
  func query(_ sql: String) throws -> [[String]] {
    let result = try runProgram(
      psql, [url, "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-c", sql])
    guard result.status == 0 else { throw HarnessError("psql: \(result.stderr)") }
    return result.stdout.split(separator: "\n").map {
      $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    }
  }

  /// Feeds `sql` to psql on standard input, as the feeder's pipe does.
  func load(_ sql: String) throws -> CLIResult {
    try runProgram(psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1"], stdin: sql)
  }

  func stop() {
    if let binaries = Self.binaries {
      try? run(
        binaries.appendingPathComponent("pg_ctl"),
        ["-D", directory.path("data"), "-m", "immediate", "stop"])
    }
    directory.cleanup()
  }
}

/// Rings up a day on a lane: sales with cash, a card on a terminal, a store tender, a
/// promotion (the second sale's two shoes, scanned one by one, buy 1 get 1 half price), two
/// returns (one of the shoes), a void and drawer moves, then closes the day; then a sale of the
/// next day.
func ringUpADay(_ daemon: Daemon, sales: Int) throws {
  var lines = [#"{"op":"float","amount":"150.00"}"#]
  for index in 0..<sales {
    lines.append(#"{"op":"add","sku":"SCARF-WOOL","qty":\#(1 + index % 3)}"#)
    lines.append(#"{"op":"add","sku":"SOCK-3PK"}"#)
    if index == 1 {
      lines.append(#"{"op":"add","sku":"SNK-RUN-10"}"#)
      lines.append(#"{"op":"add","sku":"SNK-RUN-10"}"#)
    }
    if index % 2 == 0 {
      lines.append(#"{"op":"tender","type":"cash","amount":"100.00"}"#)
    } else {
      lines.append(
        #"{"op":"tender","type":"card_present","amount":"1000.00","brand":"VISA","last4":"4242","auth_code":"A1"}"#
      )
    }
  }
  lines.append(
    #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"too small, it's \"M\""}"#)
  lines.append(
    #"{"op":"return","receipt":2,"lines":[{"line":4,"qty":1}],"reason":"one is enough"}"#)
  lines.append(#"{"op":"paid_out","amount":"7.50","reason":"window cleaner, Mon"}"#)
  lines.append(#"{"op":"add","sku":"CAP-BSB"}"#)
  lines.append(#"{"op":"void","reason":"changed mind"}"#)
  lines.append(#"{"op":"close_day","counted":{"cash":"200.00"}}"#)
  lines.append(#"{"op":"add","sku":"BELT-LTH-M"}"#)
  lines.append(#"{"op":"tender","type":"cash","amount":"40.00"}"#)
  let client = try daemon.connect()
  for line in lines {
    let reply = try client.send(line)
    // A card_present tender over the balance is refused: pay the exact balance then.
    if reply["ok"] != .bool(true), line.contains("card_present") {
      let order = try client.send(#"{"op":"order"}"#)
      let due = order["result"]?["balance_due"]?.stringValue ?? "0.00"
      let paid = try client.send(
        #"{"op":"tender","type":"card_present","amount":"\#(due)","brand":"VISA","last4":"4242","auth_code":"A1"}"#
      )
      #expect(paid["ok"] == .bool(true), "\(paid.serialized)")
      continue
    }
    #expect(reply["ok"] == .bool(true), "\(line) → \(reply.serialized)")
  }
}

/// `register-cli export` and the PostgreSQL feeder: every lane's facts loaded exactly once.
@Suite(.serialized) struct BackOfficeEndToEndTests {
  @Test(.tags(.outsideProgram), .requires(.python3))
  func ndjsonAndCSVCarryTheSameFactsAndCSVReadsBackInPython() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    try ringUpADay(daemon, sales: 4)
    let ndjson = try runCLI([
      "export", "--data-dir", daemon.dataDirectory, "--lane", "north-1",
    ])
    #expect(ndjson.status == 0, "\(ndjson.stderr)")
    let facts = try ndjson.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    let counts = Dictionary(grouping: facts) { $0["fact"]?.stringValue ?? "" }.mapValues(\.count)
    #expect(counts["sales"] == 5)
    #expect(counts["returns"] == 2)
    #expect(counts["voids"] == 1)
    #expect(counts["z_reports"] == 1)
    #expect(counts["drawer_moves"] == 2)
    #expect(facts.allSatisfy { $0["lane"] == .string("north-1") })
    // Money is a decimal string; never a card number.
    #expect(facts.first { $0["fact"] == .string("sales") }?["total"]?.stringValue != nil)
    #expect(!ndjson.stdout.contains("4242424242424242"))
    // --after: only the records after the cursor.
    let zSeq = try #require(facts.first { $0["fact"] == .string("z_reports") }?["seq"]?.int64Value)
    let tail = try runCLI([
      "export", "--data-dir", daemon.dataDirectory, "--lane", "north-1", "--after", "\(zSeq)",
    ])
    #expect(tail.stdout.split(separator: "\n").count == 3, "\(tail.stdout)")
    // CSV: a file per table, RFC 4180, read back by Python's csv module to the same values.
    let folder = daemon.directory.path("csv")
    let csv = try runCLI([
      "export", "--data-dir", daemon.dataDirectory, "--lane", "north-1", "--format", "csv",
      "--to", folder,
    ])
    #expect(csv.status == 0, "\(csv.stderr)")
    let script = """
      import csv, json, sys
      facts = [json.loads(line) for line in open(sys.argv[1])]
      for table in ["sales", "sale_lines", "tenders", "returns", "return_lines", "voids",
                    "drawer_moves", "z_reports"]:
          with open(sys.argv[2] + "/" + table + ".csv", newline="") as f:
              rows = list(csv.DictReader(f))
          expected = [f for f in facts if f["fact"] == table]
          assert len(rows) == len(expected), (table, len(rows), len(expected))
          for row, fact in zip(rows, expected):
              for column, value in row.items():
                  want = fact[column]
                  want = "" if want is None else str(want)
                  assert value == want, (table, column, value, want)
      print("ok")
      """
    let factsFile = daemon.directory.path("facts.ndjson")
    try ndjson.stdout.write(toFile: factsFile, atomically: true, encoding: .utf8)
    let python = try runProgram(
      ExternalProgram.python3.located(), ["-c", script, factsFile, folder])
    #expect(python.status == 0, "\(python.stderr)")
    #expect(python.stdout == "ok\n")
    let returns = try String(contentsOfFile: folder + "/returns.csv", encoding: .utf8)
    #expect(returns.contains(#""too small, it's ""M""""#))
    #expect(returns.hasPrefix("lane,seq,day,at,receipt,original_receipt,"))
    // Bad options are usage errors.
    #expect(
      try runCLI(["export", "--format", "csv", "--data-dir", daemon.dataDirectory]).status == 2)
    #expect(try runCLI(["export", "--format", "xml"]).status == 2)
    #expect(try runCLI(["export", "--after", "-1"]).status == 2)
  }

  @Test(.tags(.outsideProgram), .requires(.initdb, .pgCtl, .psql))
  func twoLanesLoadIntoPostgresExactlyOnceUnderAKilledFeeder() throws {
    let postgres = try TemporaryPostgres()
    defer { postgres.stop() }
    let north = try Daemon()
    defer { north.cleanup() }
    let south = try Daemon()
    defer { south.cleanup() }
    try ringUpADay(north, sales: 6)
    try ringUpADay(south, sales: 40)
    let feeder = Binaries.repository.appendingPathComponent("Scripts/backoffice/feed-postgres.sh")
    let environment = [
      "REGISTER_CLI": Binaries.registerCLI.path, "PSQL": try ExternalProgram.psql.located().path,
    ]
    let first = try runProgram(
      feeder, ["north", north.dataDirectory, postgres.url], environment: environment)
    #expect(first.status == 0, "\(first.stderr)")
    // The south feeder dies mid-stream: the statements it got through, cut at a byte in the
    // middle of a transaction, are all psql ever sees.
    let sql = try runCLI([
      "export", "--data-dir", south.dataDirectory, "--format", "sql", "--lane", "south",
    ])
    #expect(sql.status == 0, "\(sql.stderr)")
    #expect(sql.stdout.contains("ON CONFLICT DO NOTHING"))
    let bytes = Array(sql.stdout.utf8)
    let cut = String(decoding: bytes.prefix(bytes.count * 3 / 5), as: UTF8.self)
    _ = try postgres.load(cut)
    let partial = try postgres.query("SELECT count(*) FROM sales WHERE lane = 'south'")
    // A killed psql commits nothing of the transaction it was in: whole records or none.
    let cursor = try postgres.query(
      "SELECT coalesce(max(last_seq), 0) FROM lanes WHERE lane = 'south'")
    let partialSales = Int(partial.first?.first ?? "") ?? -1
    #expect(partialSales >= 0 && partialSales <= 41)
    // A real kill too: the feeder following the journal is killed after a moment with all it
    // runs (timeout signals its whole process group: register-cli export and psql).
    let killed = try runProgram(
      URL(fileURLWithPath: "/usr/bin/timeout"),
      ["-s", "KILL", "1", feeder.path, "south", south.dataDirectory, postgres.url, "--follow"],
      environment: environment)
    #expect(killed.status != 0)
    // More sales on both lanes while no feeder runs; then both feeders run to the end.
    #expect(try south.cli(["add", "BELT-LTH-M"]).status == 0)
    #expect(try south.cli(["tender", "cash", "40"]).status == 0)
    for lane in [("north", north), ("south", south)] {
      let again = try runProgram(
        feeder, [lane.0, lane.1.dataDirectory, postgres.url], environment: environment)
      #expect(again.status == 0, "\(again.stderr)")
    }
    #expect(Int(cursor.first?.first ?? "") != nil)
    // One row per record, no gap: every receipt number of each lane once, in sales or returns.
    // north: 6 sales, two returns, a sale on day 2; south: 40, two returns, two on day 2.
    for (lane, daemon, receipts) in [("north", north, 9), ("south", south, 44)] {
      let rows = try postgres.query(
        """
        SELECT count(*), count(DISTINCT receipt), min(receipt), max(receipt) FROM
          (SELECT receipt FROM sales WHERE lane = '\(lane)'
           UNION ALL SELECT receipt FROM returns WHERE lane = '\(lane)') r
        """)
      #expect(rows.first == ["\(receipts)", "\(receipts)", "1", "\(receipts)"], "\(lane)")
      let last = try daemon.connect().send(#"{"op":"hello"}"#)["result"]?["journal_seq"]
      let cursorNow = try postgres.query("SELECT last_seq FROM lanes WHERE lane = '\(lane)'")
      #expect(cursorNow.first?.first == last?.int64Value.map { String($0) }, "\(lane)")
    }
    // The views agree with the lanes' own Z reports, to the cent.
    let check = try postgres.query(
      "SELECT lane, day, z_total, loaded_total, agrees FROM z_check ORDER BY lane")
    #expect(check.count == 2)
    #expect(check.allSatisfy { $0.last == "t" }, "\(check)")
    for (lane, daemon) in [("north", north), ("south", south)] {
      let z = try daemon.connect().send(#"{"op":"report","kind":"z","day":1}"#)
      let total = try postgres.query(
        "SELECT sum(total) FROM sales WHERE lane = '\(lane)' AND day = 1")
      #expect(total.first?.first == z["result"]?["report"]?["total"]?.stringValue, "\(lane)")
    }
    let byDay = try postgres.query("SELECT lanes, sales FROM z_totals_by_day WHERE day = 1")
    #expect(byDay.first == ["2", "\(6 + 40)"])
    // Every sale and Z report: gross − discounts − promotions = net, and a sale's net is its
    // lines' (the gift cards sold apart). The shoes' promotion is there on both lanes.
    #expect(try postgres.query(Self.identityBroken) == [["0", "0", "0"]])
    let promotions = try postgres.query(
      "SELECT lane, promotions FROM z_reports WHERE day = 1 ORDER BY lane")
    #expect(promotions == [["north", "50.00"], ["south", "50.00"]])
  }

  /// The sale and Z report rows where gross − discounts − promotions is not the net (a null
  /// counts as not), and the sales whose net is not their lines' less the gift cards sold.
  static let identityBroken = """
    SELECT (SELECT count(*) FROM sales
             WHERE (gross - discounts - promotions = net) IS NOT TRUE),
           (SELECT count(*) FROM z_reports
             WHERE (gross - discounts - promotions = net_sales) IS NOT TRUE),
           (SELECT count(*) FROM sales s
             WHERE (s.net = (SELECT sum(l.net) FROM sale_lines l
                             WHERE l.lane = s.lane AND l.seq = s.seq) - s.gift_cards)
                   IS NOT TRUE)
    """

  @Test(.tags(.outsideProgram), .requires(.initdb, .pgCtl, .psql))
  func aDatabaseFromBeforePromotionsWereExportedGetsThemInPlace() throws {
    let postgres = try TemporaryPostgres()
    defer { postgres.stop() }
    // The tables as the schema made them before, with a sale of two shoes (one half price)
    // and a belt, and its day's Z report, as the export wrote them then.
    let old = """
      CREATE TABLE sales (
        lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, at timestamptz NOT NULL,
        receipt integer NOT NULL, order_id integer NOT NULL, operator text, customer_id text,
        items bigint NOT NULL, gross numeric NOT NULL, discounts numeric NOT NULL,
        tax numeric NOT NULL, total numeric NOT NULL, gift_cards numeric NOT NULL,
        cash_rounding numeric NOT NULL, change numeric NOT NULL,
        PRIMARY KEY (lane, seq));
      CREATE TABLE sale_lines (
        lane text NOT NULL, seq bigint NOT NULL, line integer NOT NULL, receipt integer NOT NULL,
        day integer NOT NULL, sku text NOT NULL, name text NOT NULL, category text,
        qty bigint NOT NULL, unit_price numeric NOT NULL, net numeric, tax_class text NOT NULL,
        tax_rate numeric NOT NULL,
        PRIMARY KEY (lane, seq, line));
      CREATE TABLE z_reports (
        lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, opened_at timestamptz,
        closed_at timestamptz NOT NULL, sales_count integer NOT NULL, items_sold bigint NOT NULL,
        gross numeric NOT NULL, discounts numeric NOT NULL, net_sales numeric NOT NULL,
        tax numeric NOT NULL, total numeric NOT NULL, returns_count integer NOT NULL,
        returns_total numeric NOT NULL, gift_cards_sold numeric NOT NULL,
        cash_expected numeric NOT NULL, counted_cash numeric, over_short numeric,
        PRIMARY KEY (lane, seq));
      INSERT INTO sales VALUES ('old', 5, 1, '2026-03-15T14:03:05-05:00', 1, 1, NULL, NULL, 4,
        244.98, 10.00, 13.87, 198.85, 25.00, 0.00, 1.15);
      INSERT INTO sale_lines VALUES
        ('old', 5, 1, 1, 1, 'SNK-RUN-10', 'Shoes', 'Shoes', 1, 99.99, 74.99, 'standard', 7.5),
        ('old', 5, 2, 1, 1, 'SNK-RUN-10', 'Shoes', 'Shoes', 1, 99.99, 74.99, 'standard', 7.5),
        ('old', 5, 3, 1, 1, 'BELT-LTH-M', 'Belt', 'Accessories', 1, 45.00, 35.00, 'standard',
         7.5),
        ('old', 5, 4, 1, 1, 'GIFT-25', 'Gift Card', 'Gift Cards', 1, 25.00, 25.00, 'exempt', 0);
      INSERT INTO z_reports VALUES ('old', 9, 1, NULL, '2026-03-15T20:00:00-05:00', 1, 3,
        244.98, 10.00, 184.98, 13.87, 198.85, 0, 0.00, 25.00, 223.85, NULL, NULL);
      """
    #expect(try postgres.load(old).status == 0)
    let schema = Binaries.repository.appendingPathComponent("Scripts/backoffice/schema.sql")
    let upgrade = try postgres.load(try String(contentsOf: schema, encoding: .utf8))
    #expect(upgrade.status == 0, "\(upgrade.stderr)")
    #expect(try postgres.query("SELECT promotions, net FROM sales") == [["50.00", "184.98"]])
    #expect(try postgres.query("SELECT promotions FROM z_reports") == [["50.00"]])
    #expect(try postgres.query(Self.identityBroken) == [["0", "0", "0"]])
    // Run again (as every feeder start does), it changes nothing.
    #expect(try postgres.load(try String(contentsOf: schema, encoding: .utf8)).status == 0)
    #expect(try postgres.query("SELECT promotions, net FROM sales") == [["50.00", "184.98"]])
  }
}
