import RegisterServer
import Testing

@testable import RegisterEngine

/// Table tests on `Register.decide` and `Register.apply` directly: a state built from events, a
/// command, and the decision (events or a rejection with the events it still records).
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

/// One row of a decide table: the state, the command (with an approval, if any) and what
/// `decide` must answer.
struct DecideCase: Sendable, CustomTestStringConvertible {
  enum Outcome: Sendable {
    case accepted([Event], approvedBy: String?)
    case rejected(ErrorCode, recording: [Event])
  }

  var name: String
  var state: @Sendable () -> Register
  var command: Command
  var approval: Approval?
  var outcome: Outcome

  var testDescription: String { name }
}

@Suite struct DecisionTableTests {
  static let people: [DecideCase] = [
    DecideCase(
      name: "a wrong sign-in PIN is refused and counted",
      state: { Fixture.staffed() }, command: .signIn(operatorID: "M1", pin: "9999"),
      outcome: .rejected(.wrongPIN, recording: [.pinFailed(id: "M1")])),
    DecideCase(
      name: "a PIN of the wrong shape is refused and not counted",
      state: { Fixture.staffed() }, command: .signIn(operatorID: "M1", pin: "12"),
      outcome: .rejected(.invalidPIN, recording: [])),
    DecideCase(
      name: "a right sign-in PIN signs in",
      state: { Fixture.staffed(managerFailures: 2) },
      command: .signIn(operatorID: "M1", pin: "1234"),
      outcome: .accepted([.signedIn(id: "M1")], approvedBy: nil)),
    DecideCase(
      name: "a wrong approval PIN is refused and counted",
      state: { Fixture.staffedWithOrder() }, command: .void(reason: nil),
      approval: Approval(operatorID: "M1", pin: "0000"),
      outcome: .rejected(.wrongPIN, recording: [.pinFailed(id: "M1")])),
    DecideCase(
      name: "an approval's reset survives a refusal for another reason",
      state: { Fixture.staffed(managerFailures: 2) }, command: .void(reason: nil),
      approval: Approval(operatorID: "M1", pin: "1234"),
      outcome: .rejected(.emptyOrder, recording: [.pinAccepted(id: "M1")])),
    DecideCase(
      name: "an approval with nothing to reset records nothing when refused",
      state: { Fixture.staffed() }, command: .void(reason: nil),
      approval: Approval(operatorID: "M1", pin: "1234"),
      outcome: .rejected(.emptyOrder, recording: [])),
    DecideCase(
      name: "an accepted approval's reset comes before the change",
      state: { Fixture.staffedWithOrder(managerFailures: 2) }, command: .void(reason: "x"),
      approval: Approval(operatorID: "M1", pin: "1234"),
      outcome: .accepted(
        [.pinAccepted(id: "M1"), .orderVoided(order: 1, reason: "x", reversed: [])],
        approvedBy: "M1")),
    DecideCase(
      name: "a change that needs a manager is refused without one, recording nothing",
      state: { Fixture.staffedWithOrder() }, command: .void(reason: nil),
      outcome: .rejected(.approvalRequired, recording: [])),
    DecideCase(
      name: "a cashier's approval is refused",
      state: { Fixture.staffedWithOrder() }, command: .void(reason: nil),
      approval: Approval(operatorID: "C1", pin: "5678"),
      outcome: .rejected(.approvalRequired, recording: [])),
  ]

  @Test(arguments: people)
  func decide(_ row: DecideCase) {
    let register = row.state()
    let decision = register.decide(
      row.command, context: CommandContext(now: testTime, approval: row.approval))
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
      .signIn(operatorID: "M1", pin: "9999"), context: CommandContext(now: testTime))
    #expect(wrong.rejection?.code == .wrongPIN)
    for event in wrong.events { register.apply(event, at: testTime) }
    #expect(register.operators.first { $0.id == "M1" }?.failedAttempts == 3)

    let refused = register.decide(
      .void(reason: nil),
      context: CommandContext(now: testTime, approval: Approval(operatorID: "M1", pin: "1234")))
    #expect(refused.rejection?.code == .emptyOrder)
    for event in refused.events { register.apply(event, at: testTime) }
    #expect(register.operators.first { $0.id == "M1" }?.failedAttempts == 0)
  }
}
