import Testing

@testable import RegisterEngine

/// The back office's row formats: RFC 4180 CSV, SQL literals that cannot be escaped out of,
/// NDJSON with money as decimal strings.
@Suite struct BackOfficeFormatTests {
  let row = BackOfficeRow(
    table: .voids,
    values: [
      .text("north"), .integer(42), .integer(3), .text("2026-03-15T14:03:05.000-05:00"),
      .integer(7), .null, .decimal("12.50"), .text("it's \"broken\", really\r\nsorry"),
    ])

  @Test func csvQuotesWhatNeedsQuotingAndDoublesQuotes() {
    #expect(
      BackOfficeFormat.csv(row)
        == "north,42,3,2026-03-15T14:03:05.000-05:00,7,,12.50,\"it's \"\"broken\"\", really\r\nsorry\"\r\n"
    )
    #expect(
      BackOfficeFormat.csvHeader(.voids) == "lane,seq,day,at,order_id,operator,amount,reason\r\n")
    // A field that a spreadsheet would run as a formula stays text.
    #expect(BackOfficeFormat.csvField("=HYPERLINK(1)") == "\"=HYPERLINK(1)\"")
    #expect(BackOfficeFormat.csvField("plain") == "plain")
  }

  @Test func sqlLiteralsDoubleQuotesAndKeepBackslashes() {
    let insert = BackOfficeFormat.sqlInsert(row)
    #expect(
      insert
        == "INSERT INTO voids (lane, seq, day, at, order_id, operator, amount, reason) VALUES ('north', 42, 3, '2026-03-15T14:03:05.000-05:00', 7, NULL, 12.50, 'it''s \"broken\", really\r\nsorry') ON CONFLICT DO NOTHING;\n"
    )
    #expect(
      BackOfficeFormat.sqlString(#"a\'; DROP TABLE sales; --"#) == #"'a\''; DROP TABLE sales; --'"#)
    #expect(
      BackOfficeFormat.sqlCursor(lane: "o'k", sequence: 9)
        == "INSERT INTO lanes (lane, last_seq) VALUES ('o''k', 9) ON CONFLICT (lane) DO UPDATE SET last_seq = GREATEST(lanes.last_seq, EXCLUDED.last_seq);\n"
    )
  }

  @Test func ndjsonNamesTheFactAndKeepsMoneyAsStrings() throws {
    let line = BackOfficeFormat.ndjson(row)
    #expect(line.hasSuffix("\n"))
    let value = try JSONParser.parse(String(line.dropLast()))
    #expect(value["fact"] == .string("voids"))
    #expect(value["amount"] == .string("12.50"))
    #expect(value["seq"] == .int(42))
    #expect(value["operator"] == .null)
  }

  @Test func everyTableStartsWithLaneAndSeqAndItsKeyIsAmongItsColumns() {
    for table in BackOfficeTable.allCases {
      #expect(Array(table.columns.prefix(2)) == ["lane", "seq"])
      #expect(table.key.allSatisfy(table.columns.contains))
      #expect(Set(table.columns).count == table.columns.count)
    }
  }

  @Test func aSaleAndAReturnBecomeRowsThatAddUpAndNeverCarryACardNumber() throws {
    let lane = try JournalLane()
    try lane.ok(Requests.Add(sku: "JEANS"))
    try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    try lane.ok(
      Requests.Return(receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "r"))
    try lane.ok(Requests.CloseDay())
    var exporter = BackOfficeExporter(lane: "L")
    var rows: [BackOfficeRow] = []
    for record in lane.scan().records { rows += try exporter.apply(record) }
    let tables = rows.map(\.table)
    #expect(tables == [.sales, .saleLines, .tenders, .returns, .returnLines, .tenders, .zReports])
    let text = rows.map(BackOfficeFormat.ndjson).joined()
    #expect(!text.contains("4242424242424242"))
    #expect(text.contains(#""last4":"4242""#))
    let sale = try JSONParser.parse(BackOfficeFormat.ndjson(rows[0]).trimmingNewline)
    let z = try JSONParser.parse(BackOfficeFormat.ndjson(rows[6]).trimmingNewline)
    #expect(sale["total"] == z["total"])
    #expect(sale["total"] == .string("53.74"))
  }
}

extension String {
  fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
