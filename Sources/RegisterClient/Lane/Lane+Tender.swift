import RegisterEngine
import RegisterServer

/// Paying at the lane: cash with quick amounts, a card typed (never shown), a payment the card
/// terminal approved, a gift card, store credit and the store's own tenders.
extension Lane {
  // MARK: Paying

  func tender() {
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
            self.pay(.giftCard(number: number, amount: amount))
          }
        }
      case "s":
        guard let customer = order["customer_id"]?.stringValue else {
          return self.say("Attach the customer first (c): store credit is theirs.", error: true)
        }
        self.amount(due, hint: "Enter: what the credit covers") { amount in
          self.pay(.storeCredit(customerID: customer, amount: amount))
        }
      default: self.storeTender(order)
      }
    }
  }

  /// One of the store's own tenders (check, voucher), picked from the list registerd gives.
  private func storeTender(_ order: JSONValue) {
    guard !state.tenders.isEmpty else {
      return say("This store takes no tenders of its own (check, voucher).", error: true)
    }
    let due = order["balance_due"]?.displayText ?? ""
    let names = state.tenders.prefix(9)
    let quick = names.enumerated().map { index, name in
      Quick(Character(String(index + 1)), TenderWords.label("other \(name)"), value: name)
    }
    ask(Prompt(label: "Which of the store's tenders", quick: quick, isMenu: true)) { name in
      self.amount(due) { amount in
        self.ask(Prompt(label: "Reference", hint: "Enter: none")) { reference in
          guard let amount = amount ?? self.dueMoney(order) else { return }
          self.pay(
            .other(name: name, amount: amount, reference: reference.isEmpty ? nil : reference))
        }
      }
    }
  }

  /// Sends a payment; one that leaves a balance says what was taken and what is still due (a
  /// payment that completes the sale says so, with the change, as every completed sale does).
  func pay(_ tender: TenderRequest) {
    perform(Requests.Tender(tender)) { result in
      guard result["status"] != "completed", let taken = result["tenders"]?.arrayValue?.last
      else { return }
      let type = taken["type"]?.stringValue ?? ""
      let kind = taken["name"]?.stringValue ?? taken["card"]?["brand"]?.stringValue
      let label = TenderWords.label(kind.map { "\(type) \($0)" } ?? type)
      self.say(
        "\(label) \(taken["amount"]?.displayText ?? "") taken. "
          + "Still due: \(result["balance_due"]?.displayText ?? "").")
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
      self.pay(.cash(amount: amount))
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
          self.pay(.card(card, amount: amount))
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
          self.pay(.cardPresent(amount: amount, brand: brand, last4: last4, authCode: code))
        }
      }
    }
  }
}
