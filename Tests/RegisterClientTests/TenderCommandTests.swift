import RegisterClient
import RegisterEngine
import Testing

/// register-cli's tender forms beyond cash and card, `gift-card balance` and returns to store
/// credit: the words in, the request line out.
@Suite struct TenderCommandTests {
  func line(_ words: [String]) throws -> String? {
    guard case .request(let typed, _) = try CommandParser.parse(words) else { return nil }
    return typed.line
  }

  func usageError(_ words: [String]) -> UsageError? {
    do {
      _ = try CommandParser.parse(words)
      return nil
    } catch {
      return error
    }
  }

  @Test func eachTenderFormBuildsItsRequest() throws {
    #expect(
      try line(["tender", "gift-card", "6001234567890128", "--amount", "5.00"])
        == #"{"op":"tender","type":"gift_card","amount":"5.00","number":"6001234567890128"}"#)
    #expect(
      try line(["tender", "store-credit", "C1"])
        == #"{"op":"tender","type":"store_credit","customer_id":"C1"}"#)
    #expect(
      try line(["tender", "other", "check", "20.00", "--reference", "1042"])
        == #"{"op":"tender","type":"other","amount":"20.00","name":"check","reference":"1042"}"#)
    #expect(
      try line([
        "pay", "card-present", "20.00", "--brand", "visa", "--last4", "4242", "--auth", "A1",
      ])
        == #"{"op":"tender","type":"card_present","amount":"20.00","brand":"visa","last4":"4242","auth_code":"A1"}"#
    )
    #expect(usageError(["tender", "card-present", "20", "--brand", "visa"]) != nil)
    #expect(usageError(["tender", "other", "check"]) != nil)
    #expect(usageError(["tender", "bitcoin", "1"]) != nil)
  }

  @Test func giftCardBalanceAndOpenAmounts() throws {
    #expect(
      try line(["gift-card", "balance", "6001234567890128"])
        == #"{"op":"gift_card_balance","number":"6001234567890128"}"#)
    #expect(usageError(["gift-card", "spend", "1"]) != nil)
    #expect(
      try line(["add", "GIFT-OPEN", "--amount", "40.00"])
        == #"{"op":"add","sku":"GIFT-OPEN","amount":"40.00"}"#)
  }

  @Test func aReturnToStoreCredit() throws {
    #expect(
      try line(["return", "3", "--to-store-credit", "1:2", "--reason", "size"])
        == #"{"op":"return","receipt":3,"lines":[{"line":1,"qty":2}],"reason":"size","refund_to":"store_credit"}"#
    )
    #expect(
      try line(["return", "3", "1", "--reason", "size", "--to-store-credit", "--customer", "C2"])
        == #"{"op":"return","receipt":3,"lines":[{"line":1,"qty":1}],"reason":"size","refund_to":"store_credit","customer_id":"C2"}"#
    )
    #expect(usageError(["return", "3", "1", "--reason", "x", "--customer", "C2"]) != nil)
  }

  @Test func aReturnNamesItemsAsCashiersDo() throws {
    // A SKU, a barcode (more than 4 digits), a line number (1 to 4 digits), each with a count.
    #expect(
      try line(["return", "R11", "TEE-WHT-M", "5449000000996:2", "12:1", "--reason", "size"])
        == #"{"op":"return","receipt":11,"lines":[{"item":"TEE-WHT-M","qty":1},{"item":"5449000000996","qty":2},{"line":12,"qty":1}],"reason":"size"}"#
    )
    #expect(
      try line(["return", "11", "tee-wht-m", "--reason", "x", "--to-cash"])
        == #"{"op":"return","receipt":11,"lines":[{"item":"tee-wht-m","qty":1}],"reason":"x","refund_to":"cash"}"#
    )
    #expect(
      usageError(["return", "11", "TEE", "--reason", "x", "--to-cash", "--to-store-credit"]) != nil)
    #expect(usageError(["return", "11", "TEE:x", "--reason", "x"]) != nil)
    #expect(usageError(["return", "11", ":2", "--reason", "x"]) != nil)
  }
}
