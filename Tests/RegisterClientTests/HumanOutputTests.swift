import RegisterClient
import RegisterEngine
import Testing

/// Times, counts and the customer display, as people at the lane read them.
@Suite struct HumanOutputTests {
  /// 2026-11-22T14:03:05 at `offset` hours from UTC (a Sunday).
  func moment(_ iso: String) throws -> Timestamp {
    try #require(Timestamp.parse(iso))
  }

  @Test("a time reads 14:03 today, with the day this year, with the year before")
  func shortTimes() throws {
    let sunday = try moment("2026-11-22T14:03:05.000-05:00")
    #expect(HumanTime.short(sunday, now: try moment("2026-11-22T23:59:00.000-05:00")) == "14:03")
    #expect(
      HumanTime.short(sunday, now: try moment("2026-11-23T00:00:00.000-05:00"))
        == "Sun 22 Nov 14:03")
    #expect(
      HumanTime.short(sunday, now: try moment("2027-01-02T08:00:00.000-05:00"))
        == "Sun 22 Nov 2026 14:03")
    // Weekdays and months across the table, and before 1970.
    #expect(
      HumanTime.short(
        try moment("2026-03-02T09:05:00.000Z"), now: try moment("2026-12-01T00:00:00.000Z"))
        == "Mon 2 Mar 09:05")
    #expect(
      HumanTime.short(
        try moment("1969-12-31T23:59:00.000Z"), now: try moment("2026-12-01T00:00:00.000Z"))
        == "Wed 31 Dec 1969 23:59")
    #expect(
      HumanTime.short(
        try moment("2024-02-29T12:00:00.000+09:00"), now: try moment("2026-12-01T00:00:00.000Z"))
        == "Thu 29 Feb 2024 12:00")
    #expect(HumanTime.display("not a time") == nil)
    #expect(HumanTime.display("2026-11-22T14:03:05.000-05:00") != nil)
  }

  @Test func countsReadNaturally() {
    #expect(Words.count(0, "item") == "0 items")
    #expect(Words.count(1, "item") == "1 item")
    #expect(Words.count(2, "item") == "2 items")
    #expect(Words.count(Int64(1), "receipt") == "1 receipt")
    #expect(Words.count(3, "entry", plural: "entries") == "3 entries")
  }

  @Test func bigDigits() {
    #expect(BigDigits.render("10.52") == ["    _   _  _ ", "  || | |_  _|", "  ||_|. _||_ "])
    #expect(BigDigits.render("$1") == ["    ", "   |", "$  |"])
  }
}

/// The customer display's view model: events (with the order read after each) in, lines out.
@Suite struct CustomerDisplayTests {
  func order(
    _ id: Int, lines: [(Int, String, Int, String)], total: String, paid: String? = nil,
    due: String? = nil
  ) -> JSONValue {
    let items = lines.map {
      #"{"line":\#($0.0),"name":"\#($0.1)","qty":\#($0.2),"amount":"\#($0.3)"}"#
    }
    let count = lines.reduce(0) { $0 + $1.2 }
    let tenders = paid.map { #"[{"type":"cash","amount":"\#($0)"}]"# } ?? "[]"
    let text = """
      {"order_id":\(id),"lines":[\(items.joined(separator: ","))],"item_count":\(count),\
      "total":"\(lines.isEmpty ? "0.00" : total)","tenders":\(tenders),\
      "paid":"\(paid ?? "0.00")","balance_due":"\(due ?? total)"}
      """
    return (try? JSONParser.parse(text)) ?? .null
  }

  /// An event line of `type` with `data` (JSON text).
  func event(_ type: EventType, _ data: String) -> JSONValue {
    (try? JSONParser.parse(#"{"event":"\#(type.rawValue)","seq":1,"data":\#(data)}"#)) ?? .null
  }

  @Test("welcome, items with a big total, paid and due, thank-you with change, welcome again")
  func aSale() throws {
    var display = CustomerDisplay(store: "Lane & Thread")
    display.apply(event: nil, order: order(1, lines: [], total: "0.00"))
    #expect(display.screen == .welcome)
    let welcome = display.lines(big: true).joined(separator: "\n")
    #expect(welcome.contains("Welcome!") && welcome.contains("Lane & Thread"))

    let cap = order(1, lines: [(1, "Cap", 1, "19.99")], total: "21.49")
    display.apply(
      event: event(.lineAdded, #"{"order_id":1,"line":{"line":1,"name":"Cap"}}"#), order: cap)
    #expect(display.screen == .order)
    #expect(display.lastItem == CustomerDisplay.Item(name: "Cap", quantity: "1", amount: "19.99"))
    let plain = display.lines(big: false)
    #expect(plain.contains { $0.hasPrefix("Cap ") && $0.hasSuffix(" 19.99") })
    #expect(plain.contains { $0.hasPrefix("TOTAL ") && $0.hasSuffix(" 21.49") })
    #expect(plain.contains { $0.hasPrefix("1 item") })
    #expect(!plain.joined().contains("\u{1B}"), "no escape codes in the lines")
    let big = display.lines(big: true)
    for row in BigDigits.render("21.49") { #expect(big.contains { $0.hasSuffix(row) }) }
    #expect(big.allSatisfy { $0.count <= 40 })

    let two = order(1, lines: [(1, "Cap", 1, "19.99"), (2, "Tee", 2, "20.00")], total: "42.99")
    display.apply(
      event: event(.lineAdded, #"{"order_id":1,"line":{"line":2,"name":"Tee"}}"#), order: two)
    #expect(
      display.lines(big: false).contains { $0.hasPrefix("2 x Tee ") && $0.hasSuffix("20.00") })
    #expect(display.lines(big: false).contains { $0.hasPrefix("3 items") })
    // A quantity change shows that line, not the newest.
    let more = order(1, lines: [(1, "Cap", 2, "39.98"), (2, "Tee", 2, "20.00")], total: "64.48")
    display.apply(event: event(.quantitySet, #"{"order_id":1,"line":1,"qty":2}"#), order: more)
    #expect(display.lastItem?.name == "Cap" && display.lastItem?.amount == "39.98")

    let partly = order(
      1, lines: [(1, "Cap", 2, "39.98"), (2, "Tee", 2, "20.00")], total: "64.48", paid: "50.00",
      due: "14.48")
    display.apply(event: event(.tenderAdded, #"{"order_id":1}"#), order: partly)
    #expect(
      display.lines(big: false).contains { $0.hasPrefix("Paid 50.00") && $0.hasSuffix("Due 14.48") }
    )

    // The tender that completes the sale: by the time the order is read, the next one is open.
    let before = display
    display.apply(
      event: event(.tenderAdded, #"{"order_id":1}"#), order: order(2, lines: [], total: "0"))
    #expect(display == before, "a later order's snapshot does not blank the display")
    display.apply(
      event: event(.saleCompleted, #"{"order_id":1,"receipt":7,"change":"5.52"}"#),
      order: order(2, lines: [], total: "0"))
    #expect(display.screen == .thanks)
    let thanks = display.lines(big: false)
    #expect(thanks.contains { $0.contains("Thank you!") })
    #expect(thanks.contains { $0.hasPrefix("Total") && $0.hasSuffix("64.48") })
    #expect(thanks.contains { $0.hasPrefix("CHANGE") && $0.hasSuffix("5.52") })
    #expect(thanks.contains { $0.contains("Receipt 7") })
    let bigThanks = display.lines(big: true)
    for row in BigDigits.render("5.52") { #expect(bigThanks.contains { $0.hasSuffix(row) }) }
    // Something else happening does not take the thank-you away; idling does.
    display.apply(
      event: event(.signedIn, #"{"operator_id":"cy"}"#), order: order(2, lines: [], total: "0"))
    #expect(display.screen == .thanks)
    display.idle()
    #expect(display.screen == .welcome)
    #expect(display.lines(big: false).joined().contains("Lane & Thread"))
    #expect(display.lastItem == nil && display.change == nil)
  }

  @Test("the next order ends the thank-you; parking or voiding goes back to the welcome")
  func nextOrderParkAndVoid() {
    var display = CustomerDisplay()
    display.apply(
      event: event(.saleCompleted, #"{"order_id":1,"receipt":1,"change":"0.00"}"#),
      order: order(2, lines: [], total: "0"))
    #expect(display.lines(big: true).contains { $0.hasPrefix("Change") && $0.hasSuffix("0.00") })
    let next = order(2, lines: [(1, "Sock", 1, "9.00")], total: "9.68")
    display.apply(event: event(.lineAdded, #"{"order_id":2,"line":{"line":1}}"#), order: next)
    #expect(display.screen == .order && display.receipt == nil)
    display.apply(
      event: event(.orderParked, #"{"order_id":2}"#), order: order(3, lines: [], total: "0"))
    #expect(display.screen == .welcome)
    display.apply(event: event(.orderResumed, #"{"order_id":2,"replacing":3}"#), order: next)
    #expect(display.screen == .order && display.lastItem?.name == "Sock")
    display.apply(
      event: event(.orderVoided, #"{"order_id":2}"#), order: order(4, lines: [], total: "0"))
    #expect(display.screen == .welcome && display.total == "0.00")
  }
}
