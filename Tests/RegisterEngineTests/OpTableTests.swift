import Testing

@testable import RegisterEngine

/// Each op is declared once, by its request type, and listed once (`Requests.all`): every op
/// decodes to a body of its type, and whether it mutates is what that type is.
@Suite struct OpTableTests {
  /// One well-formed request per op (decoding only: whether the register would accept it is
  /// `decide`'s business).
  static let samples: [String] = [
    #"{"op":"hello"}"#,
    #"{"op":"catalog"}"#,
    #"{"op":"catalog_export"}"#,
    #"{"op":"order"}"#,
    #"{"op":"receipt","number":1}"#,
    #"{"op":"add","sku":"TEE"}"#,
    #"{"op":"scan","code":"2001234000079"}"#,
    #"{"op":"remove","line":1}"#,
    #"{"op":"set_qty","line":1,"qty":2}"#,
    #"{"op":"tender","type":"cash","amount":"1.00"}"#,
    #"{"op":"void"}"#,
    #"{"op":"discount","percent":"10","reason":"r"}"#,
    #"{"op":"override_price","line":1,"unit_price":"1.00","reason":"r"}"#,
    #"{"op":"void_line","line":1}"#,
    #"{"op":"park"}"#,
    #"{"op":"parked"}"#,
    #"{"op":"resume","order_id":1}"#,
    #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"r"}"#,
    #"{"op":"subscribe"}"#,
    #"{"op":"operator_add","operator_id":"amy","name":"Amy","role":"manager","pin":"1234"}"#,
    #"{"op":"operator_list"}"#,
    #"{"op":"operator_remove","operator_id":"amy"}"#,
    #"{"op":"operator_set_pin","operator_id":"amy","pin":"1234"}"#,
    #"{"op":"operator_unlock","operator_id":"amy"}"#,
    #"{"op":"setup","manager":{"id":"mo","name":"Mo","pin":"4321"}}"#,
    #"{"op":"sign_in","operator":"amy","pin":"1234"}"#,
    #"{"op":"sign_out"}"#,
    #"{"op":"customer_add","name":"Dana"}"#,
    #"{"op":"customer_find","query":"Dana"}"#,
    #"{"op":"attach_customer","customer_id":"C1"}"#,
    #"{"op":"detach_customer"}"#,
    #"{"op":"customer_history","customer_id":"C1"}"#,
    #"{"op":"product_add","product":{"sku":"X"}}"#,
    #"{"op":"product_update","sku":"TEE","changes":{"price":"1.00"}}"#,
    #"{"op":"product_remove","sku":"TEE"}"#,
    #"{"op":"stock_adjust","sku":"TEE","delta":1,"reason":"r"}"#,
    #"{"op":"float","amount":"100.00"}"#,
    #"{"op":"paid_in","amount":"1.00","reason":"r"}"#,
    #"{"op":"paid_out","amount":"1.00","reason":"r"}"#,
    #"{"op":"no_sale"}"#,
    #"{"op":"email_receipt","receipt":1,"to":"a@example.com"}"#,
    #"{"op":"print","receipt":"R1"}"#,
    #"{"op":"report","kind":"x"}"#,
    #"{"op":"close_day"}"#,
    #"{"op":"gift_card_balance","number":"6001234567890128"}"#,
    #"{"op":"gift_card_reload","number":"6001234567890128","amount":"25.00"}"#,
    #"{"op":"product","sku":"TEE"}"#,
    #"{"op":"wishlist","customer_id":"C1"}"#,
    #"{"op":"wishlist_add","customer_id":"C1","sku":"TEE"}"#,
    #"{"op":"wishlist_remove","customer_id":"C1","sku":"TEE"}"#,
    #"{"op":"wishlist_to_order","customer_id":"C1","sku":"TEE"}"#,
  ]

  @Test func everyOpHasASampleAndDecodesToABodyOfItsType() throws {
    var covered: Set<Op> = []
    for line in Self.samples {
      let request = try RequestDecoder.decode(Array(line.utf8), currency: .usd)
      let op = request.op
      #expect(Op.named(op.rawValue) == op, "\(line)")
      switch request.operation {
      case .query(let body): #expect(!op.isMutation && type(of: body).op == op, "\(line)")
      case .mutation(let body): #expect(op.isMutation && type(of: body).op == op, "\(line)")
      }
      covered.insert(op)
    }
    #expect(covered == Set(Op.allCases), "a new op needs a sample here")
  }

  @Test func eachOpIsListedOnceUnderANameTheDecoderCanFind() {
    let names = Op.allCases.map(\.rawValue)
    #expect(Set(names).count == names.count)
    for name in names {
      #expect(name.utf8.count <= ShortTextTable<Int>.maximumLength, "\(name)")
      #expect(OpTable.named(name) != nil, "\(name)")
    }
  }

  @Test func helloListsExactlyTheOps() {
    #expect(RequestDecoder.opNames == Op.allCases.map(\.rawValue).sorted())
  }

  @Test func readsAreNotMutations() {
    let reads = Op.allCases.filter { !$0.isMutation }.map(\.rawValue).sorted()
    #expect(
      reads == [
        "catalog", "catalog_export", "customer_find", "customer_history", "gift_card_balance",
        "hello", "operator_list", "order", "parked", "product", "receipt", "report", "subscribe",
        "wishlist",
      ])
  }
}

/// Event types are declared once (`EventType`); the topic groups come from it.
@Suite struct EventTypeTableTests {
  @Test func theTopicGroupsAreTheDocumentedOnes() {
    #expect(
      Topics.groups == [
        "order": [
          "line_added", "line_removed", "quantity_set", "line_voided", "tender_added",
          "discount_set", "price_overridden", "order_voided", "order_parked", "order_resumed",
          "sale_completed", "customer_attached", "customer_detached",
        ],
        "sale": ["sale_completed", "return_completed", "receipt_emailed"],
        "day": ["day_closed"],
        "catalog": [
          "store_configured", "catalog_loaded", "product_added", "product_updated",
          "product_removed", "stock_adjusted",
        ],
        "drawer": ["float_set", "paid_in", "paid_out", "no_sale", "day_closed"],
        "people": [
          "operator_added", "operator_removed", "operator_pin_set", "operator_unlocked",
          "pin_failed", "pin_accepted", "signed_in", "signed_out", "customer_added",
          "wishlist_added", "wishlist_removed",
        ],
        "printer": ["print_queued", "print_done"],
      ])
    #expect(Topics.eventTypes == Set(EventType.allCases.map(\.rawValue)))
  }

  @Test func anUnknownEventTypeIsRefusedWhenRead() {
    #expect(throws: JSONShapeError.self) {
      try Event.decode(type: "sale_exploded", data: .object([:]), currency: .usd)
    }
  }

  /// A record that cannot be read names the member at fault, however deep: the decode runs
  /// without building paths and, only when it fails, again with them.
  @Test(arguments: [
    (
      "line_added",
      #"{"order_id":1,"line":{"line":1,"sku":"TEE","name":"T","qty":"two","unit_price":"1.00","regular_price":"1.00","tax_class":"standard","tax_rate":"0"}}"#,
      "data.line.qty"
    ),
    ("line_added", #"{"order_id":1}"#, "data.line"),
    (
      "tender_added", #"{"order_id":1,"tender":{"type":"cash","amount":"1.001"}}"#,
      "data.tender.amount"
    ),
    ("paid_in", #"{"amount":"1.00","reason":7}"#, "data.reason"),
    ("sale_completed", #"{"order_id":1,"receipt":2,"change":"-1.00"}"#, "data.change"),
    (
      "catalog_loaded",
      #"{"products":[{"sku":"A","name":"A","description":"A","category":"C","price":"1.00"},{"sku":"B","name":"B","description":"B","category":"C","price":"x"}]}"#,
      "data.products[1].price"
    ),
    (
      "order_voided",
      #"{"order_id":1,"reversed_tenders":[{"type":"cash","amount":"1.00"},{"type":"barter","amount":"1.00"}]}"#,
      "data.reversed_tenders[1].type"
    ),
  ])
  func aRecordThatCannotBeReadNamesTheMember(type: String, data: String, path: String) throws {
    let value = try JSONParser.parse(Array(data.utf8))
    do {
      _ = try Event.decode(type: type, data: value, currency: .usd)
      Issue.record("\(type) \(data) was read")
    } catch {
      #expect(error.path == path)
      #expect(!error.description.contains("\u{0}"))
    }
  }

  @Test func everyEventRoundTripsThroughItsType() throws {
    let events: [Event] = [
      .noSale(reason: "r"), .signedOut(id: "amy"), .pinFailed(id: "amy"),
      .productRemoved(sku: "TEE"), .stockAdjusted(sku: "TEE", delta: 3, reason: "count"),
    ]
    for event in events {
      let read = try Event.decode(type: event.type, data: event.data, currency: .usd)
      #expect(read.eventType == event.eventType)
      #expect(read.data == event.data)
    }
  }
}
