import Foundation
import Testing

@testable import RegisterEngine

/// Returns as cashiers do them: the item brought back is named by its SKU or scanned barcode
/// (the receipt prints no SKU), spread over the sale's lines of that product; the refund may go
/// all in cash where the store allows it; and a receipt with one product on several lines
/// numbers them.
@Suite struct ReturnByItemTests {
  /// TEE scanned twice (lines 1 and 2, the second discounted), JEANS (line 3), paid 20.00 by
  /// Visa and the rest in cash: receipt 1.
  static func sale(_ lane: TestLane) throws {
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Discount(line: 2, value: .percent(percent("10")), reason: "scuffed"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("20.00"))))
    try lane.ok(Requests.Tender(.cash(amount: usd("100.00"))))
  }

  static func catalog(_ store: String = "") throws -> Catalog {
    let text = testCatalogJSON.replacingOccurrences(
      of: #""receipt_footer": "Thank you!""#, with: #""receipt_footer": "Thank you!"\#(store)"#
    ).replacingOccurrences(
      of: #""price": "49.99"}"#, with: #""price": "49.99", "barcodes": ["5449000000996"]}"#)
    return try CatalogFile.parse(Array(text.utf8), file: "t")
  }

  static func returned(_ result: JSONValue) -> [Int64: Int64] {
    var lines: [Int64: Int64] = [:]
    for line in result["receipt"]?["lines"]?.arrayValue ?? [] {
      lines[line["line"]?.int64Value ?? 0] = line["qty"]?.int64Value ?? line["quantity"]?.int64Value
    }
    return lines
  }

  @Test func anItemIsNamedBySKUBarcodeOrSKUInAnotherCase() throws {
    let lane = try TestLane(catalog: Self.catalog())
    try Self.sale(lane)
    // Both tees by SKU: lines 1 and 2, in the receipt's order.
    let tees = try lane.ok(
      Requests.Return(receipt: 1, lines: [ReturnRequestLine(code: "TEE", quantity: 2)], reason: "x")
    )
    let teeLines = try #require(tees["receipt"]?["lines"]?.arrayValue)
    #expect(teeLines.map { $0["line"] } == [.int(1), .int(2)])
    #expect(teeLines.map { $0["sku"] } == ["TEE", "TEE"])
    // The jeans by the barcode scanned off them.
    let jeans = try lane.ok(
      #"{"op":"return","receipt":"R1","lines":[{"item":"5449000000996","qty":1}],"reason":"x"}"#)
    #expect(jeans["receipt"]?["lines"]?.arrayValue?.first?["line"] == .int(3))
    // Every unit is back: nothing more to return, whatever it is called.
    for item in ["TEE", "tee", "jeans", "5449000000996"] {
      let refused = try lane.send(
        Requests.Return(
          receipt: 1, lines: [ReturnRequestLine(code: item, quantity: 1)], reason: "x"))
      #expect(refused.errorCode == "return_exceeds_sold", "\(item): \(refused.serialized)")
    }
  }

  @Test func theUnitsLeftAreTakenLineByLine() throws {
    let lane = try TestLane(catalog: Self.catalog())
    try Self.sale(lane)
    try lane.ok(returnRequest(line: 1, qty: 1))
    // Line 1 is back; a tee by SKU is line 2's.
    let second = try lane.ok(
      Requests.Return(receipt: 1, lines: [ReturnRequestLine(code: "tee", quantity: 1)], reason: "x")
    )
    #expect(second["receipt"]?["lines"]?.arrayValue?.first?["line"] == .int(2))
  }

  @Test func aBadItemIsRefusedAndChangesNothing() throws {
    let lane = try TestLane(catalog: Self.catalog())
    try Self.sale(lane)
    let before = lane.register.lastSequence
    let cases: [(String, String)] = [
      (#"[{"item":"HAT","qty":1}]"#, "line_not_found"),
      (#"[{"item":"TEE","qty":3}]"#, "return_exceeds_sold"),
      (#"[{"item":"TEE","qty":1},{"line":1,"qty":1}]"#, "bad_request"),
      (#"[{"item":"TEE","line":1,"qty":1}]"#, "bad_request"),
      (#"[{"qty":1}]"#, "bad_request"),
      (#"[{"item":"TEE","qty":0}]"#, "invalid_quantity"),
    ]
    for (lines, code) in cases {
      let reply = try lane.send(
        #"{"op":"return","receipt":1,"lines":\#(lines),"reason":"x"}"#)
      #expect(reply.errorCode == code, "\(lines): \(reply.serialized)")
    }
    #expect(lane.register.lastSequence == before)
    #expect(lane.register.returns.isEmpty)
  }

  @Test func cashRefundsOfACardSaleOnlyWhereTheStoreAllowsThem() throws {
    let strict = try TestLane(catalog: Self.catalog())
    try Self.sale(strict)
    let refused = try strict.send(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(code: "JEANS", quantity: 1)], reason: "x",
        refundTo: .cash)
    )
    #expect(refused.errorCode == "forbidden")
    #expect(refused["error"]?["message"]?.stringValue?.contains("cash_refunds") == true)
    // The default: the card first, up to what it paid.
    let toTenders = try strict.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(code: "JEANS", quantity: 1)], reason: "x"))
    #expect(toTenders["receipt"]?["refunds"]?.arrayValue?.first?["type"] == "card")

    let lenient = try TestLane(catalog: Self.catalog(#", "cash_refunds": true"#))
    try Self.sale(lenient)
    let cash = try lenient.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(code: "JEANS", quantity: 1)], reason: "x",
        refundTo: .cash)
    )
    let refunds = try #require(cash["receipt"]?["refunds"]?.arrayValue)
    #expect(refunds.map { $0["type"] } == ["cash"])
    #expect(refunds.first?["amount"] == cash["receipt"]?["total"])
    // A cash sale may always be refunded in cash.
    let cashSale = try TestLane(catalog: Self.catalog())
    try cashSale.ok(Requests.Add(sku: "JEANS"))
    try cashSale.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    try cashSale.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(code: "JEANS", quantity: 1)], reason: "x",
        refundTo: .cash)
    )
  }

  @Test func aReceiptNumbersTheLinesOfAProductOnSeveralLines() throws {
    let lane = try TestLane(catalog: Self.catalog())
    try Self.sale(lane)
    let text = try #require(try lane.ok(Requests.Receipt(number: 1))["text"]?.stringValue)
    #expect(text.contains("#1 1 x T-Shirt"), "\(text)")
    #expect(text.contains("#2 1 x T-Shirt"), "\(text)")
    #expect(text.contains("\n1 x Jeans"), "one line of its product: no number\n\(text)")
    let single = try TestLane(catalog: Self.catalog())
    try single.ok(Requests.Add(sku: "JEANS"))
    try single.ok(Requests.Tender(.cash(amount: usd("60.00"))))
    let plain = try single.ok(Requests.Receipt(number: 1))["text"]?.stringValue ?? ""
    #expect(plain.contains("1 x Jeans") && !plain.contains("#"), "\(plain)")
  }
}
