import RegisterServer
import Testing

@testable import RegisterEngine

/// What a customer and a cashier read on a receipt and in the order: no empty item counts on a
/// gift-card sale, every saving in "You saved", the attached customer by name, card networks
/// named as people name them.
@Suite struct ReceiptWordsTests {
  @Test func aGiftCardOnlySaleHasNoItemCountOrSubtotal() throws {
    let lane = try JournalLane.tenders()
    try lane.ok(Requests.Add(sku: "G25"))
    let order = try lane.ok(Requests.Order())
    #expect(order["item_count"] == .int(0))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(!text.contains("Subtotal"), "\(text)")
    #expect(!text.contains("Items"), "\(text)")
    #expect(text.contains("Gift cards issued"), "\(text)")
    #expect(text.contains("TOTAL"), "\(text)")
  }

  @Test func aSaleWithItemsAndAGiftCardStillCountsItsItems() throws {
    let lane = try JournalLane.tenders()
    try lane.ok(Requests.Add(sku: "G25"))
    try lane.ok(Requests.Add(sku: "TEE"))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("46.50"))))
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(text.contains("Subtotal"), "\(text)")
    #expect(Self.row("Items", in: text) == "1", "\(text)")
  }

  @Test func youSavedCountsDiscountsAsWellAsSalePrices() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "TEE"))  // 20.00 on sale at 15.00: 5.00 saved
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Discount(line: 2, value: .amount(usd("9.99")), reason: "damaged"))
    try lane.ok(Requests.Discount(value: .amount(usd("5.00")), reason: "coupon"))
    let total = try #require(try lane.ok(Requests.Order())["total"]?.stringValue)
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd(total))))
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(Self.row("Line discounts", in: text) == "-9.99", "\(text)")
    // 5.00 of sale price, 9.99 off the jeans, 5.00 off the order.
    #expect(Self.row("You saved", in: text) == "19.99", "\(text)")
  }

  @Test func theOrderNamesItsCustomer() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    let order = try lane.ok(Requests.AttachCustomer(customerID: "C1"))
    #expect(order["customer_id"] == .string("C1"))
    #expect(order["customer_name"] == .string("Dana Lee"))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("53.74"))))
    #expect(sale["customer_name"] == .string("Dana Lee"), "\(sale.serialized)")
    #expect(try lane.ok(Requests.Order())["customer_name"] == nil)
  }

  @Test(arguments: [
    ("378282246310005", "123", "the CVV of an American Express card is 4 digits"),
    ("4242424242424242", "12", "the CVV of a Visa card is 3 digits"),
  ])
  func cardNetworksAreNamedAsPeopleNameThem(number: String, cvv: String, words: String) throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let card = cardJSON(number, cvv: "\"" + cvv + "\"")
    let reply = try lane.send(#"{"op":"tender","type":"card","card":\#(card)}"#)
    let message = try #require(reply["error"]?["message"]?.stringValue)
    #expect(message.contains(words), "\(message)")
    #expect(!message.contains("AMEX") && !message.contains("VISA"), "\(message)")
  }

  /// The amount printed at the right of the receipt row that starts with `label`.
  static func row(_ label: String, in text: String) -> String? {
    text.split(separator: "\n").first { $0.hasPrefix(label) }
      .flatMap { $0.split(separator: " ").last.map(String.init) }
  }
}
