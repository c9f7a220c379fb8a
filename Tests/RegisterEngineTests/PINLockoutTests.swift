import Foundation
import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// A staffed lane (manager "mo" PIN 9876, cashier "amy" PIN 1234, amy signed in) journaling
/// into memory on a clock the test moves, so that what replay rebuilds can be compared.
struct PINLane: RequestLane {
  let storage = MemoryJournalStorage()
  let clock = ManualClock(testTime)
  let service: RegisterService

  init(storeExtra: String = "") throws {
    let text = PeopleLane.catalog.replacingOccurrences(
      of: #""pin_hash_iterations": 1000"#, with: #""pin_hash_iterations": 1000\#(storeExtra)"#)
    let catalog = try CatalogFile.parse(Array(text.utf8), file: "pins.json")
    let journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
    service = RegisterService(register: Register(), clock: clock, journal: journal)
    try service.commit(Register.startupEvents(for: catalog, current: nil))
    try ok(Requests.OperatorAdd(operatorID: "mo", name: "Mo", role: .manager, pin: "9876"))
    try ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try ok(Requests.OperatorAdd(operatorID: "amy", name: "Amy", role: .cashier, pin: "1234"))
    try ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
  }

  var register: Register { service.register }

  @discardableResult
  func send(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.send(line, sourceLocation: sourceLocation)
  }

  @discardableResult
  func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.ok(line, sourceLocation: sourceLocation)
  }

  func person(_ id: String) throws -> Operator {
    try #require(register.operators.first { $0.id == id })
  }

  /// The register rebuilt from the journal alone.
  func replayed() throws -> Register {
    let scan = JournalScanner.scan(storage.bytes)
    #expect(scan.damage == nil && scan.tailLength == 0)
    return try Register.replaying(scan.records)
  }

  func advance(minutes: Int64, seconds: Int64 = 0) {
    clock.advance(milliseconds: (minutes * 60 + seconds) * 1000)
  }
}

@Suite struct PINLockoutTests {
  static let wrongApproval = #"{"op":"no_sale","approve":{"operator":"mo","pin":"1111"}}"#
  static let rightApproval = #"{"op":"no_sale","approve":{"operator":"mo","pin":"9876"}}"#

  /// Four wrong approvals, a right one, then one wrong one must not lock the only manager:
  /// a right approval resets the count of wrong PINs as a sign-in does.
  @Test func aRightApprovalResetsTheCountOfWrongPINs() throws {
    let lane = try PINLane()
    for attempt in 1...4 {
      #expect(try lane.send(Self.wrongApproval).errorCode == "wrong_pin")
      #expect(try lane.person("mo").failedAttempts == attempt)
    }
    try lane.ok(Self.rightApproval)
    #expect(try lane.person("mo").failedAttempts == 0)
    #expect(try lane.send(Self.wrongApproval).errorCode == "wrong_pin")
    let mo = try lane.person("mo")
    #expect(mo.failedAttempts == 1 && !mo.locked, "one wrong PIN after a right one does not lock")
    try lane.ok(Self.rightApproval)
    // Replay agrees: the reset is journaled.
    let scan = JournalScanner.scan(lane.storage.bytes)
    #expect(scan.records.filter { $0.type == "pin_accepted" }.count == 2)
    #expect(try lane.replayed().operators == lane.register.operators)
  }

  /// A right approval PIN counts even when the request it approves is then refused.
  @Test func aRightApprovalOfARefusedRequestStillResetsTheCount() throws {
    let lane = try PINLane()
    #expect(try lane.send(Self.wrongApproval).errorCode == "wrong_pin")
    // Voiding needs a manager; the order is empty, so the void itself is refused.
    let refused = try lane.send(
      Requests.Void(), envelope: RequestEnvelope(approval: Approval(operatorID: "mo", pin: "9876")))
    #expect(refused["ok"] == .bool(false))
    #expect(refused.errorCode != "wrong_pin" && refused.errorCode != "approval_required")
    #expect(try lane.person("mo").failedAttempts == 0)
    #expect(try lane.replayed().operators == lane.register.operators)
  }

  /// An approval with no count to reset journals nothing extra.
  @Test func aRightApprovalWithNothingToResetJournalsNoExtraRecord() throws {
    let lane = try PINLane()
    try lane.ok(Self.rightApproval)
    let types = JournalScanner.scan(lane.storage.bytes).records.map(\.type)
    #expect(!types.contains("pin_accepted"))
  }

  @Test func aLockExpiresAfterTheStoresLockoutMinutes() throws {
    let lane = try PINLane(storeExtra: #", "lockout_minutes": 10"#)
    for _ in 1...5 {
      #expect(
        try lane.send(Requests.SignIn(operatorID: "amy", pin: "0000")).errorCode == "wrong_pin")
    }
    let lockedAt = lane.clock.now()
    #expect(try lane.person("amy").locked)
    #expect(try lane.person("amy").lockedAt == lockedAt)
    let list = try lane.ok(Requests.OperatorList())
    let amy = try #require(list["operators"]?.arrayValue?.first { $0["id"] == .string("amy") })
    #expect(amy["locked"] == .bool(true))
    let until = Timestamp(
      epochMilliseconds: lockedAt.epochMilliseconds + 600_000,
      utcOffsetSeconds: lockedAt.utcOffsetSeconds)
    #expect(amy["locked_until"] == .string(until.iso8601))

    lane.advance(minutes: 9, seconds: 59)
    let early = try lane.send(Requests.SignIn(operatorID: "amy", pin: "1234"))
    #expect(early.errorCode == "operator_locked")
    #expect(early["error"]?["message"]?.stringValue?.contains(until.local.timeString) == true)

    lane.advance(minutes: 0, seconds: 1)
    let listed = try lane.ok(Requests.OperatorList())
    let after = try #require(listed["operators"]?.arrayValue?.first { $0["id"] == .string("amy") })
    #expect(after["locked"] == .bool(false) && after["failed_attempts"] == .int(0))
    // A wrong PIN after expiry starts a new count: one, not a sixth.
    let wrong = try lane.send(Requests.SignIn(operatorID: "amy", pin: "0000"))
    #expect(wrong.errorCode == "wrong_pin")
    #expect(try lane.person("amy").failedAttempts == 1 && !lane.person("amy").locked)
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    #expect(try lane.person("amy").failedAttempts == 0)
    // Replay brings back the same operators, lock times included: no clock in apply.
    #expect(try lane.replayed().operators == lane.register.operators)
  }

  @Test func anExpiredLockLetsAManagersApprovalThrough() throws {
    let lane = try PINLane()
    for _ in 1...5 { _ = try lane.send(Self.wrongApproval) }
    #expect(try lane.send(Self.rightApproval).errorCode == "operator_locked")
    lane.advance(minutes: StoreSettings.defaultLockoutMinutes.int64)
    // The cashier, idle as long, signs in again (`operator_idle_minutes`).
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    try lane.ok(Self.rightApproval)
    let mo = try lane.person("mo")
    #expect(!mo.locked && mo.failedAttempts == 0 && mo.lockedAt == nil)
    #expect(try lane.replayed().operators == lane.register.operators)
  }

  /// Replay at a different wall-clock time reaches the same lock state: expiry is worked out
  /// from the journaled event times only.
  @Test func lockStateAfterReplayDependsOnlyOnJournaledTimes() throws {
    let lane = try PINLane(storeExtra: #", "lockout_minutes": 1"#)
    for _ in 1...5 { _ = try lane.send(Requests.SignIn(operatorID: "amy", pin: "0000")) }
    lane.advance(minutes: 2)
    for _ in 1...3 { _ = try lane.send(Requests.SignIn(operatorID: "amy", pin: "0000")) }
    let amy = try lane.person("amy")
    #expect(amy.failedAttempts == 3 && !amy.locked)
    #expect(try lane.replayed().operators == lane.register.operators)
  }

  @Test(arguments: [
    (#"0"#, false), (#"1441"#, false), (#"-5"#, false), (#""15""#, false),
    (#"9223372036854775807"#, false), (#"1.5"#, false), (#"1"#, true), (#"1440"#, true),
  ])
  func lockoutMinutesIsValidated(value: String, valid: Bool) throws {
    let text = PeopleLane.catalog.replacingOccurrences(
      of: #""pin_hash_iterations": 1000"#,
      with: #""pin_hash_iterations": 1000, "lockout_minutes": \#(value)"#)
    do {
      let catalog = try CatalogFile.parse(Array(text.utf8), file: "pins.json")
      #expect(valid, "\(value) was accepted")
      // It survives the catalog file's round trip.
      let again = try CatalogFile.parse(
        CatalogFile.serialize(catalog), file: "again.json")
      #expect(again.store.lockoutMinutes == catalog.store.lockoutMinutes)
    } catch {
      #expect(!valid, "\(value): \(error)")
      #expect("\(error)".contains("lockout_minutes"))
    }
  }

  @Test func lockoutMinutesDefaultsToFifteen() throws {
    let catalog = try CatalogFile.parse(Array(PeopleLane.catalog.utf8), file: "people.json")
    #expect(catalog.store.lockoutMinutes == 15)
  }

  /// A PIN of the wrong shape is refused before it is hashed or counted.
  @Test(arguments: ["12", "123", "abcd", "12345678901234", "", "１２３４", "12 34"])
  func aMalformedPINIsRefusedBeforeHashingOrCounting(pin: String) throws {
    let lane = try PINLane()
    let before = lane.register.lastSequence
    let signIn = #"{"op":"sign_in","operator":"amy","pin":"\#(pin)"}"#
    let approve = #"{"op":"no_sale","approve":{"operator":"mo","pin":"\#(pin)"}}"#
    for line in [signIn, approve] {
      #expect(lane.service.pinWork(for: Array(line.utf8)) == nil, "nothing to hash: \(line)")
      #expect(try lane.send(line).errorCode == "invalid_pin", "\(line)")
    }
    #expect(try lane.person("amy").failedAttempts == 0)
    #expect(try lane.person("mo").failedAttempts == 0)
    #expect(lane.register.lastSequence == before, "nothing journaled")
  }
}

@Suite struct PreparedPINTests {
  @Test func theWorkListsOnlyPINsThatWillBeHashed() throws {
    let lane = try PINLane()
    func work(_ line: String) -> PINWork? { lane.service.pinWork(for: Array(line.utf8)) }
    let amy = try lane.person("amy")
    let signIn = try #require(work(#"{"op":"sign_in","operator":"amy","pin":"1234"}"#))
    #expect(
      signIn.checks == [PINDerivation(pin: "1234", salt: amy.pin.salt, iterations: 1000)])
    #expect(work(#"{"op":"sign_in","operator":"nobody","pin":"1234"}"#) == nil)
    #expect(work(#"{"op":"hello"}"#) == nil)
    #expect(work("not json") == nil)
    // A member name spelled with escapes is still found (else its hash would land on the loop).
    #expect(work(#"{"op":"sign_in","operator":"amy","p\u0069n":"1234"}"#)?.checks.count == 1)
    #expect(RegisterService.mayCarryPIN(Array(#"{"op":"add","sku":"PIN"}"#.utf8)) == false)
    #expect(RegisterService.mayCarryPIN(Array(#"{"pin":"1"}"#.utf8)))
    // An approval on any change, needed or not (that can change before the line is handled)…
    #expect(work(PINLockoutTests.rightApproval)?.checks.count == 1)
    #expect(
      work(#"{"op":"add","sku":"HAT","approve":{"operator":"mo","pin":"9876"}}"#)?.checks.count
        == 1)
    // …but not on a read, and not for a non-manager or a malformed PIN.
    #expect(work(#"{"op":"order","approve":{"operator":"mo","pin":"9876"}}"#) == nil)
    #expect(work(#"{"op":"no_sale","approve":{"operator":"amy","pin":"1234"}}"#) == nil)
    #expect(work(#"{"op":"no_sale","approve":{"operator":"mo","pin":"98"}}"#) == nil)
    let fresh = try #require(
      work(#"{"op":"operator_set_pin","operator_id":"amy","pin":"4321"}"#))
    #expect(fresh.fresh.count == 1 && fresh.fresh[0].iterations == 1000)
  }

  @Test func aPreparedKeyIsWhatDecideCompares() throws {
    let lane = try PINLane()
    let line = Array(#"{"op":"sign_in","operator":"amy","pin":"1234"}"#.utf8)
    let work = try #require(lane.service.pinWork(for: line))
    // A prepared key is trusted as the key of that PIN, salt and count: a bogus one makes the
    // right PIN fail, which proves decide did not hash again.
    var bogus = PreparedPINs()
    bogus.keys[work.checks[0]] = [UInt8](repeating: 0, count: 32)
    let refused = lane.service.handle([IncomingLine(connection: 1, bytes: line, prepared: bogus)])
    #expect(try JSONParser.parse(refused[0].line).errorCode == "wrong_pin")
    let accepted = lane.service.handle([
      IncomingLine(connection: 1, bytes: line, prepared: work.perform())
    ])
    #expect(try JSONParser.parse(accepted[0].line)["ok"] == .bool(true))
  }

  @Test func aStalePreparationFallsBackToHashingInDecide() throws {
    let lane = try PINLane()
    let line = Array(#"{"op":"sign_in","operator":"amy","pin":"4321"}"#.utf8)
    // Prepared against amy's old salt; her PIN is set again before the line is handled.
    let stale = try #require(lane.service.pinWork(for: line)).perform()
    try lane.ok(Requests.OperatorSetPIN(operatorID: "amy", pin: "4321"))
    let reply = lane.service.handle([IncomingLine(connection: 1, bytes: line, prepared: stale)])
    #expect(try JSONParser.parse(reply[0].line)["ok"] == .bool(true))
  }

  @Test func aPreparedNewHashIsTheOneJournaled() throws {
    let lane = try PINLane()
    let line = Array(#"{"op":"operator_set_pin","operator_id":"amy","pin":"4321"}"#.utf8)
    let work = try #require(lane.service.pinWork(for: line))
    let prepared = work.perform()
    _ = lane.service.handle([IncomingLine(connection: 1, bytes: line, prepared: prepared)])
    let amy = try lane.person("amy")
    #expect(amy.pin.salt == work.fresh[0].salt)
    #expect(amy.pin.matches("4321"))
  }
}

extension Int {
  fileprivate var int64: Int64 { Int64(self) }
}
