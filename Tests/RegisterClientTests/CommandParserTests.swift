import RegisterEngine
import Testing

@testable import RegisterClient

/// register-cli's argument parsing, tested directly: the words of a command line in, the
/// request (or the usage error) out — no daemon, no process.
@Suite struct CommandParserTests {
  /// The request a command line builds, or nil when it builds something else.
  func request(_ words: [String]) throws -> TypedRequest? {
    switch try CommandParser.parse(words) {
    case .request(let typed, _): return typed
    case .pinRequest(let pinned): return pinned.request
    default: return nil
    }
  }

  /// The request body a command line builds, as `Body`.
  func body<Body: RequestBody>(_ words: [String], as type: Body.Type) throws -> Body? {
    try request(words)?.body as? Body
  }

  /// Each command is declared once: every command word has exactly one entry that reads its
  /// arguments, and every word the parser takes has its usage in the help.
  @Test func eachCommandWordHasOneParserAndItsHelp() throws {
    let entries = CommandHelp.sections.flatMap(\.commands)
    var parsers: [String: Int] = [:]
    for entry in entries where entry.parse != nil {
      for name in entry.names { parsers[name, default: 0] += 1 }
    }
    #expect(parsers.values.allSatisfy { $0 == 1 }, "\(parsers.filter { $0.value > 1 })")
    for name in Set(entries.flatMap(\.names)) where !name.hasPrefix("-") {
      #expect(parsers[name] == 1, "\(name) has no parser")
      #expect(CommandHelp.usage(of: name) != nil)
    }
    #expect(CommandHelp.parser(for: "--help") != nil && CommandHelp.parser(for: "-h") != nil)
    #expect(CommandHelp.parser(for: "refnud") == nil)
  }

  @Test func aGiftCardReloadIsANumberAndAnAmount() throws {
    let reload = try #require(
      try body(["gift-card", "reload", "6001234567890128", "25"], as: Requests.GiftCardReload.self))
    #expect(reload.number == "6001234567890128")
    #expect(reload.amount.decimalString == "25")
    #expect(usageError(["gift-card", "reload", "6001234567890128"]) != nil)
    #expect(
      usageError(["gift-card", "top-up", "6001234567890128", "5"])?.message.contains("reload")
        == true)
    #expect(try body(["gift-card", "balance", "6001"], as: Requests.GiftCardBalance.self) != nil)
  }

  /// The usage error a command line gets.
  func usageError(_ words: [String]) -> UsageError? {
    do {
      _ = try CommandParser.parse(words)
      return nil
    } catch {
      return error
    }
  }

  @Test func addWithQuantityAndOption() throws {
    let typed = try #require(try request(["add", "PRINT", "2", "--option", "size=11x14"]))
    #expect(
      typed == TypedRequest(Requests.Add(sku: "PRINT", quantity: 2, options: ["size": "11x14"])))
    // On the wire: nothing else (the daemon refuses unknown fields, so the CLI must not
    // invent any), and no envelope yet (the session adds the id and the key).
    #expect(typed.line == #"{"op":"add","sku":"PRINT","qty":2,"options":{"size":"11x14"}}"#)
  }

  @Test func scanACodeOrEnterScanMode() throws {
    #expect(
      try body(["scan", "2001234000079"], as: Requests.Scan.self)
        == Requests.Scan(code: "2001234000079"))
    #expect(try CommandParser.parse(["scan"]) == .scanning)
    #expect(usageError(["scan", "A", "B"]) != nil)
  }

  @Test func catalogTakesAPage() throws {
    #expect(try body(["catalog"], as: Requests.Catalog.self) == Requests.Catalog())
    #expect(
      try body(["catalog", "--limit", "50", "--after", "TEE"], as: Requests.Catalog.self)
        == Requests.Catalog(limit: 50, afterSKU: "TEE"))
    #expect(usageError(["catalog", "--limit", "x"]) != nil)
    #expect(usageError(["catalog", "--after"]) != nil)
  }

  @Test func customerFindTakesALimit() throws {
    #expect(
      try body(["customer", "find", "Dana"], as: Requests.CustomerFind.self)
        == Requests.CustomerFind(query: "Dana"))
    #expect(
      try body(["customer", "find", "Dana", "--limit", "250"], as: Requests.CustomerFind.self)
        == Requests.CustomerFind(query: "Dana", limit: 250))
    #expect(usageError(["customer", "find", "Dana", "--limit", "many"]) != nil)
    #expect(usageError(["customer", "find", "Dana", "--limit"]) != nil)
  }

  @Test func wishlistAndProductCommands() throws {
    #expect(
      try body(["wishlist", "C1"], as: Requests.Wishlist.self)
        == Requests.Wishlist(customerID: "C1"))
    #expect(
      try body(["wishlist", "add", "C1", "TEE"], as: Requests.WishlistAdd.self)
        == Requests.WishlistAdd(customerID: "C1", sku: "TEE"))
    #expect(
      try body(["wishlist", "remove", "C1", "TEE"], as: Requests.WishlistRemove.self)
        == Requests.WishlistRemove(customerID: "C1", sku: "TEE"))
    #expect(
      try body(["wishlist", "to-order", "C1", "TEE"], as: Requests.WishlistToOrder.self)
        == Requests.WishlistToOrder(customerID: "C1", sku: "TEE"))
    #expect(usageError(["wishlist", "add", "C1"]) != nil)
    #expect(usageError(["wishlist"]) != nil)
    #expect(
      try body(["product", "TEE"], as: Requests.ProductLookup.self)
        == Requests.ProductLookup(sku: "TEE"))
    #expect(
      try body(["product", "show", "add"], as: Requests.ProductLookup.self)
        == Requests.ProductLookup(sku: "add"))
  }

  @Test func receiptsAsScannedOffTheirBarcode() throws {
    #expect(
      try body(["return", "R12", "1:1", "--reason", "x"], as: Requests.Return.self)?.receipt == 12)
    #expect(try body(["receipt", "r7"], as: Requests.Receipt.self)?.number == 7)
    #expect(usageError(["return", "RX", "1", "--reason", "x"])?.message.contains("R42") == true)
  }

  @Test func optionsGoAnywhereOnTheLine() throws {
    let expected = try CommandParser.parse(["add", "PRINT", "2", "--option", "size=11x14"])
    #expect(try CommandParser.parse(["add", "--option", "size=11x14", "PRINT", "2"]) == expected)
    #expect(try CommandParser.parse(["add", "PRINT", "--option=size=11x14", "2"]) == expected)
  }

  @Test func addWithoutQuantityOrOptionsSendsOnlyTheSKU() throws {
    let typed = try #require(try request(["add", "TEE"]))
    #expect(typed.line == #"{"op":"add","sku":"TEE"}"#)
    #expect(try CommandParser.parse(["add", "TEE"]) == .request(typed, .order))
    #expect(try CommandParser.parse(["add", "TEE"]) != .request(typed, .receipt))
    #expect(try CommandParser.parse(["add", "TEE", "1"]) != .request(typed, .order))
  }

  @Test func tenderCashKeepsTheAmountAsText() throws {
    // Money goes on the wire as the decimal string typed, never through a Double.
    let tender = try #require(try body(["tender", "cash", "20.10"], as: Requests.Tender.self))
    #expect(tender.type == .cash)
    #expect(tender.amount?.minorUnits == 2010)
    #expect(tender.card == nil)
    #expect(
      try request(["tender", "cash", "20.10"])?.line
        == #"{"op":"tender","type":"cash","amount":"20.10"}"#)
    #expect(try request(["tender", "cash", "7"])?.line.contains(#""amount":"7""#) == true)
  }

  @Test func tenderCardCarriesTheCardAndAnAmount() throws {
    // The old form: everything on the command line.
    let parsed = try CommandParser.parse(
      ["tender", "card", "4242424242424242", "--exp", "12/30", "--cvv", "123", "--amount", "5"])
    let five = try TypedAmount.money("5", path: "amount")
    #expect(
      parsed
        == .cardTender(
          CardTender(
            number: "4242424242424242", cvv: "123", expiry: CardExpiry(month: 12, year: 30),
            amount: five)))
    guard case .cardTender(let card) = parsed else { return }
    #expect(card.hasSecretInArguments)
    #expect(CardEntry.missing(card).isEmpty)
    let tender = try CardEntry.request(card) { _ in
      Issue.record("nothing to read")
      return nil
    }
    #expect(
      tender
        == Requests.Tender(
          .card(
            CardInput(number: "4242424242424242", expiryMonth: 12, expiryYear: 30, cvv: "123"),
            amount: five)))
  }

  /// PINs are read at run time (terminal without echo, or standard input); the old argv forms
  /// are still parsed, marked to warn.
  @Test func pinsAreReadNotTakenFromArguments() throws {
    let signIn = try CommandParser.parse(["sign-in", "amy"])
    guard case .pinRequest(let request) = signIn else {
      Issue.record("\(signIn)")
      return
    }
    #expect(request.pin == .signIn(operatorID: "amy") && !request.inArguments)
    var prompts: [String] = []
    let filled = try request.filled { prompt, _ throws(UsageError) in
      prompts.append(prompt)
      return "1234"
    }
    #expect(filled.body.isEqual(to: Requests.SignIn(operatorID: "amy", pin: "1234")))
    #expect(prompts == ["PIN for amy: "])

    let approved = try CommandParser.parse(["void", "--reason", "r", "--approve", "mo"])
    guard case .pinRequest(let voiding) = approved else {
      Issue.record("\(approved)")
      return
    }
    #expect(voiding.approver == "mo" && voiding.pin == nil && !voiding.inArguments)
    var asked: [String] = []
    let sent = try voiding.filled { prompt, _ throws(UsageError) in
      asked.append(prompt)
      return "9876"
    }
    #expect(sent.envelope.approval == Approval(operatorID: "mo", pin: "9876"))
    #expect(asked.first?.contains("counts toward mo's lockout") == true)

    let added = try CommandParser.parse(
      ["operator", "add", "cy", "--name", "Cy", "--role", "cashier"])
    guard case .pinRequest(let adding) = added else {
      Issue.record("\(added)")
      return
    }
    #expect(adding.pin?.isNew == true)
    #expect(throws: UsageError.self) {
      _ = try adding.filled { _, _ throws(UsageError) in nil }
    }
    // The old forms: taken, and marked so that register-cli warns.
    guard case .pinRequest(let old) = try CommandParser.parse(["sign-in", "amy", "--pin", "1234"])
    else {
      Issue.record("old form")
      return
    }
    #expect(old.inArguments && old.pin == nil)
    guard
      case .pinRequest(let oldApproval) = try CommandParser.parse([
        "void", "--approve", "mo:9876",
      ])
    else {
      Issue.record("old approval")
      return
    }
    #expect(oldApproval.inArguments && oldApproval.approver == nil)
    #expect(oldApproval.request.envelope.approval == Approval(operatorID: "mo", pin: "9876"))
  }

  @Test func tenderCardWithoutNumberReadsItLater() throws {
    let parsed = try CommandParser.parse(
      ["tender", "card", "--exp", "01/2031", "--approve", "boss:4321"])
    var card = CardTender(
      expiry: CardExpiry(month: 1, year: 2031),
      approval: Approval(operatorID: "boss", pin: "4321"))
    card.approvalPINInArguments = true
    #expect(parsed == .cardTender(card))
    #expect(!card.approvalPINToRead)
    #expect(!card.hasSecretInArguments)
    #expect(CardEntry.missing(card) == [.number, .cvv])
    #expect(CardEntry.missing(CardTender()) == [.number, .cvv, .expiry])
    // A malformed expiry and a stray word are usage errors that do not repeat what was typed.
    #expect(usageError(["tender", "card", "--exp", "1230"])?.message.contains("1230") == false)
    let stray = try #require(usageError(["tender", "card", "4242424242424242", "987"]))
    #expect(!stray.message.contains("987") && !stray.message.contains("4242"))
  }

  @Test func approvalGoesIntoTheEnvelope() throws {
    let typed = try #require(try request(["void", "--reason", "left", "--approve", "boss:4321"]))
    #expect(typed.body.isEqual(to: Requests.Void(reason: "left")))
    #expect(typed.envelope.approval == Approval(operatorID: "boss", pin: "4321"))
    #expect(typed.envelope.key == nil, "the session adds the key, fresh for each run")
  }

  @Test(arguments: [
    (["report"], Requests.Report(kind: .x) as any RequestBody),
    (["report", "z", "--day", "3"], Requests.Report(kind: .z, day: 3)),
    (["remove", "2"], Requests.Remove(line: 2)),
    (["qty", "1", "3"], Requests.SetQty(line: 1, quantity: 3)),
    (["receipt"], Requests.Receipt()),
    (["print"], Requests.Print()),
    (["print", "R7"], Requests.Print(receipt: 7)),
    (["receipt", "R42", "--escpos"], Requests.Receipt(number: 42, escpos: true)),
    (["report", "z", "--escpos", "--day", "2"], Requests.Report(kind: .z, day: 2, escpos: true)),
    (
      ["receipt", "4", "--email", "a@example.com"],
      Requests.EmailReceipt(receipt: 4, to: "a@example.com")
    ),
    (
      ["return", "2", "1", "3:2", "--reason", "r"],
      Requests.Return(
        receipt: 2,
        lines: [ReturnRequestLine(line: 1, quantity: 1), ReturnRequestLine(line: 3, quantity: 2)],
        reason: "r")
    ),
    (
      ["operator", "add", "amy", "--name", "Amy", "--role", "manager", "--pin", "1234"],
      Requests.OperatorAdd(operatorID: "amy", name: "Amy", role: .manager, pin: "1234")
    ),
    (["sign-in", "amy", "--pin", "1234"], Requests.SignIn(operatorID: "amy", pin: "1234")),
    (
      ["customer", "add", "Dana", "--email", "d@example.com"],
      Requests.CustomerAdd(name: "Dana", email: "d@example.com")
    ),
    (
      ["stock", "adjust", "TEE", "-2", "--reason", "count"],
      Requests.StockAdjust(sku: "TEE", delta: -2, reason: "count")
    ),
    (
      ["discount", "1", "--percent", "12.5", "--reason", "r"],
      Requests.Discount(line: 1, value: .percent(Percent(millionths: 12_500_000)), reason: "r")
    ),
    (["park", "--note", "back soon"], Requests.Park(note: "back soon")),
    (["resume", "3"], Requests.Resume(orderID: 3)),
    (["no-sale"], Requests.NoSale()),
  ])
  func commandsBuildTheirTypedRequest(words: [String], expected: any RequestBody) throws {
    let typed = try #require(try request(words))
    #expect(typed.body.isEqual(to: expected), "\(words)")
  }

  @Test(arguments: [
    (["tender", "cash", "abc"], "invalid_amount", #"amount: "abc" is not an amount"#),
    (["paid-in", "-5", "--reason", "r"], "invalid_amount", #"amount: "-5" is negative"#),
    (["override", "1", "1,99", "--reason", "r"], "invalid_amount", #"unit_price: "1,99" is not"#),
    (["close-day", "--counted-cash", "lots"], "invalid_amount", #"--counted-cash: "lots" is not"#),
    (
      ["discount", "--percent", "ten", "--reason", "r"], "invalid_amount",
      #"percent: "ten" is not a percentage"#
    ),
    (
      ["operator", "add", "amy", "--name", "Amy", "--role", "boss", "--pin", "1234"], "bad_request",
      "role must be"
    ),
  ])
  func valuesRegisterdWouldRefuseAreRefusedAsItWould(
    words: [String], code: String, message: String
  ) throws {
    guard case .refused(let error) = try CommandParser.parse(words) else {
      Issue.record("\(words) was not refused")
      return
    }
    #expect(error.code.rawValue == code)
    #expect(error.message.hasPrefix(message), "\(error.message)")
  }

  @Test func aUsageErrorComesBeforeARefusal() {
    // As before, when the amount was only checked by registerd: the line must be complete.
    #expect(
      usageError(["paid-in", "abc"])
        == UsageError("paid-in needs --reason TEXT", command: "paid-in"))
    #expect(
      usageError(["tender", "cash", "abc", "extra"])?.message
        == "tender: unexpected argument \"extra\"")
  }

  @Test(arguments: [
    (["add"], "add needs SKU", "add"),
    (["add", "TEE", "two"], "QTY must be a whole number, got \"two\"", "add"),
    (
      ["add", "TEE", "99999999999999999999"],
      "QTY is a whole number too large to take, got \"99999999999999999999\"", "add"
    ),
    (
      ["watch", "--count", "-1"], "--count must be 1 or more (how many events to show), got -1",
      "watch"
    ),
    (["watch", "--count", "x"], "--count must be a whole number, got \"x\"", "watch"),
    (
      ["add", "TEE", "--option", "frame"], "--option takes GROUP=CHOICE, like --option frame=oak",
      "add"
    ),
    (["add", "TEE", "--option"], "--option needs a value", "add"),
    (["add", "TEE", "1", "extra"], "add: unexpected argument \"extra\"", "add"),
    (["remove", "1.5"], "LINE must be a whole number, got \"1.5\"", "remove"),
  ])
  func usageErrorsNameTheCommand(words: [String], message: String, command: String) {
    #expect(usageError(words) == UsageError(message, command: command))
  }

  @Test func noCommandAndUnknownCommands() {
    #expect(usageError([]) == UsageError("no command given"))
    #expect(
      usageError(["--frobnicate"])?.message == "unknown option \"--frobnicate\" before the command")
    let unknown = usageError(["fly"])
    #expect(unknown?.message.hasPrefix("unknown command \"fly\"") == true)
    #expect(unknown?.command == nil)
  }

  @Test func helpOfACommandWinsOverItsArguments() throws {
    #expect(try CommandParser.parse(["add", "TEE", "--help"]) == .help(command: "add"))
    #expect(try CommandParser.parse(["help", "add"]) == .help(command: "add"))
  }

  @Test(arguments: [
    ["--json", "show"], ["show", "--json"], ["--socket", "/tmp/r.sock", "show", "--json"],
    ["show", "--socket=/tmp/r.sock", "--json"],
  ])
  func globalOptionsAreTakenFromAnywhere(line: [String]) throws {
    var words = line
    let options = try GlobalOptions.extract(from: &words)
    #expect(options.json)
    #expect(words == ["show"])
    #expect(
      options.socketPath == (line.contains { $0.contains("/tmp/r.sock") } ? "/tmp/r.sock" : nil))
  }

  @Test func wordsAfterDoubleDashAreNotGlobalOptions() throws {
    var words = ["customer", "find", "--", "--json"]
    let options = try GlobalOptions.extract(from: &words)
    #expect(!options.json)
    #expect(words == ["customer", "find", "--json"])
  }

  @Test func backupArchiveAndVerifyWithArchives() throws {
    #expect(
      try CommandParser.parse(["backup", "--to", "b", "--data-dir", "d"])
        == .local(.backup(dataDirectory: "d", to: "b", copy: false)))
    #expect(
      try CommandParser.parse(["backup", "--copy", "--to", "b"])
        == .local(.backup(dataDirectory: nil, to: "b", copy: true)))
    #expect(
      try CommandParser.parse(["archive", "--before-day", "30", "--to", "a"])
        == .local(.archive(dataDirectory: nil, beforeDay: 30, to: "a")))
    #expect(
      try CommandParser.parse(["verify", "--archive", "a1", "--archive", "a2"])
        == .local(.verify(dataDirectory: nil, anchors: [], archives: ["a1", "a2"])))
    // Bad inputs: no target, no or a bad day, a stray argument.
    #expect(usageError(["backup"])?.command == "backup")
    #expect(usageError(["backup", "--to", ""]) != nil)
    #expect(usageError(["backup", "--to", "b", "extra"]) != nil)
    #expect(usageError(["archive", "--to", "a"])?.command == "archive")
    for day in ["0", "-3", "x", "1.5"] {
      #expect(usageError(["archive", "--before-day", day, "--to", "a"]) != nil)
    }
    #expect(usageError(["archive", "--before-day", "3"]) != nil)
    #expect(usageError(["verify", "--archive"]) != nil)
  }

  @Test func socketWithoutAPathIsAUsageError() {
    var words = ["show", "--socket"]
    #expect(throws: UsageError("--socket needs a path")) {
      try GlobalOptions.extract(from: &words)
    }
  }
}
