import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

@Suite("A split-tender sale end to end", .serialized)
struct SaleEndToEndTests {
  @Test("register-cli rings up a sale, takes cash and card, and prints the exact receipt")
  func cliSale() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }

    let add1 = try daemon.cli(["add", "OXF-BLU-15", "2"])
    #expect(add1.status == 0, "\(add1.stderr)")
    #expect(add1.stdout.contains("Oxford Button-Down Shirt"))
    #expect(add1.stdout.contains("59.98"))
    let add2 = try daemon.cli(["add", "GIFT-25"])
    #expect(add2.status == 0)
    #expect(add2.stdout.contains("89.48"), "total after two lines: \(add2.stdout)")

    let cash = try daemon.cli(["tender", "cash", "50"])
    #expect(cash.status == 0, "\(cash.stderr)")
    #expect(cash.stdout.contains("Balance due"))
    #expect(cash.stdout.contains("39.48"))

    let card = try daemon.cli([
      "tender", "card", "4242 4242 4242 4242", "--exp", "12/30", "--cvv", "123",
    ])
    #expect(card.status == 0, "\(card.stderr)")
    // Worked by hand: 2 × 29.99 = 59.98 standard; tax 7.5 % of 59.98 = 4.4985 → 4.50; the gift
    // card 25.00 is not a sale (no tax, not in the subtotal or the item count); total 59.98 +
    // 4.50 + 25.00 = 89.48; cash 50.00 + card 39.48; no change. The card's number is drawn at
    // random: read it off the receipt, then check the whole text.
    let issued = card.stdout.split(separator: "\n").first { $0.hasPrefix("  600") }
    let number = try #require(issued.map { String($0.dropFirst(2).prefix(19)) })
    #expect(GiftCardNumber.isWellFormed(number.replacingOccurrences(of: " ", with: "")))
    let expected = """
              Lane & Thread Outfitters
                 120 Market Street
               Springfield, IL 62701
                   (217) 555-0142
      ========================================
      Receipt 1            2026-11-22 14:03:05
      Order 1                            Day 1
      ----------------------------------------
      2 x Oxford Button-Down Shirt       59.98
          @ 29.99 each
          sale, reg 39.99, save 20.00
      1 x Gift Card $25                  25.00
      ----------------------------------------
      Subtotal                           59.98
      Tax standard 7.5%                   4.50
      Gift cards (no tax)                25.00
      TOTAL                              89.48
      ----------------------------------------
      Cash                               50.00
      VISA ****4242                      39.48
      Change                              0.00
      ----------------------------------------
      Gift cards issued
        \(number)              25.00
      ----------------------------------------
      Items                                  2
      You saved                          20.00

          Thank you for shopping with us!

      """
    #expect(card.stdout.hasPrefix(expected), "receipt was:\n\(card.stdout)")
    #expect(card.stdout.contains("Sale complete. Receipt 1"))
    #expect(!card.stdout.contains("4242424242424242"))
    #expect(!card.stdout.contains("4242 4242 4242 4242"))

    // The sale is over: a new empty order is open and stock went down by two.
    let show = try daemon.cli(["--json", "show"])
    let order = try JSONParser.parse(show.stdout.trimmingCharacters(in: .newlines))
    #expect(order.result["order_id"] == .int(2))
    #expect(order.result["lines"] == .array([]))
    let catalog = try daemon.connect().send(#"{"op":"catalog"}"#)
    let oxford = catalog.result["products"]?.arrayValue?.first { $0["sku"] == "OXF-BLU-15" }
    #expect(oxford?["stock"] == .int(10))

    // The receipt can be printed again, marked as a reprint, with the same body.
    let reprint = try daemon.cli(["receipt", "1"])
    #expect(reprint.status == 0)
    #expect(reprint.stdout.contains("*** REPRINT ***"))
    #expect(
      reprint.stdout.replacingOccurrences(of: "            *** REPRINT ***\n", with: "") == expected
    )
  }

  @Test(
    "cash over the balance gives change; the JSON reply carries the receipt",
    arguments: Transport.allCases)
  func changeDue(_ transport: Transport) throws {
    try run(transport) { client in
      try client.ok(Requests.Add(sku: "TEE-WHT-M"))
      // 14.99 + 7.5 % (1.12425 → 1.12) = 16.11; 20.00 cash → 3.89 change.
      let reply = try client.send(
        Requests.Tender(.cash(amount: usd("20.00"))), envelope: RequestEnvelope(id: "t1"))
      #expect(reply.id == "t1")
      let sale = try #require(reply.result)
      #expect(sale["status"] == "completed")
      #expect(sale["total"] == "16.11")
      #expect(sale["change_due"] == "3.89")
      #expect(sale["receipt"]?["number"] == .int(1))
      #expect(sale["receipt"]?["receipt"]?["change"] == "3.89")
      let text = try #require(sale["receipt"]?["text"]?.stringValue)
      #expect(text.contains("Change                              3.89"))
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        #expect(line.count <= 40)
      }
    }
  }

  @Test(
    "two clients on the same register see each other's changes", arguments: Transport.allCases)
  func sharedOrder(_ transport: Transport) throws {
    try run(transport) { cashier in
      let display = try cashier.connect()
      try cashier.ok(Requests.Add(sku: "SNK-WHT-9"))
      let seen = try display.ok(Requests.Order())
      #expect(seen["lines"]?.arrayValue?.count == 1)
      #expect(seen["lines"]?.arrayValue?.first?["sku"] == "SNK-WHT-9")
      let second = try display.ok(Requests.Add(sku: "SOCK-3PK", quantity: 2))
      let back = try cashier.ok(Requests.Order())
      #expect(back["item_count"] == .int(3))
      #expect(back == second)
      // A sale completed by one client leaves the other looking at the new order.
      let paid = try cashier.ok(Requests.Tender(.cash(amount: usd("100"))))
      #expect(paid["status"] == "completed")
      let after = try display.ok(Requests.Order())
      #expect(after["order_id"] == .int(2))
      #expect(after["item_count"] == .int(0))
    }
  }

  @Test("batch mode drives a whole sale from standard input in one process")
  func batchSale() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let script = """
      # a scripted sale
      add TEE-BLK-L 2
      add PRINT-ART --option size=8x10 --option frame=black
      qty 1 3
      tender card 5555555555554444 --exp 01/31 --cvv 321 --amount 10.00
      tender cash 100
      """
    let result = try daemon.cli(["-"], stdin: script)
    #expect(result.status == 0, "\(result.stderr)")
    // 3 × 9.99 = 29.97 + 45.00 = 74.97; tax 7.5 % = 5.62275 → 5.62; total 80.59;
    // card 10.00, cash 100 against 70.59 → change 29.41.
    #expect(result.stdout.contains("TOTAL                              80.59"))
    #expect(result.stdout.contains("MASTERCARD ****4444                10.00"))
    #expect(result.stdout.contains("Change                             29.41"))
  }
}
