import Testing

@testable import RegisterEngine

/// E-mail addresses and phone numbers are stored, journaled, echoed and written into messages
/// as they are, so one that looks like a card number is refused (it cannot be masked and
/// still reach anybody), by `CardNumberMask`'s rule — and ordinary ones still pass.
@Suite struct CardLikeContactTests {
  static let cardForms = [
    "4111111111111111", "4111-1111-1111-1111", "4111 1111 1111 1111", "5555555555554444",
    "378282246310005", "3782-822463-10005",
  ]

  /// The reply, the journal and the register's customers hold none of `forms`.
  static func expectNoCardNumber(
    in lane: JournalLane, reply: JSONValue, journalBefore: [UInt8],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let text = reply.serialized
    for form in cardForms {
      #expect(!text.contains(form), "\(text)", sourceLocation: sourceLocation)
    }
    #expect(
      lane.storage.bytes == journalBefore, "nothing journaled", sourceLocation: sourceLocation)
    #expect(lane.storage.files.isEmpty, "no message written", sourceLocation: sourceLocation)
  }

  @Test(arguments: [
    "4111111111111111@example.com", "4111-1111-1111-1111@example.com",
    "dana.4111111111111111@example.com", "dana@4111111111111111.example.com",
    "378282246310005@example.com", "4111.1111.1111.1111@example.com",
    "4111_1111_1111_1111@example.com", "dana+4111.1111-1111_1111@example.com",
  ])
  func aCustomersAddressThatLooksLikeACardNumberIsRefused(_ email: String) throws {
    let lane = try JournalLane()
    let before = lane.storage.bytes
    let reply = try lane.send(Requests.CustomerAdd(name: "N", email: email))
    #expect(reply.errorCode == "invalid_email")
    #expect(reply["error"]?["message"]?.stringValue?.contains("looks like") == true)
    Self.expectNoCardNumber(in: lane, reply: reply, journalBefore: before)
    #expect(lane.register.customers.isEmpty)
    let found = try lane.ok(Requests.CustomerFind(query: "N"))
    #expect(!found.serialized.contains("4111"), "\(found.serialized)")
  }

  @Test(arguments: [
    "5555555555554444@x.io", "5555-5555-5555-4444@x.io", "receipts+4111111111111111@x.io",
    "5555.5555.5555.4444@x.io",
  ])
  func aReceiptIsNotEmailedToAnAddressThatLooksLikeACardNumber(_ address: String) throws {
    let lane = try JournalLane()
    try sellMixedOrder(lane.service)
    let before = lane.storage.bytes
    let reply = try lane.send(Requests.EmailReceipt(receipt: 1, to: address))
    #expect(reply.errorCode == "invalid_email")
    Self.expectNoCardNumber(in: lane, reply: reply, journalBefore: before)
  }

  @Test(arguments: [
    "dana.4242@example.com", "order-4111111111111112@example.com", "12345678901@example.com",
    "555.123.4567@example.com", "4111.1111.1111.1112@example.com",
  ])
  func addressesWithDigitsThatAreNoCardNumberAreKept(_ email: String) throws {
    let lane = try JournalLane()
    let reply = try lane.ok(Requests.CustomerAdd(name: "N", email: email))
    #expect(reply["email"] == .string(email))
  }

  @Test(arguments: [
    "378282246310005", "+3782-822463-10005", "+3782 822463 10005", "(378) 282.246.310005",
    // A 13-digit Visa test number, and the same after a country code: the digits together
    // fail the check, but the groups from the second on are the card number.
    "4222222222222", "+1 4222 2222 2222 2",
  ])
  func aPhoneNumberThatLooksLikeACardNumberIsRefused(_ phone: String) throws {
    let lane = try JournalLane()
    let before = lane.storage.bytes
    let reply = try lane.send(Requests.CustomerAdd(name: "A", phone: phone))
    #expect(reply.errorCode == "invalid_phone")
    let message = reply["error"]?["message"]?.stringValue ?? ""
    #expect(message.contains("looks like a card number"), "\(message)")
    #expect(!message.contains(phone), "\(message)")
    Self.expectNoCardNumber(in: lane, reply: reply, journalBefore: before)
    #expect(lane.register.customers.isEmpty)
  }

  /// International numbers of 12 to 15 digits are kept unless their digits pass the Luhn
  /// check (about one in ten does; the message says why).
  @Test(arguments: [
    "+44 20 7946 0958", "0044 20 7946 0958", "+49 151 23456789", "+86 138 0013 8000",
    "+91 98765 43210", "+353 85 123 4567", "+44 7700 900123", "+81 90 1234 5678",
    "+55 11 91234 5678", "+1 (217) 555-0199",
  ])
  func ordinaryInternationalNumbersStillPass(_ phone: String) throws {
    let lane = try JournalLane()
    let reply = try lane.ok(Requests.CustomerAdd(name: "A", phone: phone))
    #expect(reply["phone"] == .string(phone))
  }

  @Test func aNumberWhoseDigitsPassTheLuhnCheckIsRefusedWithTheReason() {
    // 442079460956 is twelve digits that pass the check, like a card number's.
    #expect(throws: RegisterError.self) {
      try ContactValidation.validatePhone("+44 20 7946 0956")
    }
    #expect(
      (try? ContactValidation.validatePhone("+44 20 7946 0958")) != nil,
      "the same number ending in 8 passes")
  }
}
