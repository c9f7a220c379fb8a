import Testing

@testable import RegisterEngine

@Suite struct SubscribeTests {
  @Test func recordsCommittedAtStartUpAreDurable() throws {
    // JournalLane starts the way registerd does: the start-up events are committed first.
    let lane = try JournalLane()
    #expect(lane.journal.lastSequence >= 2)
    #expect(lane.service.durableSequence == lane.journal.lastSequence)
    // A failed commit changes nothing, durable sequence included.
    let before = lane.service.durableSequence
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    #expect(throws: SystemError.self) {
      try lane.service.commit([.noSale(reason: "drawer check")])
    }
    #expect(lane.service.durableSequence == before)
    #expect(lane.register.lastSequence == before)
  }

  @Test func subscribeAnswersAndTurnsTheConnectionIntoAListener() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    let last = lane.register.lastSequence
    #expect(last >= 2)

    let result = lane.service.process([incoming(5, #"{"id":"s","op":"subscribe"}"#)])
    let reply = try #require(result.replies.first)
    #expect(reply.connection == 5)
    let parsed = try JSONParser.parse(reply.line)
    #expect(parsed["id"] == "s")
    #expect(parsed["ok"] == .bool(true))
    let answer = try #require(parsed["result"])
    #expect(answer["subscribed"] == .bool(true))
    #expect(answer["topics"] == "all")
    #expect(answer["after"] == .int(last))
    var expected = Subscription(topics: nil, cursor: last)
    expected.requestID = "s"
    #expect(reply.subscription == expected, "with the request's id, for a refusal in its place")
    #expect(reply.subscription?.wants("line_added") == true)
    #expect(reply.subscription?.wants("day_closed") == true)
    // Subscribing changes nothing.
    #expect(result.events.isEmpty)
    #expect(lane.register.lastSequence == last)

    // Other replies carry no subscription.
    let plain = lane.service.process([incoming(5, #"{"op":"order"}"#)])
    #expect(plain.replies.first?.subscription == nil)
    let change = lane.service.process([incoming(5, #"{"op":"add","sku":"GIFT"}"#)])
    #expect(change.replies.first?.subscription == nil)
  }

  @Test func theCursorIsTheLastEventWhenTheRequestIsHandled() throws {
    // In one batch: a change, then a subscribe; the subscriber starts after that change.
    let lane = try JournalLane()
    let start = lane.register.lastSequence
    let result = lane.service.process([
      incoming(1, #"{"op":"add","sku":"JEANS"}"#),
      incoming(2, #"{"op":"subscribe","topics":["order"]}"#),
      incoming(1, #"{"op":"add","sku":"GIFT"}"#),
    ])
    let subscription = try #require(result.replies[1].subscription)
    #expect(subscription.cursor == start + 1)
    #expect(result.replies[0].subscription == nil)
    #expect(result.replies[2].subscription == nil)
    #expect(result.events.map(\.sequence) == [start + 1, start + 2])
    // What the subscriber is owed from this batch: the events after its cursor.
    let owed = result.events.filter {
      $0.sequence > subscription.cursor && subscription.wants($0.event.type)
    }
    #expect(owed.map(\.sequence) == [start + 2])
  }

  @Test func subscribeWithTopicsAndAfter() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    let result = lane.service.process([
      incoming(3, #"{"op":"subscribe","topics":["order","day_closed"],"after":1}"#)
    ])
    let reply = try #require(result.replies.first)
    let answer = try #require(try JSONParser.parse(reply.line)["result"])
    let expanded = try #require(Topics.expand(["order", "day_closed"]))
    #expect(answer["topics"] == .array(expanded.sorted().map(JSONValue.string)))
    #expect(answer["after"] == .int(1))
    #expect(reply.subscription == Subscription(topics: expanded, cursor: 1))
    #expect(reply.subscription?.wants("line_added") == true)
    #expect(reply.subscription?.wants("day_closed") == true)
    #expect(reply.subscription?.wants("catalog_loaded") == false)
    #expect(reply.subscription?.wants("return_completed") == false)

    // after 0 asks for everything in the journal.
    let fromStart = lane.service.process([incoming(3, #"{"op":"subscribe","after":0}"#)])
    #expect(fromStart.replies.first?.subscription == Subscription(topics: nil, cursor: 0))
    // after the very last event is allowed: nothing to catch up.
    let last = lane.register.lastSequence
    let upToDate = lane.service.process([
      incoming(3, #"{"op":"subscribe","after":\#(last)}"#)
    ])
    #expect(upToDate.replies.first?.subscription?.cursor == last)
  }

  @Test(arguments: [
    #"{"op":"subscribe","topics":["orders"]}"#,
    #"{"op":"subscribe","topics":["order","nope"]}"#,
    #"{"op":"subscribe","topics":"order"}"#,
    #"{"op":"subscribe","topics":[1]}"#,
    #"{"op":"subscribe","after":-1}"#,
    #"{"op":"subscribe","after":3}"#,
    #"{"op":"subscribe","after":99}"#,
    #"{"op":"subscribe","after":"1"}"#,
    #"{"op":"subscribe","since":1}"#,
  ])
  func aBadSubscriptionIsRefused(request: String) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    #expect(lane.register.lastSequence == 2)
    let result = lane.service.process([incoming(4, request)])
    let reply = try #require(result.replies.first)
    #expect(try JSONParser.parse(reply.line).errorCode == "bad_request")
    #expect(reply.subscription == nil)
  }

  @Test func topicsExpandGroupsAndEventTypes() throws {
    let sale = try #require(Topics.groups["sale"])
    #expect(sale.isSuperset(of: ["sale_completed", "return_completed"]))
    #expect(Topics.expand(["sale"]) == sale)
    let day = try #require(Topics.groups["day"])
    #expect(day.contains("day_closed"))
    #expect(Topics.expand(["line_added", "day"]) == day.union(["line_added"]))
    #expect(Topics.expand(["sale", "sale_completed"]) == sale)
    #expect(Topics.expand(["line_voided", "line_voided"]) == ["line_voided"])
    #expect(Topics.expand([]) == [])
    #expect(Topics.expand(["nope"]) == nil)
    #expect(Topics.expand(["order", "nope"]) == nil)
    let order = try #require(Topics.expand(["order"]))
    for type in [
      "line_added", "line_removed", "quantity_set", "line_voided", "tender_added", "discount_set",
      "price_overridden", "order_voided", "order_parked", "order_resumed", "sale_completed",
    ] {
      #expect(order.contains(type), "\(type)")
    }
    #expect(!order.contains("return_completed"))
    #expect(!order.contains("day_closed"))
  }

  @Test func everyEventTheRegisterJournalsHasATopic() throws {
    let register = Register(
      catalog: try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json"))
    let line = OrderLine(
      line: 1, sku: "GIFT", name: "Gift Card", quantity: 1,
      unitPrice: Money(minorUnits: 2500, currency: .usd),
      regularPrice: Money(minorUnits: 2500, currency: .usd), taxClass: "exempt", taxRate: .zero)
    let cash = Tender(type: .cash, amount: Money(minorUnits: 2500, currency: .usd))
    let refund = ReturnEvent(
      receipt: 2, original: 1, lines: [], refunds: [cash],
      cashRounding: Money(minorUnits: 0, currency: .usd),
      reason: "x")
    let events: [Event] = [
      .storeConfigured(register.store), .catalogLoaded(Array(register.products.all)),
      .lineAdded(order: 1, line: line), .lineRemoved(order: 1, line: 1),
      .quantitySet(order: 1, line: 1, quantity: 2), .tenderAdded(order: 1, tender: cash),
      .discountSet(order: 1, line: nil, discount: nil),
      .priceOverridden(
        order: 1, line: 1,
        override: PriceOverride(unitPrice: Money(minorUnits: 100, currency: .usd), reason: "x")),
      .saleCompleted(
        order: 1, receipt: 1, cashRounding: Money(minorUnits: 0, currency: .usd),
        change: Money(minorUnits: 0, currency: .usd)),
      .lineVoided(order: 1, line: 1), .orderVoided(order: 1, reason: nil, reversed: []),
      .orderParked(order: 1, note: nil), .orderResumed(order: 1, replacing: 2),
      .returnCompleted(refund), .dayClosed(day: 1, countedCash: nil),
      .printQueued(PrintJob(id: 1, document: .receipt(1, reprint: false), drawer: true)),
      .printDone(job: 1),
    ]
    for event in events {
      #expect(Topics.eventTypes.contains(event.type), "\(event.type)")
    }
  }

  @Test func committedEventsComeInJournalOrderWithNoGaps() throws {
    // JEANS 49.99 + 2 × GIFT 50.00 = 99.99, tax 3.75: 103.74. 20.00 on the Visa, 100.00 cash
    // (16.26 change), then the jeans come back.
    let lane = try JournalLane()
    let start = lane.register.lastSequence
    let batches: [[IncomingLine]] = [
      [
        incoming(1, #"{"op":"add","sku":"JEANS"}"#),
        incoming(2, #"{"op":"subscribe"}"#),
        incoming(3, #"{"op":"add","sku":"GIFT"}"#),
        incoming(1, #"{"op":"order"}"#),
      ],
      [
        incoming(1, #"{"op":"set_qty","line":2,"qty":2}"#),
        incoming(3, #"{"op":"add","sku":"NOPE"}"#),
        incoming(1, #"{"op":"tender","type":"card","amount":"20.00","card":\#(cardJSON())}"#),
      ],
      [incoming(1, #"{"op":"report","kind":"x"}"#)],
      [incoming(1, #"{"op":"tender","type":"cash","amount":"100.00"}"#)],
      [
        incoming(3, #"{"op":"add","sku":"TEE"}"#),
        incoming(1, #"{"op":"park","note":"later"}"#),
        incoming(2, #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x"}"#),
      ],
    ]
    var events: [CommittedEvent] = []
    var sizes: [Int] = []
    for batch in batches {
      let result = lane.service.process(batch)
      #expect(result.replies.count == batch.count)
      sizes.append(result.events.count)
      events.append(contentsOf: result.events)
    }
    #expect(sizes == [2, 2, 0, 2, 3])
    #expect(events.map(\.sequence) == Array((start + 1)...lane.register.lastSequence))
    #expect(
      events.map(\.event.type) == [
        "line_added", "line_added", "quantity_set", "tender_added", "tender_added",
        "sale_completed", "line_added", "order_parked", "return_completed",
      ])

    let records = Array(lane.scan().records.dropFirst(Int(start)))
    #expect(records.count == events.count)
    for (event, record) in zip(events, records) {
      let line = Topics.line(for: event)
      #expect(line.objectValue?.keys == ["event", "seq", "at", "data"])
      #expect(line["event"] == .string(record.type))
      #expect(line["seq"] == .int(record.sequence))
      #expect(line["at"] == .string(record.at.iso8601))
      #expect(line["data"] == record.data)
      #expect(line["data"] == event.event.data)
      let text = line.serialized
      #expect(!text.contains("4242424242424242"))
      #expect(!text.contains("\n"))
    }
    let tender = try #require(events.first { $0.event.type == "tender_added" })
    let card = Topics.line(for: tender)["data"]?["tender"]?["card"]
    #expect(card == .object(["brand": "VISA", "last4": "4242"]))
  }

  @Test func aRefusedOrRepeatedRequestCommitsNoEvents() throws {
    let lane = try JournalLane()
    let first = lane.service.process([incoming(1, #"{"op":"add","sku":"GIFT","key":"g"}"#)])
    #expect(first.events.map(\.event.type) == ["line_added"])
    let result = lane.service.process([
      incoming(1, #"{"op":"add","sku":"GIFT","key":"g"}"#),
      incoming(2, #"{"op":"add","sku":"HAT"}"#),
      incoming(2, #"{"op":"remove","line":5}"#),
      incoming(3, #"{"op":"add","sku":"JEANS","expect_version":0}"#),
    ])
    #expect(result.events.isEmpty)
    #expect(try parsedReplies(result).map { $0["ok"] } == [true, false, false, false])
  }
}
