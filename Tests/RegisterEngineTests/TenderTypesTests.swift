import Foundation
import RegisterServer
import Testing

@testable import RegisterEngine

/// The test catalog with gift cards (a 25.00 card and an open-amount card) and two store
/// tenders, `check` and `voucher`.
let tenderCatalogJSON = """
  {
    "store": {
      "name": "Test Lane",
      "address": ["1 Main St"],
      "currency": "USD",
      "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"},
      "tenders": ["check", "voucher"]
    },
    "products": [
      {"sku": "JEANS", "name": "Jeans", "description": "", "category": "Bottoms",
       "price": "49.99"},
      {"sku": "TEE", "name": "T-Shirt", "description": "", "category": "Tops",
       "price": "20.00"},
      {"sku": "G25", "name": "Gift Card 25", "description": "", "category": "Gift Cards",
       "price": "25.00", "gift_card": true},
      {"sku": "GOPEN", "name": "Gift Card", "description": "", "category": "Gift Cards",
       "price": "0.00", "gift_card": true, "open_amount": true}
    ]
  }
  """

/// A register on `tenderCatalogJSON`, journaling into memory (gift card numbers are drawn
/// from the service's random source).
typealias TenderLane = JournalLane

extension JournalLane {
  /// A lane on `tenderCatalogJSON`.
  static func tenders() throws -> JournalLane { try JournalLane(catalogJSON: tenderCatalogJSON) }

  /// Sells `count` 25.00 gift cards for cash and returns their numbers.
  func sellGiftCards(_ count: Int = 1) throws -> [String] {
    try ok(Requests.Add(sku: "G25", quantity: Int64(count)))
    let sale = try ok(Requests.Tender(.cash(amount: usd("\(25 * count).00"))))
    let cards = try #require(sale["receipt"]?["receipt"]?["gift_cards"]?.arrayValue)
    return cards.compactMap { $0["number"]?.stringValue }
  }

  func balance(_ number: String) throws -> JSONValue? {
    try ok(Requests.GiftCardBalance(number: number))["gift_card"]?["balance"]
  }

  /// The register the journal gives back.
  func replayed() throws -> Register {
    try Register.replaying(scan().records)
  }
}

extension JSONValue {
  /// The element at `index` of an array.
  func at(_ index: Int) -> JSONValue? {
    guard let items = arrayValue, items.indices.contains(index) else { return nil }
    return items[index]
  }
}

@Suite struct GiftCardTests {
  @Test func aSaleIssuesOneCardPerUnitWithItsNumberOnTheReceipt() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let order = try lane.ok(Requests.Add(sku: "G25", quantity: 2))
    // Jeans 49.99 + tax 3.75; the gift cards are not taxed and not in the subtotal.
    #expect(order["subtotal"] == "49.99")
    #expect(order["tax"] == "3.75")
    #expect(order["gift_cards"] == "50.00")
    #expect(order["total"] == "103.74")
    #expect(order["item_count"] == .int(1))
    #expect(order["taxes"]?.arrayValue?.map { $0["basis"] } == ["49.99"])
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("103.74"))))
    let receipt = try #require(sale["receipt"])
    let cards = try #require(receipt["receipt"]?["gift_cards"]?.arrayValue)
    let numbers = cards.compactMap { $0["number"]?.stringValue }
    #expect(numbers.count == 2)
    #expect(Set(numbers).count == 2)
    for number in numbers {
      #expect(GiftCardNumber.isWellFormed(number))
      let digits = number.unicodeScalars.map { UInt8($0.value - 48) }
      #expect(CardBrand.of(digits: digits) == nil, "a gift card number is no bank card's")
      let text = try #require(receipt["text"]?.stringValue)
      #expect(text.contains(GiftCardNumber.grouped(number)), "the receipt prints \(number)")
      #expect(try lane.balance(number) == "25.00")
    }
    #expect(cards.map { $0["amount"] } == ["25.00", "25.00"])
  }

  @Test func numbersAreNotGuessableFromThePreviousOne() throws {
    let lane = try TenderLane.tenders()
    let numbers = try lane.sellGiftCards(6)
    // Drawn at random: consecutive numbers do not differ by a constant step.
    let values = numbers.map { Int64($0.dropLast()) ?? 0 }
    let steps = Set(zip(values, values.dropFirst()).map { $1 - $0 })
    #expect(steps.count > 1)
    #expect(Set(numbers).count == 6)
  }

  @Test func anOpenAmountCardTakesAnAmountWithinItsBounds() throws {
    let lane = try TenderLane.tenders()
    try lane.refused(Requests.Add(sku: "GOPEN"), "invalid_amount")
    try lane.refused(Requests.Add(sku: "GOPEN", amount: usd("4.99")), "invalid_amount")
    try lane.refused(Requests.Add(sku: "GOPEN", amount: usd("500.01")), "invalid_amount")
    try lane.refused(Requests.Add(sku: "G25", amount: usd("30.00")), "bad_request")
    try lane.refused(Requests.Add(sku: "JEANS", amount: usd("30.00")), "bad_request")
    #expect(lane.register.order.lines.isEmpty)
    let order = try lane.ok(Requests.Add(sku: "GOPEN", amount: usd("40.00")))
    #expect(order["total"] == "40.00")
    #expect(order["tax"] == "0.00")
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("40.00"))))
    let number = try #require(
      sale["receipt"]?["receipt"]?["gift_cards"]?.at(0)?["number"]?.stringValue)
    #expect(try lane.balance(number) == "40.00")
  }

  @Test func aGiftCardCannotBeDiscountedOrRepriced() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.Add(sku: "G25"))
    try lane.refused(
      Requests.Discount(line: 1, value: .percent(percent("10")), reason: "x"), "invalid_discount")
    try lane.refused(
      Requests.OverridePrice(line: 1, unitPrice: usd("1.00"), reason: "x"), "invalid_amount")
    try lane.ok(Requests.Add(sku: "JEANS"))
    // An order discount is spread over the merchandise only.
    let order = try lane.ok(Requests.Discount(value: .percent(percent("10")), reason: "x"))
    #expect(order["discount_total"] == "5.00")
    #expect(order["gift_cards"] == "25.00")
  }

  @Test func aTenderDefaultsToTheLesserOfBalanceAndBalanceDue() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    // 20.00 + 1.50 tax: the card pays 21.50 of its 25.00.
    try lane.ok(Requests.Add(sku: "TEE"))
    let sale = try lane.ok(Requests.Tender(.giftCard(number: number, amount: nil)))
    #expect(sale["status"] == "completed")
    #expect(sale["tenders"]?.at(0)?["amount"] == "21.50")
    #expect(try lane.balance(number) == "3.50")
    // Now the balance is less than what is due: it pays 3.50, the rest is still due.
    try lane.ok(Requests.Add(sku: "TEE"))
    let part = try lane.ok(Requests.Tender(.giftCard(number: number, amount: nil)))
    #expect(part["paid"] == "3.50")
    #expect(part["balance_due"] == "18.00")
    #expect(try lane.balance(number) == "0.00")
    let empty = try lane.refused(
      Requests.Tender(.giftCard(number: number, amount: nil)), "insufficient_balance")
    #expect(empty.contains("no balance"))
    let info = try lane.ok(Requests.GiftCardBalance(number: number))["gift_card"]
    #expect(info?["issued_amount"] == "25.00")
    #expect(info?["issued_day"] == .int(1))
    #expect(info?["last_used_at"]?.stringValue != nil)
  }

  @Test func moreThanTheBalanceIsRefusedSayingTheBalance() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Requests.Add(sku: "JEANS"))
    let message = try lane.refused(
      Requests.Tender(.giftCard(number: number, amount: usd("30.00"))),
      "insufficient_balance")
    #expect(message.contains("25.00"))
    // The number is a bearer instrument: error messages mask it like a card number.
    #expect(!message.contains(number))
    #expect(message.contains("****" + number.suffix(4)))
    #expect(try lane.balance(number) == "25.00")
    #expect(lane.register.order.tenders.isEmpty)
  }

  @Test func anUnknownOrMistypedNumberIsNotFound() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Requests.Add(sku: "JEANS"))
    var other = Array(number)
    other[5] = other[5] == "1" ? "2" : "1"
    for wrong in [String(other), "6000000000000000", "12", "not a number"] {
      try lane.refused(
        Requests.Tender(.giftCard(number: wrong, amount: nil)), "gift_card_not_found")
      try lane.refused(Requests.GiftCardBalance(number: wrong), "gift_card_not_found")
    }
    // Typed in groups, as printed, it is found.
    let grouped = GiftCardNumber.grouped(number)
    try lane.ok(Requests.Tender(.giftCard(number: grouped, amount: usd("1.00"))))
    #expect(try lane.balance(number) == "24.00")
  }

  @Test func giftCardsCannotBeBoughtWithAGiftCard() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Requests.Add(sku: "G25"))
    try lane.refused(
      Requests.Tender(.giftCard(number: number, amount: nil)), "gift_card_for_gift_card")
    try lane.ok(Requests.Void())
    // Nor the other way round: a gift card is not added once a gift card pays.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.giftCard(number: number, amount: usd("5.00"))))
    try lane.refused(Requests.Add(sku: "G25"), "gift_card_for_gift_card")
    try lane.refused(Requests.Add(sku: "GOPEN", amount: usd("10.00")), "gift_card_for_gift_card")
  }

  /// A gift card is a bearer instrument: its number is shown in full only on the receipt that
  /// sold it. Every other reply and every live event shows its last four digits; the journal
  /// keeps the number, which is how the card is redeemed.
  @Test func aCardNumberLeavesTheRegisterOnlyOnTheReceiptThatSoldIt() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    let masked = JSONValue.string("****" + number.suffix(4))
    var replies: [JSONValue] = []
    @discardableResult func send(_ body: any RequestBody) throws -> JSONValue {
      let reply = try lane.send(body)
      #expect(reply["ok"] == .bool(true), "\(requestLine(body)) → \(reply.serialized)")
      replies.append(reply)
      return reply["result"] ?? .null
    }
    // Tendered, looked at, its balance asked, given back by a void.
    try lane.ok(Requests.Add(sku: "JEANS"))
    let tendered = try send(
      Requests.Tender(.giftCard(number: number, amount: usd("5.00"))))
    #expect(tendered["tenders"]?.at(0)?["gift_card"] == masked)
    #expect(try send(Requests.Order())["tenders"]?.at(0)?["gift_card"] == masked)
    #expect(
      try send(Requests.GiftCardBalance(number: number))["gift_card"]?["number"]
        == masked)
    #expect(try send(Requests.Void())["reversed_tenders"]?.at(0)?["gift_card"] == masked)
    // A sale it pays part of (53.74: 10.00 on the card), that sale's receipt, and its return.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try send(Requests.Tender(.giftCard(number: number, amount: usd("10.00"))))
    let sale = try send(Requests.Tender(.cash(amount: usd("43.74"))))
    let receipt = Int(try #require(sale["receipt"]?["number"]?.int64Value))
    #expect(sale["receipt"]?["receipt"]?["tenders"]?.at(0)?["gift_card"] == masked)
    try send(Requests.Receipt(number: receipt))
    let refund = try send(
      Requests.Return(
        receipt: receipt, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "size"))
    #expect(refund["receipt"]?["refunds"]?.at(0)?["gift_card"] == masked)
    for reply in replies {
      #expect(!reply.serialized.contains(number), "\(reply.serialized)")
    }
    #expect(try lane.balance(number) == "25.00", "the card was paid back by number")

    // The journal keeps the number; what a subscriber is sent of each record does not.
    let records = lane.scan().records
    #expect(records.filter { $0.data.serialized.contains(number) }.count >= 5)
    for record in records {
      let event = try Event.decode(type: record.type, data: record.data, currency: .usd)
      let live = Topics.line(
        for: CommittedEvent(
          sequence: record.sequence, at: record.at, event: event, operatorID: record.operatorID))
      #expect(!live.serialized.contains(number), "\(live.serialized)")
      #expect(!Topics.publicData(record.data).serialized.contains(number), "\(record.type)")
    }
  }

  @Test func maskingLeavesEverythingButGiftCardNumbersAlone() {
    let number = GiftCardNumber.make(from: [1, 2, 3, 4, 5, 6, 7, 8])
    #expect(GiftCardNumber.isWellFormed(number))
    let data: JSONValue = .object([
      "cards": .array([.object(["number": .string(number), "amount": "5.00"])]),
      "gift_card": .string(number),
      // Not gift card numbers: 16 digits failing the check, a bank card's prefix, 15 digits.
      "others": .array([
        .string(String(number.dropLast()) + String((Int(String(number.last!))! + 1) % 10)),
        "4242424242424242", .string(String(number.dropLast())), .int(42), .bool(true), .null,
      ]),
    ])
    let masked = GiftCardNumber.masking(data)
    let shown = JSONValue.string("****" + number.suffix(4))
    #expect(masked["cards"]?.at(0)?["number"] == shown)
    #expect(masked["cards"]?.at(0)?["amount"] == "5.00")
    #expect(masked["gift_card"] == shown)
    #expect(masked["others"] == data["others"])
  }

  @Test func aVoidGivesTheBalanceBack() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.giftCard(number: number, amount: usd("10.00"))))
    #expect(try lane.balance(number) == "15.00")
    let voided = try lane.ok(Requests.Void())
    #expect(voided["reversed_tenders"]?.at(0)?["type"] == "gift_card")
    #expect(try lane.balance(number) == "25.00")
    let report = try lane.ok(Requests.Report(kind: .x))["report"]
    #expect(report?["reversed_tenders"]?.at(0)?["type"] == "gift_card")
  }

  @Test func aReturnRefundsToTheGiftCardThatPaid() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    // Jeans 53.74: 25.00 on the gift card, 28.74 in cash.
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.giftCard(number: number, amount: nil)))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("28.74"))))
    let receipt = Int(try #require(sale["receipt"]?["number"]?.int64Value))
    #expect(try lane.balance(number) == "0.00")
    let refund = try lane.ok(
      Requests.Return(
        receipt: receipt, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "size"))
    let refunds = try #require(refund["receipt"]?["refunds"]?.arrayValue)
    #expect(refunds.map { $0["type"] } == ["gift_card", "cash"])
    #expect(refunds.map { $0["amount"] } == ["25.00", "28.74"])
    #expect(try lane.balance(number) == "25.00")
    let text = try #require(refund["text"]?.stringValue)
    #expect(text.contains("Gift card ****\(number.suffix(4)) refund"))
  }

  @Test func aGiftCardIsNotReturnable() throws {
    let lane = try TenderLane.tenders()
    _ = try lane.sellGiftCards()
    try lane.refused(
      Requests.Return(receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "x"),
      "not_returnable")
  }

  @Test func reportsCountGiftCardsApartFromSales() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.SetFloat(amount: usd("100.00")))
    let number = try #require(try lane.sellGiftCards(2).first)
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Tender(.giftCard(number: number, amount: nil)))
    let result = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(result["report"])
    // Sales are the tee only; the cards are a liability on their own lines.
    #expect(report["gross"] == "20.00")
    #expect(report["total"] == "21.50")
    #expect(report["items_sold"] == .int(1))
    #expect(report["gift_cards"]?["sold"]?["count"] == .int(2))
    #expect(report["gift_cards"]?["sold"]?["amount"] == "50.00")
    #expect(report["gift_cards"]?["redeemed"]?["count"] == .int(1))
    #expect(report["gift_cards"]?["redeemed"]?["amount"] == "21.50")
    let tenders = try #require(report["tenders"]?.arrayValue)
    #expect(tenders.map { $0["type"] } == ["cash", "gift_card"])
    #expect(tenders.map { $0["amount"] } == ["50.00", "21.50"])
    // The drawer counts only the cash.
    #expect(lane.register.day.totals.expectedCash == 15_000)
    let text = try #require(result["text"]?.stringValue)
    #expect(text.contains("Gift cards sold (2)"))
    #expect(text.contains("Gift cards redeemed (1)"))
  }

  @Test func theJournalReplaysTheSameNumbersAndBalances() throws {
    let lane = try TenderLane.tenders()
    let numbers = try lane.sellGiftCards(3)
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.giftCard(number: numbers[0], amount: nil)))
    try lane.ok(Requests.Tender(.giftCard(number: numbers[1], amount: usd("10.00"))))
    let replayed = try lane.replayed()
    #expect(replayed.storedValue == lane.register.storedValue)
    #expect(Set(replayed.storedValue.giftCards.keys) == Set(numbers))
    #expect(replayed.storedValue.giftCards[numbers[1]]?.balance == 1_500)
    #expect(replayed.receipts[1]?.giftCards.map(\.number) == numbers)
    #expect(
      replayed.receipts[1].map { ReceiptRenderer.text($0) }
        == lane.register.receipts[1].map { ReceiptRenderer.text($0) })
    let decoded = try Register(snapshot: lane.register.snapshotValue())
    #expect(decoded == lane.register)
    #expect(decoded.storedValue.giftCards[numbers[0]]?.balance == 0)
  }
}

@Suite struct StoreCreditTests {
  /// A customer C1, a sale to them of jeans for cash (receipt 1), returned to store credit.
  static func creditedLane() throws -> TenderLane {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.CustomerAdd(name: "Dana Ortiz"))
    try lane.ok(Requests.AttachCustomer(customerID: "C1"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("53.74"))))
    let refund = try lane.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "size",
        refundTo: .storeCredit(customerID: nil))
    )
    #expect(refund["receipt"]?["refunds"]?.at(0)?["type"] == "store_credit")
    #expect(refund["receipt"]?["refunds"]?.at(0)?["customer_id"] == "C1")
    #expect(refund["receipt"]?["refunds"]?.at(0)?["amount"] == "53.74")
    return lane
  }

  @Test func aReturnToStoreCreditCreditsTheCustomer() throws {
    let lane = try Self.creditedLane()
    let found = try lane.ok(Requests.CustomerFind(query: "C1"))
    #expect(found["customers"]?.at(0)?["store_credit"] == "53.74")
    // No cash left the drawer.
    #expect(lane.register.day.totals.cashRefunds == 0)
    let report = try lane.ok(Requests.Report(kind: .x))["report"]
    #expect(report?["returns"]?["refunds"]?.at(0)?["type"] == "store_credit")
  }

  @Test func aReturnToStoreCreditNeedsACustomer() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("53.74"))))
    let request =
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"size","refund_to":"store_credit""#
    try lane.refused(request + "}", "customer_not_found")
    try lane.refused(request + #","customer_id":"C9"}"#, "customer_not_found")
    try lane.refused(
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x","refund_to":"bank"}"#,
      "bad_request")
    try lane.ok(Requests.CustomerAdd(name: "Sam"))
    try lane.ok(request + #","customer_id":"C1"}"#)
    #expect(lane.register.storedValue.storeCredit["C1"] == 5_374)
  }

  @Test func storeCreditPaysAndAVoidGivesItBack() throws {
    let lane = try Self.creditedLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.refused(
      Requests.Tender(.storeCredit(customerID: "C1", amount: usd("60.00"))),
      "insufficient_balance")
    try lane.refused(
      Requests.Tender(.storeCredit(customerID: "C7", amount: nil)), "customer_not_found")
    try lane.ok(Requests.Tender(.storeCredit(customerID: "C1", amount: usd("5.00"))))
    #expect(lane.register.storedValue.storeCredit["C1"] == 4_874)
    try lane.ok(Requests.Void())
    #expect(lane.register.storedValue.storeCredit["C1"] == 5_374)
    try lane.ok(Requests.Add(sku: "TEE"))
    let sale = try lane.ok(Requests.Tender(.storeCredit(customerID: "C1", amount: nil)))
    #expect(sale["status"] == "completed")
    #expect(lane.register.storedValue.storeCredit["C1"] == 3_224)  // 53.74 − 21.50
    let replayed = try lane.replayed()
    #expect(replayed.storedValue == lane.register.storedValue)
    #expect(try Register(snapshot: lane.register.snapshotValue()) == lane.register)
  }
}

@Suite struct StoreTenderTests {
  @Test(arguments: [
    #"["check", "check"]"#, #"["cash"]"#, #"["card_present"]"#, #"["gift_card"]"#, #"["Check"]"#,
    #"[""]"#, #"["a b"]"#, #"["1check"]"#,
  ])
  func storeTenderNamesAreValidated(tenders: String) throws {
    let text = tenderCatalogJSON.replacingOccurrences(
      of: #""tenders": ["check", "voucher"]"#, with: #""tenders": \#(tenders)"#)
    #expect(throws: (any Error).self) {
      try CatalogFile.parse(Array(text.utf8), file: "t.json")
    }
  }

  @Test func aStoreTenderPaysUpToTheBalanceWithItsReference() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.refused(
      Requests.Tender(.other(name: "iou", amount: usd("1.00"), reference: nil)), "unknown_tender")
    try lane.refused(
      Requests.Tender(.other(name: "check", amount: usd("30.00"), reference: nil)),
      "tender_exceeds_balance")
    try lane.refused(#"{"op":"tender","type":"other","name":"check"}"#, "bad_request")
    try lane.refused(
      #"{"op":"tender","type":"cash","amount":"1.00","name":"check"}"#, "bad_request")
    try lane.ok(Requests.Tender(.other(name: "voucher", amount: usd("1.50"), reference: nil)))
    let sale = try lane.ok(
      Requests.Tender(.other(name: "check", amount: usd("20.00"), reference: "1042")))
    #expect(sale["status"] == "completed")
    #expect(sale["change_due"] == "0.00")
    #expect(sale["tenders"]?.at(1)?["reference"] == "1042")
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(text.contains("Check #1042"))
    let report = try lane.ok(Requests.Report(kind: .x))["report"]
    #expect(report?["tenders"]?.arrayValue?.map { $0["type"] } == ["voucher", "check"])
    #expect(lane.register.day.totals.cashTaken == 0)
  }
}

@Suite struct CardPresentTests {
  static let good =
    #"{"op":"tender","type":"card_present","amount":"21.50","brand":"visa","last4":"4242","auth_code":"A1B2C3"}"#

  @Test(arguments: [
    // A whole card number in any field is refused, and never echoed.
    (#""last4":"4242424242424242""#, #""last4":"4242""#),
    (#""auth_code":"424242424242""#, #""auth_code":"A1B2C3""#),
    (#""brand":"4242424242424242""#, #""brand":"visa""#),
    (#""last4":"424""#, #""last4":"4242""#),
    (#""auth_code":"A1B2C3D4E5F6G""#, #""auth_code":"A1B2C3""#),
    (#""auth_code":"A1-B2""#, #""auth_code":"A1B2C3""#),
  ])
  func noCardNumberReachesTheRegister(bad: String, good: String) throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.Add(sku: "TEE"))
    let line = Self.good.replacingOccurrences(of: good, with: bad)
    let reply = try lane.send(line)
    #expect(reply.errorCode == "invalid_card")
    #expect(!reply.serialized.contains("4242424242"))
    #expect(lane.register.order.tenders.isEmpty)
  }

  @Test func aTerminalPaymentIsKeptAsBrandLastFourAndAuthCode() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.refused(
      Self.good.replacingOccurrences(of: "21.50", with: "25.00"), "tender_exceeds_balance")
    let sale = try lane.ok(Self.good)
    #expect(sale["status"] == "completed")
    #expect(sale["tenders"]?.at(0)?["card"]?["brand"] == "VISA")
    #expect(sale["tenders"]?.at(0)?["auth_code"] == "A1B2C3")
    let report = try lane.ok(Requests.Report(kind: .x))["report"]
    #expect(report?["tenders"]?.at(0)?["type"] == "card_present VISA")
    // Returned, it goes back to the same card on the terminal.
    let refund = try lane.ok(
      Requests.Return(receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "x"))
    #expect(refund["receipt"]?["refunds"]?.at(0)?["type"] == "card_present")
    #expect(refund["receipt"]?["refunds"]?.at(0)?["amount"] == "21.50")
    #expect(lane.register.day.totals.cashRefunds == 0)
    #expect(try lane.replayed().refunded == lane.register.refunded)
  }
}
