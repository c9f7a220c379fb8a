import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The lane of `ReceiptTests`: 2 T-shirts and a gift card, paid by Visa and cash (receipt 1),
/// then one T-shirt returned (receipt 2).
private func saleAndReturn() throws -> TestLane {
  let lane = try TestLane()
  try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
  try lane.ok(Requests.Add(sku: "GIFT"))
  try lane.ok(Requests.Tender(.card(testCard(), amount: usd("30.00"))))
  try lane.ok(Requests.Tender(.cash(amount: usd("30.00"))))
  try lane.ok(
    Requests.Return(
      receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "too small"))
  return lane
}

/// The decoded lines with the padding of centred lines put back, as the text receipt has them.
/// Only the lines before the symbol (or the cut) count: the feeds around a barcode are not text.
private func asText(_ decoded: EscPosDecoder, width: Int) -> String {
  let end =
    decoded.position {
      switch $0 {
      case .barcodeHeight, .qrModel, .cut: true
      default: false
      }
    } ?? decoded.items.count
  return decoded.items[..<end].compactMap { item -> String? in
    guard case .line(let text, let style) = item else { return nil }
    guard style.centered else { return text + "\n" }
    return String(repeating: " ", count: max(0, (width - text.count) / 2)) + text + "\n"
  }.joined()
}

/// A hex dump, 16 bytes a line with the printable ASCII beside it: the golden files' form.
private func hexDump(_ bytes: [UInt8]) -> String {
  let digits = Array("0123456789abcdef")
  var out = ""
  for start in stride(from: 0, to: bytes.count, by: 16) {
    let row = bytes[start..<min(start + 16, bytes.count)]
    var hex = row.map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 15)])" }.joined(separator: " ")
    hex += String(repeating: " ", count: 16 * 3 - 1 - hex.count)
    let ascii = String(row.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "." })
    out += "\(hex)  \(ascii)\n"
  }
  return out
}

private let goldenDirectory: String = {
  var path = #filePath
  while let last = path.last, last != "/" { path.removeLast() }
  return path + "Golden/"
}()

/// Compares `bytes` with the golden file `name`; a missing file is written (and the test
/// fails, so that a new golden file is looked at before it is committed).
private func expectGolden(
  _ bytes: [UInt8], _ name: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  let path = goldenDirectory + name
  let dump = hexDump(bytes)
  guard let stored = try? FileIO.read(path) else {
    try? FileIO.writeAtomically(Array(dump.utf8), to: path)
    Issue.record("wrote the missing golden file \(path): check it", sourceLocation: sourceLocation)
    return
  }
  let expected = String(decoding: stored, as: UTF8.self)
  #expect(
    dump == expected,
    "ESC/POS bytes differ from \(name); they decode to:\n\(EscPosDecoder(bytes).transcript)",
    sourceLocation: sourceLocation)
}

@Suite struct EscPosTests {
  // MARK: - Golden bytes, one per document kind

  @Test func goldenSaleReceipt() throws {
    let lane = try saleAndReturn()
    let sale = try #require(lane.register.receipts[1])
    expectGolden(ReceiptRenderer.escpos(sale), "sale.hex")
  }

  @Test func goldenReprint() throws {
    let lane = try saleAndReturn()
    let sale = try #require(lane.register.receipts[1])
    expectGolden(ReceiptRenderer.escpos(sale, reprint: true), "reprint.hex")
  }

  @Test func goldenReturnReceipt() throws {
    let lane = try saleAndReturn()
    let refund = try #require(lane.register.returns[2])
    expectGolden(ReceiptRenderer.escpos(refund), "return.hex")
  }

  @Test func goldenXAndZReports() throws {
    let lane = try saleAndReturn()
    expectGolden(
      ReportRenderer.escpos(DayReport(openDayOf: lane.register, at: testTime)), "x-report.hex")
    try lane.ok(Requests.CloseDay(countedCash: usd("27.25")))
    let closed = try #require(lane.register.closedDays[1])
    expectGolden(ReportRenderer.escpos(DayReport(closed: closed)), "z-report.hex")
  }

  // MARK: - What the bytes do, read back by the decoder

  @Test func saleReceiptPrintsTheTextLinesThenTheBarcodeThenCuts() throws {
    let lane = try saleAndReturn()
    let sale = try #require(lane.register.receipts[1])
    let decoded = EscPosDecoder(ReceiptRenderer.escpos(sale))
    #expect(decoded.unknown.isEmpty)
    // Initialised first, then code page 437 and font A.
    #expect(Array(decoded.items.prefix(3)) == [.initialize, .codePage(0), .font(0)])
    // The same lines as the text receipt.
    #expect(asText(decoded, width: 40) == ReceiptRenderer.text(sale))
    // The store's name centred and bold; the total in double height.
    #expect(
      decoded.items.contains(
        .line(
          String(repeating: " ", count: 15) + "Test Lane",
          style: EscPosDecoder.Style(emphasized: true))))
    let total = try #require(
      decoded.items.first {
        if case .line(let text, _) = $0 { return text.hasPrefix("TOTAL") }
        return false
      })
    guard case .line(_, let totalStyle) = total else { return }
    #expect(totalStyle.doubleHeight && totalStyle.emphasized && !totalStyle.centered)
    // Only the total is tall.
    let tall = decoded.items.filter {
      if case .line(_, let style) = $0 { return style.doubleHeight }
      return false
    }
    #expect(tall.count == 1)
    // The barcode carries the receipt code a return scans: R1, Code 128, text below.
    #expect(decoded.codes == ["R1"])
    #expect(decoded.items.contains(.barcodeText(2)))
    // The cut is the very last thing, after the barcode, after the last line.
    #expect(decoded.items.last == .cut(mode: 66, feed: 3))
    let barcode = try #require(decoded.position { $0 == .code128("R1") })
    let lastLine = try #require(decoded.lastTextLine)
    #expect(lastLine < barcode)
    // No drawer kick unless asked for.
    #expect(!decoded.items.contains { if case .drawerKick = $0 { true } else { false } })
  }

  @Test func drawerKickComesBeforeTheReceipt() throws {
    let lane = try saleAndReturn()
    let sale = try #require(lane.register.receipts[1])
    let decoded = EscPosDecoder(
      ReceiptRenderer.escpos(sale, options: EscPosOptions(drawerKick: true)))
    let kick = try #require(
      decoded.position { $0 == .drawerKick(pin: 0, on: 25, off: 250) })
    let firstLine = try #require(
      decoded.position { if case .line = $0 { true } else { false } })
    #expect(kick < firstLine)
    #expect(
      EscPosDecoder(EscPos.drawerOnly).items == [
        .initialize, .drawerKick(pin: 0, on: 25, off: 250),
      ])
  }

  @Test func qrCodeInsteadOfTheBarcode() throws {
    let lane = try saleAndReturn()
    let refund = try #require(lane.register.returns[2])
    let decoded = EscPosDecoder(
      ReceiptRenderer.escpos(refund, options: EscPosOptions(barcode: .qr)))
    #expect(decoded.unknown.isEmpty)
    #expect(decoded.codes == ["R2"])
    #expect(!decoded.items.contains { if case .code128 = $0 { true } else { false } })
    let print = try #require(decoded.position { $0 == .qrPrint })
    let cut = try #require(decoded.position { if case .cut = $0 { true } else { false } })
    #expect(print < cut)
    #expect(decoded.text.contains("RETURN"))
  }

  @Test func reprintAndReportsAreMarkedAndCut() throws {
    let lane = try saleAndReturn()
    let sale = try #require(lane.register.receipts[1])
    let reprint = EscPosDecoder(ReceiptRenderer.escpos(sale, reprint: true))
    #expect(reprint.unpaddedLines.contains("*** REPRINT ***"))
    let report = EscPosDecoder(
      ReportRenderer.escpos(DayReport(openDayOf: lane.register, at: testTime)))
    #expect(report.unknown.isEmpty)
    #expect(report.codes.isEmpty)
    #expect(report.items.last == .cut(mode: 66, feed: 3))
    #expect(
      report.items.contains(
        .line(
          String(repeating: " ", count: 12) + "X REPORT - DAY 1",
          style: EscPosDecoder.Style(emphasized: true))))
    #expect(
      asText(report, width: 40)
        == ReportRenderer.text(DayReport(openDayOf: lane.register, at: testTime)))
  }

  // MARK: - Code pages: never raw UTF-8

  @Test(arguments: [
    (CodePage.cp437, "Cafe\u{301} Señor – Łódź € “ok” ©", "Cafe Señor - Lódz E \"ok\" C"),
    (CodePage.cp858, "Cafe\u{301} Señor – Łódź € “ok” ©", "Cafe Señor - Lódz € \"ok\" ©"),
  ])
  func charactersOutsideTheCodePageAreTransliterated(
    page: CodePage, name: String, printed: String
  ) throws {
    let bytes = page.encode(name)
    // One byte per character, so columns stay where they are.
    #expect(bytes.count == name.count)
    #expect(String(bytes.map(page.character(for:))) == printed)
    #expect(page.encode("é") == [0x82])
    #expect(page.encode("€") == (page == .cp858 ? [0xD5] : [UInt8(ascii: "E")]))
    // Something no table knows is a question mark; control characters are never sent.
    #expect(page.encode("日\u{1B}\u{7F}\t") == Array("????".utf8))
  }

  @Test func productNamesPrintInTheStoreCodePage() throws {
    let lane = try TestLane()
    try lane.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "CAFE", "name": "Café Señor – Łódź €", "description": "", "category": "X",
          "price": "3.00",
        ]))
    )
    try lane.ok(Requests.Add(sku: "CAFE"))
    try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    let sale = try #require(lane.register.receipts[1])
    for page in CodePage.allCases {
      let bytes = ReceiptRenderer.escpos(sale, options: EscPosOptions(codePage: page))
      // No UTF-8 lead byte pair for é (C3 A9) anywhere.
      #expect(!zip(bytes, bytes.dropFirst()).contains { $0 == 0xC3 && $1 == 0xA9 })
      let decoded = EscPosDecoder(bytes)
      #expect(decoded.items[1] == .codePage(page.escPosNumber))
      let euro = page == .cp858 ? "€" : "E"
      #expect(decoded.lines.contains("1 x Café Señor - Lódz \(euro)             3.00"))
      #expect(decoded.unknown.isEmpty)
    }
  }

  @Test(arguments: [40, 42, 48, 64])
  func everyLineFitsTheConfiguredWidth(width: Int) throws {
    var store = try TestLane().register.store
    store.receiptWidth = width
    let catalog = Catalog(store: store, products: try TestLane().register.catalogBase)
    let lane = RegisterService(
      register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime))
    try lane.ok(Requests.Add(sku: "TEE", quantity: 2))
    try lane.ok(Requests.Tender(.cash(amount: usd("50.00"))))
    let sale = try #require(lane.register.receipts[1])
    let decoded = EscPosDecoder(ReceiptRenderer.escpos(sale))
    #expect(decoded.items[2] == .font(width <= 48 ? 0 : 1))
    #expect(decoded.lines.allSatisfy { $0.count <= width })
    #expect(decoded.lines.contains { $0.count == width })
  }

  // MARK: - Over the protocol

  @Test func receiptAndReportRepliesCarryTheBytesWhenAsked() throws {
    let lane = try saleAndReturn()
    let plain = try lane.ok(Requests.Receipt(number: 1))
    #expect(plain["escpos"] == nil)
    let reply = try lane.ok(#"{"op":"receipt","number":"R1","escpos":true}"#)
    let bytes = try #require(reply["escpos"]?.stringValue.flatMap(Base64.decode))
    let sale = try #require(lane.register.receipts[1])
    #expect(bytes == ReceiptRenderer.escpos(sale, reprint: true))
    let refund = try lane.ok(Requests.Receipt(escpos: true))
    #expect(
      refund["escpos"]?.stringValue.flatMap(Base64.decode)
        == ReceiptRenderer.escpos(try #require(lane.register.returns[2]), reprint: true))
    let report = try lane.ok(Requests.Report(kind: .x, escpos: true))
    let reportBytes = try #require(report["escpos"]?.stringValue.flatMap(Base64.decode))
    #expect(EscPosDecoder(reportBytes).unpaddedLines.contains("X REPORT - DAY 1"))
    let refused = try lane.send(#"{"op":"receipt","escpos":"yes"}"#)
    #expect(refused["error"]?["code"] == "bad_request")
  }

  @Test func storeSettingsChooseTheCodePageAndTheSymbol() throws {
    let lane = try saleAndReturn()
    var store = lane.register.store
    #expect(store.printerCodePage == .cp437 && store.receiptBarcode == .code128)
    #expect(store.json["printer_code_page"] == nil)
    store.printerCodePage = .cp858
    store.receiptBarcode = .qr
    let json = store.json
    #expect(json["printer_code_page"] == "cp858")
    #expect(json["receipt_barcode"] == "qr")
    #expect(try StoreSettings(json: json, path: "store") == store)
    #expect(EscPosOptions(store: store) == EscPosOptions(codePage: .cp858, barcode: .qr))
    for (key, value) in [("printer_code_page", "utf8"), ("receipt_barcode", "ean13")] {
      guard case .object(var object) = json else { return }
      object[key] = .string(value)
      #expect(throws: JSONShapeError.self) {
        try StoreSettings(json: .object(object), path: "store")
      }
    }
  }

  // MARK: - Small pieces

  @Test func base64RoundTrips() {
    for length in 0..<10 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 73 + 200) }
      #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }
    #expect(Base64.encode(Array("Man".utf8)) == "TWFu")
    #expect(Base64.decode("TWE=") == Array("Ma".utf8))
    #expect(Base64.decode("TW=u") == nil)
    #expect(Base64.decode("TWF") == nil)
    #expect(Base64.decode("T!Fu") == nil)
  }

  @Test func paperStatus() {
    #expect(EscPos.paperOut(status: 0x12) == false)
    #expect(EscPos.paperOut(status: 0x1E) == false)  // near end: still printing
    #expect(EscPos.paperOut(status: 0x72) == true)
    #expect(EscPos.paperOut(status: 0x00) == nil)
    #expect(EscPos.paperOut(status: 0x92) == nil)
  }
}

/// The customer's pole display: the view `register-cli watch` shows, on two lines of 20.
@Suite struct PoleDisplayTests {
  @Test func theScreensFitTwoLinesOfTwenty() throws {
    let lane = try TestLane()
    var display = CustomerDisplay(store: "Test Lane")
    display.apply(event: nil, order: lane.register.orderJSON)
    #expect(display.poleLines() == ["      Welcome!      ", "     Test Lane      "])
    let added = try lane.ok(Requests.Add(sku: "JEANS", quantity: 2))
    display.apply(
      event: .object([
        "event": "line_added",
        "data": .object(["order_id": .int(1), "line": added["lines"]?.arrayValue?.first ?? .null]),
      ]), order: lane.register.orderJSON)
    // 2 × 49.99 = 99.98, tax 7.5 % = 7.4985 → 7.50: 107.48.
    #expect(display.poleLines() == ["2 x Jeans      99.98", "TOTAL         107.48"])
    try lane.ok(Requests.Tender(.cash(amount: usd("120.00"))))
    display.apply(
      event: .object([
        "event": "sale_completed",
        "data": .object(["order_id": .int(1), "receipt": .int(1), "change": "12.52"]),
      ]), order: lane.register.orderJSON)
    #expect(display.poleLines() == ["     Thank you!     ", "Change         12.52"])
    for lines in [display.poleLines()] { #expect(lines.allSatisfy { $0.count == 20 }) }
  }

  @Test func aLongNameIsCutAndTheAmountKept() {
    var display = CustomerDisplay()
    display.screen = .order
    display.lastItem = CustomerDisplay.Item(
      name: "Oxford Button-Down Shirt", quantity: "1", amount: "1234.56")
    display.total = "1327.15"
    #expect(display.poleLines() == ["Oxford Butto 1234.56", "TOTAL        1327.15"])
  }

  @Test func theBytesClearWriteAndMoveToTheSecondLine() {
    let bytes = EscPos.poleDisplay(["Café", "TOTAL €"], codePage: .cp858)
    let decoded = EscPosDecoder(bytes)
    #expect(decoded.unknown.isEmpty)
    #expect(
      decoded.items == [
        .initialize, .codePage(19), .clearScreen, .line("Café", style: .init()),
        .cursor(x: 1, y: 2), .line("TOTAL €", style: .init()),
      ])
  }
}
