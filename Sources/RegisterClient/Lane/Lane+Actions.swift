import RegisterEngine
import RegisterServer

/// What the lane's keys do: ring up, change a line, pay, return, park, and the rest — each a
/// request (typed, with a fresh idempotency key when it changes something), asking on the
/// input line for what it needs first, and for a manager's approval when registerd says one is
/// needed.
extension Lane {
  typealias Prompt = LaneState.PromptView
  typealias Quick = LaneState.QuickKey

  func command(_ key: Character) {
    state.message = nil
    switch key {
    case "q": lineQuantity()
    case "v": voidLine()
    case "d": discount(line: true)
    case "o": discount(line: false)
    case "p": overridePrice()
    case "c": customer()
    case "k": park()
    case "l": parkedOrders()
    case "t": tender()
    case "r": returnItems()
    case "g": giftCard()
    case "n": drawer()
    case "x": xReport()
    case "e": reprint()
    case "s": signInOrOut()
    case "a": voidSale()
    case "h": state.pane = .text(title: "Keys", lines: LaneView.helpLines)
    default: say("\(key) does nothing here: h shows the keys.", error: true)
    }
  }

  func say(_ text: String, error: Bool = false) {
    state.message = LaneState.Message(text, isError: error)
  }

  // MARK: Ringing up

  /// Enter on the input line: the code rung up (with the quantity typed before it).
  func ring() {
    let code = state.input.trimmingSpaces
    state.input = ""
    let quantity = state.quantity
    state.quantity = nil
    state.message = nil
    guard !code.isEmpty else { return }
    if let quantity, quantity > 1 {
      // `add` takes a SKU or a barcode, as a scan does, with a quantity.
      perform(Requests.Add(sku: code, quantity: quantity), ringing: code)
    } else {
      perform(Requests.Scan(code: code), ringing: code)
    }
  }

  /// A ring-up that needs more: the options of a product that has them, a gift card's amount,
  /// or a receipt's code (a return).
  private func ringAgain(_ code: String, error: ReplyError) -> Bool {
    // A receipt's barcode scanned at the till: the customer is bringing something back.
    if error.code == .unknownBarcode, code.first == "R", let receipt = ReceiptCode.number(in: code)
    {
      returnItems(from: receipt)
      return true
    }
    guard error.code == .invalidOption || error.code == .invalidAmount,
      case .success(_, let found)? = query(Requests.ProductLookup(sku: code)),
      let product = found["product"] ?? Optional(found),
      let sku = product["sku"]?.stringValue
    else { return false }
    if error.code == .invalidAmount, product["open_amount"] == .bool(true) {
      ask(
        Prompt(label: "Amount for \(product["name"]?.displayText ?? sku)", hint: "5.00 to 500.00")
      ) {
        text in
        guard let amount = self.money(text) else { return }
        self.perform(Requests.Add(sku: sku, amount: amount))
      }
      return true
    }
    // The groups a product must have a choice of (the others can be left out).
    let groups = (product["options"]?.arrayValue ?? []).filter { $0["required"] == .bool(true) }
    guard error.code == .invalidOption, !groups.isEmpty else { return false }
    chooseOptions(sku: sku, groups: groups, chosen: [:])
    return true
  }

  /// Asks for each option group's choice in turn, then rings up the product with them.
  private func chooseOptions(sku: String, groups: [JSONValue], chosen: [String: String]) {
    guard
      let group = groups.first(where: { group in
        group["group"]?.stringValue.map { chosen[$0] == nil } ?? false
      }), let name = group["group"]?.stringValue
    else {
      perform(Requests.Add(sku: sku, options: chosen))
      return
    }
    let choices = (group["choices"]?.arrayValue ?? []).prefix(9)
    var quick: [Quick] = []
    for (index, choice) in choices.enumerated() {
      let label = choice["name"]?.displayText ?? ""
      let delta =
        choice["price_delta"]?.stringValue.map { LaneView.isNonZero($0) ? " +\($0)" : "" } ?? ""
      quick.append(Quick(Character(String(index + 1)), label + delta, value: label))
    }
    ask(Prompt(label: "\(sku): \(name)", quick: quick, isMenu: true)) { value in
      var chosen = chosen
      chosen[name] = value
      self.chooseOptions(sku: sku, groups: groups, chosen: chosen)
    }
  }

  // MARK: Lines

  func selected(_ what: String) -> Int? {
    guard let line = state.currentLine else {
      say("There is no line to \(what): scan an item first.", error: true)
      return nil
    }
    return line
  }

  private func lineQuantity() {
    guard let line = selected("change") else { return }
    ask(Prompt(label: "Quantity for line \(line)")) { text in
      guard let quantity = Int64(text), (1...9999).contains(quantity) else {
        self.say("A quantity is a whole number from 1 to 9999.", error: true)
        return
      }
      self.perform(Requests.SetQty(line: line, quantity: quantity), onOrder: true) { _ in
        self.say("Line \(line): quantity \(quantity).")
      }
    }
  }

  private func voidLine() {
    guard let line = selected("void") else { return }
    perform(Requests.VoidLine(line: line), onOrder: true) { _ in self.say("Line \(line) voided.") }
  }

  func removeLine() {
    guard let line = selected("remove") else { return }
    perform(Requests.Remove(line: line), onOrder: true) { _ in self.say("Line \(line) removed.") }
  }

  private func discount(line: Bool) {
    var target: Int?
    if line {
      guard let number = selected("discount") else { return }
      target = number
    }
    let what = target.map { "line \($0)" } ?? "the order"
    ask(Prompt(label: "Discount on \(what)", hint: "10% or 2.00; 0 takes it off")) { text in
      let value: DiscountValue
      do {
        value =
          text.hasSuffix("%")
          ? .percent(try TypedAmount.percent(String(text.dropLast()), path: "percent"))
          : .amount(try TypedAmount.money(text, path: "amount"))
      } catch {
        self.say(
          "\(text.isEmpty ? "Nothing" : "\"\(text)\"") is not a discount: type 10% or 2.00.",
          error: true)
        return
      }
      self.ask(Prompt(label: "Reason for the discount")) { reason in
        self.perform(
          Requests.Discount(line: target, value: value, reason: reason), onOrder: true
        ) { _ in self.say("Discount set on \(what).") }
      }
    }
  }

  private func overridePrice() {
    guard let line = selected("reprice") else { return }
    ask(Prompt(label: "New unit price for line \(line)")) { text in
      guard let price = self.money(text) else { return }
      self.ask(Prompt(label: "Reason for the new price")) { reason in
        self.perform(
          Requests.OverridePrice(line: line, unitPrice: price, reason: reason), onOrder: true
        ) { _ in self.say("Line \(line) repriced.") }
      }
    }
  }

  private func voidSale() {
    guard !state.lineNumbers.isEmpty else {
      say("There is nothing to void.", error: true)
      return
    }
    ask(
      Prompt(
        label: "Void the whole order?", quick: [Quick("y", "Yes, void it"), Quick("n", "No")],
        isMenu: true)
    ) {
      answer in
      guard answer == "y" else { return self.say("Nothing was voided.") }
      self.perform(Requests.Void(), onOrder: true) { result in
        let reversed = (result["reversed_tenders"]?.arrayValue ?? []).map {
          "\(TenderWords.label($0["type"]?.displayText ?? "")) \($0["amount"]?.displayText ?? "")"
        }
        self.say(
          "Order voided"
            + (reversed.isEmpty ? "." : "; give back: " + reversed.joined(separator: ", ") + "."))
      }
    }
  }

  // MARK: Sending

  /// Money typed by the cashier, or nil (and a message) when it is not an amount.
  func money(_ text: String) -> Money? {
    do {
      return try TypedAmount.money(text.trimmingSpaces, path: "amount")
    } catch {
      say("\"\(text)\" is not an amount: type it like 20 or 20.00.", error: true)
      return nil
    }
  }

  /// An amount the cashier typed, written as the store writes money ("20" → "20.00").
  func shown(_ amount: Money) -> String {
    guard let currency = state.currency.flatMap(Currency.init(code:)),
      amount.currency.minorDigits <= currency.minorDigits
    else { return amount.decimalString }
    var units = amount.minorUnits
    for _ in amount.currency.minorDigits..<currency.minorDigits {
      let (scaled, overflow) = units.multipliedReportingOverflow(by: 10)
      if overflow { return amount.decimalString }
      units = scaled
    }
    return Money(minorUnits: units, currency: currency).decimalString
  }

  /// Sends a change: a fresh key, the order's version when it acts on a line the cashier
  /// sees (`onOrder`: refused rather than applied to an order another screen has changed),
  /// and the approval, if one was given. Not connected: it waits, key and all, and is sent
  /// when registerd is back.
  func perform(
    _ body: any RequestBody, onOrder: Bool = false, approval: Approval? = nil,
    ringing code: String? = nil, then: ((JSONValue) -> Void)? = nil
  ) {
    var request = TypedRequest(body, envelope: RequestEnvelope(approval: approval))
    if onOrder {
      request.envelope.expectVersion = state.order?["version"]?.int64Value.map { Int($0) }
    }
    if request.op.isMutation {
      request.envelope.key = IdempotencyKey.random(RegisterService.systemRandom)
    }
    guard link.isOnline, let reply = link.send(request) else {
      goOffline()
      guard request.op.isMutation, approval == nil else {
        return say(
          "The register cannot be reached; nothing was done. Try again when it is back.",
          error: true)
      }
      waiting.append(request)
      state.waiting = waiting.count
      return say(
        "Not connected: \(waiting.count) waiting, sent when the register is back.", error: true)
    }
    take(reply, for: request, ringing: code, then: then)
  }

  /// A reply: the order it brings shown, or the refusal said — and for an approval needed,
  /// the manager asked for and the request sent again with it.
  func take(
    _ reply: Reply, for request: TypedRequest, ringing code: String? = nil,
    then: ((JSONValue) -> Void)?
  ) {
    switch reply {
    case .success(_, let result):
      absorb(result)
      then?(result)
    case .failure(_, let error):
      switch error.code {
      case .approvalRequired?:
        askApproval(
          for: request, needs: error.data?["needs"]?.stringValue, ringing: code, then: then)
      case .wrongPIN? where request.envelope.approval != nil:
        say(LaneWords.said(error), error: true)
        if let manager = request.envelope.approval?.operatorID {
          askPIN(manager: manager, for: request, ringing: code, then: then)
        }
      case .versionConflict?:
        if let order = error.data, order["lines"] != nil { state.order = order }
        say("The order changed on another screen: check it and try again.", error: true)
      default:
        if let code, ringAgain(code, error: error) { return }
        say(LaneWords.said(error), error: true)
      }
    }
  }

  private func askApproval(
    for request: TypedRequest, needs: String?, ringing code: String?, then: ((JSONValue) -> Void)?
  ) {
    let why = needs.map { $0.prefix(1).uppercased() + $0.dropFirst() } ?? "This needs a manager"
    say("\(why): a manager approves.")
    ask(Prompt(label: "Manager's ID")) { manager in
      self.askPIN(manager: manager, for: request, ringing: code, then: then)
    }
  }

  private func askPIN(
    manager: String, for request: TypedRequest, ringing code: String?, then: ((JSONValue) -> Void)?
  ) {
    ask(Prompt(label: "PIN for \(manager)", secret: true)) { pin in
      var again = request
      again.envelope.approval = Approval(operatorID: manager, pin: pin)
      // A refused request is not remembered: the approved one is a new request.
      again.envelope.key = IdempotencyKey.random(RegisterService.systemRandom)
      again.envelope.expectVersion = request.envelope.expectVersion.map { _ in
        self.state.order?["version"]?.int64Value.map { Int($0) } ?? 0
      }
      guard let reply = self.link.send(again) else {
        self.goOffline()
        return self.say("The register cannot be reached; nothing was done.", error: true)
      }
      self.take(reply, for: again, ringing: code, then: then)
    }
  }

  /// A result that is an order (most changes reply with one) becomes the order shown; a
  /// completed sale stays on screen with its change until the next order has a line.
  func absorb(_ result: JSONValue) {
    guard result["lines"] != nil, result["order_id"] != nil else { return }
    let before = state.lineNumbers
    if result["status"] == "completed" {
      state.completed = result
      let change = result["change_due"]?.displayText ?? "0.00"
      let receipt = result["receipt"]?["number"]?.displayText ?? ""
      say(
        LaneView.isNonZero(change)
          ? "Sale complete. CHANGE \(change). Receipt \(receipt)."
          : "Sale complete. Receipt \(receipt).")
      refreshOrder()
      return
    }
    state.order = result
    let after = state.lineNumbers
    if !after.isEmpty { state.completed = nil }
    if after.count > before.count || !after.contains(state.selectedLine ?? -1) {
      state.selectedLine = after.last
    }
  }
}

extension String {
  var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
