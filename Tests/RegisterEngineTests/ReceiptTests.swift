import RegisterServer
import Testing

@testable import RegisterEngine

/// Rings up 2 × T-shirt (sale 15.00, regular 20.00) and a 25.00 gift card, pays 30.00 by
/// Visa and 30.00 cash, and returns the lane and the completed sale.
private func completedSale() throws -> (TestLane, CompletedSale) {
  let lane = try TestLane()
  try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
  try lane.ok(Requests.Add(sku: "GIFT"))
  try lane.ok(Requests.Tender(.card(testCard(), amount: usd("30.00"))))
  let done = try lane.ok(Requests.Tender(.cash(amount: usd("30.00"))))
  #expect(done["status"] == "completed")
  return (lane, try #require(lane.register.receipts[1]))
}

@Suite struct ReceiptTests {
  // Worked by hand, 40 columns:
  //   T-shirts 2 × 15.00 = 30.00 (regular 20.00: saved 10.00); gift card 25.00.
  //   Subtotal 55.00; tax standard 30.00 × 7.5 % = 2.25; exempt 0.00; total 57.25.
  //   Visa 30.00 leaves 27.25; cash 30.00 → change 2.75.
  //   Centred lines get (40 − length) / 2 leading spaces and no trailing ones; amounts are
  //   right-aligned to column 40.
  private static let expected = """
                   Test Lane
                   1 Main St
                  Springfield
    ========================================
    Receipt 1            2026-03-15 14:03:05
    Order 1                            Day 1
    ----------------------------------------
    2 x T-Shirt                        30.00
        @ 15.00 each
        sale, reg 20.00, save 10.00
    1 x Gift Card                      25.00
    ----------------------------------------
    Subtotal                           55.00
    Tax standard 7.5%                   2.25
    Tax exempt 0%                       0.00
    TOTAL                              57.25
    ----------------------------------------
    VISA ****4242                      30.00
    Cash                               30.00
    Change                              2.75
    ----------------------------------------
    Items                                  3
    You saved                          10.00

                   Thank you!

    """

  @Test func wholeText() throws {
    let (_, sale) = try completedSale()
    let text = ReceiptRenderer.text(sale)
    #expect(text == Self.expected)
  }

  @Test func everyLineFitsTheWidth() throws {
    let (_, sale) = try completedSale()
    #expect(sale.header.width == 40)
    for reprint in [false, true] {
      let text = ReceiptRenderer.text(sale, reprint: reprint)
      #expect(text.hasSuffix("\n"))
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        #expect(line.count <= 40, "\(line)")
        #expect(!line.hasSuffix(" "), "trailing space in \"\(line)\"")
      }
    }
  }

  @Test func printsTendersAndChange() throws {
    let (_, sale) = try completedSale()
    let text = ReceiptRenderer.text(sale)
    #expect(text.contains("VISA ****4242"))
    #expect(text.contains("Change"))
    #expect(text.contains("2.75"))
    #expect(!text.contains("4242424242424242"))
  }

  @Test func reprintBannerOnlyWhenAsked() throws {
    let (_, sale) = try completedSale()
    let original = ReceiptRenderer.text(sale)
    let reprint = ReceiptRenderer.text(sale, reprint: true)
    #expect(!original.contains("REPRINT"))
    #expect(reprint.contains("REPRINT"))
    // The reprint is the original with one centred banner after the store header.
    var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines.insert("            *** REPRINT ***", at: 3)
    #expect(reprint == lines.joined(separator: "\n"))
  }

  @Test func replyCarriesTheSameText() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("30.00"))))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("30.00"))))
    #expect(done["receipt"]?["text"] == .string(Self.expected))
    let reprint = try lane.ok(Requests.Receipt(number: 1))
    let sale = try #require(lane.register.receipts[1])
    #expect(reprint["text"] == .string(ReceiptRenderer.text(sale, reprint: true)))
  }

  @Test func receiptJSON() throws {
    let (_, sale) = try completedSale()
    let json = sale.receiptJSON()
    #expect(json["number"] == .int(1))
    #expect(json["at"] == "2026-03-15T14:03:05.000-05:00")
    #expect(json["store"]?["name"] == "Test Lane")
    #expect(json["item_count"] == .int(3))
    #expect(json["subtotal"] == "55.00")
    #expect(json["tax"] == "2.25")
    #expect(json["total"] == "57.25")
    #expect(json["paid"] == "60.00")
    #expect(json["change"] == "2.75")
    #expect(json["savings"] == "10.00")
    #expect(json["reprint"] == nil)
    #expect(sale.receiptJSON(reprint: true)["reprint"] == .bool(true))
    let tenders = try #require(json["tenders"]?.arrayValue)
    #expect(tenders.map { $0["type"] } == ["card", "cash"])
    #expect(tenders.first?["card"] == .object(["brand": "VISA", "last4": "4242"]))
    let lines = try #require(json["lines"]?.arrayValue)
    #expect(lines.map { $0["amount"] } == ["30.00", "25.00"])
  }

  @Test(arguments: [32, 40, 57, 80])
  func longTextWrapsWithinTheWidth(width: Int) throws {
    let usd = Currency.usd
    let store = StoreSettings(
      name: "The Extraordinarily Long-Named Emporium of Fine Clothing and Photography",
      address: ["Suite 1200, 4500 International Boulevard Northwest", "Springfield"],
      phone: "(217) 555-0142", currency: usd,
      tax: TaxSettings(
        classes: [("standard-with-long-name", Percent(millionths: 8_875_000))],
        defaultClass: "standard-with-long-name"),
      receiptWidth: width,
      receiptFooter: "Thank you for shopping with us; returns within thirty days with receipt")
    let products = [
      Product(
        sku: "LONG", name: String(repeating: "Supercalifragilistic ", count: 3) + "Coat",
        category: "Outerwear", price: Money(minorUnits: 123_456_789, currency: usd),
        salePrice: Money(minorUnits: 99_999_999, currency: usd)),
      Product(
        sku: "WORD", name: String(repeating: "X", count: 80), category: "Misc",
        price: Money(minorUnits: 1, currency: usd)),
    ]
    let clock = ManualClock(testTime)
    let service = RegisterService(
      register: Register(catalog: Catalog(store: store, products: products), at: testTime),
      clock: clock)
    for request in [
      #"{"op":"add","sku":"LONG","qty":9999}"#, #"{"op":"add","sku":"WORD","qty":2}"#,
      #"{"op":"tender","type":"card","amount":"1.00","card":\#(cardJSON())}"#,
      #"{"op":"tender","type":"cash","amount":"99999999999.99"}"#,
    ] {
      let reply = try JSONParser.parse(service.handle(line: request))
      #expect(reply["ok"] == .bool(true), "\(reply.serialized)")
    }
    let sale = try #require(service.register.receipts[1])
    let text = ReceiptRenderer.text(sale, reprint: true)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      #expect(line.count <= width, "\(line.count) > \(width): \(line)")
    }
    #expect(text.contains("VISA ****4242"))
    #expect(text.contains("Change"))
    #expect(text.contains("TOTAL"))
  }
}
