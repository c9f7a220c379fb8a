import Testing

@testable import RegisterEngine

// What the register holds to against hostile input: numbers out of range, discounts stacked
// past the approval limit, pennies in a no-penny store, paying out more than the drawer holds,
// the cost of idempotency keys, and card numbers echoed in messages.

// MARK: - Integers from clients, catalogs and journals

/// One request with an extreme value in one field, and the code it must get.
struct ExtremeCase: CustomStringConvertible, Sendable {
  var request: String
  var code: String
  var description: String { request }
}

private let int64Min = "-9223372036854775808"
private let int64Max = "9223372036854775807"
private let huge = "1000000000000000000000000000000"

private let extremeCases: [ExtremeCase] = {
  var cases: [ExtremeCase] = []
  // Stock deltas: the extremes of a 64-bit integer and beyond, and their neighbours.
  for delta in [int64Min, int64Max, huge, "-0", "0", "1000000001", "-1000000001", "1e3", "2.5"] {
    // A number that is not a whole one in range is a bad quantity, whatever its form.
    let code = "invalid_quantity"
    cases.append(
      ExtremeCase(
        request: #"{"op":"stock_adjust","sku":"TEE","delta":\#(delta),"reason":"x"}"#, code: code))
  }
  // Quantities on add, set_qty and return lines.
  for qty in [int64Min, int64Max, huge, "-0", "10000", "-1"] {
    cases.append(
      ExtremeCase(request: #"{"op":"add","sku":"JEANS","qty":\#(qty)}"#, code: "invalid_quantity"))
    cases.append(
      ExtremeCase(request: #"{"op":"set_qty","line":1,"qty":\#(qty)}"#, code: "invalid_quantity"))
    cases.append(
      ExtremeCase(
        request: #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":\#(qty)}],"reason":"x"}"#,
        code: "invalid_quantity"))
  }
  // Line, receipt and order numbers, days, versions, sequence cursors.
  for number in [int64Min, int64Max, huge] {
    cases.append(ExtremeCase(request: #"{"op":"remove","line":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(request: #"{"op":"void_line","line":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(
        request: #"{"op":"override_price","line":\#(number),"unit_price":"1.00","reason":"x"}"#,
        code: "bad_request"))
    cases.append(
      ExtremeCase(
        request: #"{"op":"discount","line":\#(number),"percent":"10","reason":"x"}"#,
        code: "bad_request"))
    cases.append(
      ExtremeCase(request: #"{"op":"receipt","number":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(request: #"{"op":"resume","order_id":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(request: #"{"op":"email_receipt","receipt":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(
        request: #"{"op":"return","receipt":\#(number),"lines":[{"line":1,"qty":1}],"reason":"x"}"#,
        code: "bad_request"))
    cases.append(
      ExtremeCase(request: #"{"op":"report","kind":"z","day":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(
        request: #"{"op":"add","sku":"JEANS","expect_version":\#(number)}"#, code: "bad_request"))
    cases.append(
      ExtremeCase(request: #"{"op":"subscribe","after":\#(number)}"#, code: "bad_request"))
  }
  // Percentages and amounts.
  for percent in [huge, "100.000001", "1000000", "-5", "1e3"] {
    let code = ["-5", "1e3", huge].contains(percent) ? "invalid_amount" : "invalid_discount"
    cases.append(
      ExtremeCase(
        request: #"{"op":"discount","line":1,"percent":"\#(percent)","reason":"x"}"#, code: code))
  }
  for amount in [huge, "-0.01", "1e30", int64Max] {
    cases.append(
      ExtremeCase(
        request: #"{"op":"paid_in","amount":"\#(amount)","reason":"x"}"#, code: "invalid_amount"))
    cases.append(
      ExtremeCase(
        request: #"{"op":"tender","type":"cash","amount":"\#(amount)"}"#, code: "invalid_amount"))
  }
  return cases
}()

@Suite struct ExtremeIntegerTests {
  @Test(arguments: extremeCases)
  func anExtremeValueGetsAClearErrorAndChangesNothing(_ item: ExtremeCase) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    let before = lane.snapshot
    let reply = try lane.send(item.request)
    #expect(reply.errorCode == item.code, "\(reply.serialized)")
    #expect(reply["error"]?["message"]?.stringValue?.isEmpty == false)
    #expect(lane.snapshot == before)
  }

  @Test func theStockDeltaFromTheIssueIsRefused() throws {
    let lane = try TestLane()
    let reply = try lane.send(
      Requests.StockAdjust(sku: "TEE", delta: -9_223_372_036_854_775_808, reason: "x"))
    #expect(reply.errorCode == "invalid_quantity")
    #expect(lane.register.products["TEE"]?.stock == 3)
  }

  @Test func stockCannotBeAdjustedAboveItsLimit() throws {
    let lane = try TestLane()
    try lane.ok(Requests.StockAdjust(sku: "TEE", delta: 999_999_997, reason: "count"))
    #expect(lane.register.products["TEE"]?.stock == 1_000_000_000)
    let reply = try lane.send(Requests.StockAdjust(sku: "TEE", delta: 1, reason: "count"))
    #expect(reply.errorCode == "invalid_quantity")
    #expect(lane.register.products["TEE"]?.stock == 1_000_000_000)
  }

  @Test(arguments: [int64Min, int64Max, "1000000001", "-1"])
  func aCatalogStockOutOfRangeIsRefused(_ stock: String) {
    let json = testCatalogJSON.replacingOccurrences(
      of: #""stock": 3"#, with: #""stock": \#(stock)"#)
    #expect(throws: (any Error).self) {
      try CatalogFile.parse(Array(json.utf8), file: "catalog.json")
    }
  }

  @Test(arguments: [
    (
      "line_added",
      #"{"order_id":1,"line":{"line":9223372036854775807,"sku":"TEE","name":"T","qty":1,"unit_price":"1.00","regular_price":"1.00","tax_class":"standard","tax_rate":"0"}}"#
    ),
    (
      "line_added",
      #"{"order_id":1,"line":{"line":1,"sku":"TEE","name":"T","qty":9223372036854775807,"unit_price":"1.00","regular_price":"1.00","tax_class":"standard","tax_rate":"0"}}"#
    ),
    ("quantity_set", #"{"order_id":1,"line":1,"qty":-9223372036854775808}"#),
    ("stock_adjusted", #"{"sku":"TEE","delta":9223372036854775807,"reason":"x"}"#),
    ("sale_completed", #"{"order_id":1,"receipt":9223372036854775807}"#),
    ("day_closed", #"{"day":9223372036854775807}"#),
  ])
  func aJournalRecordWithAnIntegerOutOfRangeIsRefusedWhenRead(type: String, data: String) throws {
    let value = try JSONParser.parse(Array(data.utf8))
    #expect(throws: JSONShapeError.self) {
      try Event.decode(type: type, data: value, currency: .usd)
    }
  }

  @Test(arguments: [
    "pbkdf2-sha256$1000000000000000000$0707$0707", "pbkdf2-sha256$0$0707$0707",
    "pbkdf2-sha256$-1$0707$0707", "pbkdf2-sha256$10000001$0707$0707",
  ])
  func aJournaledPINHashWithAnAbsurdIterationCountIsRefused(_ encoded: String) {
    #expect(PINHash(encoded: encoded) == nil)
  }

  @Test func aJournalThatRepeatsALineNumberOrOverpaysDoesNotTrap() throws {
    // Every view looks lines up by number; a repeated number is not followed. Tenders that a
    // journal says add up past Int64 stop at the largest amount.
    var register = try TestLane().register
    let money = { (cents: Int64) in Money(minorUnits: cents, currency: .usd) }
    let line = OrderLine(
      line: 1, sku: "JEANS", name: "Jeans", quantity: 1, unitPrice: money(4999),
      regularPrice: money(4999), taxClass: "standard", taxRate: .zero)
    register.apply(.lineAdded(order: 1, line: line), at: testTime)
    register.apply(.lineAdded(order: 1, line: line), at: testTime)
    #expect(register.order.lines.count == 1)
    let huge = Tender(type: .cash, amount: money(Money.maximumMinorUnits))
    for _ in 0..<10_000 { register.apply(.tenderAdded(order: 1, tender: huge), at: testTime) }
    #expect(register.order.paid == Int64.max)
    #expect(register.orderJSON["balance_due"] == "0.00")
  }

  @Test func applyNeverTrapsOnStockAJournalSays() throws {
    // apply cannot fail: stock that a (checksummed but hostile) journal pushes past Int64 is
    // clamped, not wrapped or trapped on, to what a snapshot holds (0 up to the largest count).
    var register = try TestLane().register
    let time = testTime
    register.apply(.stockAdjusted(sku: "TEE", delta: Int64.max, reason: "x"), at: time)
    register.apply(.stockAdjusted(sku: "TEE", delta: Int64.max, reason: "x"), at: time)
    #expect(register.products["TEE"]?.stock == IntegerRanges.maximumCounter)
    register.apply(.stockAdjusted(sku: "TEE", delta: Int64.min, reason: "x"), at: time)
    register.apply(.stockAdjusted(sku: "TEE", delta: Int64.min, reason: "x"), at: time)
    #expect(register.products["TEE"]?.stock == 0)
  }
}

@Suite struct DayTotalsOverflowTests {
  private func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }

  @Test func aPaidInThatWouldOverflowTheDayIsRefused() throws {
    var register = try TestLane().register
    register.day.totals.paidIn = Int64.max - 100
    let context = CommandContext(now: testTime)
    #expect(throws: RegisterError.overflow("the day's totals")) {
      try register.decide(Requests.PaidIn(amount: usd(101), reason: "x"), context: context)
        .accepted()
    }
    // Up to the limit is fine.
    #expect(
      try register.decide(Requests.PaidIn(amount: usd(100), reason: "x"), context: context)
        .accepted().count == 1)
  }

  @Test func applyLeavesTotalsAloneRatherThanWrap() throws {
    var register = try TestLane().register
    register.day.totals.paidIn = Int64.max - 100
    register.apply(.paidIn(amount: usd(1000), reason: "x"), at: testTime)
    #expect(register.day.totals.paidIn == Int64.max - 100)
    #expect(register.day.totals.paidInCount == 0)
    // A paid-out the same way: neither its sum nor its count moves.
    register.day.totals.paidOut = Int64.max - 100
    register.apply(.paidOut(amount: usd(1000), reason: "x"), at: testTime)
    #expect(register.day.totals.paidOut == Int64.max - 100)
    #expect(register.day.totals.paidOutCount == 0)
    // And one that fits is counted.
    register.apply(.paidOut(amount: usd(50), reason: "x"), at: testTime)
    #expect(register.day.totals.paidOut == Int64.max - 50)
    #expect(register.day.totals.paidOutCount == 1)
  }

  @Test func aSaleThatWouldOverflowTheDayIsRefused() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    var register = lane.register
    register.day.totals.gross = Int64.max - 1000
    let context = CommandContext(now: testTime)
    let tender = Requests.Tender(.cash(amount: usd(10_000)))
    #expect(throws: RegisterError.overflow("the day's totals")) {
      try register.decide(tender, context: context).accepted()
    }
  }

  @Test func theExpectedCashMustStayComputable() throws {
    var register = try TestLane().register
    register.day.totals.float = Int64.max - 10
    let context = CommandContext(now: testTime)
    #expect(throws: RegisterError.overflow("the day's totals")) {
      try register.decide(Requests.PaidIn(amount: usd(11), reason: "x"), context: context)
        .accepted()
    }
  }
}

/// `checkOutcome` hands on the order after a request's events only when they change it; the
/// day's totals are then checked against the order as each event finds it either way.
@Suite struct OrderOutcomeTests {
  private func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }

  @Test func eventsThatLeaveTheOrderHandOnNothing() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let register = lane.register
    let cashOnly: [Event] = [.paidIn(amount: usd(100), reason: "x"), .noSale(reason: nil)]
    #expect(try register.checkOutcome(of: cashOnly, at: testTime) == nil)
    let drawer = try register.checkDayTotals(of: cashOnly, orderAfter: nil)
    #expect(drawer.paidIn == register.day.totals.paidIn + 100)
    #expect(drawer.noSales == register.day.totals.noSales + 1)
  }

  @Test func eventsThatChangeTheOrderHandOnTheOrderAfterThem() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    let register = lane.register
    let line = try #require(register.order.lines.first)
    let voided: [Event] = [.lineVoided(order: register.order.id, line: line.line)]
    let after = try #require(try register.checkOutcome(of: voided, at: testTime))
    #expect(after.order.lines.first?.voided == true)
    #expect(after.totals.total == 0)
    #expect(register.totals.total > 0)
    let drawer = try register.checkDayTotals(of: voided, orderAfter: after)
    #expect(drawer.voidedLines == register.day.totals.voidedLines + 1)
  }
}

// MARK: - Stacked discounts and the approval limit

@Suite struct StackedDiscountTests {
  @Test func twentyOnTheLineAndTwentyOnTheOrderNeedsAManager() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.Add(sku: "HAT"))
    try lane.ok(Requests.Discount(line: 1, value: .percent(percent("20")), reason: "scuffed"))
    let stacked = #"{"op":"discount","percent":"20","reason":"promo"}"#
    let refused = try lane.send(stacked)
    #expect(refused.errorCode == "approval_required")
    #expect(refused["error"]?["message"]?.stringValue?.contains("36.0% off") == true)
    #expect(lane.register.order.discount == nil)

    // With a manager's approval it goes through.
    let approved = try lane.ok(
      Requests.Discount(value: .percent(percent("20")), reason: "promo"),
      envelope: RequestEnvelope(approval: Approval(operatorID: "mo", pin: "9876"))
    )
    #expect(approved["discount"] != nil)
    #expect(lane.register.order.discount != nil)
    // Later changes that do not raise a line's discount need no approval again.
    try lane.ok(Requests.Add(sku: "HAT"))
  }

  @Test func theOrderDiscountAloneIsJudgedPerLine() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.Add(sku: "HAT"))
    try lane.ok(Requests.Discount(value: .percent(percent("20")), reason: "promo"))
    #expect(
      try lane.send(Requests.Discount(value: .percent(percent("21")), reason: "promo")).errorCode
        == "approval_required")
    #expect(
      try lane.send(Requests.Discount(value: .amount(usd("4.01")), reason: "promo")).errorCode
        == "approval_required")
  }

  @Test func anOverrideCountsTowardsTheLimit() throws {
    // The manager lowers 20.00 to 18.00 (10 %); 15 % off on top is 4.70 of 20.00: 23.5 %.
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.Add(sku: "HAT"))
    try lane.ok(
      Requests.OverridePrice(line: 1, unitPrice: usd("18.00"), reason: "match"),
      envelope: RequestEnvelope(approval: Approval(operatorID: "mo", pin: "9876"))
    )
    let refused = try lane.send(
      Requests.Discount(line: 1, value: .percent(percent("15")), reason: "x"))
    #expect(refused.errorCode == "approval_required")
    #expect(lane.register.order.lines[0].discount == nil)
    try lane.ok(Requests.Discount(line: 1, value: .percent(percent("10")), reason: "x"))
  }

  @Test func loweringTheQuantityUnderAnAmountDiscountIsJudgedToo() throws {
    // 8.00 off 2 × 20.00 is 20 %; at quantity 1 it would be 40 %.
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.Add(sku: "HAT", quantity: 2))
    try lane.ok(Requests.Discount(line: 1, value: .amount(usd("8.00")), reason: "x"))
    let refused = try lane.send(Requests.SetQty(line: 1, quantity: 1))
    #expect(refused.errorCode == "approval_required")
    #expect(lane.register.order.lines[0].quantity == 2)
  }

  @Test func aSignedInManagerNeedsNoSeparateApproval() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try lane.ok(Requests.Add(sku: "HAT"))
    try lane.ok(Requests.Discount(line: 1, value: .percent(percent("20")), reason: "x"))
    try lane.ok(Requests.Discount(value: .percent(percent("20")), reason: "x"))
  }
}

// MARK: - No pennies in a no-penny store

@Suite struct NoPennyCashTests {
  private func lane() throws -> TestLane {
    try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
  }

  @Test func cashThatIsNotAWholeNumberOfStepsIsRefused() throws {
    // 10.07 is due as 10.05 in cash. 10.06 would give 0.01 back; it is refused.
    let lane = try lane()
    try lane.ok(Requests.Add(sku: "P7"))
    let refused = try lane.send(Requests.Tender(.cash(amount: usd("10.06"))))
    #expect(refused.errorCode == "invalid_amount")
    let message = refused["error"]?["message"]?.stringValue ?? ""
    #expect(message.contains("steps of 0.05"))
    #expect(message.contains("10.05"))
    #expect(lane.register.order.tenders.isEmpty)
    // A part payment must be whole steps too.
    #expect(
      try lane.send(Requests.Tender(.cash(amount: usd("5.01")))).errorCode
        == "invalid_amount")
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.10"))))
    #expect(done["change_due"] == "0.05")
    #expect(done["cash_rounding"] == "-0.02")
  }

  @Test func changeIsAlwaysWholeSteps() throws {
    let lane = try lane()
    for sku in ["P0", "P1", "P2", "P3", "P4", "P6", "P8", "P9"] {
      try lane.ok(Requests.Add(sku: sku))
      try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
      let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
      let change = try #require(done["change_due"]?.stringValue)
      let cents = try Money.parse(change, currency: .usd).minorUnits
      #expect(cents % 5 == 0, "\(sku): change \(change)")
    }
  }

  @Test func aZeroCashTenderSettlesABalanceThatRoundsToNothing() throws {
    // A card pays 10.00 of 10.02; the 0.02 left is due as 0.00 in cash.
    let lane = try lane()
    try lane.ok(Requests.Add(sku: "P2"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: usd("10.00"))))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("0.00"))))
    #expect(done["status"] == "completed")
    #expect(done["change_due"] == "0.00")
    #expect(done["cash_rounding"] == "-0.02")
  }

  @Test func drawerMovementsAreWholeStepsToo() throws {
    let lane = try lane()
    for request in [
      #"{"op":"float","amount":"100.01"}"#, #"{"op":"paid_in","amount":"1.02","reason":"x"}"#,
      #"{"op":"paid_out","amount":"0.03","reason":"x"}"#,
    ] {
      #expect(try lane.send(request).errorCode == "invalid_amount", "\(request)")
    }
    try lane.ok(Requests.SetFloat(amount: usd("100.05")))
  }

  @Test func aStoreWithoutCashRoundingTakesAnyCent() throws {
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: nil))
    try lane.ok(Requests.Add(sku: "P7"))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.08"))))
    #expect(done["change_due"] == "0.01")
  }
}

// MARK: - Paying out more than the drawer holds

@Suite struct InsufficientCashTests {
  @Test func aPaidOutBeyondTheDrawerNeedsAManager() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.SetFloat(amount: usd("10.00")))
    let refused = try lane.send(Requests.PaidOut(amount: usd("25.00"), reason: "supplies"))
    #expect(refused.errorCode == "insufficient_cash")
    #expect(refused["error"]?["message"]?.stringValue?.contains("10.00") == true)
    #expect(lane.register.day.totals.paidOut == 0)
    #expect(lane.register.day.totals.expectedCash == 1000)

    // A wrong PIN does not get it through.
    let wrong = try lane.send(
      Requests.PaidOut(amount: usd("25.00"), reason: "supplies"),
      envelope: RequestEnvelope(approval: Approval(operatorID: "mo", pin: "1111"))
    )
    #expect(wrong.errorCode == "wrong_pin")
    #expect(lane.register.day.totals.paidOut == 0)

    try lane.ok(
      Requests.PaidOut(amount: usd("25.00"), reason: "supplies"),
      envelope: RequestEnvelope(approval: Approval(operatorID: "mo", pin: "9876"))
    )
    #expect(lane.register.day.totals.expectedCash == -1500)
  }

  @Test func aPaidOutOfEverythingInTheDrawerIsFine() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.SetFloat(amount: usd("10.00")))
    try lane.ok(Requests.PaidOut(amount: usd("10.00"), reason: "supplies"))
    #expect(
      try lane.send(Requests.PaidOut(amount: usd("0.01"), reason: "more")).errorCode
        == "insufficient_cash")
  }

  @Test func withNoOperatorsThereIsNobodyToApprove() throws {
    let lane = try TestLane()
    let refused = try lane.send(Requests.PaidOut(amount: usd("5.00"), reason: "x"))
    #expect(refused.errorCode == "insufficient_cash")
    #expect(lane.register.day.totals.paidOutCount == 0)
  }

  @Test func aCashRefundBeyondTheDrawerIsRefused() throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Tender(.cash(amount: usd("25.00"))))
    try lane.ok(Requests.PaidOut(amount: usd("20.00"), reason: "to the safe"))
    let request = #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"unwanted"}"#
    let refused = try lane.send(request)
    #expect(refused.errorCode == "insufficient_cash")
    #expect(lane.register.returns.count == 0)
    #expect(lane.register.products["GIFT"] != nil)
    try lane.ok(Requests.PaidIn(amount: usd("20.00"), reason: "from the safe"))
    try lane.ok(request)
    #expect(lane.register.day.totals.expectedCash == 0)
  }
}

// MARK: - Idempotency keys

@Suite struct KeyExpiryTests {
  @Test func keysAreHeldForTwoDaysAtMostAndDroppedFromMemory() throws {
    let lane = try JournalLane()
    for index in 0..<5 {
      try lane.ok(
        Requests.PaidIn(amount: usd("1.00"), reason: "x"),
        envelope: RequestEnvelope(key: "d1-\(index)"))
    }
    try lane.ok(Requests.CloseDay())
    try lane.ok(
      Requests.PaidIn(amount: usd("1.00"), reason: "x"), envelope: RequestEnvelope(key: "d2-0"))
    #expect(lane.register.keys.heldDays == [1, 2])
    #expect(lane.register.keys.count == 6)
    try lane.ok(Requests.CloseDay())
    // Day 1's keys are gone from memory; day 2's stay through day 3.
    #expect(lane.register.keys.heldDays == [2])
    #expect(lane.register.keys.count == 1)
    #expect(lane.register.keys["d1-0"] == nil)
    #expect(lane.register.keys["d2-0"] != nil)
    // A retry after the window is a new request: it is carried out again.
    try lane.ok(
      Requests.PaidIn(amount: usd("1.00"), reason: "x"), envelope: RequestEnvelope(key: "d1-0"))
    #expect(lane.register.day.totals.paidInCount == 1)
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.keys == lane.register.keys)
  }

  @Test func aFailedGroupForgetsItsKeysAndKeepsTheEarlierOnes() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.CloseDay())
    try lane.ok(
      Requests.PaidIn(amount: usd("1.00"), reason: "x"),
      envelope: RequestEnvelope(key: "kept-yesterday"))
    try lane.ok(Requests.CloseDay())
    try lane.ok(
      Requests.PaidIn(amount: usd("1.00"), reason: "x"), envelope: RequestEnvelope(key: "kept"))
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    let failed = try lane.send(
      Requests.PaidIn(amount: usd("1.00"), reason: "x"), envelope: RequestEnvelope(key: "lost"))
    #expect(failed.errorCode == "storage_failed")
    #expect(lane.register.keys["kept"] != nil)
    #expect(lane.register.keys["kept-yesterday"] != nil)
    #expect(lane.register.keys["lost"] == nil)
    #expect(lane.register.keys.count == 2)
  }
}

// MARK: - Card numbers in messages, logs and the journal

@Suite struct CardNumberMaskTests {
  @Test(arguments: [
    ("4242424242424242", "****4242"),
    ("no product has SKU \"4242424242424242\"", "no product has SKU \"****4242\""),
    ("card 4242 4242 4242 4242 please", "card ****4242 please"),
    ("card 4242-4242-4242-4242.", "card ****4242."),
    ("amex 378282246310005", "amex ****0005"),
    ("two 4242424242424242 and 5555555555554444", "two ****4242 and ****4444"),
    ("4242424242424242 1234", "****4242 1234"),
  ])
  func cardNumbersAreMasked(_ text: String, _ masked: String) {
    #expect(CardNumberMask.mask(text) == masked)
  }

  /// Card numbers as people and OCR write them in free text.
  @Test(arguments: [
    ("4242.4242.4242.4242", "****4242"),
    ("4242/4242/4242/4242", "****4242"),
    ("4242  4242  4242  4242", "****4242"),
    ("4242 - 4242 - 4242 - 4242", "****4242"),
    ("4242\u{A0}4242\u{A0}4242\u{A0}4242", "****4242"),
    ("4242\u{202F}4242\u{2009}4242\u{2007}4242", "****4242"),
    ("4242\u{2013}4242\u{2014}4242\u{2010}4242", "****4242"),
    ("４２４２４２４２４２４２４２４２", "****4242"),
    ("４２４２　４２４２　４２４２　４２４２", "****4242"),
    ("４２４２－４２４２－４２４２－４２４２", "****4242"),
    (
      "\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}",
      "****4242"
    ),
    ("note: 3782 822463 10005 thanks", "note: ****0005 thanks"),
    ("card:5555-5555-5555-4444,exp 12/30", "card:****4444,exp 12/30"),
    ("6011 1111 1111 1117.", "****1117."),
    ("6011. 1111. 1111. 1117", "****1117"),
    ("4000 0566 5566 5556 / ok", "****5556 / ok"),
    ("4242 4242 4242 4242 4242", "****4242 4242"),
  ])
  func cardNumbersAsPeopleWriteThemAreMasked(_ text: String, _ masked: String) {
    #expect(CardNumberMask.mask(text) == masked)
    #expect(CardNumberMask.containsCardNumber(text))
  }

  @Test(arguments: [
    "4242424242424241", "order 12345", "phone 555-123-4567", "42424242424",
    "42424242424242424242424", "4000 1234 5678 9011", "5105-1051-0510-5101",
    "2026-03-15T14:03:05.000Z", "4111    1111 1111 1111", "12.50 / 4.25 / 1.00",
  ])
  func digitsThatAreNoCardNumberAreLeftAlone(_ text: String) {
    #expect(CardNumberMask.mask(text) == text)
  }

  @Test(arguments: [
    #"{"op":"add","sku":"4242 4242 4242 4242"}"#,
    #"{"op":"add","sku":"4242 / 4242 / 4242 / 4242"}"#,
    #"{"op":"tender","type":"4242424242424242","amount":"1.00"}"#,
    #"{"op":"attach_customer","customer_id":"4242 4242 4242 4242"}"#,
    #"{"op":"customer_history","customer_id":"4242 4242 4242 4242"}"#,
    #"{"op":"customer_add","name":"Al","email":"4242424242424242"}"#,
    #"{"op":"customer_add","name":"Al","phone":"4242424242424242x"}"#,
    #"{"op":"discount","line":1,"percent":"4242424242424242","reason":"x"}"#,
    #"{"op":"product_update","sku":"4242 4242 4242 4242","changes":{"price":"1.00"}}"#,
    #"{"op":"stock_adjust","sku":"4242.4242.4242.4242","delta":1,"reason":"x 4242424242424242"}"#,
    #"{"op":"4242424242424242"}"#,
    #"{"op":"add","sku":"TEE","4242424242424242":1}"#,
  ])
  func noErrorMessageEchoesACardNumber(_ request: String) throws {
    let lane = try TestLane()
    try lane.ok(Requests.Add(sku: "TEE"))
    let reply = try lane.send(request)
    #expect(reply["ok"] == .bool(false))
    let text = reply["error"]?.serialized ?? ""
    #expect(!text.contains("4242424242424242"), "\(text)")
    #expect(!text.contains("4242 4242 4242 4242"), "\(text)")
    #expect(!text.contains("4242-4242-4242-4242"), "\(text)")
  }

  /// A SKU, a barcode or an operator id is the store's name for a thing: a message naming one
  /// quotes it as it is, whatever its digits look like (an EAN-13 passes the Luhn check one
  /// time in ten).
  @Test(arguments: [
    (#"{"op":"add","sku":"4242424242424242"}"#, "unknown_sku", "4242424242424242"),
    (#"{"op":"scan","code":"5449000000996"}"#, "unknown_barcode", "5449000000996"),
    (#"{"op":"product_remove","sku":"5449000000996"}"#, "unknown_sku", "5449000000996"),
    (
      #"{"op":"stock_adjust","sku":"4242-4242-4242-4242","delta":1,"reason":"x"}"#,
      "unknown_sku", "4242-4242-4242-4242"
    ),
  ])
  func aMessageQuotesTheIdentifierItNames(_ request: String, _ code: String, _ quoted: String)
    throws
  {
    let lane = try TestLane()
    let reply = try lane.send(request)
    #expect(reply.errorCode == code)
    #expect(reply["error"]?["message"]?.stringValue?.contains(quoted) == true, "\(reply)")
  }

  @Test func aReasonWithACardNumberIsJournaledMasked() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.PaidIn(amount: usd("1.00"), reason: "card 4242 4242 4242 4242 refund"))
    try lane.ok(Requests.NoSale(reason: "customer read out 5555555555554444"))
    try lane.ok(Requests.Add(sku: "GIFT"))
    try lane.ok(Requests.Park(note: "for 4242-4242-4242-4242"))
    try lane.ok(Requests.CustomerAdd(name: "Pat 4242424242424242"))
    let journal = String(decoding: lane.storage.bytes, as: UTF8.self)
    #expect(!journal.contains("4242 4242 4242 4242"))
    #expect(!journal.contains("5555555555554444"))
    #expect(!journal.contains("4242-4242-4242-4242"))
    #expect(!journal.contains("4242424242424242"))
    #expect(journal.contains("card ****4242 refund"))
    #expect(journal.contains("customer read out ****4444"))
    // Digits that fail the check are kept as they were typed.
    try lane.ok(Requests.PaidIn(amount: usd("1.00"), reason: "invoice 4242424242424241"))
    #expect(
      String(decoding: lane.storage.bytes, as: UTF8.self).contains("invoice 4242424242424241"))
  }

  /// Identifiers are the store's or the client's, kept and shown as they are: never refused
  /// or rewritten for what their digits look like. SKUs and barcodes that are valid GTINs
  /// passing the Luhn check, and operator ids, are taken and journaled whole.
  @Test(arguments: [
    (
      #"{"op":"product_add","product":{"sku":"5449000000996","name":"Cola","description":"","category":"C","price":"1.00"}}"#,
      "5449000000996"
    ),
    (
      #"{"op":"product_add","product":{"sku":"4242424242424242","name":"N","description":"","category":"C","price":"1.00"}}"#,
      "4242424242424242"
    ),
    (
      #"{"op":"product_add","product":{"sku":"COLA","name":"Cola","description":"","category":"C","price":"1.00","barcodes":["5449000000996"]}}"#,
      "5449000000996"
    ),
    (
      #"{"op":"operator_add","operator_id":"4242-4242-4242-4242","name":"N","role":"manager","pin":"1234"}"#,
      "4242-4242-4242-4242"
    ),
    (#"{"op":"customer_add","name":"N","tax_exempt":"4242424242424242"}"#, "4242424242424242"),
  ])
  func anIdentifierThatLooksLikeACardNumberIsKept(_ request: String, _ identifier: String)
    throws
  {
    let lane = try JournalLane()
    try lane.ok(request)
    let journal = String(decoding: lane.storage.bytes, as: UTF8.self)
    #expect(journal.contains(identifier), "journaled as it is")
  }

  /// Every valid EAN-13 is a SKU, one in ten passing the Luhn check: a catalog file of them
  /// loads, and each is sold by its SKU and by scanning it.
  @Test func everyValidEAN13IsAGoodSKU() throws {
    var codes: [String] = []
    var base = 544_900_000_000
    while codes.count < 40 {
      let digits = Array(String(base).utf8).map { Int($0) - 48 }
      var sum = 0
      for (index, digit) in digits.enumerated() { sum += digit * (index % 2 == 0 ? 1 : 3) }
      let code = String(base) + String((10 - sum % 10) % 10)
      if CardNumberMask.containsCardNumber(code) { codes.append(code) }
      base += 1
    }
    let products = codes.map {
      #"{"sku": "\#($0)", "name": "Item", "description": "", "category": "C", "price": "1.00"}"#
    }.joined(separator: ", ")
    let text = testCatalogJSON.replacingOccurrences(
      of: #""products": ["#, with: #""products": [\#(products), "#)
    let catalog = try CatalogFile.parse(Array(text.utf8), file: "t")
    #expect(Set(catalog.products.map(\.sku)).isSuperset(of: codes))
    let lane = try TestLane(catalog: catalog)
    for code in codes {
      try lane.ok(Requests.Scan(code: code))
    }
    try lane.ok(Requests.Add(sku: codes[0]))
    let order = try lane.ok(Requests.Order())
    #expect(order.serialized.contains(codes[0]))
  }

  /// An idempotency key is opaque: one that looks like a card number (a 19-digit nanosecond
  /// timestamp, one time in ten) is taken, and kept only as its digest, never as it is.
  @Test func aCardLikeKeyIsKeptAsItsDigest() throws {
    let lane = try JournalLane()
    let request = #"{"op":"paid_in","amount":"1.00","reason":"x","key":"1764339785123456780"}"#
    #expect(CardNumberMask.containsCardNumber("1764339785123456780"))
    let first = try lane.ok(request)
    let journal = String(decoding: lane.storage.bytes, as: UTF8.self)
    #expect(!journal.contains("1764339785123456780"))
    #expect(journal.contains(IdempotencyKey.kept("1764339785123456780")))
    #expect(IdempotencyKey.kept("1764339785123456780").hasPrefix("sha256:"))
    // A retry with the same key gets the same reply and changes nothing.
    let before = lane.storage.bytes
    #expect(try lane.ok(request) == first)
    #expect(lane.storage.bytes == before)
    // The same key for another request is refused as any reused key is.
    let other = try lane.send(
      Requests.PaidIn(amount: usd("2.00"), reason: "x"),
      envelope: RequestEnvelope(key: "1764339785123456780"))
    #expect(other.errorCode == "key_reused")
    #expect(!other.serialized.contains("1764339785123456780"))
    // An ordinary key is kept as it is; one that begins as a digest does is a digest's.
    #expect(IdempotencyKey.kept("lane1-000042") == "lane1-000042")
    #expect(IdempotencyKey.kept("sha256:abc") != "sha256:abc")
  }

  @Test func colorsAndAddressLinesAreMasked() throws {
    let text = testCatalogJSON.replacingOccurrences(
      of: #""price": "49.99"}"#, with: #""price": "49.99", "colors": ["4242 4242 4242 4242"]}"#
    ).replacingOccurrences(of: #""1 Main St""#, with: #""Suite 5555555555554444""#)
    let catalog = try CatalogFile.parse(Array(text.utf8), file: "t")
    #expect(catalog.products.first { $0.sku == "JEANS" }?.colors == ["****4242"])
    #expect(catalog.store.address.first == "Suite ****4444")
  }

  /// Option groups and choices are bounded (a hostile product cannot ask for quadratic work or
  /// sum price deltas past Int64).
  @Test func optionGroupsAndChoicesAreBounded() throws {
    let choices = (0..<65).map { #"{"name":"c\#($0)"}"# }.joined(separator: ",")
    let tooMany =
      #"{"sku":"OPT","name":"N","description":"","category":"C","price":"1.00","options":[{"group":"g","choices":[\#(choices)]}]}"#
    let lane = try JournalLane()
    #expect(
      try lane.send(#"{"op":"product_add","product":\#(tooMany)}"#).errorCode == "invalid_product")
    let groups = (0..<17).map { index in
      #"{"group":"g\#(index)","required":true,"choices":[{"name":"a","price_delta":"-9999999999999.99"}]}"#
    }.joined(separator: ",")
    let product =
      #"{"sku":"OPT","name":"N","description":"","category":"C","price":"1.00","options":[\#(groups)]}"#
    let reply = try lane.send(#"{"op":"product_add","product":\#(product)}"#)
    #expect(reply.errorCode == "invalid_product")
    #expect(reply["error"]?["message"]?.stringValue?.contains("at most 16") == true)
  }
}

/// Every amount an accepted request journals can be read back: an order cannot grow past the
/// largest amount the journal reader takes, so a card can never pay such a balance.
@Suite struct OrderTotalBoundTests {
  @Test func anOrderPastTheLargestAmountIsRefusedAndTheJournalStillReplays() throws {
    let lane = try JournalLane()
    try lane.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "VAULT", "name": "Vault", "description": "", "category": "C",
          "price": "5000000000000.00",
        ]))
    )
    // Half of 10^15 minor units, the largest amount there is: nine of them are refused.
    let refused = try lane.send(Requests.Add(sku: "VAULT", quantity: 9))
    #expect(refused["error"]?["code"] == "invalid_amount")
    #expect(lane.register.order.lines.isEmpty, "nothing changed")
    try lane.ok(Requests.Add(sku: "VAULT"))
    let more = try lane.send(Requests.SetQty(line: 1, quantity: 3))
    #expect(more["error"]?["code"] == "invalid_amount")
    let paid = try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    #expect(paid["receipt"] != nil)
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.receipts.count == 1)
  }
}
