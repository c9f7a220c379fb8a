import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// `register-cli lane`, the cashier's screen, driven under tmux as a cashier drives it: keys
/// typed, the screen read back and held to what a cashier must see, row by row.
@Suite(.serialized, .tags(.outsideProgram), .requires(.tmux))
struct LaneScreenTests {
  /// The lane on `daemon`'s socket in a terminal of its own.
  func lane(
    _ daemon: Daemon, width: Int = 80, height: Int = 24, environment: [String: String] = [:]
  )
    throws -> TmuxScreen
  {
    let screen = try TmuxScreen(
      [Binaries.registerCLI.path, "--socket", daemon.socketPath, "lane"], width: width,
      height: height, environment: environment)
    try screen.waitFor("online")
    return screen
  }

  /// The README's split-tender sale, rung up by scanning: two shirts scanned with a quantity,
  /// the belt scanned, the framed print typed and its options picked, then taken off again;
  /// part in cash, the rest on a card typed at the lane (never shown).
  @Test func theReadmeSaleRungUpByScanning() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("2*2001234000215\r2001234001199\r")
    try screen.waitFor("Leather Belt, M")
    try screen.type("PRINT-ART\r")
    try screen.waitFor("PRINT-ART: size")
    try screen.type("2")
    try screen.waitFor("PRINT-ART: frame")
    try screen.type("3")
    var rows = try screen.waitFor("Fine Art Photo Print")
    #expect(
      rows[2] == "  1      2  Oxford Button-Down Shirt                                     59.98")
    #expect(rows[3] == "            @ 29.99 · sale, reg 39.99")
    #expect(
      rows[4] == "  2      1  Leather Belt, M                                              35.00")
    #expect(
      rows[5] == "> 3      1  Fine Art Photo Print                                         62.00")
    #expect(rows[6] == "            size 11x14, frame oak")
    try screen.press("DC")
    rows = try screen.waitFor("Line 3 removed.")
    #expect(!rows.joined().contains("Fine Art"))
    #expect(
      Array(rows[16...18]) == [
        " Subtotal          94.98   Tax                7.12                 _  _      _",
        " Due              102.10                                 TOTAL   || | _|   || |",
        "                                                                 ||_||_ .  ||_|",
      ])
    try screen.type("tc")
    rows = try screen.waitFor("Cash received")
    #expect(rows[21] == " Cash received (Enter: exact 102.10):")
    #expect(rows[22] == " a 105.00 b 110.00 c 120.00 d 150.00 Enter OK Esc Cancel")
    try screen.type("50\r")
    rows = try screen.waitFor("Paid")
    #expect(
      rows[17] == " Paid              50.00   Due               52.10       TOTAL   || | _|   || |")
    try screen.type("tk\r4242424242424242")
    rows = try screen.waitFor("Card number")
    #expect(rows[21] == " Card number: ••••••••••••••••")
    try screen.type("\r12/30\r123")
    rows = try screen.waitFor("CVV")
    #expect(rows[21] == " CVV: •••")
    try screen.type("\r")
    rows = try screen.waitFor("Sale complete")
    #expect(rows[0].hasSuffix("Day 1  Order 1 (done)  3 items"))
    #expect(
      rows[17] == " Paid             102.10   Change             0.00       TOTAL   || | _|   || |")
    #expect(rows[20] == " Sale complete. Receipt 1.")
    let receipt = try daemon.cli(["--json", "receipt", "1"])
    let tenders = try JSONParser.parse(receipt.stdout)["result"]?["receipt"]?["tenders"]
    #expect(
      tenders?.serialized
        == #"[{"type":"cash","amount":"50.00"},{"type":"card","amount":"52.10","card":{"brand":"VISA","last4":"4242"}}]"#
    )
  }

  /// A cashier's discount over the store's limit (20 %): the screen asks for a manager's ID
  /// and PIN on the spot, says how many tries a wrong PIN leaves, and sends the discount again
  /// with the approval.
  @Test func aDiscountNeedingApprovalIsApprovedOnTheScreen() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(
      try client.send(
        #"{"op":"operator_add","operator_id":"mo","name":"Mo Reyes","role":"manager","pin":"9876"}"#
      ).isOK)
    #expect(try client.send(#"{"op":"sign_in","operator":"mo","pin":"9876"}"#).isOK)
    #expect(
      try client.send(
        #"{"op":"operator_add","operator_id":"amy","name":"Amy Chen","role":"cashier","pin":"1234"}"#
      ).isOK)
    #expect(try client.send(#"{"op":"sign_out"}"#).isOK)
    let screen = try lane(daemon)
    defer { screen.close() }
    var rows = try screen.waitFor("Nobody signed in")
    try screen.type("2001234000079\r")
    try screen.waitFor("Nobody is signed in: press s to sign in.")
    try screen.type("samy\r1234\r")
    rows = try screen.waitFor("Signed in: Amy Chen.")
    #expect(rows[19].hasPrefix(" Amy Chen (cashier) · Drawer 0.00"))
    #expect(
      rows.last == " r Return g Gift card n Drawer x X report e Reprint s Sign out a Void sale")
    try screen.type("2001234000079\r")
    try screen.waitFor("Classic Cotton Tee, White M")
    try screen.type("d50%\rdamaged\r")
    rows = try screen.waitFor("Manager's ID")
    #expect(
      Array(rows[19...21]) == [
        " Line 1 would be 50.0% off (over the 20% a cashier may give); that needs a",
        " manager: a manager approves.",
        " Manager's ID:",
      ])
    try screen.type("mo\r1111\r")
    rows = try screen.waitFor("Wrong PIN for mo")
    #expect(rows[20] == " Wrong PIN for mo; 4 more wrong PINs will lock mo.")
    #expect(rows[21] == " PIN for mo:")
    try screen.type("9876\r")
    rows = try screen.waitFor("Discount set on line 1.")
    #expect(
      rows[2] == "> 1      1  Classic Cotton Tee, White M                                  14.99")
    #expect(rows[3] == "            discount -7.50 (damaged)")
    let order = try client.send(#"{"op":"order"}"#).result
    #expect(order["lines"]?.arrayValue?.first?["discount_amount"] == "7.50")
  }

  /// A return by the receipt's code, as scanned off the receipt: its lines listed, all of
  /// them taken back, the refund to how the sale was paid.
  @Test func aReturnByReceiptCode() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "BELT-LTH-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "40"]).status == 0)
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("rR1\r")
    var rows = try screen.waitFor("Receipt 1: what comes back?")
    #expect(rows[2] == " 1.  line 1   1 x   Leather Belt, M                     35.00")
    #expect(rows[21] == " Lines to return (like 1 3x2; Enter: all):")
    try screen.type("\rwrong size\r")
    try screen.waitFor("Refund to")
    try screen.type("t")
    rows = try screen.waitFor("Returned on receipt")
    #expect(rows[20] == " Returned on receipt 2. Refund: Cash 37.63.")
    let report = try JSONParser.parse(try daemon.cli(["--json", "report"]).stdout)
    #expect(report["result"]?["report"]?["returns"]?["count"] == .int(1))
  }

  /// A receipt's barcode scanned at the till, as a customer hands it over: the return opens on
  /// its lines, and one of them comes back.
  @Test func aReceiptScannedAtTheTillOpensItsReturn() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "BELT-LTH-M"]).status == 0)
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "60"]).status == 0)
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("R1\r")
    var rows = try screen.waitFor("Receipt 1: what comes back?")
    #expect(rows[3].hasPrefix(" 2.  line 2   1 x   Cotton Socks, 3-Pack"))
    try screen.type("2\rwrong size\rt")
    rows = try screen.waitFor("Returned on receipt 2.")
    let returned = try JSONParser.parse(try daemon.cli(["--json", "receipt", "2"]).stdout)
    let lines = returned["result"]?["receipt"]?["lines"]?.arrayValue ?? []
    #expect(lines.map { $0["sku"]?.stringValue ?? "" } == ["SOCK-3PK"])
  }

  /// Parked on one lane, resumed on another; the first lane sees the order come back live.
  @Test func parkedOnOneScreenResumedOnAnother() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let first = try lane(daemon)
    defer { first.close() }
    let second = try lane(daemon)
    defer { second.close() }
    try first.type("2001234000147\r")
    try first.waitFor("Classic Cotton Tee, Black L")
    try first.type("ktable 4\r")
    var rows = try first.waitFor("Order 1 parked: l resumes it on any lane.")
    #expect(rows[2] == "  (no items yet: scan one)")
    try second.type("l")
    rows = try second.waitFor("Parked orders")
    #expect(rows[2] == " 1.  order 1     1 item         10.74  table 4")
    try second.type("1")
    rows = try second.waitFor("Order 1 resumed.")
    #expect(
      rows[2] == "> 1      1  Classic Cotton Tee, Black L                                   9.99")
    rows = try first.waitFor("Classic Cotton Tee, Black L")
    #expect(rows[0].hasSuffix("Day 1  Order 1  1 item"))
  }

  /// A second screen shows the sale as the first rings it up, and the drawer after it.
  @Test func aSecondScreenFollowsTheSale() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let cashier = try lane(daemon)
    defer { cashier.close() }
    let watcher = try lane(daemon)
    defer { watcher.close() }
    try cashier.type("2001234000147\r2001234001199\r")
    var rows = try watcher.waitFor("Leather Belt, M")
    #expect(
      rows[2] == "  1      1  Classic Cotton Tee, Black L                                   9.99")
    #expect(
      rows[4] == "> 2      1  Leather Belt, M                                              35.00")
    #expect(rows[17].hasPrefix(" Due               48.36"))
    try cashier.type("tc\r")
    try cashier.waitFor("Sale complete. Receipt 1.")
    rows = try watcher.waitFor("Drawer 48.36")
    #expect(rows[0].hasSuffix("Day 1  Order 2  0 items"))
  }

  /// registerd killed mid-sale: the screen says so, keeps what the cashier scans and types
  /// meanwhile, and once registerd is back sends what waited exactly once and shows the order
  /// as registerd has it.
  @Test func registerdKilledAndRestartedMidSale() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("2001234000147\r2001234001199\r")
    try screen.waitFor("Leather Belt, M")
    daemon.kill9()
    try screen.waitFor("OFFLINE, reconnecting")
    try screen.type("2001234000079\r")
    var rows = try screen.waitFor("(1 waiting)")
    #expect(rows[20] == " Not connected: 1 waiting, sent when the register is back.")
    try screen.type("20000011")
    try daemon.start()
    rows = try screen.waitFor("Classic Cotton Tee, White M")
    #expect(
      rows[5] == "> 3      1  Classic Cotton Tee, White M                                  14.99")
    #expect(rows[20] == " Connected to the register again; sent what waited (1 change).")
    #expect(rows[21] == " Scan or type a code: 20000011")
    try screen.type("\r")
    rows = try screen.waitFor("Socks")
    let order = try daemon.connect().send(#"{"op":"order"}"#).result
    #expect(
      order["lines"]?.arrayValue?.map { $0["sku"]?.stringValue ?? "" } == [
        "TEE-BLK-L", "BELT-LTH-M", "TEE-WHT-M", "SOCK-3PK",
      ])
  }

  /// Drawn for the size it has: 100×30, then 80×24, then back, with nothing left of the
  /// larger frame.
  @Test func redrawnOnResize() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let screen = try lane(daemon, width: 100, height: 30)
    defer { screen.close() }
    try screen.type("2001234000147\r")
    var rows = try screen.waitFor("Classic Cotton Tee")
    #expect(
      rows[2]
        == "> 1      1  Classic Cotton Tee, Black L                                                       9.99"
    )
    #expect(rows.count == 30)
    try screen.resize(width: 80, height: 24)
    // tmux may show a frame half drawn: wait for its last changed row, then read it all.
    rows = try screen.waitUntil("the screen is 80×24") {
      $0.count == 24 && $0[1].count == 78 && $0[16].hasPrefix(" Subtotal")
    }
    #expect(
      rows[2] == "> 1      1  Classic Cotton Tee, Black L                                   9.99")
    #expect(
      rows[16] == " Subtotal           9.99   Tax                0.75                    _   _")
    #expect(rows.allSatisfy { $0.count <= 80 })
    try screen.resize(width: 100, height: 30)
    rows = try screen.waitUntil("the screen is 100×30") {
      $0.count == 30 && $0[1].count == 98 && $0[22].hasPrefix(" Subtotal")
    }
    #expect(rows[22].hasPrefix(" Subtotal           9.99   Tax                0.75"))
    #expect(rows[2].hasSuffix("9.99") && rows[2].count == 98)
  }

  /// A keyboard-wedge scanner's burst: 50 codes, each with its Enter, typed as fast as the
  /// terminal takes them, ring up exactly 50 lines.
  @Test func aScannerBurstRingsUpEveryCode() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let screen = try lane(daemon)
    defer { screen.close() }
    let output = daemon.directory.path("lane-output")
    try screen.recordOutput(to: output)
    try screen.type(String(repeating: "20000011\r", count: 50))
    let rows = try screen.waitFor("50 items")
    // Drawn by the cells that changed: the screen is never cleared for a line rung up.
    let drawn = try String(contentsOfFile: output, encoding: .utf8)
    #expect(!drawn.isEmpty)
    #expect(!drawn.contains("\u{1B}[2J"))
    #expect(rows[0].hasSuffix("Order 1  50 items"))
    let order = try daemon.connect().send(#"{"op":"order"}"#).result
    let lines = order["lines"]?.arrayValue ?? []
    #expect(lines.count == 50)
    #expect(lines.allSatisfy { $0["sku"] == "SOCK-3PK" && $0["qty"] == .int(1) })
  }

  /// The terminal is given back as it was — echo and line editing on, the normal screen —
  /// however the lane ends: Ctrl-C, SIGTERM, or a crash.
  @Test(arguments: ["C-c", "TERM", "SEGV"])
  func theTerminalIsRestored(ending: String) throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let script =
      "\"$0\" --socket \"$1\" lane; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)'; echo DONE; sleep 60"
    let screen = try TmuxScreen(["sh", "-c", script, Binaries.registerCLI.path, daemon.socketPath])
    defer { screen.close() }
    try screen.waitFor("online")
    if ending == "C-c" {
      try screen.press("C-c")
    } else {
      let shell = try screen.pid()
      let children =
        (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8))
        ?? ""
      let lane = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
      kill(lane, ending == "TERM" ? SIGTERM : SIGSEGV)
    }
    let rows = try screen.waitFor("DONE")
    let text = rows.joined(separator: "\n")
    #expect(text.contains("icanon") && !text.contains("-icanon"))
    #expect(text.contains("echo") && !text.contains("-echo"))
    #expect(!text.contains("Scan or type a code"))
  }

  /// The rest of a cashier's keys: a customer found and attached, a payment the card
  /// terminal approved, the X report, the receipt shown again where there is no printer, a
  /// touch on the legend, the help.
  @Test func theCashiersOtherKeys() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(
      try client.send(#"{"op":"customer_add","name":"Ada Park","email":"ada@example.com"}"#).isOK)
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("2001234001199\rcAda\r")
    var rows = try screen.waitFor("Customer Ada Park attached.")
    #expect(rows[19].hasPrefix(" Customer Ada Park · Drawer 0.00"))
    // A touch on the legend's "t Tender", then the card terminal's approval.
    try screen.type("\u{1B}[<0;68;23M")
    try screen.waitFor("Pay 37.63 with")
    try screen.type("p\rv4242\rA7Q9\r")
    rows = try screen.waitFor("Sale complete. Receipt 1.")
    try screen.type("e")
    rows = try screen.waitFor("(no printer: shown here)")
    #expect(rows[1].hasPrefix(" Receipt 1 (no printer: shown here)"))
    #expect(rows.contains(" Customer: Ada Park (C1)"))
    try screen.press("NPage")
    rows = try screen.waitFor("(11–23 of 23 lines)")
    #expect(rows.joined().contains("VISA ****4242 (terminal A7Q9)"))
    try screen.press("Escape")
    try screen.type("x")
    rows = try screen.waitFor("X report (the day so far)")
    #expect(rows.joined(separator: "\n").contains("X REPORT"))
    try screen.type("q")
    try screen.type("h")
    rows = try screen.waitFor("Keys")
    #expect(rows[2] == " Scan, or type a barcode or SKU (capital letters) and press Enter.")
    #expect(
      rows.contains("   F9  t  Tender - take a payment (cash, card, gift card, store credit...)"))
  }

  /// The customer display beside the lane: the item and the promotion it earned, the total,
  /// the thank-you with the change, and the welcome for the next customer — each change
  /// written over the last screen, never a cleared one.
  @Test func theCustomerDisplayFollowsTheSale() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let display = try TmuxScreen(
      [Binaries.registerCLI.path, "--socket", daemon.socketPath, "watch"], width: 40, height: 14)
    defer { display.close() }
    try display.waitFor("Your items will show here.")
    let output = daemon.directory.path("display-output")
    try display.recordOutput(to: output)
    #expect(try daemon.cli(["add", "CHN-KHK-34", "2"]).status == 0)
    var rows = try display.waitFor("Chinos 2 for 60.00")
    #expect(rows[1] == "2 x Chino Pants, Khaki 34          70.40")
    #expect(rows[2] == "  Chinos 2 for 60.00              -10.40")
    #expect(try daemon.cli(["tender", "cash", "70"]).status == 0)
    rows = try display.waitFor("Thank you!")
    #expect(rows.contains("               Receipt 1"))
    let drawn = try String(contentsOfFile: output, encoding: .utf8)
    #expect(drawn.contains("Chinos 2 for 60.00"))
    #expect(!drawn.contains("\u{1B}[2J"))
    rows = try display.waitFor("Welcome!", within: 15)
    #expect(rows.joined(separator: "\n").contains("Your items will show here."))
  }

  /// A lane whose registerd went away waits for it without spinning, even when the status
  /// bar was due to be read again as it went (a change from another client just before).
  @Test func anOfflineLaneWaitsQuietly() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let screen = try lane(daemon)
    defer { screen.close() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"paid_in","amount":"1.00","reason":"float top-up"}"#).isOK)
    daemon.kill9()
    try screen.waitFor("OFFLINE, reconnecting")
    let lane = try screen.pid()
    let before = try #require(cpuTicks(lane))
    // What waiting costs over a second is what is under test: time must pass.
    usleep(1_000_000)
    let after = try #require(cpuTicks(lane))
    // Reconnecting every 300 ms costs next to nothing; a busy loop would take the whole second
    // (100 ticks).
    #expect(after - before < 20, "\(after - before) ticks of CPU in one second offline")
  }

  /// A process's user and system CPU time, in clock ticks (/proc/PID/stat).
  func cpuTicks(_ pid: Int32) -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    // After the name: state is field 3, utime 14 and stime 15 (counted from 1 with pid, name).
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
      return nil
    }
    return user + system
  }

  /// Colour where the terminal has it; under `NO_COLOR` (no-color.org) none, with the bars
  /// and keys still in reverse video.
  @Test(arguments: [false, true])
  func colourFollowsNoColor(noColor: Bool) throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let output = daemon.directory.path("lane-output")
    let screen = try TmuxScreen(
      [Binaries.registerCLI.path, "--socket", daemon.socketPath, "lane"],
      environment: noColor ? ["NO_COLOR": "1"] : [:])
    defer { screen.close() }
    try screen.recordOutput(to: output)
    try screen.type("h")
    try screen.waitFor("Keys")
    try screen.type("q0000000000\r")
    try screen.waitFor("No product has the code")
    let drawn = try String(contentsOfFile: output, encoding: .utf8)
    let colours = ["31m", "36m"].filter { drawn.contains(";\($0)") }
    #expect(colours.isEmpty == noColor, "colour sequences: \(colours)")
    #expect(drawn.contains("\u{1B}[0;7") || drawn.contains(";7;"), "reverse video either way")
  }

  /// A $25 gift card sold for cash (receipt 1) through the CLI: its number.
  func sellAGiftCard(_ daemon: Daemon) throws -> String {
    #expect(try daemon.cli(["add", "GIFT-25"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "25"]).status == 0)
    let sold = try JSONParser.parse(try daemon.cli(["--json", "receipt", "1"]).stdout)
    return try #require(
      sold["result"]?["receipt"]?["gift_cards"]?.arrayValue?.first?["number"]?.stringValue)
  }

  /// A line's quantity, a new price, an order discount and a voided line, then a sale paid
  /// with a gift card, a store tender (a check, with its number) and cash; and a no-sale.
  @Test func linesChangedAndPaidEveryWay() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let card = try sellAGiftCard(daemon)
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("2001234000147\r2001234001199\r")
    try screen.waitFor("Leather Belt, M")
    try screen.press("Up")
    try screen.type("q3\r")
    var rows = try screen.waitFor("Line 1: quantity 3.")
    #expect(
      rows[2] == "> 1      3  Classic Cotton Tee, Black L                                  29.97")
    try screen.press("Down")
    try screen.type("p30\rdisplay model\r")
    rows = try screen.waitFor("Line 2 repriced.")
    #expect(rows[5] == "            price changed, was 35.00 (display model)")
    try screen.type("o10%\rloyalty\r")
    rows = try screen.waitFor("Discount set on the order.")
    #expect(rows[16].hasPrefix(" Subtotal          59.97   Discounts         -6.00"))
    try screen.type("20000011\r")
    try screen.waitFor("Socks")
    try screen.type("v")
    rows = try screen.waitFor("Line 3 voided.")
    #expect(rows[6].hasSuffix("VOID"))
    let order = try daemon.connect().send(#"{"op":"order"}"#).result
    let total = try #require(order["total"]?.stringValue)
    try screen.type("tg" + card + "\r\r")
    rows = try screen.waitFor("Paid              25.00")
    #expect(!rows.joined().contains(card), "a gift card's number is typed as bullets")
    let afterCard = try usd(total).subtracting(usd("25.00"))
    #expect(rows[20] == " Gift card 25.00 taken. Still due: \(afterCard).")
    // The store's own tenders are offered by name (the store's list: check, voucher).
    try screen.type("to")
    rows = try screen.waitFor("Which of the store's tenders")
    #expect(rows[22].hasPrefix(" 1 Check 2 Voucher Esc Cancel"))
    try screen.type("120\r1042\r")
    rows = try screen.waitFor("Paid              45.00")
    #expect(
      rows[20] == " Check 20.00 taken. Still due: \(try afterCard.subtracting(usd("20.00"))).")
    try screen.type("tc\r")
    try screen.waitFor("Sale complete. Receipt 2.")
    let receipt = try JSONParser.parse(try daemon.cli(["--json", "receipt", "2"]).stdout)
    let tenders = receipt["result"]?["receipt"]?["tenders"]?.arrayValue ?? []
    #expect(tenders.map { $0["type"]?.stringValue ?? "" } == ["gift_card", "other", "cash"])
    #expect(tenders.first?["amount"] == "25.00")
    #expect(tenders.dropFirst().first?["reference"] == "1042")
    #expect(receipt["result"]?["receipt"]?["total"]?.stringValue == total)
    try screen.type("nn")
    try screen.waitFor("Drawer opened (no sale).")
  }

  /// A customer the register does not know yet, added at the lane (name, e-mail, phone) and
  /// attached to the sale.
  @Test func aNewCustomerIsAddedAtTheLane() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("2001234001199\rcRiley\r")
    try screen.waitFor("No customer matches \"Riley\"")
    // A customer needs a name: refused, and nothing is added.
    try screen.type("a\r\r\r")
    try screen.waitFor("Name must not be empty.")
    #expect(
      try daemon.connect().send(#"{"op":"customer_find","query":"a"}"#).result["customers"]?
        .arrayValue?.isEmpty == true)
    try screen.type("cRiley\r")
    var rows = try screen.waitFor("No customer matches \"Riley\"")
    #expect(rows[22].hasPrefix(" a Add a new customer Esc Cancel"))
    try screen.type("aRiley Ortiz\rriley@example.com\r\r")
    rows = try screen.waitFor("Customer Riley Ortiz added (C1) and attached.")
    #expect(rows[19].hasPrefix(" Customer Riley Ortiz · Drawer 0.00"))
    let found = try daemon.connect().send(#"{"op":"customer_find","query":"riley"}"#).result
    let customer = try #require(found["customers"]?.arrayValue?.first)
    #expect(customer["email"] == "riley@example.com")
    #expect(customer["phone"] == nil)
    #expect(try daemon.connect().send(#"{"op":"order"}"#).result["customer_id"] == "C1")
  }

  /// The printer and the customer display on the status bar, as registerd last found them:
  /// a printer that runs out of paper while nothing else happens shows within seconds, and a
  /// display that went away shows once a screen could not reach it.
  @Test func thePrinterAndTheDisplayOnTheStatusBar() throws {
    let printer = try TestPrinter()
    defer { printer.stop() }
    printer.answerStatus(TestPrinter.ok)
    let pole = try TestPrinter()
    defer { pole.stop() }
    let daemon = try Daemon(arguments: [
      "--printer", "tcp:127.0.0.1:\(printer.port)", "--display", "tcp:127.0.0.1:\(pole.port)",
    ])
    defer { daemon.cleanup() }
    let screen = try lane(daemon, width: 100)
    defer { screen.close() }
    var rows = try screen.waitFor("Printer ok · Display ok", within: 15)
    #expect(rows[19].hasPrefix(" Printer ok · Display ok · Drawer 0.00"))
    // No event comes of it: the lane reads the status bar again by itself.
    printer.answerStatus(TestPrinter.paperOut)
    rows = try screen.waitFor("Printer paper out", within: 15)
    #expect(rows[19].hasPrefix(" Printer paper out · Display ok"))
    pole.stop()
    try screen.type("2001234001199\r")
    rows = try screen.waitFor("Display offline", within: 15)
    #expect(rows[19].hasPrefix(" Printer paper out · Display offline · Drawer 0.00"))
  }

  /// The drawer's moves at the lane (the float, cash paid in and out, a no-sale), each saying
  /// what the drawer should hold; a gift card's balance asked, money loaded onto it as a line
  /// of the sale, and the balance after the sale is paid — the number typed as bullets.
  @Test func theDrawerAndAGiftCard() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let card = try sellAGiftCard(daemon)
    let masked = "****" + card.suffix(4)
    let screen = try lane(daemon)
    defer { screen.close() }
    try screen.type("n")
    var rows = try screen.waitFor("Drawer:")
    #expect(rows[22].hasPrefix(" n No sale f Float i Paid in o Paid out Esc Cancel"))
    try screen.type("f100\r")
    rows = try screen.waitFor("Float set to 100.00. The drawer should hold 125.00.")
    try screen.type("ni20\rchange for the till\r")
    try screen.waitFor("Paid in 20.00. The drawer should hold 145.00.")
    try screen.type("no5.5\rwindow cleaner\r")
    rows = try screen.waitFor("Paid out 5.50. The drawer should hold 139.50.")
    rows = try screen.waitFor("Drawer 139.50")
    #expect(rows[19].hasPrefix(" Drawer 139.50"))
    try screen.type("nn")
    try screen.waitFor("Drawer opened (no sale). The drawer should hold 139.50.")
    // Bad input changes nothing: an amount that is not one, a card no one issued.
    try screen.type("nitwenty\r")
    try screen.waitFor("\"twenty\" is not an amount: type it like 20 or 20.00.")
    try screen.type("gb6004835057270000\r")
    rows = try screen.waitFor("No gift card has that number: check it and try again.")
    #expect(!rows.joined().contains("6004835057270000"))
    #expect(rows[19].hasPrefix(" Drawer 139.50"))

    try screen.type("gb" + card)
    rows = try screen.waitFor("Gift card number")
    #expect(!rows.joined().contains(card), "a gift card's number is typed as bullets")
    try screen.type("\r")
    try screen.waitFor("Gift card \(masked): balance 25.00.")
    try screen.type("gr" + card + "\r10\r")
    rows = try screen.waitFor(
      "10.00 to load onto the gift card: the card has it once the sale is paid.")
    #expect(
      rows[2] == "> 1      1  Gift card reload \(masked)                                    10.00")
    #expect(!rows.joined().contains(card))
    try screen.type("tc\r")
    try screen.waitFor("Sale complete. Receipt 2.")
    try screen.type("gb" + card + "\r")
    try screen.waitFor("Gift card \(masked): balance 35.00.")
  }
}
