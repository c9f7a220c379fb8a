import RegisterEngine
import Testing

@testable import RegisterClient

/// The lane screen's parts that need no terminal: reading keys, drawing frames, the layout,
/// the quick cash amounts and the return lines typed.
@Suite struct LaneScreenUnitTests {
  // MARK: Keys

  @Test func enterIsOneKeyWhateverTheScannerEndsCodesWith() {
    var decoder = KeyDecoder()
    #expect(
      decoder.feed(Array("12\r3\n4\r\n5".utf8)) == [
        .character("1"), .character("2"), .enter, .character("3"), .enter, .character("4"),
        .enter, .character("5"),
      ])
  }

  @Test(arguments: [
    ("\u{1B}OP", Key.function(1)), ("\u{1B}[11~", .function(1)), ("\u{1B}[[A", .function(1)),
    ("\u{1B}[1;2P", .function(1)), ("\u{1B}[[E", .function(5)), ("\u{1B}[15~", .function(5)),
    ("\u{1B}[20~", .function(9)), ("\u{1B}[24~", .function(12)), ("\u{1B}[A", .up),
    ("\u{1B}OB", .down), ("\u{1B}[3~", .delete), ("\u{1B}[5~", .pageUp), ("\u{1B}[H", .home),
    ("\u{1B}[4~", .end), ("\u{7F}", .backspace), ("\u{03}", .control("c")),
    ("\u{1B}[<0;12;23M", .click(column: 11, row: 22)), ("é", .character("é")),
  ])
  func terminalsSequencesAreKeys(bytes: String, key: Key) {
    var decoder = KeyDecoder()
    #expect(decoder.feed(Array(bytes.utf8)) == [key])
    #expect(!decoder.isWaiting)
  }

  @Test func aSequenceCutBetweenReadsIsKeptUntilItsEnd() {
    var decoder = KeyDecoder()
    let bytes = Array("\u{1B}[20~x\u{1B}[<0;5;6Mé".utf8)
    var keys: [Key] = []
    for byte in bytes { keys += decoder.feed([byte]) }
    #expect(keys == [.function(9), .character("x"), .click(column: 4, row: 5), .character("é")])
  }

  @Test func aLoneEscapeComesOutWhenNothingFollows() {
    var decoder = KeyDecoder()
    #expect(decoder.feed([0x1B]) == [])
    #expect(decoder.isWaiting)
    #expect(decoder.flush() == [.escape])
    #expect(decoder.feed(Array("\u{1B}q".utf8)) == [.escape, .character("q")])
  }

  @Test func mouseReleasesAndOtherButtonsAreNotClicks() {
    var decoder = KeyDecoder()
    #expect(decoder.feed(Array("\u{1B}[<0;3;4m\u{1B}[<2;3;4M\u{1B}[<64;1;1M".utf8)) == [.up])
  }

  // MARK: Frames

  @Test func theFirstFrameIsDrawnWholeAndAnUnchangedOneWritesNothing() {
    var writer = FrameWriter(colors: true)
    var frame = Frame(width: 10, height: 2)
    frame.put("hello", row: 0)
    let first = writer.update(to: frame)
    #expect(first.hasPrefix("\u{1B}[0m\u{1B}[2J"))
    #expect(first.contains("hello"))
    #expect(writer.update(to: frame) == "")
  }

  @Test func onlyTheCellsThatChangedAreWritten() {
    var writer = FrameWriter(colors: true)
    var frame = Frame(width: 40, height: 3)
    frame.put("Total 10.00", row: 1)
    _ = writer.update(to: frame)
    frame.put("Total 12.00", row: 1)
    // A move to row 2, column 8, and the one changed digit: not the row, not the screen.
    #expect(writer.update(to: frame) == "\u{1B}[2;8H\u{1B}[0m2")
    frame.put("Total 21.50", row: 1)
    // Two changes three cells apart: one run through the unchanged cells between them.
    #expect(writer.update(to: frame) == "\u{1B}[2;7H\u{1B}[0m21.5")
  }

  @Test func aResizeDrawsTheWholeFrameAgain() {
    var writer = FrameWriter(colors: true)
    _ = writer.update(to: Frame(width: 10, height: 2))
    var bigger = Frame(width: 12, height: 3)
    bigger.put("x", row: 2)
    #expect(writer.update(to: bigger).hasPrefix("\u{1B}[0m\u{1B}[2J"))
  }

  @Test func noColorKeepsBoldAndReverseButNoColours() {
    var frame = Frame(width: 10, height: 1)
    frame.put("Error", row: 0, style: CellStyle(bold: true, reverse: true, color: CellStyle.red))
    var coloured = FrameWriter(colors: true)
    var plain = FrameWriter(colors: false)
    #expect(coloured.update(to: frame).contains("\u{1B}[0;1;7;31m"))
    let bytes = plain.update(to: frame)
    #expect(bytes.contains("\u{1B}[0;1;7m"))
    #expect(!bytes.contains(";31m"))
  }

  @Test func aWideOrControlCharacterTakesOneColumnAsAQuestionMark() {
    var frame = Frame(width: 6, height: 1)
    frame.put("a\u{7}b日c", row: 0)
    #expect(frame.text(row: 0) == "a?b?c ")
  }

  // MARK: Layout

  /// An order as registerd sends it, with a sale price, a discount and a quantity.
  static let order: JSONValue = {
    let text = """
      {"order_id":4,"status":"open","version":3,"lines":[
      {"line":1,"sku":"TEE","name":"Tee","qty":2,"unit_price":"9.99","regular_price":"14.99","amount":"19.98","net":"19.98"},
      {"line":2,"sku":"BELT","name":"Belt","qty":1,"unit_price":"35.00","amount":"35.00","discount_amount":"3.50","discount":{"reason":"scuffed"},"net":"31.50"}],
      "item_count":3,"subtotal":"54.98","discount_total":"3.50","tax":"3.86","total":"55.34",
      "tenders":[{"type":"cash","amount":"20.00"}],"paid":"20.00","balance_due":"35.34"}
      """
    return (try? JSONParser.parse(text)) ?? .null
  }()

  @Test func theScreenAt80By24() {
    var state = LaneState()
    state.store = "Test Store"
    state.day = 2
    state.order = Self.order
    state.connection = .online
    state.hasOperators = true
    state.signedIn = "Amy Chen (cashier)"
    state.drawer = "120.00"
    state.selectedLine = 1
    state.message = LaneState.Message("Added Tee.")
    let (frame, targets) = LaneView.render(state, width: 80, height: 24)
    let rows = frame.lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    #expect(
      rows[0] == " Test Store                                             Day 2  Order 4  3 items")
    #expect(
      rows[2] == "> 1      2  Tee                                                          19.98")
    #expect(rows[3] == "            @ 9.99 · sale, reg 14.99")
    #expect(
      rows[4] == "  2      1  Belt                                                         35.00")
    #expect(rows[5] == "            discount -3.50 (scuffed)")
    #expect(rows[16].hasPrefix(" Subtotal          54.98   Discounts         -3.50"))
    #expect(rows[17].hasPrefix(" Tax                3.86   Paid              20.00"))
    #expect(rows[18].hasPrefix(" Due               35.34"))
    #expect(
      rows[19] == " Amy Chen (cashier) · Drawer 120.00                                      online")
    #expect(rows[20] == " Added Tee.")
    #expect(rows[21] == " Scan or type a code:")
    // The legend's keys are click targets, and so are the lines.
    #expect(
      targets.contains {
        $0.row == 22 && $0.columns.contains(1) && $0.action == .key(.character("q"))
      })
    #expect(targets.contains { $0.row == 4 && $0.action == .selectLine(2) })
  }

  /// The printer and the display on the status bar: named where there is room; where there
  /// is not, only one that is not well is (before the drawer), and the connection's state is
  /// never written over.
  @Test(arguments: [
    (
      "ok", 100,
      " Amy Chen (cashier) · Customer Dana Whitfield · Printer ok · Display ok · Drawer 120.00"
    ),
    ("ok", 80, " Amy Chen (cashier) · Customer Dana Whitfield · Drawer 120.00"),
    (
      "offline", 100,
      " Amy Chen (cashier) · Customer Dana Whitfield · Printer ok · Display offline · Drawer 120.00"
    ),
    ("offline", 80, " Amy Chen (cashier) · Customer Dana Whitfield · Display offline"),
  ])
  func theStatusBarNamesADeviceThatIsNotWell(display: String, width: Int, expected: String) {
    var state = LaneState()
    if case .object(var order) = Self.order {
      order["customer_name"] = "Dana Whitfield"
      state.order = .object(order)
    }
    state.connection = .online
    state.hasOperators = true
    state.signedIn = "Amy Chen (cashier)"
    state.drawer = "120.00"
    state.printer = "ok"
    state.display = display
    let (frame, _) = LaneView.render(state, width: width, height: 24)
    let row = frame.text(row: 19)
    #expect(row.hasPrefix(expected), "\(row)")
    #expect(row.hasSuffix("online "), "\(row)")
  }

  @Test func aSecretIsShownAsBulletsAndALongMessageWraps() {
    var state = LaneState()
    state.prompt = LaneState.PromptView(label: "Card number", secret: true)
    state.prompt?.text = "4242424242424242"
    state.message = LaneState.Message(String(repeating: "word ", count: 20), isError: true)
    let (frame, _) = LaneView.render(state, width: 80, height: 24)
    let text = frame.lines.joined(separator: "\n")
    #expect(!text.contains("4242"))
    #expect(text.contains(" Card number: ••••••••••••••••"))
    #expect(frame.text(row: 19).hasPrefix(" word word"))
    #expect(frame.text(row: 20).hasPrefix(" word word"))
  }

  // MARK: What the cashier types

  @Test(arguments: [
    ("21.48", ["25.00", "30.00", "40.00", "50.00"]),
    ("20.00", ["25.00", "30.00", "40.00", "50.00"]),
    ("102.10", ["105.00", "110.00", "120.00", "150.00"]), ("7", ["10", "20", "50", "100"]),
    ("0.00", ["5.00", "10.00", "20.00", "50.00"]), ("junk", []),
  ])
  func quickCashIsTheNextNotesUp(due: String, amounts: [String]) {
    #expect(Lane.quickCash(due) == amounts)
  }

  @Test func returnLinesAreNumbersWithQuantities() {
    #expect(
      Lane.returnLines("1 3x2, 4") == [
        ReturnRequestLine(line: 1, quantity: 1), ReturnRequestLine(line: 3, quantity: 2),
        ReturnRequestLine(line: 4, quantity: 1),
      ])
    #expect(Lane.returnLines("1x0") == nil)
    #expect(Lane.returnLines("a") == nil)
    #expect(Lane.returnLines("") == nil)
  }

  @Test func refusalsAreSaidInWordsNotCodes() throws {
    let reply = try Reply(
      line:
        #"{"id":1,"ok":false,"error":{"code":"unknown_barcode","message":"no product has the EAN-13 barcode 5449000000996","data":{"code":"5449000000996","kind":"EAN-13"}}}"#
    )
    let error = try #require(reply.error)
    #expect(
      LaneWords.said(error)
        == "No product has the code 5449000000996. Scan it again, or type its SKU.")
    let other = try #require(
      try Reply(
        line: #"{"id":1,"ok":false,"error":{"code":"out_of_stock","message":"only 2 left"}}"#
      ).error)
    #expect(LaneWords.said(other) == "Only 2 left.")
  }
}
