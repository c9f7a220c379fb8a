import Foundation
import RegisterEngine
import Testing

/// A catalog with promotions: tees 3 for 30.00, any belt and cap for 18.00.
private let promotionCatalog = """
  {
    "store": {
      "name": "Promo Lane", "address": [], "currency": "USD",
      "tax": {"classes": {"standard": "7.5"}, "default_class": "standard"}
    },
    "products": [
      {"sku": "TEE", "name": "T-Shirt", "description": "", "category": "Tops", "price": "12.00"},
      {"sku": "BELT", "name": "Belt", "description": "", "category": "Accessories",
       "price": "15.00"},
      {"sku": "CAP", "name": "Cap", "description": "", "category": "Accessories",
       "price": "13.00"}
    ],
    "promotions": [
      {"id": "TEES-3-FOR-30", "name": "Tees 3 for 30.00", "kind": "quantity_price",
       "sku": "TEE", "quantity": 3, "price": "30.00"},
      {"id": "ACC-ANY-2", "name": "Any 2 accessories 18.00", "kind": "mix_match",
       "category": "Accessories", "quantity": 2, "price": "18.00"}
    ]
  }
  """

/// `left` and `right` on one 40-column receipt line.
private func row(_ left: String, _ right: String) -> String {
  left + String(repeating: " ", count: 40 - left.count - right.count) + right
}

@Suite("Promotions end to end", .serialized)
struct PromotionsEndToEndTests {
  @Test(
    "promotions apply as lines are added, print on the receipt, survive a restart, refund on return, show on the Z report"
  )
  func promotionalSaleAcrossRestarts() throws {
    let daemon = try Daemon(catalog: promotionCatalog)
    defer { daemon.cleanup() }

    #expect(try daemon.cli(["add", "TEE", "4"]).status == 0)
    #expect(try daemon.cli(["add", "BELT"]).status == 0)
    let cap = try daemon.cli(["add", "CAP"])
    #expect(cap.status == 0, "\(cap.stderr)")
    // The order as the cashier sees it: each promotion with what it saves.
    #expect(cap.stdout.contains("Tees 3 for 30.00"), "\(cap.stdout)")
    #expect(cap.stdout.contains("-6.00"))
    #expect(cap.stdout.contains("Any 2 accessories 18.00"))
    #expect(cap.stdout.contains("-10.00"))
    #expect(cap.stdout.contains("promotion -5.36"), "the belt's share: \(cap.stdout)")
    let catalog = try daemon.cli(["catalog"])
    #expect(catalog.stdout.contains("Promotions (applied by the register)"), "\(catalog.stdout)")
    #expect(catalog.stdout.contains("ACC-ANY-2        Any 2 accessories 18.00"))
    let order = try JSONParser.parse(try daemon.cli(["--json", "order"]).stdout)
    #expect(order["result"]?["total"] == "64.50")
    #expect(order["result"]?["promotion_savings"] == "16.00")

    let sold = try daemon.cli(["--json", "tender", "cash", "100.00"])
    #expect(sold.status == 0, "\(sold.stderr)")
    let text = try #require(
      try JSONParser.parse(sold.stdout)["result"]?["receipt"]?["text"]?.stringValue)
    #expect(text.contains(row("Tees 3 for 30.00", "-6.00")), "\(text)")
    #expect(text.contains(row("Any 2 accessories 18.00", "-10.00")))
    #expect(text.contains(row("You saved", "16.00")))
    #expect(text.contains(row("TOTAL", "64.50")))

    // Restarted (the journal replayed): the same receipt, byte for byte.
    #expect(daemon.stop() == 0)
    try daemon.start()
    let reprint = try JSONParser.parse(try daemon.cli(["--json", "receipt", "1"]).stdout)
    let reprinted = try #require(reprint["result"]?["text"]?.stringValue)
    #expect(reprinted.contains(row("Any 2 accessories 18.00", "-10.00")))
    #expect(reprinted.contains(row("You saved", "16.00")))

    // The cap back: the belt kept costs 15.00 + 1.12; 3.23 of what was paid comes back.
    let refund = try daemon.cli(["--json", "return", "1", "3", "--reason", "gift"])
    #expect(refund.status == 0, "\(refund.stderr)")
    let returned = try JSONParser.parse(refund.stdout)["result"]?["receipt"]
    #expect(returned?["total"] == "3.23", "\(refund.stdout)")

    #expect(daemon.stop() == 0)
    try daemon.start()
    let close = try daemon.cli(["--json", "close-day", "--counted-cash", "61.27"])
    #expect(close.status == 0, "\(close.stderr)")
    let z = try #require(try JSONParser.parse(close.stdout)["result"])
    #expect(z["report"]?["promotion_discounts"] == "16.00")
    #expect(z["report"]?["net_sales"] == "60.00")
    let ztext = try #require(z["text"]?.stringValue)
    #expect(ztext.contains(row("Promotions", "-16.00")), "\(ztext)")
    #expect(ztext.contains(row("  ACC-ANY-2 (1)", "-10.00")))

    // The promotion dropped from the file and SIGHUP: journaled, so a belt and a cap are
    // full price now and after a restart.
    var edited = promotionCatalog
    if let start = edited.range(of: #",\#n    {"id": "ACC-ANY-2""#),
      let end = edited.range(of: #""price": "18.00"}"#)
    {
      edited.removeSubrange(start.lowerBound..<end.upperBound)
    }
    #expect(!edited.contains("ACC-ANY-2"))
    try edited.write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    let imports = daemon.log.components(separatedBy: "imported the changes").count - 1
    kill(daemon.process.processIdentifier, SIGHUP)
    func promotionCount() throws -> Int {
      let reply = try JSONParser.parse(try daemon.cli(["--json", "catalog"]).stdout)
      return reply["result"]?["promotions"]?.arrayValue?.count ?? 0
    }
    #expect(daemon.waitForLog("imported the changes", count: imports + 1), "\(daemon.log)")
    #expect(try promotionCount() == 1)
    #expect(try daemon.cli(["add", "BELT"]).status == 0)
    let full = try JSONParser.parse(try daemon.cli(["--json", "add", "CAP"]).stdout)
    #expect(full["result"]?["promotions"] == nil, "\(daemon.log)")
    #expect(full["result"]?["subtotal"] == "28.00")
    #expect(daemon.stop() == 0)
    try daemon.start()
    let after = try JSONParser.parse(try daemon.cli(["--json", "order"]).stdout)
    #expect(after["result"]?["promotions"] == nil)
    #expect(after["result"]?["total"] == "30.10")
  }

  @Test("registerd --check names a bad promotion and its field; a good file counts them")
  func checkNamesABadPromotion() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let good = directory.path("good.json")
    try promotionCatalog.write(toFile: good, atomically: true, encoding: .utf8)
    let checked = try runProgram(Binaries.registerd, ["--check", "--catalog", good])
    #expect(checked.status == 0, "\(checked.stderr)")
    #expect(checked.stdout.contains("(3 products, 2 promotions)"), "\(checked.stdout)")

    let bad = directory.path("bad.json")
    try promotionCatalog.replacingOccurrences(of: #""quantity": 3"#, with: #""quantity": 0"#)
      .write(toFile: bad, atomically: true, encoding: .utf8)
    let refused = try runProgram(Binaries.registerd, ["--check", "--catalog", bad])
    #expect(refused.status == 1)
    #expect(
      refused.stderr.contains(
        #"promotion "TEES-3-FOR-30" (promotions[0]): field "quantity": must be from 1 to 100, got 0"#
      ), "\(refused.stderr)")
  }
}

@Suite("A catalog change never reprices a payment under way", .serialized)
struct RepricingEndToEndTests {
  /// The promotion catalog without the belt-and-cap deal.
  static var withoutAccessoryDeal: String {
    var edited = promotionCatalog
    if let start = edited.range(of: #",\#n    {"id": "ACC-ANY-2""#),
      let end = edited.range(of: #""price": "18.00"}"#)
    {
      edited.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return edited
  }

  /// Waits up to ten seconds for the daemon's log to hold `text` `count` times.

  @Test(
    "SIGHUP and a restart with a cheaper catalog leave a part-paid order as it is; the import follows its sale"
  )
  func importWaitsForThePaymentUnderWay() throws {
    #expect(!Self.withoutAccessoryDeal.contains("ACC-ANY-2"))
    let daemon = try Daemon(catalog: Self.withoutAccessoryDeal)
    defer { daemon.cleanup() }
    func order() throws -> JSONValue? {
      try JSONParser.parse(try daemon.cli(["--json", "order"]).stdout)["result"]
    }
    func promotionIDs() throws -> [String] {
      let reply = try JSONParser.parse(try daemon.cli(["--json", "catalog"]).stdout)
      return (reply["result"]?["promotions"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }
    #expect(try daemon.cli(["add", "BELT"]).status == 0)
    #expect(try daemon.cli(["add", "CAP"]).status == 0)
    #expect(try order()?["total"] == "30.10")
    #expect(try daemon.cli(["tender", "cash", "20.00"]).status == 0)

    // The deal arrives while the customer is paying: belt and cap would cost 19.35 now.
    try promotionCatalog.write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    kill(daemon.process.processIdentifier, SIGHUP)
    let waiting = "wait for order 1, which payment has started on"
    #expect(daemon.waitForLog("SIGHUP: the changes in"), "\(daemon.log)")
    #expect(daemon.log.contains(waiting), "\(daemon.log)")
    #expect(try order()?["total"] == "30.10")
    #expect(try order()?["paid"] == "20.00")
    #expect(try !promotionIDs().contains("ACC-ANY-2"))

    // A restart in the middle of it: the start-up import waits the same way.
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(daemon.waitForLog("start-up: the changes in"), "\(daemon.log)")
    #expect(try order()?["total"] == "30.10")
    #expect(try !promotionIDs().contains("ACC-ANY-2"))

    // The rest paid: the sale is what payment started on, and the import follows it.
    let paid = try daemon.cli(["--json", "tender", "cash", "10.10"])
    #expect(paid.status == 0, "\(paid.stderr)")
    let sale = try JSONParser.parse(paid.stdout)["result"]?["receipt"]?["receipt"]
    #expect(sale?["total"] == "30.10", "\(paid.stdout)")
    #expect(daemon.waitForLog("(it had waited for the order being paid to be finished)"))
    #expect(try promotionIDs().contains("ACC-ANY-2"))
    #expect(try daemon.cli(["add", "BELT"]).status == 0)
    #expect(try daemon.cli(["add", "CAP"]).status == 0)
    #expect(try order()?["total"] == "19.35")

    // Journaled: after a restart the deal stands and nothing waits.
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(try promotionIDs().contains("ACC-ANY-2"))
    #expect(try order()?["total"] == "19.35")
    #expect(daemon.log.components(separatedBy: "which payment has started on").count - 1 == 2)
  }
}

@Suite("A register's currency is fixed once it holds amounts", .serialized)
struct CurrencyChangeEndToEndTests {
  @Test("SIGHUP with another currency keeps the catalog; a restart with it is refused and says why")
  func currencyChangeRefused() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    let original = try String(contentsOfFile: daemon.catalogPath, encoding: .utf8)
    #expect(original.contains(#""currency": "USD""#))
    try original.replacingOccurrences(of: #""currency": "USD""#, with: #""currency": "EUR""#)
      .write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)

    kill(daemon.process.processIdentifier, SIGHUP)
    #expect(daemon.waitForLog("SIGHUP: not reloading"), "\(daemon.log)")
    #expect(
      daemon.log.contains("SIGHUP: not reloading, keeping the current catalog"), "\(daemon.log)")
    #expect(daemon.log.contains("it cannot become EUR"))
    let report = try JSONParser.parse(try daemon.cli(["--json", "report"]).stdout)
    #expect(report["result"]?["report"]?["currency"] == "USD", "\(report)")
    // `registerd --check` (run by `systemctl reload` first) says so before any SIGHUP.
    let check = [
      "--check", "--catalog", daemon.catalogPath, "--data-dir", daemon.dataDirectory,
    ]
    let checked = try runProgram(Binaries.registerd, check)
    #expect(checked.status == 1)
    #expect(checked.stderr.contains("it cannot become EUR"), "\(checked.stderr)")

    #expect(daemon.stop() == 0)
    #expect(throws: HarnessError.self) { try daemon.start() }
    #expect(
      daemon.log.contains("cannot start: \(daemon.catalogPath): the store's currency is USD"),
      "\(daemon.log)")
    // The file put right: the check passes, it starts, and the sale is as it was.
    try original.write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    let passed = try runProgram(Binaries.registerd, check)
    #expect(passed.status == 0, "\(passed.stderr)")
    try daemon.start()
    let after = try JSONParser.parse(try daemon.cli(["--json", "report"]).stdout)
    #expect(after["result"]?["report"]?["total"] == "32.24", "\(after)")
  }
}
