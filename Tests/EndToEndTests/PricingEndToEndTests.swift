import Foundation
import RegisterEngine
import RegisterTestSupport
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

  @Test(
    "refusals: too big a discount, bad options, changes after payment started",
    arguments: Transport.allCases)
  func refusals(_ transport: Transport) throws {
    try run(transport) { client in
      try client.ok(Requests.Add(sku: "CAP-BSB"))
      let before = try client.send(Requests.Order(), envelope: RequestEnvelope(id: "order"))
      /// Each refusal leaves the order as it was.
      func unchanged(_ what: String) throws {
        let now = try client.send(Requests.Order(), envelope: RequestEnvelope(id: "order"))
        #expect(now == before, "\(what) changed the order")
      }
      let typed: [(any RequestBody, ErrorCode)] = [
        (Requests.Discount(line: 1, value: .amount(usd("22.01")), reason: "x"), .invalidDiscount),
        (
          Requests.Discount(line: 1, value: .percent(percent("101")), reason: "x"), .invalidDiscount
        ),
        (Requests.Discount(value: .amount(usd("30.00")), reason: "x"), .invalidDiscount),
        (Requests.Discount(line: 9, value: .percent(percent("10")), reason: "x"), .lineNotFound),
        (Requests.OverridePrice(line: 1, unitPrice: usd("-1"), reason: "x"), .invalidAmount),
        (Requests.Add(sku: "PRINT-ART"), .invalidOption),
        (Requests.Add(sku: "PRINT-ART", options: ["size": "8x10"]), .invalidOption),
        (Requests.Add(sku: "PRINT-ART", options: ["size": "9x9", "frame": "oak"]), .invalidOption),
        (Requests.Add(sku: "CAP-BSB", options: ["size": "L"]), .invalidOption),
      ]
      for (request, code) in typed {
        try client.refused(request, code)
        try unchanged("\(request)")
      }
      // What no typed request can say: a discount without its reason, or with both a
      // percentage and an amount.
      for line in [
        #"{"op":"discount","line":1,"percent":"10"}"#,
        #"{"op":"discount","line":1,"percent":"10","amount":"1","reason":"x"}"#,
      ] {
        try client.refused(line: line, .badRequest)
        try unchanged(line)
      }
      try client.ok(Requests.Tender(.cash(amount: usd("5"))))
      try client.refused(
        Requests.Discount(line: 1, value: .percent(percent("50")), reason: "x"), .orderHasTenders)
    }
  }

  @Test(
    "a tax-inclusive store with per-line rounding and cash rounding to 0.05",
    arguments: Transport.allCases)
  func inclusiveAndCashRounding(_ transport: Transport) throws {
    try run(transport, catalog: inclusiveCatalog) { client in
      try client.ok(Requests.Add(sku: "SHIRT", quantity: 2))
      let order = try client.ok(Requests.Add(sku: "BOOK"))
      // 2 × 19.99 = 39.98 incl. 20 %: 39.98 × 20 / 120 = 6.6633 → 6.66; 7.49 incl. 5.5 %:
      // 7.49 × 5.5 / 105.5 = 0.3905 → 0.39. Total = gross = 47.47; in cash 47.45.
      #expect(order["total"] == "47.47")
      #expect(order["tax"] == "7.05")
      #expect(order["tax_included"] == .bool(true))
      #expect(order["cash_due"] == "47.45")
      // The card is never rounded; the cash rest of 37.48 rounds up to 37.50.
      let card = try client.ok(
        Requests.Tender(.card(visaCard, amount: euros("9.99"))))
      #expect(card["balance_due"] == "37.48")
      #expect(card["cash_due"] == "37.50")
      // Exactly the unrounded balance in cash would leave nothing due yet the sale unsettled.
      try client.refused(Requests.Tender(.cash(amount: euros("37.48"))), .invalidAmount)
      let done = try client.ok(Requests.Tender(.cash(amount: euros("40.00"))))
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
      let report = try client.ok(Requests.Report(kind: .x))["report"]
      #expect(report?["cash_rounding"] == "0.02")
      return text
    } afterwards: { daemon, text in
      daemon.stop()
      let replay = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "1"])
      #expect(replay.stdout == text, "replay is byte for byte the receipt printed at sale time")
    }
  }
}

/// An amount in euros from its decimal text, "20.00".
private func euros(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Money {
  do {
    let euro = try #require(Currency(code: "EUR"), sourceLocation: sourceLocation)
    return try Money.parse(text, currency: euro)
  } catch {
    Issue.record("\(text) is no amount in euros: \(error)", sourceLocation: sourceLocation)
    return .zero(.usd)
  }
}
