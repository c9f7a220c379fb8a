import Foundation
import RegisterEngine
import Testing

@Suite("Gift cards, store credit and store tenders end to end", .serialized)
struct TendersEndToEndTests {
  @Test(
    "a gift card sold, registerd restarted, the card pays through register-cli, the Z report shows it"
  )
  func giftCardAcrossARestart() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }

    #expect(try daemon.cli(["float", "100.00"]).status == 0)
    let add = try daemon.cli(["add", "GIFT-OPEN", "--amount", "60.00"])
    #expect(add.status == 0, "\(add.stderr)")
    let sold = try daemon.cli(["--json", "tender", "cash", "60.00"])
    #expect(sold.status == 0, "\(sold.stderr)")
    let reply = try JSONParser.parse(sold.stdout)
    let receipt = try #require(reply["result"]?["receipt"])
    let number = try #require(
      receipt["receipt"]?["gift_cards"]?.arrayValue?.first?["number"]?.stringValue)
    #expect(GiftCardNumber.isWellFormed(number))
    // Printed in full, in groups, on the receipt that issued it.
    let text = try #require(receipt["text"]?.stringValue)
    #expect(text.contains(GiftCardNumber.grouped(number)))
    #expect(text.contains("Gift cards issued"))

    #expect(daemon.stop() == 0)
    try daemon.start()

    let balance = try daemon.cli(["gift-card", "balance", number])
    #expect(balance.status == 0, "\(balance.stderr)")
    #expect(balance.stdout.contains("balance 60.00"), "\(balance.stdout)")

    // Jeans 59.00 + 4.43 tax = 63.43: the card pays 60.00 (its whole balance), cash the rest.
    #expect(try daemon.cli(["add", "JNS-SLM-3232"]).status == 0)
    let tooMuch = try daemon.cli(["tender", "gift-card", number, "--amount", "61.00"])
    #expect(tooMuch.status != 0)
    #expect(tooMuch.stderr.contains("insufficient_balance") || tooMuch.stderr.contains("60.00"))
    let paid = try daemon.cli(["tender", "gift-card", number])
    #expect(paid.status == 0, "\(paid.stderr)")
    #expect(paid.stdout.contains("3.43"), "balance due after the card: \(paid.stdout)")
    let rest = try daemon.cli(["tender", "cash", "3.43"])
    #expect(rest.status == 0, "\(rest.stderr)")
    #expect(rest.stdout.contains("Gift card ****\(number.suffix(4))"))

    let after = try daemon.cli(["gift-card", "balance", number])
    #expect(after.stdout.contains("balance 0.00"), "\(after.stdout)")

    #expect(daemon.stop() == 0)
    try daemon.start()

    let close = try daemon.cli(["--json", "close-day", "--counted-cash", "163.43"])
    #expect(close.status == 0, "\(close.stderr)")
    let z = try #require(try JSONParser.parse(close.stdout)["result"])
    let report = try #require(z["report"])
    #expect(report["gift_cards"]?["sold"]?["count"] == .int(1))
    #expect(report["gift_cards"]?["sold"]?["amount"] == "60.00")
    #expect(report["gift_cards"]?["redeemed"]?["amount"] == "60.00")
    // Sales are the jeans alone; the drawer holds the float and the cash only.
    #expect(report["gross"] == "59.00")
    #expect(report["total"] == "63.43")
    let tenders = try #require(report["tenders"]?.arrayValue)
    #expect(tenders.map { $0["type"] } == ["cash", "gift_card"])
    #expect(tenders.map { $0["amount"] } == ["63.43", "60.00"])
    #expect(report["drawer"]?["expected_cash"] == "163.43" || report["expected_cash"] == "163.43")
    let ztext = try #require(z["text"]?.stringValue)
    #expect(ztext.contains("Gift cards sold (1)"))
    #expect(ztext.contains("Gift cards redeemed (1)"))
  }

  @Test(
    "a gift card's number reaches a subscriber, live or caught up, only as its last four digits"
  )
  func giftCardNumbersAreMaskedForSubscribers() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let listener = try daemon.connect()
    #expect(try listener.send(#"{"op":"subscribe"}"#).result["subscribed"] == .bool(true))

    let sold = try daemon.cli(["--json", "add", "GIFT-25"])
    #expect(sold.status == 0, "\(sold.stderr)")
    let paid = try daemon.cli(["--json", "tender", "cash", "25.00"])
    #expect(paid.status == 0, "\(paid.stderr)")
    let number = try #require(
      try JSONParser.parse(paid.stdout).result["receipt"]?["receipt"]?["gift_cards"]?
        .arrayValue?.first?["number"]?.stringValue)
    #expect(GiftCardNumber.isWellFormed(number))
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    let tendered = try daemon.cli(["--json", "tender", "gift-card", number, "--amount", "2.00"])
    #expect(tendered.status == 0, "\(tendered.stderr)")
    #expect(!tendered.stdout.contains(number), "\(tendered.stdout)")
    let balance = try daemon.cli(["gift-card", "balance", number])
    #expect(balance.stdout.contains("Gift card ****\(number.suffix(4)): balance 23.00"))
    #expect(!balance.stdout.contains(number), "\(balance.stdout)")
    #expect(try daemon.cli(["void"]).status == 0)

    // Live: the sale that issued the card, the tender, the void that gave the balance back.
    var live: [JSONValue] = []
    while live.last?["event"] != "order_voided" { live.append(try listener.read()) }
    // Caught up from the journal by a listener that connects afterwards.
    let late = try daemon.connect()
    let subscribed = try late.send(#"{"op":"subscribe","after":0}"#)
    #expect(subscribed["ok"] == .bool(true), "\(subscribed.serialized)")
    var caughtUp: [JSONValue] = []
    while caughtUp.last?["event"] != "order_voided" { caughtUp.append(try late.read()) }
    for (name, lines) in [("live", live), ("caught up", caughtUp)] {
      let types = Set(lines.compactMap { $0["event"]?.stringValue })
      #expect(types.isSuperset(of: ["sale_completed", "tender_added", "order_voided"]), "\(name)")
      for line in lines {
        #expect(!line.serialized.contains(number), "\(name): \(line.serialized)")
      }
      let sale = lines.first { $0["event"] == "sale_completed" }
      #expect(
        sale?["data"]?["gift_cards"]?.arrayValue?.first?["number"]
          == .string("****\(number.suffix(4))"), "\(name)")
    }

    // The journal keeps the number: it is how the card is redeemed after a restart.
    let segments = daemon.dataDirectory + "/journal"
    let journal = try FileManager.default.contentsOfDirectory(atPath: segments).map {
      try String(contentsOfFile: segments + "/" + $0, encoding: .utf8)
    }.joined()
    #expect(journal.contains(number))
  }

  @Test("store credit from a return pays a later sale; a store tender and a terminal payment")
  func storeCreditAndOtherTenders() throws {
    // Data/products.json's store takes checks and vouchers (store setting "tenders").
    let catalog = try String(
      contentsOfFile: Binaries.repository.appendingPathComponent("Data/products.json").path,
      encoding: .utf8)
    #expect(catalog.contains(#""tenders": ["check", "voucher"]"#))
    let daemon = try Daemon()
    defer { daemon.cleanup() }

    #expect(try daemon.cli(["customer", "add", "Dana Ortiz"]).status == 0)
    #expect(try daemon.cli(["customer", "attach", "C1"]).status == 0)
    #expect(try daemon.cli(["add", "JNS-SLM-3232"]).status == 0)
    let check = try daemon.cli(["tender", "other", "check", "63.43", "--reference", "1042"])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(check.stdout.contains("Check #1042"))
    let refund = try daemon.cli(["return", "1", "1", "--reason", "size", "--to-store-credit"])
    #expect(refund.status == 0, "\(refund.stderr)")
    let found = try daemon.cli(["--json", "customer", "find", "C1"])
    #expect(found.stdout.contains(#""store_credit":"63.43""#), "\(found.stdout)")

    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    let credit = try daemon.cli(["tender", "store-credit", "C1", "--amount", "10.00"])
    #expect(credit.status == 0, "\(credit.stderr)")
    let terminal = try daemon.cli([
      "tender", "card-present", "6.11", "--brand", "VISA", "--last4", "4242", "--auth", "A7Q9",
    ])
    #expect(terminal.status == 0, "\(terminal.stderr)")
    #expect(terminal.stdout.contains("VISA ****4242 (terminal A7Q9)"))
    let x = try JSONParser.parse(try daemon.cli(["--json", "report"]).stdout)
    let types = x["result"]?["report"]?["tenders"]?.arrayValue?.map { $0["type"] }
    #expect(types == ["check", "store_credit", "card_present VISA"])
  }
}
