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
    case "n": perform(Requests.NoSale()) { _ in self.say("Drawer opened (no sale).") }
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

  /// A ring-up that needs more: the options of a product that has them, or a gift card's
  /// amount.
  private func ringAgain(_ code: String, error: ReplyError) -> Bool {
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

  private func selected(_ what: String) -> Int? {
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
      self.perform(Requests.SetQty(line: line, quantity: quantity), onOrder: true)
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

  // MARK: Paying

  private func tender() {
    guard let order = state.order, !(order["lines"]?.arrayValue ?? []).isEmpty else {
      say("Nothing to pay for yet: scan an item first.", error: true)
      return
    }
    let due = order["balance_due"]?.displayText ?? ""
    ask(
      Prompt(
        label: "Pay \(due) with",
        quick: [
          Quick("c", "Cash"), Quick("k", "Card"), Quick("p", "Card terminal"),
          Quick("g", "Gift card"), Quick("s", "Store credit"), Quick("o", "Other"),
        ], isMenu: true)
    ) { kind in
      switch kind {
      case "c": self.cash(order)
      case "k": self.amount(due) { amount in self.card(amount) }
      case "p": self.amount(due) { amount in self.cardPresent(amount ?? self.dueMoney(order)) }
      case "g":
        self.ask(Prompt(label: "Gift card number", secret: true)) { number in
          self.amount(due, hint: "Enter: what the card covers") { amount in
            self.perform(Requests.Tender(.giftCard(number: number, amount: amount)))
          }
        }
      case "s":
        guard let customer = order["customer_id"]?.stringValue else {
          return self.say("Attach the customer first (c): store credit is theirs.", error: true)
        }
        self.amount(due, hint: "Enter: what the credit covers") { amount in
          self.perform(Requests.Tender(.storeCredit(customerID: customer, amount: amount)))
        }
      default:
        self.ask(Prompt(label: "Which store tender (check, voucher...)")) { name in
          self.amount(due) { amount in
            self.ask(Prompt(label: "Reference", hint: "Enter: none")) { reference in
              guard let amount = amount ?? self.dueMoney(order) else { return }
              self.perform(
                Requests.Tender(
                  .other(name: name, amount: amount, reference: reference.isEmpty ? nil : reference)
                ))
            }
          }
        }
      }
    }
  }

  /// The balance due as money (nil when there is none to read).
  private func dueMoney(_ order: JSONValue) -> Money? {
    order["balance_due"]?.stringValue.flatMap { try? TypedAmount.money($0, path: "amount") }
  }

  /// Cash: Enter takes the exact amount; quick keys the next notes up.
  private func cash(_ order: JSONValue) {
    let due = order["cash_due"]?.stringValue ?? order["balance_due"]?.stringValue ?? "0.00"
    let quick = Self.quickCash(due).enumerated().map { index, amount in
      Quick(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(index))), amount, value: amount)
    }
    ask(Prompt(label: "Cash received", hint: "Enter: exact \(due)", quick: quick)) { text in
      guard let amount = self.money(text.isEmpty ? due : text) else { return }
      self.perform(Requests.Tender(.cash(amount: amount)))
    }
  }

  /// The notes a customer is likely to hand over for `due`: the next multiple of 5, 10, 20,
  /// 50 and 100 above it (the first four different ones), with `due`'s decimals.
  static func quickCash(_ due: String) -> [String] {
    let parts = due.split(separator: ".", omittingEmptySubsequences: false)
    let decimals = parts.count > 1 ? parts[1].count : 0
    guard parts.count <= 2, decimals <= 4, let units = Int64(parts[0]), units >= 0,
      units < 1_000_000_000, let minor = Int64(parts.count > 1 ? String(parts[1]) : "0")
    else { return [] }
    var scale: Int64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let value = units * scale + minor
    var amounts: [Int64] = []
    for step in [5, 10, 20, 50, 100].map({ $0 * scale }) {
      let next = (value / step + 1) * step
      if !amounts.contains(next) { amounts.append(next) }
    }
    return amounts.sorted().prefix(4).map { amount in
      let whole = amount / scale
      return decimals == 0 ? "\(whole)" : "\(whole)." + String(repeating: "0", count: decimals)
    }
  }

  /// Asks for an amount (Enter: nil, the register's default); `then` gets it.
  private func amount(_ due: String, hint: String? = nil, then: @escaping (Money?) -> Void) {
    ask(Prompt(label: "Amount", hint: hint ?? "Enter: \(due), the balance")) { text in
      if text.isEmpty { return then(nil) }
      guard let amount = self.money(text) else { return }
      then(amount)
    }
  }

  /// A card typed at the lane: the number and the CVV never shown (bullets), never kept.
  private func card(_ amount: Money?) {
    ask(Prompt(label: "Card number", secret: true)) { number in
      self.ask(Prompt(label: "Expiry", hint: "MM/YY")) { expiryText in
        guard let expiry = CardExpiry(expiryText) else {
          return self.say("The expiry is MM/YY, like 12/30. The card was not charged.", error: true)
        }
        self.ask(Prompt(label: "CVV", secret: true)) { cvv in
          let card = CardInput(
            number: number, expiryMonth: expiry.month, expiryYear: expiry.year, cvv: cvv)
          self.perform(Requests.Tender(.card(card, amount: amount)))
        }
      }
    }
  }

  /// A payment the card terminal approved: its brand, last four digits and approval code.
  private func cardPresent(_ amount: Money?) {
    guard let amount else { return }
    let brands = [
      ("v", "VISA"), ("m", "MASTERCARD"), ("a", "AMEX"), ("d", "DISCOVER"), ("j", "JCB"),
      ("i", "DINERS"),
    ]
    ask(
      Prompt(
        label: "Card brand", quick: brands.map { Quick(Character($0.0), $0.1, value: $0.1) },
        isMenu: true)
    ) {
      brand in
      self.ask(Prompt(label: "Last 4 digits of the card")) { last4 in
        self.ask(Prompt(label: "Terminal's approval code")) { code in
          self.perform(
            Requests.Tender(
              .cardPresent(amount: amount, brand: brand, last4: last4, authCode: code)))
        }
      }
    }
  }

  // MARK: Returns, parked orders, customers

  private func returnItems() {
    ask(Prompt(label: "Receipt to return from", hint: "scan its code or type its number")) { text in
      guard let number = ReceiptCode.number(in: text.trimmingSpaces) else {
        return self.say(
          "\"\(text)\" is not a receipt number (like 42, or R42 as scanned).", error: true)
      }
      guard let reply = self.query(Requests.Receipt(number: number)) else {
        return self.say("The register cannot be reached; try the return again.", error: true)
      }
      guard case .success(_, let result) = reply else {
        if case .failure(_, let error) = reply { self.say(LaneWords.said(error), error: true) }
        return
      }
      let receipt = result["receipt"] ?? result
      let lines = (receipt["lines"]?.arrayValue ?? []).filter { $0["gift_card"] != .bool(true) }
      self.state.pane = .list(
        title: "Receipt \(number): what comes back?",
        rows: lines.map {
          LaneView.pad("line \($0["line"]?.displayText ?? "")", 9)
            + LaneView.pad("\($0["qty"]?.displayText ?? "") x", 6)
            + LaneView.pad($0["name"]?.displayText ?? "", 36) + ($0["amount"]?.displayText ?? "")
        })
      self.ask(Prompt(label: "Lines to return", hint: "like 1 3x2; Enter: all")) { picked in
        let everything = lines.compactMap { line -> ReturnRequestLine? in
          guard let number = line["line"]?.int64Value, let quantity = line["qty"]?.int64Value else {
            return nil
          }
          return ReturnRequestLine(line: Int(number), quantity: quantity)
        }
        guard let chosen = picked.isEmpty ? everything : Self.returnLines(picked) else {
          return self.say(
            "Type line numbers, each with x and a quantity if not all: 1 3x2", error: true)
        }
        self.ask(Prompt(label: "Reason for the return")) { reason in
          self.ask(
            Prompt(
              label: "Refund to",
              quick: [Quick("t", "How it was paid"), Quick("s", "Store credit")], isMenu: true)
          ) { destination in
            let refund: RefundDestination =
              destination == "s" ? .storeCredit(customerID: nil) : .tenders
            self.perform(
              Requests.Return(receipt: number, lines: chosen, reason: reason, refundTo: refund)
            ) {
              result in
              let refunds = (result["receipt"]?["refunds"]?.arrayValue ?? []).map {
                "\(TenderWords.label($0["type"]?.displayText ?? "")) \($0["amount"]?.displayText ?? "")"
              }
              self.say(
                "Returned on receipt \(result["number"]?.displayText ?? ""). Refund: "
                  + (refunds.isEmpty ? "nothing" : refunds.joined(separator: ", ")) + ".")
            }
          }
        }
      }
    }
  }

  /// "1 3x2" as return lines: line 1 whole is not known here, so a line without a quantity is
  /// one unit; nil when the text is not that form.
  static func returnLines(_ text: String) -> [ReturnRequestLine]? {
    var lines: [ReturnRequestLine] = []
    for word in text.split(whereSeparator: { $0 == " " || $0 == "," }) {
      let parts = word.split(separator: "x", omittingEmptySubsequences: false)
      guard (1...2).contains(parts.count), let line = Int(parts[0]), line > 0,
        let quantity = parts.count == 2 ? Int64(parts[1]) : 1, quantity > 0
      else { return nil }
      lines.append(ReturnRequestLine(line: line, quantity: quantity))
    }
    return lines.isEmpty ? nil : lines
  }

  private func park() {
    guard !state.lineNumbers.isEmpty else {
      return say("There is nothing to park.", error: true)
    }
    ask(Prompt(label: "Note for the parked order", hint: "Enter: none")) { note in
      self.perform(Requests.Park(note: note.isEmpty ? nil : note)) { result in
        let id = result["parked"]?["order_id"]?.displayText ?? ""
        self.say("Order \(id) parked: l resumes it on any lane.")
      }
    }
  }

  private func parkedOrders() {
    guard case .success(_, let result)? = query(Requests.Parked()) else {
      return say("The register cannot be reached.", error: true)
    }
    let parked = result["parked"]?.arrayValue ?? []
    guard !parked.isEmpty else { return say("No orders are parked.") }
    state.pane = .list(
      title: "Parked orders",
      rows: parked.prefix(9).map { order in
        LaneView.pad("order \(order["order_id"]?.displayText ?? "")", 12)
          + LaneView.pad(Words.count(order["item_count"]?.int64Value ?? 0, "item"), 10)
          + LaneView.padLeft(order["total"]?.displayText ?? "", 10) + "  "
          + (order["note"]?.stringValue ?? "")
      })
    let quick = parked.prefix(9).enumerated().map { index, order in
      Quick(
        Character(String(index + 1)), "Order \(order["order_id"]?.displayText ?? "")",
        value: order["order_id"]?.displayText ?? "")
    }
    ask(Prompt(label: "Resume which order", quick: quick, isMenu: true)) { id in
      guard let number = Int(id) else { return }
      self.perform(Requests.Resume(orderID: number)) { _ in self.say("Order \(number) resumed.") }
    }
  }

  private func customer() {
    if let name = state.order?["customer_name"]?.stringValue
      ?? state.order?["customer_id"]?.stringValue
    {
      ask(
        Prompt(
          label: "Customer \(name)", quick: [Quick("d", "Detach"), Quick("f", "Find another")],
          isMenu: true)
      ) {
        choice in
        if choice == "d" {
          self.perform(Requests.DetachCustomer()) { _ in self.say("Customer detached.") }
        } else {
          self.findCustomer()
        }
      }
      return
    }
    findCustomer()
  }

  private func findCustomer() {
    ask(Prompt(label: "Find customer", hint: "name, e-mail or phone")) { query in
      guard
        case .success(_, let result)? = self.query(Requests.CustomerFind(query: query, limit: 9))
      else {
        return self.say("The register cannot be reached.", error: true)
      }
      let found = result["customers"]?.arrayValue ?? []
      let attach = { (customer: JSONValue) in
        guard let id = customer["customer_id"]?.stringValue ?? customer["id"]?.stringValue else {
          return
        }
        self.perform(Requests.AttachCustomer(customerID: id)) { _ in
          self.say("Customer \(customer["name"]?.displayText ?? id) attached.")
        }
      }
      switch found.count {
      case 0: self.say("No customer matches \"\(query)\".", error: true)
      case 1: attach(found[0])
      default:
        self.state.pane = .list(
          title: "Customers matching \"\(query)\"",
          rows: found.map {
            LaneView.pad($0["name"]?.displayText ?? "", 28)
              + LaneView.pad($0["email"]?.stringValue ?? "", 30)
              + ($0["phone"]?.stringValue ?? "")
          })
        let quick = found.indices.map {
          Quick(Character(String($0 + 1)), found[$0]["name"]?.displayText ?? "")
        }
        self.ask(Prompt(label: "Which customer", quick: quick, isMenu: true)) { pick in
          guard let index = Int(pick), found.indices.contains(index - 1) else { return }
          attach(found[index - 1])
        }
      }
    }
  }

  // MARK: The day, the printer, people

  private func xReport() {
    guard case .success(_, let result)? = query(Requests.Report(kind: .x)) else {
      return say("The register cannot be reached.", error: true)
    }
    let text = result["text"]?.stringValue ?? ""
    state.pane = .text(
      title: "X report (the day so far)",
      lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
  }

  private func reprint() {
    guard let reply = query(Requests.Print()) else {
      return say("The register cannot be reached.", error: true)
    }
    switch reply {
    case .success:
      say("The last receipt is printing again.")
    case .failure(_, let error) where error.code == .noPrinter:
      guard case .success(_, let result)? = query(Requests.Receipt()) else {
        return say("No sale has been completed yet.", error: true)
      }
      let text = result["text"]?.stringValue ?? ""
      state.pane = .text(
        title: "Receipt \(result["number"]?.displayText ?? "") (no printer: shown here)",
        lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    case .failure(_, let error):
      say(LaneWords.said(error), error: true)
    }
  }

  private func signInOrOut() {
    if let who = state.signedIn {
      perform(Requests.SignOut()) { _ in
        self.refreshStatus()
        self.say("\(who) signed out.")
      }
      return
    }
    ask(Prompt(label: "Sign in: your operator ID")) { id in
      self.ask(Prompt(label: "PIN for \(id)", secret: true)) { pin in
        self.perform(Requests.SignIn(operatorID: id, pin: pin)) { result in
          self.refreshStatus()
          self.say("Signed in: \(result["name"]?.displayText ?? id).")
        }
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
