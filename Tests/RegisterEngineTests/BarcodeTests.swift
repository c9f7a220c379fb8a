import RegisterServer
import Testing

@testable import RegisterEngine

/// EAN-13, UPC-A and EAN-8 check digits, barcodes in the catalog, and `scan`.
@Suite struct BarcodeTests {
  /// Published codes with their right check digits.
  @Test(arguments: [
    ("4006381333931", Barcode.Kind.ean13),
    ("5901234123457", .ean13),
    ("036000291452", .upcA),
    ("012345678905", .upcA),
    ("96385074", .ean8),
    ("73513537", .ean8),
  ])
  func knownCodesAreValid(code: String, kind: Barcode.Kind) {
    guard case .success(let barcode) = Barcode.parse(code) else {
      Issue.record("\(code) refused")
      return
    }
    #expect(barcode.kind == kind)
    #expect(barcode.digits == code)
  }

  @Test func everyWrongCheckDigitIsCaughtAndTheRightOneNamed() {
    for code in ["4006381333931", "036000291452", "96385074"] {
      let body = code.dropLast()
      let right = code.last!
      for digit in "0123456789" where digit != right {
        let result = Barcode.parse(String(body) + String(digit))
        guard case .failure(.badCheckDigit(_, let expected)) = result else {
          Issue.record("\(body)\(digit) accepted")
          continue
        }
        #expect(expected == right)
      }
    }
  }

  @Test(arguments: ["", "123", "12345678901234", "40063813339a1", "４００６３８１３３３９３１", " 96385074"])
  func textThatIsNoBarcode(text: String) {
    #expect(Barcode.parse(text) == .failure(.notABarcode))
  }

  @Test func aUPCAIsTheEAN13WithALeadingZero() throws {
    guard case .success(let upc) = Barcode.parse("036000291452"),
      case .success(let ean) = Barcode.parse("0036000291452")
    else {
      Issue.record("refused")
      return
    }
    #expect(upc.key == ean.key)
  }
}

/// A register whose products carry barcodes, behind the protocol.
private struct ScanLane: RequestLane {
  static let catalog = """
    {"store": {"name": "Scan Lane", "address": [], "currency": "USD",
               "tax": {"classes": {"standard": "10", "exempt": "0"}, "default_class": "standard"}},
     "products": [
       {"sku": "TEE", "name": "T-Shirt", "description": "", "category": "Tops", "price": "20.00",
        "stock": 2, "barcodes": ["4006381333931", "96385074"]},
       {"sku": "CAP", "name": "Cap", "description": "", "category": "Hats", "price": "9.00",
        "barcodes": ["036000291452"]},
       {"sku": "PRINT", "name": "Print", "description": "", "category": "Prints", "price": "5.00",
        "options": [{"group": "size", "required": true,
                     "choices": [{"name": "4x6", "price_delta": "0.00"}]}],
        "barcodes": ["5901234123457"]},
       {"sku": "12345", "name": "Numbered Sock", "description": "", "category": "Socks",
        "price": "3.00"}
     ]}
    """
  let service: RegisterService

  init() throws {
    let catalog = try CatalogFile.parse(Array(Self.catalog.utf8), file: "scan.json")
    service = RegisterService(
      register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime))
  }

  @discardableResult
  func send(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.send(line, sourceLocation: sourceLocation)
  }

  @discardableResult
  func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.ok(line, sourceLocation: sourceLocation)
  }

  func scan(_ code: String) throws -> JSONValue {
    try send(Requests.Scan(code: code))
  }
}

@Suite struct ScanTests {
  @Test func aBarcodeAddsOneUnitOfItsProduct() throws {
    let lane = try ScanLane()
    let reply = try lane.scan("4006381333931")
    #expect(reply["ok"] == .bool(true))
    let line = reply["result"]?["lines"]?.arrayValue?.last
    #expect(line?["sku"] == .string("TEE"))
    #expect(line?["qty"] == .int(1))
    // The second barcode of the same product, then a UPC-A read as the EAN-13 it is.
    _ = try lane.ok(Requests.Scan(code: "96385074"))
    let cap = try lane.scan("0036000291452")
    #expect(
      cap["result"]?["lines"]?.arrayValue?.map { $0["sku"] } == [
        .string("TEE"), .string("TEE"), .string("CAP"),
      ])
  }

  @Test func aBarcodeGivenToAddRingsUpItsProductAndASKUStillWins() throws {
    let lane = try ScanLane()
    let tee = try lane.ok(Requests.Add(sku: "4006381333931", quantity: 2))
    #expect(tee["lines"]?.arrayValue?.last?["sku"] == .string("TEE"))
    #expect(tee["lines"]?.arrayValue?.last?["qty"] == .int(2))
    // A SKU that is all digits is the product with that SKU, barcode or not.
    let sock = try lane.ok(Requests.Add(sku: "12345"))
    #expect(sock["lines"]?.arrayValue?.last?["sku"] == .string("12345"))
    #expect(try lane.send(Requests.Add(sku: "73513537")).errorCode == "unknown_sku")
  }

  @Test func aScannedSKUAndScannerWhitespaceWork() throws {
    let lane = try ScanLane()
    #expect(try lane.scan("CAP\r")["ok"] == .bool(true))
    #expect(
      try lane.scan("  12345\t")["result"]?["lines"]?.arrayValue?.last?["sku"] == .string("12345"))
  }

  @Test func aMisreadAnUnknownCodeAndBadInputChangeNothing() throws {
    let lane = try ScanLane()
    let before = lane.service.register.order
    let misread = try lane.scan("4006381333932")
    #expect(misread.errorCode == "invalid_barcode")
    #expect(misread["error"]?["message"]?.stringValue?.contains("EAN-13") == true)
    #expect(try lane.scan("4006381333901").errorCode == "invalid_barcode")
    #expect(try lane.scan("73513537").errorCode == "unknown_barcode")
    #expect(try lane.scan("NO-SUCH-SKU").errorCode == "unknown_barcode")
    for bad in ["", "   ", "A\u{1}B", String(repeating: "7", count: 65)] {
      #expect(try lane.scan(bad).errorCode == "bad_request", "\(bad)")
    }
    #expect(try lane.send(#"{"op":"scan","code":5}"#).errorCode == "bad_request")
    #expect(try lane.send(#"{"op":"scan"}"#).errorCode == "bad_request")
    #expect(lane.service.register.order == before)
  }

  @Test func scanRespectsStockAndRequiredOptionsAsAddDoes() throws {
    let lane = try ScanLane()
    _ = try lane.ok(Requests.Scan(code: "4006381333931"))
    _ = try lane.ok(Requests.Scan(code: "4006381333931"))
    #expect(try lane.scan("4006381333931").errorCode == "out_of_stock")
    #expect(try lane.scan("5901234123457").errorCode == "invalid_option")
  }

  @Test func productOpsKeepBarcodesUnique() throws {
    let lane = try ScanLane()
    let taken = try lane.send(
      Requests.ProductAdd(
        product: .object([
          "sku": "NEW", "name": "New", "description": "", "category": "X", "price": "1.00",
          "barcodes": ["036000291452"],
        ]))
    )
    #expect(taken.errorCode == "invalid_product")
    #expect(taken["error"]?["message"]?.stringValue?.contains("CAP") == true)
    let skuClash = try lane.send(
      Requests.ProductUpdate(sku: "CAP", changes: JSONObject(["barcodes": ["12345"]])))
    #expect(skuClash.errorCode == "invalid_product")
    let badDigit = try lane.send(
      Requests.ProductUpdate(sku: "CAP", changes: JSONObject(["barcodes": ["036000291453"]])))
    #expect(badDigit.errorCode == "invalid_product")
    #expect(badDigit["error"]?["message"]?.stringValue?.contains("check digit should be 2") == true)
    // A product may change its own codes, and the old code then names nothing.
    _ = try lane.ok(
      Requests.ProductUpdate(sku: "CAP", changes: JSONObject(["barcodes": ["73513537"]])))
    #expect(try lane.scan("73513537")["ok"] == .bool(true))
    #expect(try lane.scan("036000291452").errorCode == "unknown_barcode")
    // A removed product's codes are free again.
    _ = try lane.ok(Requests.Void())
    _ = try lane.ok(Requests.ProductRemove(sku: "CAP"))
    _ = try lane.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "NEW", "name": "New", "description": "", "category": "X", "price": "1.00",
          "barcodes": ["73513537"],
        ]))
    )
    #expect(
      try lane.scan("73513537")["result"]?["lines"]?.arrayValue?.last?["sku"] == .string("NEW"))
  }

  @Test func catalogShowsBarcodesAndTheFileIsChecked() throws {
    let lane = try ScanLane()
    let products = try lane.ok(Requests.Catalog())["products"]?.arrayValue ?? []
    #expect(
      products.first { $0["sku"] == .string("TEE") }?["barcodes"]
        == .array([.string("4006381333931"), .string("96385074")]))
    func refusal(_ products: String) -> String {
      let text =
        #"{"store": {"name": "S", "address": [], "currency": "USD", "tax": {"classes": {"standard": "10"}, "default_class": "standard"}}, "products": [\#(products)]}"#
      do {
        _ = try CatalogFile.parse(Array(text.utf8), file: "c.json")
        return "accepted"
      } catch {
        return error.description
      }
    }
    let p = #""name": "N", "description": "", "category": "C", "price": "1.00""#
    #expect(
      refusal(#"{"sku": "A", \#(p), "barcodes": ["4006381333932"]}"#).contains(
        "check digit should be 1"))
    #expect(refusal(#"{"sku": "A", \#(p), "barcodes": ["12AB"]}"#).contains("is not a barcode"))
    #expect(
      refusal(
        #"{"sku": "A", \#(p), "barcodes": ["036000291452"]}, {"sku": "B", \#(p), "barcodes": ["0036000291452"]}"#
      )
      .contains("also a barcode of \"A\""))
    #expect(
      refusal(#"{"sku": "A", \#(p), "barcodes": ["96385074", "96385074"]}"#).contains(
        "listed twice"))
    #expect(
      refusal(#"{"sku": "96385074", \#(p)}, {"sku": "B", \#(p), "barcodes": ["96385074"]}"#)
        .contains("SKU of products[0]"))
    #expect(refusal(#"{"sku": "A", \#(p), "barcodes": "96385074"}"#) != "accepted")
  }

  @Test func barcodesSurviveTheJournalAndTheSnapshot() throws {
    let lane = try ScanLane()
    _ = try lane.ok(
      Requests.ProductUpdate(sku: "CAP", changes: JSONObject(["barcodes": ["73513537"]])))
    let state = lane.service.register
    let decoded = try Register(snapshot: state.snapshotValue())
    #expect(decoded.products == state.products)
    #expect(decoded.products["CAP"]?.barcodes == ["73513537"])
  }

  @Test func aReceiptNumberAsScannedNamesTheReceipt() throws {
    for (text, number) in [("R42", 42), ("r42", 42), ("R000042", 42), ("42", 42)] {
      #expect(ReceiptCode.number(in: text) == number)
    }
    for text in ["", "R", "R-1", "R0", "RR42", "42R", "R1000000000000000001", "Ｒ42"] {
      #expect(ReceiptCode.number(in: text) == nil, "\(text)")
    }
    #expect(ReceiptCode.text(for: 42) == "R42")
    let lane = try ScanLane()
    _ = try lane.ok(Requests.Scan(code: "CAP"))
    _ = try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    let reprint = try lane.ok(#"{"op":"receipt","number":"R1"}"#)
    #expect(reprint["number"] == .int(1))
    let refund = try lane.ok(
      #"{"op":"return","receipt":"R1","lines":[{"line":1,"qty":1}],"reason":"scanned"}"#)
    #expect(refund["receipt"]?["original_receipt"] == .int(1))
    #expect(try lane.send(#"{"op":"receipt","number":"X1"}"#).errorCode == "bad_request")
  }
}
