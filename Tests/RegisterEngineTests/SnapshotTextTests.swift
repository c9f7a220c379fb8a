import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `JSONReader` and the ledger read from its text without a tree (`ReceiptLedger.reading`):
/// start-up and `replay` take this path for every snapshot, so it must read everything the
/// register writes, give exactly what the tree decoder gives, and never accept what the tree
/// decoder refuses (then `ReceiptLedger(snapshotText:)` falls back to the tree).
@Suite struct SnapshotTextTests {
  /// The integer `JSONReader` reads from `text` as a whole value (nil: refused).
  static func integer(_ text: String) -> Int64? {
    JSONReader.read(Array(text.utf8)[...], depth: 0) { $0.int64() }
  }

  @Test(arguments: [
    "0", "-0", "7", "-12", "  42 ", "9223372036854775807", "-9223372036854775808", "1000000",
  ])
  func anIntegerIsItsTextsInt64(text: String) throws {
    let expected = try #require(Int64(text.filter { $0 != " " }))
    #expect(Self.integer(text) == expected)
    // The tree parser agrees that it is that integer.
    #expect(try JSONParser.parse(text).int64Value == expected)
  }

  /// What is not a JSON integer that fits in an Int64 is refused (the tree decoder then says
  /// why: a fraction, an exponent, leading zeros, out of range).
  @Test(arguments: [
    "01", "-01", "1.0", "1e3", "1E3", "-", "+1", "9223372036854775808", "-9223372036854775809",
    "99999999999999999999", "\"1\"", "null", "1 2", "",
  ])
  func whatIsNotAnIntegerIsRefused(text: String) {
    #expect(Self.integer(text) == nil)
  }

  /// Members are read by name in the order asked for; anything else is refused.
  @Test func membersAreReadInTheirOrder() {
    func read(_ text: String) -> (Int64, String)? {
      JSONReader.read(Array(text.utf8)[...], depth: 0) { reader -> (Int64, String)? in
        guard reader.beginObject(), reader.member("a"), let a = reader.int64(),
          reader.member("b"), let b = reader.string(), reader.endObject()
        else { return nil }
        return (a, b)
      }
    }
    #expect(read(#"{"a":1,"b":"x"}"#)! == (1, "x"))
    #expect(read(#" { "a" : -5 , "b" : "caf\u00e9 \"q\"" } "#)! == (-5, "café \"q\""))
    for refused in [
      #"{"b":"x","a":1}"#, #"{"a":1}"#, #"{"a":1,"b":"x","c":2}"#, #"{"a":1,"b":"x",}"#,
      #"{"a":1 "b":"x"}"#, #"{"a":1,"b":"x"} x"#, #"{"a":1,"b":"x""#, #"{"\u0061":1,"b":"x"}"#,
      #"{"ab":1,"b":"x"}"#, #"{"a":1,"b":"\ud800"}"#, "{\"a\":1,\"b\":\"\u{01}\"}",
      #"["a",1]"#,
    ] {
      #expect(read(refused) == nil, "\(refused)")
    }
  }

  /// Arrays: elements separated by single commas, and the parser's nesting bound.
  @Test func arraysAndNesting() {
    func numbers(_ text: String) -> [Int64]? {
      JSONReader.read(Array(text.utf8)[...], depth: 0) { reader -> [Int64]? in
        var all: [Int64] = []
        let read = reader.array { reader in
          guard let number = reader.int64() else { return false }
          all.append(number)
          return true
        }
        return read ? all : nil
      }
    }
    #expect(numbers("[]") == [])
    #expect(numbers("[1, 2 ,3]") == [1, 2, 3])
    for refused in ["[1,]", "[,1]", "[1 2]", "[1,,2]", "[1", "[1]]", "[[1]]", "[1}", "[1,2}"] {
      #expect(numbers(refused) == nil, "\(refused)")
    }
    let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
    let value = JSONReader.read(Array(deep.utf8)[...], depth: 0) { $0.value() }
    #expect(value == nil)
    // A value read whole is the parser's tree, and counts the depth it is read at.
    let text = #"{"k":[1,{"x":null}],"s":"é"}"#
    #expect(
      JSONReader.read(Array(text.utf8)[...], depth: 0) { $0.value() }
        == (try? JSONParser.parse(text)))
    let nested = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
    #expect(JSONReader.read(Array(nested.utf8)[...], depth: 54) { $0.value() } != nil)
    #expect(JSONReader.read(Array(nested.utf8)[...], depth: 55) { $0.value() } == nil)
  }

  /// Registers with sales, returns to cards and cash, customers and closed days.
  static let histories = Result { () throws -> [Register] in
    try [11, 12, 13].map { seed in try RandomHistory.drive(seed: seed, count: 500).register }
  }

  static func ledgers() throws -> [ReceiptLedger] {
    try histories.get().map(\.ledger)
  }

  /// Every ledger the register writes is read by the fast path, equal to the one written.
  @Test func theFastPathReadsWhatTheRegisterWrites() throws {
    var refunds = 0
    for ledger in try Self.ledgers() {
      refunds += ledger.refunded.count
      let text = ledger.snapshotValue.serializedBytes
      #expect(ReceiptLedger.reading(text[...], depth: 0) == ledger)
    }
    #expect(refunds > 0, "the histories have refunds to read")
  }

  /// Refunds to other tenders (gift cards, store credit), lines' refunds not known and a last
  /// receipt number, which the random histories may not reach.
  @Test func refundsToOtherTendersAreRead() throws {
    let text = #"""
      {"sales":[],"returns":[],"returned_quantities":[{"receipt":3,"lines":[{"line":1,"quantity":2},{"line":4,"quantity":1}]}],"refunded":[{"receipt":3,"state":{"cards":[{"brand":"AMEX","last4":"0005","amount":-7},{"brand":"VISA","last4":"1234","amount":100}],"others":[{"key":"gift_card 6006","amount":250},{"key":"store_credit","amount":5}],"cash":12,"line_refunds":[{"line":1,"net":300,"tax":23},{"line":4,"net":60,"tax":-23}]}},{"receipt":6,"state":{"cards":[],"others":[],"cash":40,"line_refunds":null}}],"next_receipt_number":9,"last_receipt_number":8,"archive":[{"day":1,"first":1,"count":2,"position":0}],"customer_receipts":[{"customer":"C1","receipts":[3,5]},{"customer":"C2","receipts":[4]}]}
      """#
    let tree = try ReceiptLedger(snapshot: try JSONParser.parse(text), path: "ledger")
    let fast = try #require(ReceiptLedger.reading(Array(text.utf8)[...], depth: 0))
    #expect(fast == tree)
    #expect(fast.refunded[3]?.others == ["gift_card 6006": 250, "store_credit": 5])
    #expect(fast.refunded[3]?.cards.count == 2)
    #expect(fast.refunded[3]?.lineRefunds?[4] == LineRefund(net: 60, tax: -23))
    // Refunds recorded before lines' refunds were kept: not known, and read as such.
    #expect(fast.refunded[6] != nil && fast.refunded[6]?.lineRefunds == nil)
    #expect(fast.lastReceiptNumber == 8)
    #expect(fast.customerReceipts["C1"] == [3, 5])
  }

  /// Members in another order are still a ledger: the fast path refuses them and the tree
  /// reads them.
  @Test func anotherMemberOrderFallsBackToTheTree() throws {
    let ledger = try #require(try Self.ledgers().first)
    guard case .object(let object) = ledger.snapshotValue else {
      Issue.record("a ledger is an object")
      return
    }
    var reversed = JSONObject()
    for member in object.members.reversed() { reversed[member.key] = member.value }
    let text = JSONValue.object(reversed).serializedBytes[...]
    #expect(ReceiptLedger.reading(text, depth: 0) == nil)
    #expect(try ReceiptLedger(snapshotText: text, depth: 0, path: "ledger") == ledger)
  }

  /// Damaged texts: whatever the fast path accepts, the tree accepts and decodes to the same
  /// ledger; and reading from the text gives the tree's ledger or the tree's error.
  @Test(arguments: [0, 1, 2])
  func theFastPathNeverAcceptsWhatTheTreeRefuses(history: Int) throws {
    let ledger = try Self.ledgers()[history]
    let original = ledger.snapshotValue.serializedBytes
    var random = SplitMix64(seed: UInt64(21 + history))
    let replacements = Array(#"0123456789-.eE"{}[],: \n"#.utf8)
    var fastAccepted = 0
    for _ in 0..<1000 {
      var text = original
      let at = random.below(text.count)
      switch random.below(3) {
      case 0: text[at] = random.pick(replacements)
      case 1: text.remove(at: at)
      default: text.insert(random.pick(replacements), at: at)
      }
      let tree = Result { () throws(JSONShapeError) -> ReceiptLedger in
        guard let value = try? JSONParser.parse(text) else {
          throw JSONShapeError(path: "ledger", message: "not JSON")
        }
        return try ReceiptLedger(snapshot: value, path: "ledger")
      }
      if let fast = ReceiptLedger.reading(text[...], depth: 0) {
        fastAccepted += 1
        let diff =
          text.indices.first(where: { $0 >= original.count || text[$0] != original[$0] }) ?? 0
        #expect(
          fast == (try? tree.get()),
          "DIAG \(String(decoding: text[max(0, diff - 80)..<min(text.count, diff + 80)], as: UTF8.self)) \(tree)"
        )
      }
      let fromText = Result { () throws(JSONShapeError) in
        try ReceiptLedger(snapshotText: text[...], depth: 0, path: "ledger")
      }
      switch (fromText, tree) {
      case (.success(let read), .success(let decoded)): #expect(read == decoded)
      case (.failure(let error), .failure(let expected)) where expected.message != "not JSON":
        #expect(error == expected)
      case (.failure, .failure): break
      default:
        Issue.record("the text and the tree disagree on \(String(decoding: text, as: UTF8.self))")
      }
    }
    // Some damage leaves a ledger (a digit changed in an amount): the fast path reads those.
    #expect(fastAccepted > 0)
  }

  /// A whole snapshot file read as start-up reads it (catalog and ledger as text) gives the
  /// register the tree gives.
  @Test func aSnapshotFileReadWithTextsIsTheRegister() throws {
    let register = try Self.histories.get()[0]
    let bytes = SnapshotFile.encode(
      register,
      head: JournalHead(sequence: register.lastSequence, sum: String(repeating: "a", count: 64)))
    var texts: [String: ArraySlice<UInt8>] = [:]
    let (decoded, _) = try SnapshotFile.decode(
      bytes, splittingCatalog: { _ in },
      decodeState: { state, given throws(JSONShapeError) in
        texts = given
        return try Register(snapshot: state, texts: given) { () throws(JSONShapeError) in
          try Register.snapshotCatalog(text: given["catalog"]!)
        }
      })
    #expect(Set(texts.keys) == Register.stateMembersReadAsText)
    #expect(decoded == register)
    #expect(ReceiptLedger.reading(texts["ledger"]!, depth: 2) == register.ledger)
  }

  /// `replay --day N` of a closed day reads one day of a snapshot's day book: it is the whole
  /// decode's, and a damaged file is refused as a whole decode refuses it.
  @Test func oneDayOfTheDayBookIsTheRegistersClosedDay() throws {
    for register in try Self.histories.get() {
      #expect(register.closedDays.count >= 2)
      let bytes = SnapshotFile.encode(
        register,
        head: JournalHead(sequence: register.lastSequence, sum: String(repeating: "b", count: 64))
      )
      for (number, closed) in register.closedDays {
        let book = try SnapshotFile.closedDay(number, in: bytes)
        #expect(book.day == register.day.number)
        #expect(book.closed == closed, "day \(number)")
      }
      #expect(try SnapshotFile.closedDay(register.day.number, in: bytes).closed == nil)
      // A byte changed anywhere, even in a part the day book reading skips, is refused by the
      // checksum.
      let first = try #require(register.closedDays.keys.min())
      var changed = bytes
      changed[bytes.count / 3] ^= 0x01
      #expect(throws: SnapshotFile.Problem.self) { try SnapshotFile.closedDay(first, in: changed) }
      #expect(throws: SnapshotFile.Problem.self) {
        try SnapshotFile.closedDay(first, in: Array(bytes.prefix(bytes.count - 9)))
      }
    }
  }

  /// A closed day's archived receipts are checked against its totals before they are printed
  /// in place of the journal's.
  @Test func aClosedDaysReceiptsMatchItsTotals() throws {
    let register = try Self.histories.get()[1]
    var checked = 0
    for (day, closed) in register.closedDays {
      let receipts = register.ledger.receipts(ofDay: day)
      #expect(closed.mismatch(receipts) == nil, "day \(day)")
      // The archive file's lines read back as the receipts.
      let text = ReceiptArchive.files(day: day, receipts: receipts).receipts
      #expect(try ArchivedReceipt.lines(text[...]) == receipts)
      guard receipts.count >= 3 else { continue }
      checked += 1
      #expect(closed.mismatch(Array(receipts.dropLast())) != nil)
      #expect(closed.mismatch(Array(receipts.dropFirst())) != nil)
      #expect(
        closed.mismatch(receipts.enumerated().filter { $0.offset != 1 }.map(\.element)) != nil)
      #expect(closed.mismatch([receipts[1], receipts[0]] + receipts.dropFirst(2)) != nil)
      if let other = register.closedDays.keys.first(where: { $0 != day }),
        let foreign = register.ledger.receipts(ofDay: other).first
      {
        var swapped = receipts
        swapped[1] = foreign
        #expect(closed.mismatch(swapped) != nil)
      }
      // A damaged line is named.
      var damaged = text
      let secondLine = (text.firstIndex(of: UInt8(ascii: "\n")) ?? 0) + 1
      damaged[secondLine] = UInt8(ascii: "x")
      #expect {
        try ArchivedReceipt.lines(damaged[...])
      } throws: { error in
        (error as? JSONShapeError)?.path.hasPrefix("line 2") == true
      }
      #expect(throws: JSONShapeError.self) { try ArchivedReceipt.lines(text.dropLast()) }
    }
    #expect(checked >= 1)
  }
}
