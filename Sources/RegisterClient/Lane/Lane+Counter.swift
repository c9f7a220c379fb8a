import RegisterEngine
import RegisterServer

/// The rest of a cashier's counter work: returns, parked orders, customers, the drawer, gift
/// cards, the X report, reprints, and signing in and out.
extension Lane {
  // MARK: Returns, parked orders, customers

  func returnItems() {
    ask(Prompt(label: "Receipt to return from", hint: "scan its code or type its number")) { text in
      guard let number = ReceiptCode.number(in: text.trimmingSpaces) else {
        return self.say(
          "\"\(text)\" is not a receipt number (like 42, or R42 as scanned).", error: true)
      }
      self.returnItems(from: number)
    }
  }

  /// The return from receipt `number`: its lines listed, the ones coming back picked, the
  /// reason, and where the refund goes.
  func returnItems(from number: Int) {
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

  func park() {
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

  func parkedOrders() {
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

  func customer() {
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
      case 0: self.offerNewCustomer(query)
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

  /// None found: the customer can be added here and now (a name, then an e-mail address and a
  /// phone number, each optional), and is attached.
  private func offerNewCustomer(_ query: String) {
    ask(
      Prompt(
        label: "No customer matches \"\(query)\"", quick: [Quick("a", "Add a new customer")],
        isMenu: true)
    ) { _ in
      self.ask(Prompt(label: "New customer's name")) { name in
        self.ask(Prompt(label: "E-mail", hint: "Enter: none")) { email in
          self.ask(Prompt(label: "Phone", hint: "Enter: none")) { phone in
            let request = Requests.CustomerAdd(
              name: name.trimmingSpaces, email: email.isEmpty ? nil : email.trimmingSpaces,
              phone: phone.isEmpty ? nil : phone.trimmingSpaces)
            self.perform(request) { added in
              guard let id = added["customer_id"]?.stringValue else { return }
              self.perform(Requests.AttachCustomer(customerID: id)) { _ in
                self.say("Customer \(added["name"]?.displayText ?? id) added (\(id)) and attached.")
              }
            }
          }
        }
      }
    }
  }

  // MARK: The drawer, gift cards

  /// The drawer's moves: opened with no sale (a manager's), the float counted in, cash paid
  /// in or out with a reason.
  func drawer() {
    ask(
      Prompt(
        label: "Drawer",
        quick: [
          Quick("n", "No sale"), Quick("f", "Float"), Quick("i", "Paid in"),
          Quick("o", "Paid out"),
        ], isMenu: true)
    ) { choice in
      let said = { (what: String) in
        { (result: JSONValue) in
          let expected = result["drawer"]?["expected_cash"]?.displayText ?? ""
          self.say("\(what) The drawer should hold \(expected).")
        }
      }
      switch choice {
      case "n": self.perform(Requests.NoSale(), then: said("Drawer opened (no sale)."))
      case "f":
        self.ask(Prompt(label: "Float counted into the drawer")) { text in
          guard let amount = self.money(text) else { return }
          self.perform(
            Requests.SetFloat(amount: amount), then: said("Float set to \(self.shown(amount))."))
        }
      default:
        let paidIn = choice == "i"
        self.ask(Prompt(label: paidIn ? "Cash paid in" : "Cash paid out")) { text in
          guard let amount = self.money(text) else { return }
          self.ask(Prompt(label: "What for")) { reason in
            let done = said("\(paidIn ? "Paid in" : "Paid out") \(self.shown(amount)).")
            if paidIn {
              self.perform(Requests.PaidIn(amount: amount, reason: reason), then: done)
            } else {
              self.perform(Requests.PaidOut(amount: amount, reason: reason), then: done)
            }
          }
        }
      }
    }
  }

  /// A gift card's balance, or money loaded onto one (a line of the sale: the card has it once
  /// the sale is paid). The number is typed as bullets, as when paying with one.
  func giftCard() {
    ask(
      Prompt(
        label: "Gift card", quick: [Quick("b", "Balance"), Quick("r", "Load money onto it")],
        isMenu: true)
    ) { choice in
      self.ask(Prompt(label: "Gift card number", secret: true)) { number in
        guard choice == "r" else {
          guard let reply = self.query(Requests.GiftCardBalance(number: number)) else {
            return self.say("The register cannot be reached.", error: true)
          }
          switch reply {
          case .success(_, let result):
            let card = result["gift_card"]
            self.say(
              "Gift card \(card?["number"]?.displayText ?? ""): balance "
                + "\(card?["balance"]?.displayText ?? "").")
          case .failure(_, let error):
            self.say(LaneWords.said(error), error: true)
          }
          return
        }
        self.ask(Prompt(label: "Amount to load")) { text in
          guard let amount = self.money(text) else { return }
          self.perform(Requests.GiftCardReload(number: number, amount: amount), onOrder: true) {
            _ in
            self.say(
              "\(self.shown(amount)) to load onto the gift card: the card has it once the sale is paid."
            )
          }
        }
      }
    }
  }

  // MARK: The day, the printer, people

  func xReport() {
    guard case .success(_, let result)? = query(Requests.Report(kind: .x)) else {
      return say("The register cannot be reached.", error: true)
    }
    let text = result["text"]?.stringValue ?? ""
    state.pane = .text(
      title: "X report (the day so far)",
      lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
  }

  func reprint() {
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

  func signInOrOut() {
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
}
