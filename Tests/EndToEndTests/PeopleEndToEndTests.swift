import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// The repository's catalog with a low PIN-hash iteration count, so sign-ins in a debug build
/// stay fast. (The default is 120000.)
func fastPINCatalog(_ extra: [String: Any] = [:]) throws -> String {
  let url = Binaries.repository.appendingPathComponent("Data/products.json")
  var document = try #require(
    try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
  var store = try #require(document["store"] as? [String: Any])
  store["pin_hash_iterations"] = 1000
  for (key, value) in extra { store[key] = value }
  document["store"] = store
  let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted])
  return String(decoding: data, as: UTF8.self)
}

@Suite("People, catalog edits, the drawer and e-mail through the CLI", .serialized)
struct PeopleEndToEndTests {
  @Test("operators, sign-in, lockout, and manager approval; records name the operator")
  func operatorsAndApproval() throws {
    let daemon = try Daemon(catalog: try fastPINCatalog())
    defer { daemon.cleanup() }
    // Open until the first operator, who must be a manager.
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    let cashierFirst = try daemon.cli([
      "operator", "add", "amy", "--name", "Amy", "--role", "cashier", "--pin", "1234",
    ])
    #expect(cashierFirst.stderr.contains("forbidden"))
    #expect(
      try daemon.cli([
        "operator", "add", "mo", "--name", "Mo Reyes", "--role", "manager", "--pin", "9876",
      ]).status == 0)
    // Now changes need someone signed in; reads do not.
    #expect(try daemon.cli(["add", "CAP-BSB"]).stderr.contains("not_signed_in"))
    #expect(try daemon.cli(["show"]).status == 0)
    #expect(try daemon.cli(["sign-in", "mo", "--pin", "9876"]).status == 0)
    #expect(
      try daemon.cli([
        "operator", "add", "amy", "--name", "Amy Ng", "--role", "cashier", "--pin", "1234",
      ]).status == 0)
    #expect(try daemon.cli(["sign-in", "amy", "--pin", "1234"]).status == 0)
    // A cashier cannot manage operators or override a price without a manager's approval.
    #expect(
      try daemon.cli([
        "operator", "add", "bo", "--name", "Bo", "--role", "cashier", "--pin", "5555",
      ]).stderr.contains("approval_required"))
    #expect(
      try daemon.cli(["override", "1", "9.99", "--reason", "damaged"]).stderr.contains(
        "approval_required"))
    let wrong = try daemon.cli([
      "override", "1", "9.99", "--reason", "damaged", "--approve", "mo:0000",
    ])
    #expect(wrong.stderr.contains("wrong_pin"))
    #expect(!wrong.stderr.contains("0000"))
    let approved = try daemon.cli([
      "override", "1", "9.99", "--reason", "damaged", "--approve", "mo:9876",
    ])
    #expect(approved.status == 0, "\(approved.stderr)")
    #expect(approved.stdout.contains("override, was 22.00 (damaged)"))

    // Five wrong PINs in a row lock an operator until a manager unlocks them.
    for attempt in 1...5 {
      let result = try daemon.cli(["sign-in", "amy", "--pin", "1111"])
      #expect(result.stderr.contains("wrong_pin"), "attempt \(attempt)")
    }
    #expect(try daemon.cli(["sign-in", "amy", "--pin", "1234"]).stderr.contains("operator_locked"))
    daemon.kill9()
    try daemon.start()
    #expect(
      try daemon.cli(["sign-in", "amy", "--pin", "1234"]).stderr.contains("operator_locked"),
      "the lock survives a restart")
    #expect(try daemon.cli(["sign-in", "mo", "--pin", "9876"]).status == 0)
    #expect(try daemon.cli(["operator", "unlock", "amy"]).status == 0)
    #expect(try daemon.cli(["sign-in", "amy", "--pin", "1234"]).status == 0)
    let list = try daemon.cli(["operator", "list"])
    #expect(list.stdout.contains("amy          Amy Ng                   cashier  ok"))
    #expect(list.stdout.contains("Signed in: amy"))

    // The journal records who did what, and never a PIN.
    daemon.stop()
    let journal = try journalText(daemon.dataDirectory)
    let override = try #require(
      journal.split(separator: "\n").first { $0.contains("price_overridden") })
    #expect(override.contains(#""operator":"amy""#))
    #expect(override.contains(#""approved_by":"mo""#))
    // The PIN as a value of its own (hex sums and salts may contain the digits by chance).
    #expect(!journal.contains(#""9876""#) && !journal.contains(#""pin":"#))
    #expect(journal.ranges(of: /(?:^|[^0-9a-f])9876(?:[^0-9a-f]|$)/).isEmpty)
  }

  @Test("a catalog edit survives a restart; the imported file is never written")
  func catalogEdits() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let original = try Data(contentsOf: URL(fileURLWithPath: daemon.catalogPath))
    let added = try daemon.cli([
      "product", "add", "SCARF-SILK", "--name", "Silk Scarf", "--category", "Accessories",
      "--price", "45.00", "--stock", "3", "--colors", "ivory,navy",
    ])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(
      try daemon.cli(["product", "update", "SCARF-SILK", "--sale-price", "39.00"]).status == 0)
    #expect(
      try daemon.cli(["product", "update", "SCARF-SILK", "--sale-price", "50.00"]).stderr.contains(
        "invalid_product"))
    #expect(try daemon.cli(["add", "SCARF-SILK", "2"]).status == 0)
    #expect(
      try daemon.cli(["stock", "adjust", "SCARF-SILK", "-2", "--reason", "shrink"]).stderr.contains(
        "out_of_stock"))
    #expect(
      try daemon.cli(["stock", "adjust", "SCARF-SILK", "5", "--reason", "delivery"]).status == 0)
    // Lines keep the price they were added at.
    #expect(
      try daemon.cli([
        "product", "update", "SCARF-SILK", "--sale-price", "none", "--price", "60.00",
      ]).status == 0)
    let order = try daemon.connect().send(#"{"op":"order"}"#).result
    #expect(order["lines"]?.arrayValue?.first?["unit_price"] == "39.00")
    // The file it was started with is untouched; `catalog export` writes the live catalog.
    #expect(try Data(contentsOf: URL(fileURLWithPath: daemon.catalogPath)) == original)
    let exported = try daemon.cli(["catalog", "export"])
    #expect(exported.status == 0, "\(exported.stderr)")
    let file = try CatalogFile.parse(Array(exported.stdout.utf8), file: "export")
    let scarf = try #require(file.products.first { $0.sku == "SCARF-SILK" })
    #expect(scarf.price.decimalString == "60.00")
    #expect(scarf.salePrice == nil)
    #expect(scarf.stock == 8)
    daemon.kill9()
    let logBefore = daemon.log.count
    try daemon.start()
    let catalog = try daemon.connect().send(#"{"op":"catalog"}"#).result
    let product = catalog["products"]?.arrayValue?.first { $0["sku"] == "SCARF-SILK" }
    #expect(product?["price"] == "60.00")
    #expect(product?["stock"] == .int(8))
    #expect(product?["available"] == .int(6))
    let restartLog = String(daemon.log.dropFirst(logBefore))
    #expect(restartLog.contains("listening"))
    #expect(
      !restartLog.contains("imported the changes"), "the file did not change: nothing imported")
    #expect(restartLog.contains("27 products"), "the count served, not the count in the file")
    #expect(try Data(contentsOf: URL(fileURLWithPath: daemon.catalogPath)) == original)
  }

  @Test(
    "products removed through register-cli leave the catalog's pages, SKUs and barcodes right, before and after a restart"
  )
  func removalsKeepPagesAndBarcodes() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    for sku in ["OXF-BLU-15", "FLN-RED-M", "DRS-LBD-M"] {
      let removed = try daemon.cli(["product", "remove", sku])
      #expect(removed.status == 0, "\(removed.stderr)")
    }
    #expect(try daemon.cli(["product", "remove", "OXF-BLU-15"]).status != 0, "already removed")
    func pages() throws -> [[String]] {
      var pages: [[String]] = []
      var after: String?
      while true {
        let cursor = after.map { #","after_sku":"\#($0)""# } ?? ""
        let page = try daemon.connect().send(#"{"op":"catalog","limit":4\#(cursor)}"#).result
        let skus = page["products"]?.arrayValue?.compactMap { $0["sku"]?.stringValue } ?? []
        pages.append(skus)
        let remaining = page["remaining"]?.int64Value ?? 0
        #expect(Int(remaining) == 23 - pages.joined().count, "remaining after \(skus)")
        guard remaining > 0, let last = skus.last else { break }
        after = last
      }
      return pages
    }
    func checkCatalog() throws {
      let listed = try pages()
      #expect(listed.first == ["TEE-WHT-M", "TEE-BLK-L", "JNS-SLM-3232", "CHN-KHK-34"])
      #expect(listed.joined().count == 23)
      #expect(!listed.joined().contains("FLN-RED-M"))
      // A removed product's barcode names nothing; the neighbours' still name them.
      let client = try daemon.connect()
      #expect(
        try client.send(#"{"op":"product","sku":"2001234000284"}"#)["error"]?["code"]
          == "unknown_sku")
      #expect(
        try client.send(#"{"op":"product","sku":"2001234000420"}"#).result["product"]?["sku"]
          == "CHN-KHK-34")
      #expect(
        try client.send(#"{"op":"catalog","after_sku":"FLN-RED-M"}"#)["error"]?["code"]
          == "unknown_sku")
    }
    try checkCatalog()
    daemon.kill9()
    try daemon.start()
    try checkCatalog()
  }

  @Test("catalog export round-trips: a register started on the export serves the same catalog")
  func catalogExportRoundTrip() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M", "3"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "100"]).status == 0)
    #expect(
      try daemon.cli(["stock", "adjust", "TEE-BLK-L", "5", "--reason", "delivery"]).status == 0)
    #expect(try daemon.cli(["product", "remove", "SOCK-3PK"]).status == 0)
    let target = daemon.directory.path("exported.json")
    let live = try daemon.cli(["catalog", "export", "--to", target])
    #expect(live.status == 0, "\(live.stderr)")
    #expect(live.stdout.contains("Wrote 25 products"))
    let exported = try CatalogFile.load(target)
    #expect(exported.products.first { $0.sku == "TEE-WHT-M" }?.stock == 37)
    #expect(exported.products.first { $0.sku == "TEE-BLK-L" }?.stock == 30)
    #expect(!exported.products.contains { $0.sku == "SOCK-3PK" })
    // Offline, from the journal, the same bytes.
    daemon.stop()
    let offline = try runCLI(["catalog", "export", "--data-dir", daemon.dataDirectory])
    #expect(offline.status == 0, "\(offline.stderr)")
    #expect(Array(offline.stdout.utf8) == (try FileIO.read(target)))
    // A new lane started on the export serves exactly that catalog, stock included.
    let copy = try TemporaryDirectory()
    try FileManager.default.copyItem(atPath: target, toPath: copy.path("products.json"))
    let lane = try Daemon(directory: copy)
    defer { lane.cleanup() }
    let served = try lane.connect().send(#"{"op":"catalog_export"}"#).result["catalog"]
    #expect(served.map { try? Catalog(json: $0) } == exported)
    #expect(try runCLI(["catalog", "bogus"]).status == 2)
  }

  @Test("importing a changed file takes only what changed in it since the last import")
  func importOnlyWhatChanged() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // Changes through the protocol: a new product, a price, stock sold and received.
    #expect(
      try daemon.cli([
        "product", "add", "SCARF-SILK", "--name", "Silk Scarf", "--category", "Accessories",
        "--price", "45.00", "--stock", "3",
      ]).status == 0)
    #expect(try daemon.cli(["product", "update", "CAP-BSB", "--price", "24.00"]).status == 0)
    #expect(try daemon.cli(["add", "TEE-WHT-M", "2"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)  // TEE-WHT-M 40 → 38
    // The file: another product's price edited, one product dropped, a stock count entered.
    var text = try String(contentsOfFile: daemon.catalogPath, encoding: .utf8)
    text = text.replacingOccurrences(
      of: #""price": "14.99", "stock": 40"#, with: #""price": "15.49", "stock": 40"#)
    let sock = try #require(text.range(of: #"{"sku": "SOCK-3PK""#))
    let sockEnd = try #require(text.range(of: "},\n", range: sock.upperBound..<text.endIndex))
    text.removeSubrange(sock.lowerBound..<sockEnd.upperBound)
    try text.write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    let imports = daemon.log.components(separatedBy: "imported the changes").count - 1
    kill(daemon.process.processIdentifier, SIGHUP)
    func product(_ sku: String) throws -> JSONValue? {
      try daemon.connect().send(#"{"op":"catalog"}"#).result["products"]?.arrayValue?
        .first { $0["sku"]?.stringValue == sku }
    }
    #expect(daemon.waitForLog("imported the changes", count: imports + 1), "\(daemon.log)")
    #expect(try product("TEE-WHT-M")?["price"] == "15.49")
    #expect(try product("TEE-WHT-M")?["stock"] == .int(38), "units sold are not put back")
    #expect(try product("SOCK-3PK") == nil, "dropped from the file")
    #expect(try product("SCARF-SILK")?["price"] == "45.00", "added through the protocol: kept")
    #expect(try product("CAP-BSB")?["price"] == "24.00", "edited through the protocol: kept")
    // The same after a restart (the import is journaled), and the file is never rewritten.
    let edited = try Data(contentsOf: URL(fileURLWithPath: daemon.catalogPath))
    daemon.stop()
    try daemon.start()
    #expect(try product("TEE-WHT-M")?["stock"] == .int(38))
    #expect(try product("CAP-BSB")?["price"] == "24.00")
    #expect(try product("SOCK-3PK") == nil)
    #expect(try Data(contentsOf: URL(fileURLWithPath: daemon.catalogPath)) == edited)
  }

  @Test("SIGHUP reloads a hand-edited catalog and refuses a bad one, keeping the old")
  func hangupReload() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M", "2"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)  // stock 40 → 38
    var text = try String(contentsOfFile: daemon.catalogPath, encoding: .utf8)
    text = text.replacingOccurrences(
      of: #""price": "14.99", "stock": 40"#, with: #""price": "16.99", "stock": 40"#)
    try text.write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    let imports = daemon.log.components(separatedBy: "imported the changes").count - 1
    kill(daemon.process.processIdentifier, SIGHUP)
    func tee() throws -> JSONValue? {
      try daemon.connect().send(#"{"op":"catalog"}"#).result["products"]?.arrayValue?
        .first { $0["sku"] == "TEE-WHT-M" }
    }
    #expect(daemon.waitForLog("imported the changes", count: imports + 1), "\(daemon.log)")
    #expect(try tee()?["price"] == "16.99")
    #expect(
      try tee()?["stock"] == .int(38),
      "the register's sold-down stock is kept: the file's stock was not edited")
    try "{ not a catalog".write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    kill(daemon.process.processIdentifier, SIGHUP)
    #expect(daemon.waitForLog("keeping the current catalog"), "\(daemon.log)")
    #expect(daemon.log.contains("keeping the current catalog"))
    #expect(try tee()?["price"] == "16.99")
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
  }

  @Test(
    "drawer arithmetic: float, sales with change, refunds, paid in and out, over/short",
    arguments: Transport.allCases)
  func drawer(_ transport: Transport) throws {
    try run(transport) { client in
      try client.ok(Requests.SetFloat(amount: usd("150.00")))
      try client.ok(Requests.Add(sku: "CAP-BSB"))
      // 22.00 + 1.65 = 23.65; cash 50 → change 26.35.
      #expect(try client.ok(Requests.Tender(.cash(amount: usd("50"))))["change_due"] == "26.35")
      try client.ok(Requests.Add(sku: "TOTE-CNV", quantity: 2))
      // 9.98 + 0.75 = 10.73, all cash.
      try client.ok(Requests.Tender(.cash(amount: usd("10.73"))))
      try client.ok(Requests.Add(sku: "SOCK-3PK"))
      // 12.00 + 0.90 = 12.90 on a card: no cash.
      try client.ok(Requests.Tender(.card(visaCard, amount: nil)))
      // Return the cap: 23.65 back in cash.
      try client.ok(
        Requests.Return(
          receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "gift"))
      try client.ok(Requests.PaidIn(amount: usd("20.00"), reason: "change from bank"))
      try client.ok(Requests.PaidOut(amount: usd("7.50"), reason: "window cleaner"))
      try client.ok(Requests.NoSale())
      // Expected: 150 + (50 + 10.73) − 26.35 − 23.65 + 20 − 7.50 = 173.23. Counted 170.00.
      let z = try client.ok(Requests.CloseDay(countedCash: usd("170.00")))
      let report = try #require(z["report"])
      #expect(report["expected_cash"] == "173.23")
      #expect(report["counted_cash"] == "170.00")
      #expect(report["over_short"] == "-3.23")
      #expect(report["drawer"]?["no_sales"] == .int(1))
      let text = try #require(z["text"]?.stringValue)
      #expect(text.contains("  Expected cash                   173.23"))
      #expect(text.contains("  Short                            -3.23"))
    }
  }

  @Test(
    "customers, and an e-mailed receipt that Python's email package parses strictly",
    .tags(.outsideProgram), .requires(.python3))
  func customersAndEmail() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(
      try daemon.cli([
        "customer", "add", "Dana Li", "--email", "dana@example.com", "--phone", "+1 (217) 555-0199",
      ]).status == 0)
    #expect(
      try daemon.cli(["customer", "add", "Bad", "--email", "dana@@example"]).stderr.contains(
        "invalid_email"))
    #expect(
      try daemon.cli(["customer", "add", "Bad", "--phone", "12ab"]).stderr.contains("invalid_phone")
    )
    #expect(try daemon.cli(["customer", "find", "555-0199"]).stdout.contains("C1  Dana Li"))
    #expect(try daemon.cli(["customer", "find", "DANA@example.com"]).stdout.contains("C1"))
    #expect(try daemon.cli(["customer", "attach", "C9"]).stderr.contains("customer_not_found"))
    #expect(try daemon.cli(["customer", "attach", "C1"]).status == 0)
    #expect(try daemon.cli(["add", "BELT-LTH-M"]).status == 0)
    let sale = try daemon.cli(["tender", "cash", "50"])
    #expect(sale.stdout.contains("Customer: Dana Li (C1)"))
    #expect(try daemon.cli(["return", "1", "1", "--reason", "size"]).status == 0)
    let history = try daemon.cli(["customer", "history", "C1"])
    #expect(history.stdout.contains("sale"))
    #expect(history.stdout.contains("return"))
    #expect(history.stdout.contains("net 0.00"))

    #expect(try daemon.cli(["email", "1"]).status == 0)
    #expect(try daemon.cli(["receipt", "2", "--email", "dana.li@example.org"]).status == 0)
    let outbox = daemon.dataDirectory + "/outbox"
    let files = try FileManager.default.contentsOfDirectory(atPath: outbox).sorted()
    #expect(files.count == 2)
    let check = """
      import email, sys
      from email import policy
      for path in sys.argv[1:]:
          raw = open(path, 'rb').read()
          assert b'\\r\\n' in raw and b'\\n' not in raw.replace(b'\\r\\n', b''), 'CRLF line endings'
          m = email.message_from_bytes(raw, policy=policy.strict)
          assert not m.defects, m.defects
          for h in ('From', 'To', 'Subject', 'Date', 'Message-ID', 'MIME-Version'):
              assert m[h], h
          assert m.get_content_type() == 'text/plain'
          print(m['To'], '|', m['Subject'], '|', m['Date'])
          print(m.get_content())
      """
    let python = Process()
    python.executableURL = try ExternalProgram.python3.located()
    python.arguments = ["-c", check] + files.map { outbox + "/" + $0 }
    let output = Pipe()
    python.standardOutput = output
    python.standardError = output
    try python.run()
    let collected = collectOutput(of: python, from: [output.fileHandleForReading])
    let printed = collected.text()
    #expect(collected.status == 0, "\(printed)")
    #expect(
      printed.contains(
        "dana@example.com | Your receipt 1 from Lane & Thread Outfitters | Sun, 22 Nov 2026 14:03:05 -0500"
      ))
    #expect(printed.contains("dana.li@example.org | Your return receipt 2"))
    #expect(printed.contains("Customer: Dana Li (C1)"))
    #expect(
      try daemon.cli(["email", "1", "--to", "not an address"]).stderr.contains("invalid_email"))
  }

  @Test("customer find shows the first matches and says how many there are")
  func customerFindLimit() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    for number in 1...105 {
      let added = try client.send(#"{"op":"customer_add","name":"Dana \#(number)"}"#)
      #expect(added["ok"] == .bool(true))
    }
    let first = try daemon.cli(["customer", "find", "dana"])
    #expect(first.status == 0, "\(first.stderr)")
    let lines = first.stdout.split(separator: "\n")
    #expect(lines.count == 101, "\(first.stdout)")
    #expect(lines.first == "C1  Dana 1" && lines[99] == "C100  Dana 100")
    #expect(lines.last?.hasPrefix("(the first 100 of 105 matches;") == true, "\(first.stdout)")
    let few = try daemon.cli(["--json", "customer", "find", "dana", "--limit", "3"])
    #expect(few.status == 0, "\(few.stderr)")
    let reply = try #require(try JSONParser.parse(Array(few.stdout.utf8))["result"])
    #expect(
      reply["customers"]?.arrayValue?.compactMap { $0["customer_id"]?.stringValue }
        == ["C1", "C2", "C3"])
    #expect(reply["matches"] == .int(105))
    let all = try daemon.cli(["customer", "find", "dana", "--limit", "1000"])
    #expect(all.stdout.split(separator: "\n").count == 105 && !all.stdout.contains("matches"))
    let bad = try daemon.cli(["customer", "find", "dana", "--limit", "1001"])
    #expect(bad.status != 0 && bad.stderr.contains("bad_request"), "\(bad.stderr)")
    #expect(bad.stderr.contains("limit"), "\(bad.stderr)")
  }

  @Test("catalog shows a page of products and says how to see the next")
  func catalogPages() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let all = try #require(
      try daemon.connect().send(#"{"op":"catalog"}"#).result["products"]?.arrayValue?
        .compactMap { $0["sku"]?.stringValue })
    #expect(all.count > 4)
    let first = try daemon.cli(["catalog", "--limit", "2"])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains(all[0]) && first.stdout.contains(all[1]))
    #expect(!first.stdout.contains(all[2] + " "), "\(first.stdout)")
    #expect(
      first.stdout.contains(
        "(\(all.count - 2) more products; the next ones with --after \(all[1]))"),
      "\(first.stdout)")
    let next = try daemon.cli(["--json", "catalog", "--limit", "2", "--after", all[1]])
    #expect(next.status == 0, "\(next.stderr)")
    let page = try #require(try JSONParser.parse(Array(next.stdout.utf8))["result"])
    #expect(
      page["products"]?.arrayValue?.compactMap { $0["sku"]?.stringValue } == Array(all[2...3]))
    #expect(page["remaining"] == .int(Int64(all.count - 4)))
    let whole = try daemon.cli(["catalog"])
    #expect(!whole.stdout.contains("more products"), "\(whole.stdout)")
    let gone = try daemon.cli(["catalog", "--after", "NO-SUCH-SKU"])
    #expect(gone.status != 0 && gone.stderr.contains("unknown_sku"), "\(gone.stderr)")
  }
}
