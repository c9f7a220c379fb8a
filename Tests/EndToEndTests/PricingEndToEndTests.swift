import Foundation
import RegisterEngine
import Testing

/// A euro store: prices include tax, tax rounded per line, cash rounded to 0.05.
let inclusiveCatalog = """
  {"store": {"name": "Euro Shop", "address": ["1 Rue du Port"], "currency": "EUR",
             "tax": {"classes": {"standard": "20", "reduced": "5.5"}, "default_class": "standard",
                     "rounding": "per_line", "prices_include_tax": true},
             "cash_rounding": "0.05"},
   "products": [
     {"sku": "SHIRT", "name": "Shirt", "description": "", "category": "Tops", "price": "19.99"},
     {"sku": "BOOK", "name": "Book", "description": "", "category": "Books", "price": "7.49",
      "tax_class": "reduced"}]}
  """

@Suite("Pricing and tax through the CLI and the protocol", .serialized)
struct PricingEndToEndTests {
  @Test("discounts, an override and options through register-cli, on the receipt and the X report")
  func discountsAndOverrides() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    for command in [
      ["add", "OXF-BLU-15", "2"], ["add", "GIFT-25"],
      ["add", "PRINT-ART", "--option", "size=11x14", "--option", "frame=oak"],
      ["discount", "1", "--percent", "10", "--reason", "loyalty"],
      ["override", "3", "50.00", "--reason", "price match"],
      ["discount", "--amount", "5", "--reason", "coupon"],
    ] {
      let result = try daemon.cli(command)
      #expect(result.status == 0, "\(command): \(result.stderr)")
    }
    // Lines: 2 × 29.99 = 59.98 − 10 % (6.00) = 53.98; print 35 + 12 + 15 = 62.00 overridden to
    // 50.00; the gift card 25.00 is not merchandise (no discount share, no tax). Order discount
    // 5.00 over nets 53.98 / 50.00 (103.98): 2.5957 → 2.59, 2.4043 → 2.40, the cent left goes
    // to the larger remainder (shirts .57): 2.60 / 2.40. Standard base 51.38 + 47.60 = 98.98,
    // tax 7.4235 → 7.42. Total 109.98 − 6.00 − 5.00 + 7.42 + 25.00 (gift card) = 131.40.
    let paid = try daemon.cli(["tender", "cash", "200"])
    #expect(paid.status == 0)
    for fragment in [
      "    discount 10% (loyalty)         -6.00",
      "1 x Fine Art Photo Print           50.00",
      "    size: 11x14 (+12.00)",
      "    frame: oak (+15.00)",
      "    price override, was 62.00 (price",
      "Line discounts                     -6.00",
      "Order discount 5.00 (coupon)       -5.00",
      "Tax standard 7.5%                   7.42",
      "Gift cards (no tax)                25.00",
      "TOTAL                             131.40",
      "Change                             68.60",
    ] {
      #expect(paid.stdout.contains(fragment), "missing \(fragment) in\n\(paid.stdout)")
    }
    let report = try daemon.connect().send(#"{"op":"report"}"#).result["report"]
    #expect(report?["line_discounts"] == "6.00")
    #expect(report?["order_discounts"] == "5.00")
    #expect(report?["price_overrides"]?["count"] == .int(1))
    #expect(report?["price_overrides"]?["reduction"] == "12.00")
  }

  @Test("refusals: too big a discount, bad options, changes after payment started")
  func refusals() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB"}"#).isOK)
    let cases: [(String, String)] = [
      (#"{"op":"discount","line":1,"amount":"22.01","reason":"x"}"#, "invalid_discount"),
      (#"{"op":"discount","line":1,"percent":"101","reason":"x"}"#, "invalid_discount"),
      (#"{"op":"discount","amount":"30.00","reason":"x"}"#, "invalid_discount"),
      (#"{"op":"discount","line":1,"percent":"10"}"#, "bad_request"),
      (#"{"op":"discount","line":1,"percent":"10","amount":"1","reason":"x"}"#, "bad_request"),
      (#"{"op":"discount","line":9,"percent":"10","reason":"x"}"#, "line_not_found"),
      (#"{"op":"override_price","line":1,"unit_price":"-1","reason":"x"}"#, "invalid_amount"),
      (#"{"op":"add","sku":"PRINT-ART"}"#, "invalid_option"),
      (#"{"op":"add","sku":"PRINT-ART","options":{"size":"8x10"}}"#, "invalid_option"),
      (#"{"op":"add","sku":"PRINT-ART","options":{"size":"9x9","frame":"oak"}}"#, "invalid_option"),
      (#"{"op":"add","sku":"CAP-BSB","options":{"size":"L"}}"#, "invalid_option"),
    ]
    let before = try client.send(#"{"op":"order"}"#)
    for (line, code) in cases {
      #expect(try client.send(line).errorCode == code, "\(line)")
      #expect(try client.send(#"{"op":"order"}"#) == before, "\(line) changed the order")
    }
    #expect(try client.send(#"{"op":"tender","type":"cash","amount":"5"}"#).isOK)
    let late = try client.send(#"{"op":"discount","line":1,"percent":"50","reason":"x"}"#)
    #expect(late.errorCode == "order_has_tenders")
  }

  @Test("a tax-inclusive store with per-line rounding and cash rounding to 0.05")
  func inclusiveAndCashRounding() throws {
    let daemon = try Daemon(catalog: inclusiveCatalog)
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"SHIRT","qty":2}"#).isOK)
    let order = try client.send(#"{"op":"add","sku":"BOOK"}"#).result
    // 2 × 19.99 = 39.98 incl. 20 %: 39.98 × 20 / 120 = 6.6633 → 6.66; 7.49 incl. 5.5 %:
    // 7.49 × 5.5 / 105.5 = 0.3905 → 0.39. Total = gross = 47.47; in cash 47.45.
    #expect(order["total"] == "47.47")
    #expect(order["tax"] == "7.05")
    #expect(order["tax_included"] == .bool(true))
    #expect(order["cash_due"] == "47.45")
    // The card is never rounded; the cash rest of 37.48 rounds up to 37.50.
    let card = try client.send(
      #"{"op":"tender","type":"card","amount":"9.99","card":\#(visa)}"#
    ).result
    #expect(card["balance_due"] == "37.48")
    #expect(card["cash_due"] == "37.50")
    // Exactly the unrounded balance in cash would leave nothing due yet the sale unsettled.
    let between = try client.send(#"{"op":"tender","type":"cash","amount":"37.48"}"#)
    #expect(between.errorCode == "invalid_amount")
    let done = try client.send(#"{"op":"tender","type":"cash","amount":"40.00"}"#).result
    #expect(done["status"] == "completed")
    #expect(done["cash_rounding"] == "0.02")
    #expect(done["change_due"] == "2.50")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    for fragment in [
      "TOTAL                              47.47", "  incl. tax standard 20%            6.66",
      "  incl. tax reduced 5.5%            0.39", "Cash rounding                       0.02",
      "Amount due                         47.49", "VISA ****4242                       9.99",
      "Change                              2.50",
    ] {
      #expect(text.contains(fragment), "missing \(fragment) in\n\(text)")
    }
    let report = try client.send(#"{"op":"report"}"#).result["report"]
    #expect(report?["cash_rounding"] == "0.02")
    daemon.stop()
    let replay = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "1"])
    #expect(replay.stdout == text, "replay is byte for byte the receipt printed at sale time")
  }
}
