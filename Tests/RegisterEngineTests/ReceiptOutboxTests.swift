import Testing

@testable import RegisterEngine

/// The outbox: one message file per e-mailed receipt the register holds, named by receipt and
/// record, and nothing for any other event.
@Suite struct ReceiptOutboxTests {
  static func record(_ sequence: Int64, _ event: Event) -> PendingRecord {
    PendingRecord(
      sequence: sequence, at: testTime, event: event, operatorID: nil, key: nil, more: false)
  }

  @Test func eachEmailedReceiptBecomesOneMessageFile() throws {
    let lane = try TestLane()
    try sellMixedOrder(lane.service)  // receipt 1
    try lane.ok(returnRequest(line: 2, qty: 1))  // receipt 2, a return
    let outbox = ReceiptOutbox(directory: "/data/outbox")
    let records = [
      Self.record(40, .noSale(reason: nil)),
      Self.record(41, .receiptEmailed(receipt: 1, to: "a@example.com", messageID: "m1@lane")),
      Self.record(42, .receiptEmailed(receipt: 2, to: "b@example.com", messageID: "m2@lane")),
      Self.record(43, .paidIn(amount: Money(minorUnits: 100, currency: .usd), reason: "float")),
    ]
    let effects = outbox.effects(of: records, in: lane.register)
    #expect(
      effects.map(\.path) == ["/data/outbox/receipt-1-41.eml", "/data/outbox/receipt-2-42.eml"])
    #expect(effects.allSatisfy { $0.mode == 0o640 })
    let sale = String(decoding: effects[0].bytes, as: UTF8.self)
    #expect(sale.contains("To: <a@example.com>\r\n"))
    #expect(sale.contains("Subject: Your receipt 1 from "))
    #expect(sale.contains("Message-ID: <m1@lane>\r\n"))
    let saleText = ReceiptRenderer.text(try #require(lane.register.receipts[1]))
    #expect(sale.hasSuffix(saleText.replacing("\n", with: "\r\n")))
    let refund = String(decoding: effects[1].bytes, as: UTF8.self)
    #expect(refund.contains("Subject: Your return receipt 2 from "))
    #expect(outbox.path(receipt: 7, sequence: 9) == "/data/outbox/receipt-7-9.eml")
  }

  @Test func aReceiptTheRegisterDoesNotHoldGivesNoFile() throws {
    let lane = try TestLane()
    let outbox = ReceiptOutbox(directory: "/data/outbox")
    let records = [
      Self.record(1, .receiptEmailed(receipt: 1, to: "a@example.com", messageID: "m@lane"))
    ]
    #expect(outbox.effects(of: records, in: lane.register).isEmpty)
    #expect(outbox.effects(of: [], in: lane.register).isEmpty)
  }
}
