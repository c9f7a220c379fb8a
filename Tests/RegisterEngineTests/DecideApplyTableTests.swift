import Foundation
import RegisterServer
import Testing

@testable import RegisterEngine

/// Table tests on `Register.decide` and `Register.apply` directly: a state built from events, a
/// request, and the decision (events or a rejection with the events it still records).
enum Fixture {
  static let catalog: Catalog = {
    do {
      return try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
    } catch {
      fatalError("the test catalog does not parse: \(error)")
    }
  }()

  static func pin(_ digits: String) -> PINHash {
    PINHash(pin: digits, salt: [1, 2, 3, 4], iterations: 2)
  }

  /// The manager M1 (PIN 1234) and the cashier C1 (PIN 5678), C1 signed in; M1 with
  /// `managerFailures` wrong PINs counted.
  static func staffed(managerFailures: Int = 0) -> Register {
    var register = Register(catalog: catalog, at: testTime)
    let history: [Event] =
      [
        .operatorAdded(Operator(id: "M1", name: "Mia", role: .manager, pin: pin("1234"))),
        .operatorAdded(Operator(id: "C1", name: "Cal", role: .cashier, pin: pin("5678"))),
      ] + Array(repeating: .pinFailed(id: "M1"), count: managerFailures) + [.signedIn(id: "C1")]
    for event in history { register.apply(event, at: testTime) }
    return register
  }

  /// `staffed` with one T-shirt on the open order.
  static func staffedWithOrder(managerFailures: Int = 0) -> Register {
    var register = staffed(managerFailures: managerFailures)
    let line = OrderLine(
      line: 1, sku: "TEE", name: "T-Shirt", quantity: 1, unitPrice: usd(1500),
      regularPrice: usd(2000), taxClass: "standard", taxRate: Percent(millionths: 7_500_000),
      options: [])
    register.apply(.lineAdded(order: register.order.id, line: line), at: testTime)
    return register
  }

  static func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }
}

/// One row of a decide table: the state, the request (with an approval, if any) and what
/// `decide` must answer.
struct DecideCase: Sendable, CustomTestStringConvertible {
  enum Outcome: Sendable {
    case accepted([Event], approvedBy: String?)
    case rejected(ErrorCode, recording: [Event])
  }

  var name: String
  var state: @Sendable () -> Register
  var request: any RequestBody
  var approval: Approval?
  var outcome: Outcome

  var testDescription: String { name }
}

@Suite struct DecisionTableTests {
  static let people: [DecideCase] = [
    DecideCase(
      name: "a wrong sign-in PIN is refused and counted",
      state: { Fixture.staffed() }, request: Requests.SignIn(operatorID: "M1", pin: "9999"),
      outcome: .rejected(.wrongPIN, recording: [.pinFailed(id: "M1")])),
    DecideCase(
      name: "a PIN of the wrong shape is refused and not counted",
      state: { Fixture.staffed() }, request: Requests.SignIn(operatorID: "M1", pin: "12"),
      outcome: .rejected(.invalidPIN, recording: [])),
    DecideCase(
      name: "a right sign-in PIN signs in",
      state: { Fixture.staffed(managerFailures: 2) },
      request: Requests.SignIn(operatorID: "M1", pin: "1234"),
      outcome: .accepted([.signedIn(id: "M1")], approvedBy: nil)),
    DecideCase(
      name: "a wrong approval PIN is refused and counted",
      state: { Fixture.staffedWithOrder() }, request: Requests.Void(reason: nil),
      approval: Approval(operatorID: "M1", pin: "0000"),
      outcome: .rejected(.wrongPIN, recording: [.pinFailed(id: "M1")])),
    DecideCase(
      name: "an approval's reset survives a refusal for another reason",
      state: { Fixture.staffed(managerFailures: 2) }, request: Requests.Void(reason: nil),
      approval: Approval(operatorID: "M1", pin: "1234"),
      outcome: .rejected(.emptyOrder, recording: [.pinAccepted(id: "M1")])),
    DecideCase(
      name: "an approval with nothing to reset records nothing when refused",
      state: { Fixture.staffed() }, request: Requests.Void(reason: nil),
      approval: Approval(operatorID: "M1", pin: "1234"),
      outcome: .rejected(.emptyOrder, recording: [])),
    DecideCase(
      name: "an accepted approval's reset comes before the change",
      state: { Fixture.staffedWithOrder(managerFailures: 2) }, request: Requests.Void(reason: "x"),
      approval: Approval(operatorID: "M1", pin: "1234"),
      outcome: .accepted(
        [.pinAccepted(id: "M1"), .orderVoided(order: 1, reason: "x", reversed: [])],
        approvedBy: "M1")),
    DecideCase(
      name: "a change that needs a manager is refused without one, recording nothing",
      state: { Fixture.staffedWithOrder() }, request: Requests.Void(reason: nil),
      outcome: .rejected(.approvalRequired, recording: [])),
    DecideCase(
      name: "a cashier's approval is refused",
      state: { Fixture.staffedWithOrder() }, request: Requests.Void(reason: nil),
      approval: Approval(operatorID: "C1", pin: "5678"),
      outcome: .rejected(.approvalRequired, recording: [])),
  ]

  @Test(arguments: people)
  func decide(_ row: DecideCase) {
    let register = row.state()
    let decision = register.decide(
      row.request, context: CommandContext(now: testTime, approval: row.approval))
    switch (decision, row.outcome) {
    case (.accepted(let events, let approvedBy), .accepted(let expected, let manager)):
      #expect(events == expected)
      #expect(approvedBy == manager)
    case (.rejected(let error, let events), .rejected(let code, let recording)):
      #expect(error.code == code)
      #expect(events == recording)
      #expect(decision.events == recording)
    default:
      Issue.record("decided \(decision), expected \(row.outcome)")
    }
  }

  /// What a rejection records changes the state when applied: the count goes up, or is reset.
  @Test func aRejectionsEventsChangeTheStateWhenApplied() {
    var register = Fixture.staffed(managerFailures: 2)
    let wrong = register.decide(
      Requests.SignIn(operatorID: "M1", pin: "9999"), context: CommandContext(now: testTime))
    #expect(wrong.rejection?.code == .wrongPIN)
    for event in wrong.events { register.apply(event, at: testTime) }
    #expect(register.operators.first { $0.id == "M1" }?.failedAttempts == 3)

    let refused = register.decide(
      Requests.Void(reason: nil),
      context: CommandContext(now: testTime, approval: Approval(operatorID: "M1", pin: "1234")))
    #expect(refused.rejection?.code == .emptyOrder)
    for event in refused.events { register.apply(event, at: testTime) }
    #expect(register.operators.first { $0.id == "M1" }?.failedAttempts == 0)
  }
}

/// One row of an apply table: a state, an event, and what the event must leave in the part it
/// concerns.
struct ApplyCase: Sendable, CustomTestStringConvertible {
  var name: String
  var state: @Sendable () -> Register
  var event: Event
  var check: @Sendable (_ before: Register, _ after: Register) -> Bool

  var testDescription: String { name }
}

@Suite struct ApplyTableTests {
  static let cases: [ApplyCase] = [
    ApplyCase(
      name: "a line added to the open order changes its totals once",
      state: { Fixture.staffedWithOrder() },
      event: .lineAdded(
        order: 1,
        line: OrderLine(
          line: 2, sku: "JEANS", name: "Jeans", quantity: 2, unitPrice: Fixture.usd(4999),
          regularPrice: Fixture.usd(4999), taxClass: "standard",
          taxRate: Percent(millionths: 7_500_000))),
      check: { _, after in
        after.order.lines.count == 2 && after.totals.subtotal == 1500 + 9998
          && after.totals == (try? OrderTotals.compute(after.order, tax: after.store.tax))
      }),
    ApplyCase(
      name: "a line for another order changes nothing, not even the last activity",
      state: { Fixture.staffedWithOrder() },
      event: .lineVoided(order: 9, line: 1),
      check: { before, after in
        after.orders == before.orders && after.dayBook == before.dayBook
          && after.lastActivity == before.lastActivity
      }),
    ApplyCase(
      name: "a repeated line number is not followed",
      state: { Fixture.staffedWithOrder() },
      event: .lineAdded(order: 1, line: Fixture.staffedWithOrder().order.lines[0]),
      check: { before, after in after.orders == before.orders }),
    ApplyCase(
      name: "a line voided counts in the day and stays on the order",
      state: { Fixture.staffedWithOrder() },
      event: .lineVoided(order: 1, line: 1),
      check: { _, after in
        after.day.totals.voidedLines == 1 && after.day.totals.voidedLinesAmount == 1500
          && after.order.lines[0].voided && after.totals.total == 0
      }),
    ApplyCase(
      name: "parking keeps the order's totals and opens an empty order",
      state: { Fixture.staffedWithOrder() },
      event: .orderParked(order: 1, note: "back soon"),
      check: { before, after in
        after.parked.map(\.id) == [1] && after.orders.parkedTotals[1] == before.totals
          && after.order.isEmpty && after.order.id == 2 && after.totals.total == 0
          && after.order.version == before.order.version + 1
      }),
    ApplyCase(
      name: "new tax settings recompute the open and the parked orders' totals",
      state: {
        var register = Fixture.staffedWithOrder()
        register.apply(.orderParked(order: 1, note: nil), at: testTime)
        register.apply(
          .lineAdded(order: 2, line: Fixture.staffedWithOrder().order.lines[0]), at: testTime)
        return register
      },
      event: .storeConfigured(
        {
          var store = Fixture.catalog.store
          store.tax.pricesIncludeTax = true
          return store
        }()),
      check: { before, after in
        after.totals != before.totals
          && after.totals == (try? OrderTotals.compute(after.order, tax: after.store.tax))
          && after.orders.parkedTotals[1] != before.orders.parkedTotals[1]
          && after.orders.parkedTotals[1]
            == (try? OrderTotals.compute(after.parked[0], tax: after.store.tax))
      }),
    ApplyCase(
      name: "a sale completes: a receipt, stock down, the day counts it, a new order",
      state: { Fixture.staffedWithOrder() },
      event: .saleCompleted(
        order: 1, receipt: 1, cashRounding: Fixture.usd(0), change: Fixture.usd(0)),
      check: { before, after in
        after.receipts.count == 1 && after.receipts[1]?.totals == before.totals
          && after.receipts[1]?.order.version == before.order.version + 1
          && after.products["TEE"]?.stock == (before.products["TEE"]?.stock ?? 0) - 1
          && after.day.totals.salesCount == 1 && after.day.totals.total == before.totals.total
          && after.nextReceiptNumber == 2 && after.order.id == 2 && after.order.isEmpty
      }),
    ApplyCase(
      name: "a sale of another order changes nothing",
      state: { Fixture.staffedWithOrder() },
      event: .saleCompleted(
        order: 7, receipt: 1, cashRounding: Fixture.usd(0), change: Fixture.usd(0)),
      check: { before, after in
        after.receipts.isEmpty && after.orders == before.orders && after.catalog == before.catalog
          && after.signedIn == "C1"
      }),
    ApplyCase(
      name: "a day closed that is not the current day is not followed (keys are kept)",
      state: { Fixture.staffed() },
      event: .dayClosed(day: 5, countedCash: nil),
      check: { before, after in after.dayBook == before.dayBook && after.keys == before.keys }),
    ApplyCase(
      name: "closing the day files its Z report and starts the next",
      state: { Fixture.staffed() },
      event: .dayClosed(day: 1, countedCash: nil),
      check: { _, after in
        after.day.number == 2 && after.closedDays[1]?.number == 1
          && after.day.totals == DayTotals()
      }),
    ApplyCase(
      name: "a wrong PIN counts against that operator only",
      state: { Fixture.staffed(managerFailures: 4) },
      event: .pinFailed(id: "C1"),
      check: { _, after in
        after.operators.first { $0.id == "C1" }?.failedAttempts == 1 && after.signedIn == "C1"
      }),
    ApplyCase(
      name: "a wrong PIN of the signed-in operator that locks them signs them out",
      state: {
        var register = Fixture.staffed()
        for _ in 0..<4 { register.apply(.pinFailed(id: "C1"), at: testTime) }
        return register
      },
      event: .pinFailed(id: "C1"),
      check: { _, after in
        after.operators.first { $0.id == "C1" }?.locked == true && after.signedIn == nil
      }),
    ApplyCase(
      name: "a customer added takes the next number",
      state: { Fixture.staffed() },
      event: .customerAdded(Customer(id: "C7", name: "Dana", email: nil, phone: nil)),
      check: { _, after in after.customers.map(\.id) == ["C7"] && after.nextCustomerNumber == 8 }),
    ApplyCase(
      name: "a paid-in counts in the day but does not open it",
      state: { Fixture.staffed() },
      event: .paidIn(amount: Fixture.usd(500), reason: "change"),
      check: { before, after in
        after.day.totals.paidIn == 500 && after.day.openedAt == nil
          && after.orders == before.orders
      }),
  ]

  @Test(arguments: cases)
  func apply(_ row: ApplyCase) {
    let before = row.state()
    var after = before
    after.apply(row.event, at: testTime)
    #expect(row.check(before, after))
  }
}

/// No `default:` in the register's switches: each lists every event it does not
/// act on, so a new one must be placed in each.
@Suite struct ExhaustiveSwitchTests {
  @Test(arguments: ["Register", "Sale"])
  func noDefaultCase(folder: String) throws {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    let directory = parts.joined(separator: "/") + "/Sources/RegisterEngine/\(folder)"
    let files = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(!files.isEmpty)
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n").enumerated()
      where line.trimmingCharacters(in: .whitespaces).hasPrefix("default:") {
        Issue.record("\(folder)/\(file):\(number + 1) has a default: case")
      }
    }
  }
}
