import Testing

@testable import RegisterEngine

/// One typed request per op: every op's type encodes to a line that decodes back to an equal
/// value, and the typed amounts a client builds are refused exactly
/// as the daemon would refuse them.
@Suite struct RequestTypeTests {
  static func usd(_ minorUnits: Int64) -> Money { Money(minorUnits: minorUnits, currency: .usd) }

  /// A product update: the image removed.
  static let priceChange: JSONObject = {
    var changes = JSONObject()
    changes["image"] = .null
    return changes
  }()

  /// Typed values of every op's request, a group per op.
  static let sampleGroups: [[any RequestBody]] = [
    [Requests.Hello()],
    [Requests.Catalog(), Requests.Catalog(limit: 2, afterSKU: "TEE")],
    [Requests.CatalogExport()],
    [Requests.Order()],
    [Requests.Receipt(), Requests.Receipt(number: 12), Requests.Receipt(number: 3, escpos: true)],
    [
      Requests.Add(sku: "TEE"),
      Requests.Add(sku: "PRINT", quantity: 3, options: ["frame": "oak"]),
      Requests.Add(sku: "GIFT-OPEN", amount: usd(4_000)),
    ],
    [Requests.Scan(code: "4006381333931"), Requests.Scan(code: "TEE-WHT-M")],
    [Requests.Remove(line: 2)],
    [Requests.SetQty(line: 1, quantity: 4)],
    [
      Requests.Tender(.cash(amount: usd(2_010))),
      Requests.Tender(
        .card(
          CardInput(number: "4242424242424242", expiryMonth: 12, expiryYear: 2030, cvv: "739"),
          amount: nil)),
      Requests.Tender(.giftCard(number: "6001234567890128", amount: nil)),
      Requests.Tender(.storeCredit(customerID: "C1", amount: usd(500))),
      Requests.Tender(.other(name: "check", amount: usd(1_000), reference: "1042")),
      Requests.Tender(
        .cardPresent(amount: usd(1_000), brand: "VISA", last4: "4242", authCode: "A1")),
    ],
    [Requests.Void(), Requests.Void(reason: "customer left")],
    [
      Requests.Discount(line: 1, value: .percent(Percent(millionths: 12_500_000)), reason: "r"),
      Requests.Discount(value: .amount(usd(500)), reason: "loyal"),
      Requests.Discount(value: .amount(usd(0)), reason: "undo"),
    ],
    [Requests.OverridePrice(line: 1, unitPrice: usd(1_999), reason: "r")],
    [Requests.VoidLine(line: 3)],
    [Requests.Park(), Requests.Park(note: "back in 5")],
    [Requests.Parked()],
    [Requests.Resume(orderID: 4)],
    [
      Requests.Return(
        receipt: 2,
        lines: [
          ReturnRequestLine(line: 1, quantity: 1), ReturnRequestLine(line: 3, quantity: 2),
        ],
        reason: "too small"),
      Requests.Return(
        receipt: 2, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "r",
        refundTo: .storeCredit(customerID: "C1")),
      Requests.Return(
        receipt: 2, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "r",
        refundTo: .storeCredit(customerID: nil)),
    ],
    [Requests.GiftCardBalance(number: "6001234567890128")],
    [Requests.GiftCardReload(number: "6001234567890128", amount: usd(2_500))],
    [
      Requests.Subscribe(), Requests.Subscribe(topics: ["sale_completed"], after: 17),
    ],
    [Requests.OperatorAdd(operatorID: "amy", name: "Amy", role: .manager, pin: "1234")],
    [Requests.OperatorList()],
    [Requests.OperatorRemove(operatorID: "amy")],
    [Requests.OperatorSetPIN(operatorID: "amy", pin: "987654")],
    [Requests.OperatorUnlock(operatorID: "amy")],
    [
      Requests.Setup(
        store: .object(["name": .string("Shop"), "currency": .string("USD")]),
        manager: SetupManager(id: "mo", name: "Mo", pin: "4321")),
      Requests.Setup(store: nil, manager: SetupManager(id: "mo", name: "Mo", pin: "4321")),
    ],
    [Requests.SignIn(operatorID: "amy", pin: "1234")],
    [Requests.SignOut()],
    [
      Requests.CustomerAdd(name: "Dana"),
      Requests.CustomerAdd(name: "Dana", email: "dana@example.com", phone: "555-0100"),
    ],
    [Requests.CustomerFind(query: "Dana"), Requests.CustomerFind(query: "Dana", limit: 5)],
    [Requests.AttachCustomer(customerID: "C1")],
    [Requests.DetachCustomer()],
    [Requests.CustomerHistory(customerID: "C1")],
    [Requests.ProductLookup(sku: "TEE")],
    [Requests.Wishlist(customerID: "C1")],
    [Requests.WishlistAdd(customerID: "C1", sku: "TEE")],
    [Requests.WishlistRemove(customerID: "C1", sku: "TEE")],
    [Requests.WishlistToOrder(customerID: "C1", sku: "TEE")],
    [Requests.ProductAdd(product: .object(["sku": "X-1"]))],
    [Requests.ProductUpdate(sku: "TEE", changes: Self.priceChange)],
    [Requests.ProductRemove(sku: "TEE")],
    [Requests.StockAdjust(sku: "TEE", delta: -2, reason: "damaged")],
    [Requests.SetFloat(amount: usd(15_000))],
    [Requests.PaidIn(amount: usd(100), reason: "change")],
    [Requests.PaidOut(amount: usd(250), reason: "stamps")],
    [Requests.NoSale(), Requests.NoSale(reason: "change for a 20")],
    [Requests.EmailReceipt(receipt: 1), Requests.EmailReceipt(receipt: 1, to: "a@example.com")],
    [Requests.Print(), Requests.Print(receipt: 42)],
    [
      Requests.Report(kind: .x), Requests.Report(kind: .z, day: 3),
      Requests.Report(kind: .z, day: 3, escpos: true),
    ],
    [Requests.CloseDay(), Requests.CloseDay(countedCash: usd(41_235))],
  ]

  /// Typed values of `op`'s request.
  static func samples(of op: Op) -> [any RequestBody] {
    sampleGroups.joined().filter { Swift.type(of: $0).op == op }
  }

  @Test(arguments: Op.allCases)
  func everyOpsRequestTypeRoundTrips(op: Op) throws {
    #expect(op.requestType.op == op)
    let envelopes = [
      RequestEnvelope(),
      RequestEnvelope(
        id: "t-1", key: "k-1", expectVersion: 3,
        approval: Approval(operatorID: "boss", pin: "4321")),
    ]
    #expect(!Self.samples(of: op).isEmpty, "a new op needs a sample here")
    for body in Self.samples(of: op) {
      #expect(Swift.type(of: body).op == op)
      for envelope in envelopes {
        let line = envelope.line(for: body)
        let request = try RequestDecoder.decode(Array(line.utf8), currency: .usd)
        #expect(request.op == op, "\(line)")
        #expect(request.body.isEqual(to: body), "\(line)")
        #expect(request.envelope == envelope, "\(line)")
        // Encoding what was decoded gives the same line back.
        #expect(request.envelope.line(for: request.body) == line)
      }
    }
  }

  @Test func aBodyIsNotEqualToAnotherOpsOrOtherFields() {
    let add: any RequestBody = Requests.Add(sku: "TEE")
    #expect(!add.isEqual(to: Requests.Remove(line: 1)))
    #expect(!add.isEqual(to: Requests.Add(sku: "TEE", quantity: 1)))
    #expect(add.isEqual(to: Requests.Add(sku: "TEE")))
  }

  @Test func theFingerprintIsTheCanonicalRequestWithoutEnvelopeOrCardData() throws {
    let keyed =
      #"{"type":"card","id":9,"op":"tender","amount":"5.0","key":"k1","expect_version":2,"#
      + #""card":{"number":"4242 4242 4242 4242","exp_month":12,"exp_year":2030,"cvv":"739"}}"#
    let request = try RequestDecoder.decode(Array(keyed.utf8), currency: .usd)
    // The same bytes as before typed requests (keys stored by an older journal must match):
    // the client's own text ("5.0", not "5.00"), members sorted, card cut to its last four.
    #expect(
      request.fingerprint
        == #"{"amount":"5.0","card":{"exp_month":12,"exp_year":2030,"number":"4242"},"op":"tender","type":"card"}"#
    )
    let unkeyed = try RequestDecoder.decode(
      Array(#"{"op":"tender","type":"cash","amount":"5.00"}"#.utf8), currency: .usd)
    #expect(unkeyed.fingerprint == nil, "computed only for a keyed request")
  }

  @Test(arguments: [
    ("20.10", 2_010 as Int64, 2), ("20", 20, 0), ("20.1", 201, 1), ("0.005", 5, 3),
  ])
  func aTypedAmountKeepsItsOwnDecimals(text: String, minorUnits: Int64, digits: Int) throws {
    let money = try TypedAmount.money(text, path: "amount")
    #expect(money.minorUnits == minorUnits)
    #expect(money.currency.minorDigits == digits)
    #expect(money.decimalString == text)
    // registerd reads the same text against the store's currency.
    let line = RequestEnvelope().line(for: Requests.SetFloat(amount: money))
    #expect(line == #"{"op":"float","amount":"\#(text)"}"#)
  }

  @Test(arguments: [
    ("amount", "abc"), ("amount", "-5"), ("amount", "1,000"), ("amount", "12."),
    ("amount", "99999999999999999999"), ("percent", "ten"), ("percent", "-1"),
    ("percent", "1.0000001"),
  ])
  func aTypedAmountIsRefusedAsTheDaemonRefusesIt(field: String, text: String) throws {
    let typed: RegisterError
    do {
      if field == "amount" {
        _ = try TypedAmount.money(text, path: field)
      } else {
        _ = try TypedAmount.percent(text, path: field)
      }
      Issue.record("\(text) was accepted")
      return
    } catch {
      typed = error
    }
    let line = #"{"op":"discount","\#(field)":"\#(text)","reason":"r"}"#
    do {
      _ = try RequestDecoder.decode(Array(line.utf8), currency: .usd)
      Issue.record("registerd accepted \(line)")
    } catch {
      #expect(error.error == typed)
      #expect(typed.code == .invalidAmount)
    }
  }
}
