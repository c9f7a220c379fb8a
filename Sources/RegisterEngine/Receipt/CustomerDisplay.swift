/// What the customer display shows — `register-cli watch` on a terminal, and the pole display
/// registerd drives (`--display`, `poleLines`) — as a pure function of the live
/// events and the order after each (no terminal, no socket): a welcome screen while no order
/// is open, then the last item rung up and the total in big digits, what is paid and due, and
/// after the sale a thank-you with the change — until the next order starts or the display
/// goes idle (`idle()`), which brings the welcome screen back.
package struct CustomerDisplay: Equatable {
  /// The three screens.
  package enum Screen: Equatable {
    case welcome
    case order
    case thanks
  }

  /// The line most recently rung up (or changed): its name, quantity and amount, and the
  /// promotion it earned (its name and the line's share of the saving), shown with it.
  package struct Item: Equatable {
    package init(name: String, quantity: String, amount: String, promotion: Promotion? = nil) {
      self.name = name
      self.quantity = quantity
      self.amount = amount
      self.promotion = promotion
    }

    package var name: String
    package var quantity: String
    package var amount: String
    package var promotion: Promotion?
  }

  /// A promotion a line earned: its name and what it took off the line.
  package struct Promotion: Equatable {
    package var name: String
    package var saving: String

    package init(name: String, saving: String) {
      self.name = name
      self.saving = saving
    }
  }

  package var screen = Screen.welcome
  /// The store's name, for the welcome (from `hello`).
  package var store: String?
  package var lastItem: Item?
  package var itemCount: Int64 = 0
  package var total = "0.00"
  /// What the tenders paid so far, when something was.
  package var paid: String?
  package var balanceDue: String?
  /// After a sale: its receipt number and the change.
  package var receipt: String?
  package var change: String?

  package init(store: String? = nil) {
    self.store = store
  }

  /// Events that change the order (and so the display); others leave it as it is.
  package static let orderEvents: Set<String> = [
    EventType.lineAdded.rawValue, EventType.lineRemoved.rawValue, EventType.quantitySet.rawValue,
    EventType.tenderAdded.rawValue, EventType.discountSet.rawValue,
    EventType.priceOverridden.rawValue, EventType.lineVoided.rawValue,
    EventType.orderVoided.rawValue, EventType.orderParked.rawValue,
    EventType.orderResumed.rawValue, EventType.customerAttached.rawValue,
    EventType.customerDetached.rawValue,
  ]

  /// Takes in one event (nil: the first look, before any) and the open order after it.
  package mutating func apply(event: JSONValue?, order: JSONValue?) {
    let type = event?["event"]?.stringValue
    let data = event?["data"]
    if type == EventType.saleCompleted.rawValue {
      screen = .thanks
      receipt = data?["receipt"]?.displayText
      change = data?["change"]?.stringValue ?? "0.00"
      balanceDue = nil
      return
    }
    // After a sale the thank-you stays until the next order changes (or the display idles).
    if screen == .thanks && !(type.map(Self.orderEvents.contains) ?? false) { return }
    guard let order else { return }
    // The order is read after the event; by then a tender may have completed the sale and
    // opened the next order. Only a parked or voided order is followed by a new one.
    if let id = data?["order_id"], id != order["order_id"],
      type != EventType.orderParked.rawValue && type != EventType.orderVoided.rawValue
    {
      return
    }
    let lines = (order["lines"]?.arrayValue ?? []).filter { $0["voided"] != .bool(true) }
    itemCount = order["item_count"]?.int64Value ?? 0
    guard !lines.isEmpty else {
      self = CustomerDisplay(store: store)
      return
    }
    screen = .order
    receipt = nil
    change = nil
    total = CustomerDisplay.text(order["total"])
    let tendered = !(order["tenders"]?.arrayValue ?? []).isEmpty
    paid = tendered ? CustomerDisplay.text(order["paid"]) : nil
    balanceDue = tendered ? CustomerDisplay.text(order["balance_due"]) : nil
    // The line the event is about, else the newest one left.
    let number = data?["line"]?["line"] ?? data?["line"]
    let line =
      [
        EventType.lineAdded.rawValue, EventType.quantitySet.rawValue,
        EventType.priceOverridden.rawValue, EventType.discountSet.rawValue,
      ].contains(type ?? "")
      ? lines.first { number != nil && $0["line"] == number } ?? lines.last : lines.last
    lastItem = line.map { line in
      // The promotion whose lines hold this one, with the line's share of its saving.
      let promotion = (order["promotions"]?.arrayValue ?? []).first { promotion in
        (promotion["lines"]?.arrayValue ?? []).contains { $0["line"] == line["line"] }
      }
      return Item(
        name: CustomerDisplay.text(line["name"]), quantity: CustomerDisplay.text(line["qty"]),
        amount: CustomerDisplay.text(line["amount"]),
        promotion: promotion.flatMap { promotion in
          line["promotion_discount"]?.stringValue.map {
            Promotion(name: CustomerDisplay.text(promotion["name"]), saving: $0)
          }
        })
    }
  }

  /// A JSON value as a display shows it (see `JSONValue.displayText`).
  static func text(_ value: JSONValue?) -> String { value?.displayText ?? "" }

  /// The columns of a pole display's line.
  package static let poleWidth = 20

  /// The screen on a two-line, 20-column pole display: the last item and its amount over the
  /// total while ringing up, the change after the sale, a welcome in between. Each line is
  /// exactly `poleWidth` characters (a long name is cut, the amount is kept whole).
  package func poleLines() -> [String] {
    let width = Self.poleWidth
    func fit(_ left: String, _ right: String) -> String {
      let room = max(0, width - right.count - (right.isEmpty ? 0 : 1))
      let cut = String(left.prefix(room))
      let space = max(0, width - cut.count - right.count)
      return String((cut + String(repeated: " ", count: space) + right).prefix(width))
    }
    func centered(_ text: String) -> String {
      let cut = String(text.prefix(width))
      let left = (width - cut.count) / 2
      return String(repeated: " ", count: left) + cut
        + String(repeated: " ", count: width - left - cut.count)
    }
    switch screen {
    case .welcome:
      return [centered("Welcome!"), centered(store ?? "")]
    case .order:
      let item = lastItem.map { item in
        fit(
          item.quantity == "1" || item.quantity.isEmpty
            ? item.name : "\(item.quantity) x \(item.name)", item.amount)
      }
      return [item ?? fit("", ""), fit("TOTAL", total)]
    case .thanks:
      return [centered("Thank you!"), fit("Change", change ?? "0.00")]
    }
  }

  /// How long the thank-you stays with nothing happening before the welcome comes back, on
  /// `register-cli watch` and on the pole display alike.
  package static let thanksMilliseconds = 8_000

  /// Nothing happened for a while: after a sale, back to the welcome for the next customer.
  package mutating func idle() {
    if screen == .thanks { self = CustomerDisplay(store: store) }
  }

  /// The screen as lines `width` columns wide; `big` draws the amounts in big digits (on a
  /// terminal), else they are plain text.
  package func lines(big: Bool, width: Int = 40) -> [String] {
    var out: [String] = []
    let rule = String(repeated: "=", count: width)
    switch screen {
    case .welcome:
      out.append(center("Welcome!", width))
      if let store { out.append(center(store, width)) }
      out.append(center("Your items will show here.", width))
    case .order:
      if let item = lastItem {
        let name =
          item.quantity == "1" || item.quantity.isEmpty
          ? item.name : "\(item.quantity) x \(item.name)"
        out.append(columns(name, item.amount, width))
        if let promotion = item.promotion {
          out.append(columns("  " + promotion.name, "-" + promotion.saving, width))
        }
      }
      out.append(String(repeated: "-", count: width))
      out += amount("TOTAL", total, big: big, width: width)
      out.append(columns("\(itemCount) item\(itemCount == 1 ? "" : "s")", "", width))
      if let paid, let balanceDue {
        out.append(columns("Paid \(paid)", "Due \(balanceDue)", width))
      }
    case .thanks:
      out.append(center("Thank you!", width))
      out.append(columns("Total", total, width))
      let change = change ?? "0.00"
      if change.allSatisfy({ $0 == "0" || $0 == "." }) {
        out.append(columns("Change", change, width))
      } else {
        out += amount("CHANGE", change, big: big, width: width)
      }
      if let receipt { out.append(center("Receipt \(receipt)", width)) }
    }
    return [rule] + out + [rule]
  }

  /// A labelled amount: in big digits under its label, or on one line.
  private func amount(_ label: String, _ value: String, big: Bool, width: Int) -> [String] {
    guard big else { return [columns(label, value, width)] }
    return [label] + BigDigits.render(value).map { right($0, width) }
  }

  private func columns(_ left: String, _ right: String, _ width: Int) -> String {
    if right.isEmpty { return left }
    let space = max(1, width - left.count - right.count)
    return left + String(repeated: " ", count: space) + right
  }

  private func center(_ text: String, _ width: Int) -> String {
    guard text.count < width else { return text }
    return String(repeated: " ", count: (width - text.count) / 2) + text
  }

  private func right(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeated: " ", count: width - text.count) + text
  }
}

/// Digits three lines high, drawn with `_` and `|` (as a seven-segment display), for the
/// total on the customer display.
package enum BigDigits {
  /// Each character's three rows.
  static let font: [Character: [String]] = [
    "0": [" _ ", "| |", "|_|"], "1": ["   ", "  |", "  |"], "2": [" _ ", " _|", "|_ "],
    "3": [" _ ", " _|", " _|"], "4": ["   ", "|_|", "  |"], "5": [" _ ", "|_ ", " _|"],
    "6": [" _ ", "|_ ", "|_|"], "7": [" _ ", "  |", "  |"], "8": [" _ ", "|_|", "|_|"],
    "9": [" _ ", "|_|", " _|"], ".": [" ", " ", "."], ",": [" ", " ", ","],
    "-": ["   ", " _ ", "   "], " ": [" ", " ", " "],
  ]

  /// `text` as three lines; a character without a glyph is written on the bottom line.
  package static func render(_ text: String) -> [String] {
    var rows = ["", "", ""]
    for character in text {
      let glyph = font[character] ?? [" ", " ", String(character)]
      for row in 0..<3 { rows[row] += glyph[row] }
    }
    return rows
  }
}

extension JSONValue {
  /// The value as people read it on a display or a terminal: a string without its quotes, a
  /// number as written, yes/no, `-` for null, anything else as JSON.
  package var displayText: String {
    switch self {
    case .string(let text): text
    case .number(let text): text
    case .bool(let flag): flag ? "yes" : "no"
    case .null: "-"
    case .array, .object: serialized
    }
  }
}
