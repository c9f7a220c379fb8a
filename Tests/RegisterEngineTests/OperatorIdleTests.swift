import Testing

@testable import RegisterEngine

/// An operator idle for the store's `operator_idle_minutes` (default 15, PCI DSS 8.2.8) is
/// signed out: the next change asked for is refused with `signed_out_idle`, the sign-out is
/// journaled, and a replay and a snapshot agree.
@Suite struct OperatorIdleTests {
  static func lane() throws -> JournalLane {
    let lane = try JournalLane()
    try lane.ok(
      Requests.OperatorAdd(operatorID: "mo", name: "M", role: .manager, pin: "9876"))
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try lane.ok(
      Requests.OperatorAdd(operatorID: "amy", name: "A", role: .cashier, pin: "1234"))
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    return lane
  }

  @Test func anOperatorIdleFor15MinutesIsSignedOut() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.Add(sku: "TEE"))
    lane.clock.advance(milliseconds: 14 * 60_000 + 59_999)
    try lane.ok(Requests.Add(sku: "JEANS"))  // a change restarts the count
    lane.clock.advance(milliseconds: 15 * 60_000)
    // Reads are answered, and do not sign anyone out.
    try lane.ok(Requests.Order())
    #expect(lane.register.currentOperator?.id == "amy")
    let refused = try lane.send(Requests.Add(sku: "JEANS"))
    #expect(refused.errorCode == "signed_out_idle")
    #expect(
      refused["error"]?["message"]?.stringValue?.contains("amy was signed out after 15 minutes")
        == true)
    #expect(lane.register.currentOperator == nil)
    #expect(lane.register.order.activeLines.count == 2, "the order is kept")
    // Journaled: a replay signs amy out at the same record.
    let replayed = try Register.replaying(lane.scan().records)
    #expect(replayed.staff.signedIn == nil)
    #expect(lane.scan().records.last?.type == "signed_out")
    // The next request that needs a sign-in says so; signing in again carries on.
    #expect(try lane.send(Requests.Add(sku: "JEANS")).errorCode == "not_signed_in")
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    try lane.ok(Requests.Add(sku: "JEANS"))
  }

  @Test func anApprovalDoesNotStandInForAnIdleOperator() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.Add(sku: "TEE"))
    lane.clock.advance(milliseconds: 16 * 60_000)
    let refused = try lane.send(
      Requests.Void(reason: "x"),
      envelope: RequestEnvelope(approval: Approval(operatorID: "mo", pin: "9876")))
    #expect(refused.errorCode == "signed_out_idle")
    #expect(lane.register.order.activeLines.count == 1)
  }

  @Test func zeroMinutesNeverSignsOut() throws {
    let text = testCatalogJSON.replacingOccurrences(
      of: #""receipt_footer": "Thank you!""#,
      with: #""receipt_footer": "Thank you!", "operator_idle_minutes": 0"#)
    let catalog = try CatalogFile.parse(Array(text.utf8), file: "t")
    #expect(catalog.store.operatorIdleMinutes == 0)
    #expect(catalog.store.json["operator_idle_minutes"] == .int(0))
    let lane = try TestLane(catalog: catalog)
    try lane.ok(
      Requests.OperatorAdd(operatorID: "mo", name: "M", role: .manager, pin: "9876"))
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    lane.clock.advance(milliseconds: 600 * 60_000)
    try lane.ok(Requests.Add(sku: "TEE"))
  }

  @Test(arguments: ["-1", "1441", "\"15\""])
  func anIdleTimeOutOfRangeIsRefused(_ value: String) {
    let text = testCatalogJSON.replacingOccurrences(
      of: #""receipt_footer": "Thank you!""#,
      with: #""receipt_footer": "Thank you!", "operator_idle_minutes": \#(value)"#)
    #expect(throws: CatalogError.self) { try CatalogFile.parse(Array(text.utf8), file: "t") }
  }

  /// The time of the last change is in the snapshot, so a register started from one signs
  /// the operator out when the live one would have.
  @Test func theSnapshotKeepsTheLastActivity() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.Add(sku: "TEE"))
    let decoded = try Register(snapshot: lane.register.snapshotValue())
    #expect(decoded.staff.operatorActiveAt == lane.register.staff.operatorActiveAt)
    #expect(decoded.staff.operatorActiveAt != nil)
  }
}
