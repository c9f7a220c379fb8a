import Testing

@testable import RegisterEngine

/// Journal records registerd never writes. Anyone who can write the data directory can give a
/// record a correct SHA-256 and chain it, so recovery meets whatever a well-formed record may
/// say. Each such record is refused at recovery with a message that names it and its field, or
/// it replays into a register that a lane can use and whose snapshot reads back as it is: never
/// a trap, and never a register a restart would read differently. (`Fuzz/run.sh journal`
/// searches the same space at random.)
@Suite struct HostileJournalRecordTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var records: [String]
    /// The record refused (its index), and what the refusal must say.
    var refused: (index: Int, saying: String)?
    var testDescription: String { name }
  }

  static let big = "9999999999999.99"
  static let max = "9223372036854775807"

  static func line(_ number: String = "1", qty: String = "1", price: String = "10.00") -> String {
    #"{"type":"line_added","data":{"order_id":1,"line":{"line":\#(number),"sku":"TEE","name":"Tee","qty":\#(qty),"unit_price":"\#(price)","regular_price":"\#(price)","tax_class":"standard","tax_rate":"7.5"}}}"#
  }
  /// A discount on line `line`, or on the order (nil).
  static func discount(_ body: String, line: Int? = 1) -> String {
    let onLine = line.map { #""line":\#($0),"# } ?? ""
    return #"{"type":"discount_set","data":{"order_id":1,\#(onLine)"discount":\#(body)}}"#
  }
  static func tender(_ amount: String) -> String {
    #"{"type":"tender_added","data":{"order_id":1,"tender":{"type":"cash","amount":"\#(amount)"}}}"#
  }
  static func stock(_ delta: String) -> String {
    #"{"type":"stock_adjusted","data":{"sku":"TEE","delta":\#(delta),"reason":"x"}}"#
  }
  static let head =
    #"{"seq":1,"sum":"6ffcba07f13c5066e261f713306d939e959cfd066b033fb25e4513fd92d5d95a"}"#

  /// Past what a field may hold: refused by name.
  static let refusedCases: [Case] = [
    Case(
      name: "a line number at Int64's limit", records: [line(max)], refused: (0, "data.line.line")),
    Case(
      name: "a quantity at Int64's limit", records: [line(qty: max)], refused: (0, "data.line.qty")),
    Case(name: "no quantity", records: [line(qty: "0")], refused: (0, "data.line.qty")),
    Case(
      name: "an order number at Int64's limit",
      records: [line().replacingOccurrences(of: #""order_id":1"#, with: #""order_id":\#(max)"#)],
      refused: (0, "data.order_id")),
    Case(
      name: "a price past the largest amount", records: [line(price: "92233720368547758.07")],
      refused: (0, "data.line.unit_price")),
    Case(name: "a negative price", records: [line(price: "-10.00")], refused: (0, "is negative")),
    Case(
      name: "a negative tender", records: [line(), tender("-5.00")], refused: (1, "is negative")),
    Case(
      name: "a receipt number at Int64's limit",
      records: [
        line(), tender("20.00"), sale(receipt: max),
      ], refused: (2, "data.receipt")),
    Case(
      name: "a day at Int64's limit",
      records: [
        #"{"type":"day_closed","data":{"day":\#(max),"counted_cash":"0.00","journal_head":\#(head)}}"#
      ], refused: (0, "data.day")),
    Case(
      name: "a stock change at Int64's limit", records: [stock(max)], refused: (0, "data.delta")),
    Case(
      name: "a negative float", records: [#"{"type":"float_set","data":{"amount":"-7.50"}}"#],
      refused: (0, "is negative")),
    // decide refuses these discounts; a journal that holds one is refused the same way, in the
    // same words (before, a 1000 % discount replayed into an order of -96.75).
    Case(
      name: "a discount of 1000 %",
      records: [line(), discount(#"{"percent":"1000","reason":"x"}"#)],
      refused: (1, "a discount percentage must be more than 0 and at most 100")),
    Case(
      name: "a discount of 0 %", records: [line(), discount(#"{"percent":"0","reason":"x"}"#)],
      refused: (1, "a discount percentage must be more than 0 and at most 100")),
    Case(
      name: "an order discount of 0.00",
      records: [line(), discount(#"{"amount":"0.00","reason":"x"}"#, line: nil)],
      refused: (1, "a discount amount must be more than 0")),
  ]

  /// Numbers below 1 where registerd numbers from 1: a request may name one (not found), a
  /// record may not (before, a line numbered 0 replayed, and the register's snapshot did not
  /// read back).
  static let numberedFromOneCases: [Case] = [
    Case(name: "a line numbered 0", records: [line("0")], refused: (0, "data.line.line")),
    Case(
      name: "a line removed from order -1",
      records: [#"{"type":"line_removed","data":{"order_id":-1,"line":1}}"#],
      refused: (0, "data.order_id")),
    Case(
      name: "receipt 0", records: [line(), tender("20.00"), sale(receipt: "0")],
      refused: (2, "data.receipt")),
    Case(
      name: "day 0",
      records: [
        #"{"type":"day_closed","data":{"day":0,"counted_cash":"0.00","journal_head":\#(head)}}"#
      ], refused: (0, "data.day")),
    Case(
      name: "print job 0",
      records: [#"{"type":"print_queued","data":{"job":0,"document":"drawer","drawer":true}}"#],
      refused: (0, "data.job")),
    Case(
      name: "a resumed order replacing order 0",
      records: [#"{"type":"order_resumed","data":{"order_id":4,"replacing":0}}"#],
      refused: (0, "data.replacing")),
  ]

  /// Records that cannot follow the ones before them: refused by what they break.
  static let outOfTurnCases: [Case] = [
    // Found by Fuzz/run.sh journal: two receipts of one number replayed, and the register's
    // snapshot did not read back.
    Case(
      name: "a receipt number given twice",
      records: [
        line(), tender("20.00"), sale(receipt: "1"), line(), tender("20.00"), sale(receipt: "1"),
      ],
      refused: (5, "receipt 1 was numbered already (the next receipt is 2)")),
    Case(
      name: "a receipt numbered below the last",
      records: [
        line(), tender("20.00"), sale(receipt: "5"), line(), tender("20.00"), sale(receipt: "3"),
      ],
      refused: (5, "receipt 3 was numbered already (the next receipt is 6)")),
  ]

  static func sale(receipt: String) -> String {
    #"{"type":"sale_completed","data":{"order_id":1,"receipt":\#(receipt),"cash_rounding":"0.00","change":"0.00"}}"#
  }

  /// Within what each field may hold, though `decide` would not have written them: replayed.
  static let replayedCases: [Case] = [
    Case(name: "a line too large to total", records: [line(qty: "9999", price: big)]),
    Case(
      name: "three lines too large to total",
      records: [line("1", qty: "9999", price: big), line("2", qty: "9999", price: big), line("3")]),
    Case(
      name: "a line tendered past any total", records: [line(price: big), tender(big), tender(big)]),
    Case(
      name: "a discount larger than its line",
      records: [line(), discount(#"{"amount":"50.00","reason":"x"}"#)]),
    Case(
      name: "paid-ins past any day's total",
      records: Array(
        repeating: #"{"type":"paid_in","data":{"amount":"\#(big)","reason":"x"}}"#, count: 12)),
    // Stock is clamped to what a snapshot holds (before, twelve of these left -11,999,999,997,
    // and the register's snapshot did not read back).
    Case(
      name: "stock taken far below 0", records: Array(repeating: stock("-1000000000"), count: 12)),
    Case(name: "stock taken far up", records: Array(repeating: stock("1000000000"), count: 12)),
    Case(
      name: "a day number of 10^15",
      records: [
        #"{"type":"day_closed","data":{"day":1000000000000000,"counted_cash":"0.00","journal_head":\#(head)}}"#
      ]),
    Case(
      name: "a customer added twice",
      records: [
        #"{"type":"customer_added","data":{"customer_id":"C1","name":"Dana Li"}}"#,
        #"{"type":"customer_added","data":{"customer_id":"C1","name":"Other"}}"#,
      ]),
    Case(
      name: "an order parked twice",
      records: [
        line(), #"{"type":"order_parked","data":{"order_id":1,"note":"a"}}"#,
        #"{"type":"order_parked","data":{"order_id":1,"note":"b"}}"#,
      ]),
    Case(
      name: "an order resumed that was never parked",
      records: [#"{"type":"order_resumed","data":{"order_id":7,"replacing":1}}"#]),
    Case(
      name: "a sale of an order that is not open",
      records: [
        line(), tender("20.00"),
        #"{"type":"sale_completed","data":{"order_id":9,"receipt":1,"cash_rounding":"0.00","change":"0.00"}}"#,
      ]),
    Case(
      name: "a sale of an empty order",
      records: [
        #"{"type":"sale_completed","data":{"order_id":1,"receipt":1,"cash_rounding":"0.00","change":"0.00"}}"#
      ]),
    Case(
      name: "a return of a receipt that does not exist",
      records: [
        #"{"type":"return_completed","data":{"receipt":1,"original_receipt":7,"lines":[{"line":1,"sku":"TEE","name":"Tee","qty":1,"unit_price":"10.00","net":"10.00","tax":"0.75","tax_class":"standard","tax_rate":"7.5"}],"refunds":[{"type":"cash","amount":"10.75"}],"cash_rounding":"0.00","reason":"x"}}"#
      ]),
    Case(
      name: "a day closed twice",
      records: [
        #"{"type":"day_closed","data":{"day":1,"counted_cash":"0.00","journal_head":\#(head)}}"#,
        #"{"type":"day_closed","data":{"day":1,"counted_cash":"0.00","journal_head":\#(head)}}"#,
      ]),
    Case(
      name: "a print job done before it was queued, and queued twice",
      records: [
        #"{"type":"print_done","data":{"job":5}}"#,
        #"{"type":"print_queued","data":{"job":1,"document":"drawer","drawer":true}}"#,
        #"{"type":"print_queued","data":{"job":1,"document":"drawer","drawer":true}}"#,
      ]),
    Case(
      name: "a customer number at Int64's limit",
      records: [#"{"type":"customer_added","data":{"customer_id":"C\#(max)","name":"Dana Li"}}"#]),
  ]

  /// `records` replayed one by one into a register with the test catalog, as recovery does:
  /// the register, and the refusal that ended the replay (its index and message), if any.
  static func replay(_ records: [String]) throws -> (Register, refused: (Int, String)?) {
    var register = Register(
      catalog: try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test"), at: testTime)
    for (index, text) in records.enumerated() {
      let value = try JSONParser.parse(Array(text.utf8))
      let type = try #require(value["type"]?.stringValue)
      let record = JournalRecord(
        sequence: Int64(index + 1), at: testTime, type: type, data: value["data"] ?? .null,
        operatorID: nil, key: nil, more: false, previous: JournalRecord.genesis,
        sum: JournalRecord.genesis)
      do throws(RecoveryError) {
        try register.replay([record])
      } catch {
        return (register, (index, error.description))
      }
    }
    return (register, nil)
  }

  @Test(arguments: refusedCases + numberedFromOneCases + outOfTurnCases)
  func refusedByName(_ hostile: Case) throws {
    let expected = try #require(hostile.refused)
    let (_, refused) = try Self.replay(hostile.records)
    let (index, message) = try #require(refused, "replayed: \(hostile.records)")
    #expect(index == expected.index)
    #expect(message.contains("journal record seq \(expected.index + 1)"), "\(message)")
    #expect(message.contains(expected.saying), "\(message)")
  }

  @Test(arguments: replayedCases)
  func replayedIntoARegisterALaneCanUse(_ hostile: Case) throws {
    let (register, refused) = try Self.replay(hostile.records)
    #expect(refused == nil, "\(refused.map { "\($0.0): \($0.1)" } ?? "")")
    // A restart from its snapshot reads the same register.
    let head = JournalHead(sequence: register.lastSequence, sum: JournalRecord.genesis)
    let restored = try SnapshotFile.decode(SnapshotFile.encode(register, head: head))
    #expect(restored.register == register)
    #expect(restored.head == head)
    // Stock stays what a snapshot can hold.
    let stock = try #require(register.products["TEE"]?.stock)
    #expect((0...IntegerRanges.maximumCounter).contains(stock))
    // A lane's first requests each get one well-formed reply.
    let service = RegisterService(
      register: register, clock: ManualClock(testTime),
      random: { [UInt8](repeating: 7, count: $0) })
    for request in [
      #"{"op":"hello"}"#, #"{"op":"order"}"#, #"{"op":"report"}"#, #"{"op":"receipt"}"#,
      #"{"op":"tender","type":"cash","amount":"1.00"}"#, #"{"op":"void","reason":"x"}"#,
      #"{"op":"close_day","counted":{"cash":"0.00"}}"#,
    ] {
      let reply = try JSONParser.parse(Array(service.handle(line: request).utf8))
      #expect(reply["ok"] != nil, "\(request)")
      // Whatever the journal left, the lane gets going again: the order can be voided (or is
      // empty) and the day closed.
      if request.contains("close_day") || request.contains(#""void""#) {
        #expect(
          reply["ok"] == .bool(true) || reply["error"]?["code"] == .string("empty_order"),
          "\(request): \(reply)")
      }
    }
  }
}
