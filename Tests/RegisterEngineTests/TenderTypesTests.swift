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

  /// Sends a request that must be refused with `code`; returns the message.
  @discardableResult
  func refused(
    _ line: String, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let reply = try send(line, sourceLocation: sourceLocation)
    #expect(
      reply.errorCode == code, "\(line) → \(reply.serialized)", sourceLocation: sourceLocation)
    return reply["error"]?["message"]?.stringValue ?? ""
  }

  /// Sells `count` 25.00 gift cards for cash and returns their numbers.
  func sellGiftCards(_ count: Int = 1) throws -> [String] {
    try ok(#"{"op":"add","sku":"G25","qty":\#(count)}"#)
    let sale = try ok(#"{"op":"tender","type":"cash","amount":"\#(25 * count).00"}"#)
    let cards = try #require(sale["receipt"]?["receipt"]?["gift_cards"]?.arrayValue)
    return cards.compactMap { $0["number"]?.stringValue }
  }

  func balance(_ number: String) throws -> JSONValue? {
    try ok(#"{"op":"gift_card_balance","number":"\#(number)"}"#)["gift_card"]?["balance"]
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
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    let order = try lane.ok(#"{"op":"add","sku":"G25","qty":2}"#)
    // Jeans 49.99 + tax 3.75; the gift cards are not taxed and not in the subtotal.
    #expect(order["subtotal"] == "49.99")
    #expect(order["tax"] == "3.75")
    #expect(order["gift_cards"] == "50.00")
    #expect(order["total"] == "103.74")
    #expect(order["item_count"] == .int(1))
    #expect(order["taxes"]?.arrayValue?.map { $0["basis"] } == ["49.99"])
    let sale = try lane.ok(#"{"op":"tender","type":"cash","amount":"103.74"}"#)
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
    try lane.refused(#"{"op":"add","sku":"GOPEN"}"#, "invalid_amount")
    try lane.refused(#"{"op":"add","sku":"GOPEN","amount":"4.99"}"#, "invalid_amount")
    try lane.refused(#"{"op":"add","sku":"GOPEN","amount":"500.01"}"#, "invalid_amount")
    try lane.refused(#"{"op":"add","sku":"G25","amount":"30.00"}"#, "bad_request")
    try lane.refused(#"{"op":"add","sku":"JEANS","amount":"30.00"}"#, "bad_request")
    #expect(lane.register.order.lines.isEmpty)
    let order = try lane.ok(#"{"op":"add","sku":"GOPEN","amount":"40.00"}"#)
    #expect(order["total"] == "40.00")
    #expect(order["tax"] == "0.00")
    let sale = try lane.ok(#"{"op":"tender","type":"cash","amount":"40.00"}"#)
    let number = try #require(
      sale["receipt"]?["receipt"]?["gift_cards"]?.at(0)?["number"]?.stringValue)
    #expect(try lane.balance(number) == "40.00")
  }

  @Test func aGiftCardCannotBeDiscountedOrRepriced() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(#"{"op":"add","sku":"G25"}"#)
    try lane.refused(
      #"{"op":"discount","line":1,"percent":"10","reason":"x"}"#, "invalid_discount")
    try lane.refused(
      #"{"op":"override_price","line":1,"unit_price":"1.00","reason":"x"}"#, "invalid_amount")
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    // An order discount is spread over the merchandise only.
    let order = try lane.ok(#"{"op":"discount","percent":"10","reason":"x"}"#)
    #expect(order["discount_total"] == "5.00")
    #expect(order["gift_cards"] == "25.00")
  }

  @Test func aTenderDefaultsToTheLesserOfBalanceAndBalanceDue() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    // 20.00 + 1.50 tax: the card pays 21.50 of its 25.00.
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    let sale = try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(number)"}"#)
    #expect(sale["status"] == "completed")
    #expect(sale["tenders"]?.at(0)?["amount"] == "21.50")
    #expect(try lane.balance(number) == "3.50")
    // Now the balance is less than what is due: it pays 3.50, the rest is still due.
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    let part = try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(number)"}"#)
    #expect(part["paid"] == "3.50")
    #expect(part["balance_due"] == "18.00")
    #expect(try lane.balance(number) == "0.00")
    let empty = try lane.refused(
      #"{"op":"tender","type":"gift_card","number":"\#(number)"}"#, "insufficient_balance")
    #expect(empty.contains("no balance"))
    let info = try lane.ok(#"{"op":"gift_card_balance","number":"\#(number)"}"#)["gift_card"]
    #expect(info?["issued_amount"] == "25.00")
    #expect(info?["issued_day"] == .int(1))
    #expect(info?["last_used_at"]?.stringValue != nil)
  }

  @Test func moreThanTheBalanceIsRefusedSayingTheBalance() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    let message = try lane.refused(
      #"{"op":"tender","type":"gift_card","number":"\#(number)","amount":"30.00"}"#,
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
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    var other = Array(number)
    other[5] = other[5] == "1" ? "2" : "1"
    for wrong in [String(other), "6000000000000000", "12", "not a number"] {
      try lane.refused(
        #"{"op":"tender","type":"gift_card","number":"\#(wrong)"}"#, "gift_card_not_found")
      try lane.refused(#"{"op":"gift_card_balance","number":"\#(wrong)"}"#, "gift_card_not_found")
    }
    // Typed in groups, as printed, it is found.
    let grouped = GiftCardNumber.grouped(number)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(grouped)","amount":"1.00"}"#)
    #expect(try lane.balance(number) == "24.00")
  }

  @Test func giftCardsCannotBeBoughtWithAGiftCard() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    try lane.ok(#"{"op":"add","sku":"G25"}"#)
    try lane.refused(
      #"{"op":"tender","type":"gift_card","number":"\#(number)"}"#, "gift_card_for_gift_card")
    try lane.ok(#"{"op":"void"}"#)
    // Nor the other way round: a gift card is not added once a gift card pays.
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(number)","amount":"5.00"}"#)
    try lane.refused(#"{"op":"add","sku":"G25"}"#, "gift_card_for_gift_card")
    try lane.refused(#"{"op":"add","sku":"GOPEN","amount":"10.00"}"#, "gift_card_for_gift_card")
  }

  /// A gift card is a bearer instrument: its number is shown in full only on the receipt that
  /// sold it. Every other reply and every live event shows its last four digits; the journal
  /// keeps the number, which is how the card is redeemed.
  @Test func aCardNumberLeavesTheRegisterOnlyOnTheReceiptThatSoldIt() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    let masked = JSONValue.string("****" + number.suffix(4))
    var replies: [JSONValue] = []
    @discardableResult func send(_ line: String) throws -> JSONValue {
      let reply = try lane.send(line)
      #expect(reply["ok"] == .bool(true), "\(line) → \(reply.serialized)")
      replies.append(reply)
      return reply["result"] ?? .null
    }
    // Tendered, looked at, its balance asked, given back by a void.
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    let tendered = try send(
      #"{"op":"tender","type":"gift_card","number":"\#(number)","amount":"5.00"}"#)
    #expect(tendered["tenders"]?.at(0)?["gift_card"] == masked)
    #expect(try send(#"{"op":"order"}"#)["tenders"]?.at(0)?["gift_card"] == masked)
    #expect(
      try send(#"{"op":"gift_card_balance","number":"\#(number)"}"#)["gift_card"]?["number"]
        == masked)
    #expect(try send(#"{"op":"void"}"#)["reversed_tenders"]?.at(0)?["gift_card"] == masked)
    // A sale it pays part of (53.74: 10.00 on the card), that sale's receipt, and its return.
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try send(#"{"op":"tender","type":"gift_card","number":"\#(number)","amount":"10.00"}"#)
    let sale = try send(#"{"op":"tender","type":"cash","amount":"43.74"}"#)
    let receipt = try #require(sale["receipt"]?["number"]?.serialized)
    #expect(sale["receipt"]?["receipt"]?["tenders"]?.at(0)?["gift_card"] == masked)
    try send(#"{"op":"receipt","number":\#(receipt)}"#)
    let refund = try send(
      #"{"op":"return","receipt":\#(receipt),"lines":[{"line":1,"qty":1}],"reason":"size"}"#)
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
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(number)","amount":"10.00"}"#)
    #expect(try lane.balance(number) == "15.00")
    let voided = try lane.ok(#"{"op":"void"}"#)
    #expect(voided["reversed_tenders"]?.at(0)?["type"] == "gift_card")
    #expect(try lane.balance(number) == "25.00")
    let report = try lane.ok(#"{"op":"report"}"#)["report"]
    #expect(report?["reversed_tenders"]?.at(0)?["type"] == "gift_card")
  }

  @Test func aReturnRefundsToTheGiftCardThatPaid() throws {
    let lane = try TenderLane.tenders()
    let number = try #require(try lane.sellGiftCards().first)
    // Jeans 53.74: 25.00 on the gift card, 28.74 in cash.
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(number)"}"#)
    let sale = try lane.ok(#"{"op":"tender","type":"cash","amount":"28.74"}"#)
    let receipt = try #require(sale["receipt"]?["number"]?.serialized)
    #expect(try lane.balance(number) == "0.00")
    let refund = try lane.ok(
      #"{"op":"return","receipt":\#(receipt),"lines":[{"line":1,"qty":1}],"reason":"size"}"#)
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
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x"}"#, "not_returnable")
  }

  @Test func reportsCountGiftCardsApartFromSales() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(#"{"op":"float","amount":"100.00"}"#)
    let number = try #require(try lane.sellGiftCards(2).first)
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(number)"}"#)
    let result = try lane.ok(#"{"op":"report"}"#)
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
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(numbers[0])"}"#)
    try lane.ok(#"{"op":"tender","type":"gift_card","number":"\#(numbers[1])","amount":"10.00"}"#)
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
    try lane.ok(#"{"op":"customer_add","name":"Dana Ortiz"}"#)
    try lane.ok(#"{"op":"attach_customer","customer_id":"C1"}"#)
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"cash","amount":"53.74"}"#)
    let refund = try lane.ok(
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"size","refund_to":"store_credit"}"#
    )
    #expect(refund["receipt"]?["refunds"]?.at(0)?["type"] == "store_credit")
    #expect(refund["receipt"]?["refunds"]?.at(0)?["customer_id"] == "C1")
    #expect(refund["receipt"]?["refunds"]?.at(0)?["amount"] == "53.74")
    return lane
  }

  @Test func aReturnToStoreCreditCreditsTheCustomer() throws {
    let lane = try Self.creditedLane()
    let found = try lane.ok(#"{"op":"customer_find","query":"C1"}"#)
    #expect(found["customers"]?.at(0)?["store_credit"] == "53.74")
    // No cash left the drawer.
    #expect(lane.register.day.totals.cashRefunds == 0)
    let report = try lane.ok(#"{"op":"report"}"#)["report"]
    #expect(report?["returns"]?["refunds"]?.at(0)?["type"] == "store_credit")
  }

  @Test func aReturnToStoreCreditNeedsACustomer() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(#"{"op":"add","sku":"JEANS"}"#)
    try lane.ok(#"{"op":"tender","type":"cash","amount":"53.74"}"#)
    let request =
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"size","refund_to":"store_credit""#
    try lane.refused(request + "}", "customer_not_found")
    try lane.refused(request + #","customer_id":"C9"}"#, "customer_not_found")
    try lane.refused(
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x","refund_to":"bank"}"#,
      "bad_request")
    try lane.ok(#"{"op":"customer_add","name":"Sam"}"#)
    try lane.ok(request + #","customer_id":"C1"}"#)
    #expect(lane.register.storedValue.storeCredit["C1"] == 5_374)
  }

  @Test func storeCreditPaysAndAVoidGivesItBack() throws {
    let lane = try Self.creditedLane()
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    try lane.refused(
      #"{"op":"tender","type":"store_credit","customer_id":"C1","amount":"60.00"}"#,
      "insufficient_balance")
    try lane.refused(
      #"{"op":"tender","type":"store_credit","customer_id":"C7"}"#, "customer_not_found")
    try lane.ok(#"{"op":"tender","type":"store_credit","customer_id":"C1","amount":"5.00"}"#)
    #expect(lane.register.storedValue.storeCredit["C1"] == 4_874)
    try lane.ok(#"{"op":"void"}"#)
    #expect(lane.register.storedValue.storeCredit["C1"] == 5_374)
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    let sale = try lane.ok(#"{"op":"tender","type":"store_credit","customer_id":"C1"}"#)
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
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    try lane.refused(
      #"{"op":"tender","type":"other","name":"iou","amount":"1.00"}"#, "unknown_tender")
    try lane.refused(
      #"{"op":"tender","type":"other","name":"check","amount":"30.00"}"#, "tender_exceeds_balance")
    try lane.refused(#"{"op":"tender","type":"other","name":"check"}"#, "bad_request")
    try lane.refused(
      #"{"op":"tender","type":"cash","amount":"1.00","name":"check"}"#, "bad_request")
    try lane.ok(#"{"op":"tender","type":"other","name":"voucher","amount":"1.50"}"#)
    let sale = try lane.ok(
      #"{"op":"tender","type":"other","name":"check","amount":"20.00","reference":"1042"}"#)
    #expect(sale["status"] == "completed")
    #expect(sale["change_due"] == "0.00")
    #expect(sale["tenders"]?.at(1)?["reference"] == "1042")
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(text.contains("Check #1042"))
    let report = try lane.ok(#"{"op":"report"}"#)["report"]
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
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    let line = Self.good.replacingOccurrences(of: good, with: bad)
    let reply = try lane.send(line)
    #expect(reply.errorCode == "invalid_card")
    #expect(!reply.serialized.contains("4242424242"))
    #expect(lane.register.order.tenders.isEmpty)
  }

  @Test func aTerminalPaymentIsKeptAsBrandLastFourAndAuthCode() throws {
    let lane = try TenderLane.tenders()
    try lane.ok(#"{"op":"add","sku":"TEE"}"#)
    try lane.refused(
      Self.good.replacingOccurrences(of: "21.50", with: "25.00"), "tender_exceeds_balance")
    let sale = try lane.ok(Self.good)
    #expect(sale["status"] == "completed")
    #expect(sale["tenders"]?.at(0)?["card"]?["brand"] == "VISA")
    #expect(sale["tenders"]?.at(0)?["auth_code"] == "A1B2C3")
    let report = try lane.ok(#"{"op":"report"}"#)["report"]
    #expect(report?["tenders"]?.at(0)?["type"] == "card_present VISA")
    // Returned, it goes back to the same card on the terminal.
    let refund = try lane.ok(
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x"}"#)
    #expect(refund["receipt"]?["refunds"]?.at(0)?["type"] == "card_present")
    #expect(refund["receipt"]?["refunds"]?.at(0)?["amount"] == "21.50")
    #expect(lane.register.day.totals.cashRefunds == 0)
    #expect(try lane.replayed().refunded == lane.register.refunded)
  }
}
