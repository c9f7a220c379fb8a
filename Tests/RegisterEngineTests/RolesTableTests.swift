import Foundation
import Testing

@testable import RegisterEngine

/// Each op's role is declared once (`Op.access`) and enforced for every op: a cashier is
/// refused every manager op (`approval_required`, nothing changed), a manager may do it, and
/// a cashier with a manager's approval may too.
@Suite struct RolesTableTests {
  /// A request for each manager op that a manager may make on the test lane after `setUp`.
  static let managerRequests: [Op: String] = [
    Requests.Void.op: #"{"op":"void","reason":"x"}"#,
    Requests.OverridePrice.op:
      #"{"op":"override_price","line":1,"unit_price":"1.00","reason":"x"}"#,
    Requests.Return.op: #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x"}"#,
    Requests.NoSale.op: #"{"op":"no_sale","reason":"x"}"#,
    Requests.OperatorAdd.op:
      #"{"op":"operator_add","operator_id":"zed","name":"Z","role":"cashier","pin":"4321"}"#,
    Requests.OperatorRemove.op: #"{"op":"operator_remove","operator_id":"bob"}"#,
    Requests.OperatorUnlock.op: #"{"op":"operator_unlock","operator_id":"bob"}"#,
    Requests.ProductAdd.op:
      #"{"op":"product_add","product":{"sku":"NEW","name":"N","description":"","category":"C","price":"1.00"}}"#,
    Requests.ProductUpdate.op: #"{"op":"product_update","sku":"JEANS","changes":{"price":"0.01"}}"#,
    Requests.ProductRemove.op: #"{"op":"product_remove","sku":"HAT"}"#,
    Requests.StockAdjust.op: #"{"op":"stock_adjust","sku":"TEE","delta":1,"reason":"x"}"#,
    Requests.CloseDay.op: #"{"op":"close_day"}"#,
  ]

  /// What is sent first (by whoever is signed in) so that the op's request can be made.
  static let before: [Op: [String]] = [
    Requests.CloseDay.op: [#"{"op":"park"}"#]
  ]

  static var managerOps: [Op] {
    Op.allCases.filter {
      if case .manager = $0.access { true } else { false }
    }
  }

  /// A lane with a manager (mo), two cashiers (amy, bob), a completed sale (receipt 1) and an
  /// open order with a line.
  static func lane() throws -> TestLane {
    let lane = try TestLane()
    try lane.ok(
      Requests.OperatorAdd(operatorID: "mo", name: "M", role: .manager, pin: "9876"))
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try lane.ok(
      Requests.OperatorAdd(operatorID: "amy", name: "A", role: .cashier, pin: "1234"))
    try lane.ok(
      Requests.OperatorAdd(operatorID: "bob", name: "B", role: .cashier, pin: "5555"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.cash(amount: usd("100.00"))))
    try lane.ok(Requests.Add(sku: "JEANS"))
    return lane
  }

  @Test func everyManagerOpHasARequestHere() {
    #expect(Set(Self.managerOps) == Set(Self.managerRequests.keys))
  }

  @Test(arguments: RolesTableTests.managerOps)
  func aCashierIsRefusedAManagerOp(_ op: Op) throws {
    let lane = try Self.lane()
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    for line in Self.before[op] ?? [] { try lane.ok(line) }
    let before = lane.snapshot
    let operators = lane.register.operators
    let reply = try lane.send(try #require(Self.managerRequests[op]))
    #expect(reply.errorCode == "approval_required", "\(op.rawValue): \(reply)")
    #expect(reply["error"]?["message"]?.stringValue?.contains("needs a manager") == true)
    #expect(lane.snapshot == before)
    #expect(lane.register.operators == operators)
  }

  @Test(arguments: RolesTableTests.managerOps)
  func aManagerMayDoAManagerOp(_ op: Op) throws {
    let lane = try Self.lane()
    for line in Self.before[op] ?? [] { try lane.ok(line) }
    try lane.ok(try #require(Self.managerRequests[op]))
  }

  @Test(arguments: RolesTableTests.managerOps)
  func aCashierWithAManagersApprovalMayDoIt(_ op: Op) throws {
    let lane = try Self.lane()
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    for line in Self.before[op] ?? [] { try lane.ok(line) }
    var request = try #require(Self.managerRequests[op])
    request.removeLast()
    try lane.ok(request + #","approve":{"operator":"mo","pin":"9876"}}"#)
  }

  @Test func aCashierMayDoEveryCashiersOp() throws {
    let lane = try Self.lane()
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.SetQty(line: 2, quantity: 2))
    try lane.ok(Requests.VoidLine(line: 2))
    try lane.ok(Requests.PaidIn(amount: usd("5.00"), reason: "x"))
    try lane.ok(Requests.Park(note: "later"))
    try lane.ok(Requests.OperatorSetPIN(operatorID: "amy", pin: "2468"))
    #expect(
      try lane.send(Requests.OperatorSetPIN(operatorID: "bob", pin: "2468")).errorCode
        == "approval_required")
  }

  /// docs/PROTOCOL.md's table of roles says what `Op.access` says, op for op.
  @Test func theProtocolDocumentTabulatesEveryOpsRole() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let text = try String(
      contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    var documented: [String: String] = [:]
    for line in text.split(separator: "\n") {
      for (prefix, role) in [
        ("| anyone (no sign-in) |", "open"), ("| cashier (anyone signed in) |", "cashier"),
        ("| manager (or a manager's approval) |", "manager"),
      ] where line.hasPrefix(prefix) {
        for part in line.dropFirst(prefix.count).split(separator: "`") where !part.contains(",") {
          let name = part.trimmingCharacters(in: .whitespaces)
          if !name.isEmpty && name != "|" { documented[name] = role }
        }
      }
    }
    for op in Op.allCases {
      let role =
        switch op.access {
        case .open: "open"
        case .cashier: "cashier"
        case .manager: "manager"
        }
      #expect(documented[op.rawValue] == role, "\(op.rawValue)")
    }
    #expect(documented.count == Op.allCases.count)
  }
}
