import Foundation
import RegisterServer
import Testing

@testable import RegisterEngine

/// Published vectors: RFC 4231 (HMAC-SHA256) and RFC 7914 §11 (PBKDF2-HMAC-SHA256).
@Suite struct PBKDF2VectorTests {
  static func bytes(_ hex: String) -> [UInt8] { PINHash.bytes(hex: hex) ?? [] }

  @Test(arguments: [
    // RFC 4231 test case 1
    (
      [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    // RFC 4231 test case 2
    (
      Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    // RFC 4231 test case 6: a key longer than the block is hashed first
    (
      [UInt8](repeating: 0xAA, count: 131),
      Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
  ])
  func hmac(key: [UInt8], message: [UInt8], expected: String) {
    #expect(hexString(PBKDF2.hmacSHA256(key: key, message: message)) == expected)
  }

  @Test func rfc7914OneIteration() {
    let key = PBKDF2.deriveKey(
      password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)
    #expect(
      hexString(key)
        == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
  }

  @Test func rfc7914EightyThousandIterations() {
    let key = PBKDF2.deriveKey(
      password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80_000, length: 64)
    #expect(
      hexString(key)
        == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
        + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
  }

  @Test func pinHashRoundTripsAndMatchesInConstantTimeCompare() throws {
    // Checked against Python: hashlib.pbkdf2_hmac('sha256', b'1234', bytes(range(16)), 1000, 32)
    let hash = PINHash(pin: "1234", salt: Array(0..<16), iterations: 1000)
    #expect(
      hexString(hash.hash) == "2240ea2a22754a3c4610356ef8e4d7acf25af2ac3d2d11866de97a8b7812c52c")
    #expect(hash.matches("1234"))
    #expect(!hash.matches("1235"))
    let decoded = try #require(PINHash(encoded: hash.encoded))
    #expect(decoded == hash)
    #expect(hash.encoded.hasPrefix("pbkdf2-sha256$1000$000102030405060708090a0b0c0d0e0f$"))
    #expect(!hash.encoded.contains("1234$"))
    #expect(PBKDF2.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    #expect(!PBKDF2.constantTimeEqual([1, 2, 3], [1, 2, 4]))
    #expect(!PBKDF2.constantTimeEqual([1, 2, 3], [1, 2]))
  }
}

/// A lane whose store hashes PINs with few iterations (fast in a debug build) and has a
/// discount approval limit of 20 %.
struct PeopleLane: RequestLane {
  let service: RegisterService
  static let catalog = """
    {"store": {"name": "People Lane", "currency": "USD",
               "tax": {"classes": {"standard": "10"}, "default_class": "standard"},
               "discount_approval_limit": "20", "pin_hash_iterations": 1000},
     "products": [{"sku": "HAT", "name": "Hat", "description": "", "category": "C",
                   "price": "20.00", "stock": 10}]}
    """

  init() throws {
    let catalog = try CatalogFile.parse(Array(Self.catalog.utf8), file: "people.json")
    service = RegisterService(
      register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime))
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

  /// A manager "mo" (PIN 9876) and a cashier "amy" (PIN 1234), with amy signed in.
  static func staffed() throws -> PeopleLane {
    let lane = try PeopleLane()
    try lane.ok(
      Requests.OperatorAdd(operatorID: "mo", name: "Mo", role: .manager, pin: "9876"))
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try lane.ok(
      Requests.OperatorAdd(operatorID: "amy", name: "Amy", role: .cashier, pin: "1234"))
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    return lane
  }
}

@Suite struct OperatorTests {
  @Test func openUntilTheFirstOperatorWhoMustBeAManager() throws {
    let lane = try PeopleLane()
    try lane.ok(Requests.Add(sku: "HAT"))
    let cashier = try lane.send(
      Requests.OperatorAdd(operatorID: "amy", name: "Amy", role: .cashier, pin: "1234"))
    #expect(cashier.errorCode == "forbidden")
    try lane.ok(#"{"op":"operator_add","id":"mo","name":"Mo","role":"manager","pin":"9876"}"#)
    #expect(try lane.send(Requests.Add(sku: "HAT")).errorCode == "not_signed_in")
    // Reads still work.
    try lane.ok(Requests.Order())
    try lane.ok(Requests.OperatorList())
  }

  @Test func pinsAreValidatedAndNeverKept() throws {
    let lane = try PeopleLane()
    for pin in ["123", "12345678901234", "12a4", ""] {
      let reply = try lane.send(
        Requests.OperatorAdd(operatorID: "mo", name: "Mo", role: .manager, pin: pin))
      #expect(reply.errorCode == "invalid_pin", "\(pin)")
    }
    try lane.ok(
      Requests.OperatorAdd(operatorID: "mo", name: "Mo", role: .manager, pin: "9876"))
    let listed = try lane.ok(Requests.OperatorList()).serialized
    #expect(!listed.contains("9876") && !listed.contains("pin"))
    let person = try #require(lane.register.operators.first)
    #expect(person.pin.matches("9876"))
    #expect(person.pin.iterations == 1000)
  }

  @Test func fiveWrongPINsLockUntilAManagerUnlocks() throws {
    let lane = try PeopleLane.staffed()
    for attempt in 1...4 {
      let reply = try lane.send(Requests.SignIn(operatorID: "amy", pin: "0000"))
      #expect(reply.errorCode == "wrong_pin")
      #expect(lane.register.operators.first { $0.id == "amy" }?.failedAttempts == attempt)
    }
    // A right PIN resets the count.
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
    #expect(lane.register.operators.first { $0.id == "amy" }?.failedAttempts == 0)
    for _ in 1...5 { _ = try lane.send(Requests.SignIn(operatorID: "amy", pin: "0000")) }
    #expect(lane.register.operators.first { $0.id == "amy" }?.locked == true)
    #expect(lane.register.signedIn == nil, "a locked operator is signed out")
    #expect(
      try lane.send(Requests.SignIn(operatorID: "amy", pin: "1234")).errorCode
        == "operator_locked")
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try lane.ok(Requests.OperatorUnlock(operatorID: "amy"))
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "1234"))
  }

  @Test(arguments: [
    #"{"op":"void"}"#,
    #"{"op":"override_price","line":1,"unit_price":"15.00","reason":"damaged"}"#,
    #"{"op":"discount","line":1,"percent":"25","reason":"big"}"#,
    #"{"op":"discount","line":1,"amount":"4.01","reason":"big"}"#,
    #"{"op":"no_sale"}"#,
    #"{"op":"operator_add","operator_id":"bo","name":"Bo","role":"cashier","pin":"5555"}"#,
  ])
  func managerApproval(request: String) throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.Add(sku: "HAT"))
    let before = lane.register.lastSequence
    #expect(try lane.send(request).errorCode == "approval_required")
    #expect(lane.register.lastSequence == before, "refused without approval, nothing changed")
    let object = String(request.dropLast())
    let wrong = try lane.send(object + #","approve":{"operator":"mo","pin":"1111"}}"#)
    #expect(wrong.errorCode == "wrong_pin")
    #expect(lane.register.operators.first { $0.id == "mo" }?.failedAttempts == 1)
    let cashierApproval = try lane.send(object + #","approve":{"operator":"amy","pin":"1234"}}"#)
    #expect(cashierApproval.errorCode == "approval_required")
    let approved = try lane.send(object + #","approve":{"operator":"mo","pin":"9876"}}"#)
    #expect(approved["ok"] == .bool(true), "\(approved.serialized)")
  }

  @Test func smallDiscountsNeedNoManager() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.Add(sku: "HAT"))
    try lane.ok(Requests.Discount(line: 1, value: .percent(percent("20")), reason: "limit"))
    try lane.ok(Requests.Discount(line: 1, value: .amount(usd("4.00")), reason: "limit"))
  }

  @Test func theLastManagerCannotBeRemovedWhileOthersRemain() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    #expect(try lane.send(Requests.OperatorRemove(operatorID: "mo")).errorCode == "forbidden")
    try lane.ok(Requests.OperatorRemove(operatorID: "amy"))
    #expect(lane.register.operators.map(\.id) == ["mo"])
  }

  @Test func aCashierMaySetTheirOwnPINButNotAnothers() throws {
    let lane = try PeopleLane.staffed()
    try lane.ok(Requests.OperatorSetPIN(operatorID: "amy", pin: "4321"))
    #expect(
      try lane.send(Requests.OperatorSetPIN(operatorID: "mo", pin: "4321")).errorCode
        == "approval_required")
    try lane.ok(Requests.SignIn(operatorID: "amy", pin: "4321"))
  }

  @Test func autoSignOutAfterASale() throws {
    let json = PeopleLane.catalog.replacingOccurrences(
      of: #""pin_hash_iterations": 1000"#,
      with: #""pin_hash_iterations": 1000, "auto_sign_out": true"#)
    let catalog = try CatalogFile.parse(Array(json.utf8), file: "auto.json")
    let service = RegisterService(
      register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime))
    try service.ok(
      Requests.OperatorAdd(operatorID: "mo", name: "Mo", role: .manager, pin: "9876"))
    try service.ok(Requests.SignIn(operatorID: "mo", pin: "9876"))
    try service.ok(Requests.Add(sku: "HAT"))
    let paid = try service.ok(Requests.Tender(.cash(amount: usd("50"))))
    #expect(paid["receipt"]?["text"]?.stringValue?.contains("Cashier: Mo") == true)
    #expect(service.register.signedIn == nil)
    #expect(try service.send(Requests.Add(sku: "HAT")).errorCode == "not_signed_in")
  }
}

@Suite struct ContactValidationTests {
  @Test(arguments: ["dana@example.com", "d.l+tag@mail.example.co.uk", "x_y@sub-domain.example.org"])
  func goodEmails(email: String) throws {
    try ContactValidation.validateEmail(email)
  }

  @Test(arguments: [
    "dana", "dana@", "@example.com", "dana@example", "da na@example.com", "dana@@example.com",
    "dana@example..com", "dana@-example.com", ".dana@example.com", "dana@example.c0m",
  ])
  func badEmails(email: String) {
    #expect(throws: RegisterError.self) { try ContactValidation.validateEmail(email) }
  }

  @Test(arguments: ["+1 (217) 555-0199", "217.555.0199", "0044 20 7946 0958"])
  func goodPhones(phone: String) throws {
    try ContactValidation.validatePhone(phone)
  }

  @Test(arguments: ["555-01", "12ab5678", "+1 217 555 0199 1234 5678", "++12175550199"])
  func badPhones(phone: String) {
    #expect(throws: RegisterError.self) { try ContactValidation.validatePhone(phone) }
  }
}

@Suite struct EmailMessageTests {
  @Test func headersAndBody() {
    let message = EmailMessage.render(
      receiptText: "Line one\nLine two\n", receiptNumber: 7, storeName: "Café \"Lane\"",
      from: "receipts@shop.example", to: "dana@example.com", messageID: "m1@registerd",
      at: Timestamp(epochMilliseconds: 1_795_374_185_000, utcOffsetSeconds: -18_000),
      isReturn: false)
    let text = String(decoding: message, as: UTF8.self)
    // 1795374185 is 2026-11-22 14:03:05 at -05:00, a Sunday.
    #expect(text.contains("Date: Sun, 22 Nov 2026 14:03:05 -0500\r\n"))
    #expect(text.contains("Message-ID: <m1@registerd>\r\n"))
    #expect(text.contains("To: <dana@example.com>\r\n"))
    // Non-ASCII names are RFC 2047 encoded words.
    #expect(text.contains("From: =?utf-8?B?"))
    #expect(text.contains("Subject: =?utf-8?B?"))
    #expect(text.contains("Content-Type: text/plain; charset=utf-8\r\n"))
    #expect(text.hasSuffix("\r\n\r\nLine one\r\nLine two\r\n"))
    #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
  }

  @Test func asciiDisplayNamesAreQuoted() {
    #expect(EmailMessage.displayName(#"A "B" \ C"#) == #""A \"B\" \\ C""#)
    #expect(EmailMessage.base64(Array("Café".utf8)) == "Q2Fmw6k=")
  }
}
