import RegisterEngine

/// A place on the screen that a click (or a touch) acts on: a key of the legend, or a line
/// of the order to select.
package struct ClickTarget: Equatable {
  package enum Action: Equatable {
    case key(Key)
    case selectLine(Int)
  }

  package var row: Int
  package var columns: Range<Int>
  package var action: Action

  package init(row: Int, columns: Range<Int>, key: Key) {
    self.init(row: row, columns: columns, action: .key(key))
  }

  package init(row: Int, columns: Range<Int>, action: Action) {
    self.row = row
    self.columns = columns
    self.action = action
  }
}

/// Draws the lane screen from a `LaneState`, for any size from 80×24 up (smaller still draws,
/// with less room for the order): a bar with the store and the order, the order's lines, the
/// totals with the total in big digits, a status bar, the message line, the input line and
/// the legend of the keys that work now. A pure function: the same state draws the same frame.
package enum LaneView {
  /// The keys of the ringing screen, in the legend's order: the key, its label, and the
  /// function key that does the same.
  package static let commands: [(key: Character, label: String, function: Int?)] = [
    ("q", "Qty", 2), ("v", "Void", 3), ("d", "Disc", 4), ("o", "Disc order", nil),
    ("p", "Price", 5), ("c", "Cust", 6), ("k", "Park", 7), ("l", "Parked", 8),
    ("t", "Tender", 9), ("h", "Help", 1), ("r", "Return", 10), ("g", "Gift card", nil),
    ("n", "Drawer", 11), ("x", "X report", 12), ("e", "Reprint", nil), ("s", "Sign in", nil),
    ("a", "Void sale", nil),
  ]

  /// The help page: every key, with its function key.
  package static var helpLines: [String] {
    var lines = [
      "Scan, or type a barcode or SKU (capital letters) and press Enter.",
      "Type a quantity and * (or x) before a scan to ring up several: 3*",
      "Up/Down select a line; Delete removes it (before any payment).",
      "",
    ]
    for command in commands {
      let function = command.function.map { "F\($0)" } ?? ""
      lines.append(
        "  " + pad(function, 4) + pad(String(command.key), 3) + command.label
          + (helpDetail[command.key].map { " - \($0)" } ?? ""))
    }
    lines += ["", "  Esc cancels a question; Ctrl-C leaves the lane screen."]
    return lines
  }

  private static let helpDetail: [Character: String] = [
    "q": "change the selected line's quantity", "v": "void the selected line",
    "d": "discount the selected line", "o": "discount the whole order",
    "p": "override the selected line's price", "c": "find and attach a customer, or detach",
    "k": "park the order", "l": "parked orders: resume one",
    "t": "take a payment (cash, card, gift card, store credit...)",
    "r": "return items from a receipt (or scan its barcode)",
    "g": "a gift card's balance, or money loaded onto one",
    "n": "the drawer: no sale, the float, paid in, paid out",
    "x": "the day so far", "e": "print the last receipt again",
    "s": "sign in, or sign out", "a": "void the whole order",
  ]

  package static func render(_ state: LaneState, width: Int, height: Int) -> (
    Frame, [ClickTarget]
  ) {
    var frame = Frame(width: width, height: height)
    var targets: [ClickTarget] = []
    let bar = CellStyle(reverse: true, color: CellStyle.cyan)
    let dim = CellStyle(dim: true)
    // Rows: the bar, the column heads, the lines, a rule, 3 of totals, the status bar, the
    // message (two rows when it is long: a refusal is never cut short), the input line and 2
    // of legend.
    let message = state.message.map { wrap(" " + $0.text, width: width) } ?? []
    let messageRows = max(1, min(2, message.count))
    let linesTop = 2
    let linesCount = max(1, height - 10 - messageRows)
    let rule = linesTop + linesCount
    let totalsTop = rule + 1
    let statusRow = totalsTop + 3
    let messageRow = statusRow + 1
    let inputRow = messageRow + messageRows
    let legendRow = inputRow + 1

    // The bar.
    frame.fill(row: 0, style: bar)
    frame.put(" " + state.store, row: 0, style: bar)
    let order = state.shownOrder
    var right: [String] = []
    if let day = state.day { right.append("Day \(day)") }
    if let id = order?["order_id"]?.displayText {
      let status = order?["status"] == "completed" ? " (done)" : ""
      right.append("Order \(id)\(status)")
    }
    if let count = order?["item_count"]?.int64Value {
      right.append(count == 1 ? "1 item" : "\(count) items")
    }
    let rightText = right.joined(separator: "  ") + " "
    frame.put(rightText, row: 0, column: max(0, width - rightText.count), style: bar)

    switch state.pane {
    case .order:
      frame.put(orderHeader(width), row: 1, style: dim)
      drawLines(
        state, order: order, into: &frame, top: linesTop, count: linesCount, width: width,
        targets: &targets)
    case .text(let title, let lines):
      let first = max(0, min(state.textScroll, lines.count - linesCount))
      let more =
        lines.count > linesCount
        ? "  (\(first + 1)–\(min(lines.count, first + linesCount)) of \(lines.count) lines)" : ""
      frame.put(" " + title + more, row: 1, style: CellStyle(bold: true))
      for (index, line) in lines.dropFirst(first).prefix(linesCount).enumerated() {
        frame.put(" " + line, row: linesTop + index)
      }
    case .list(let title, let rows):
      frame.put(" " + title, row: 1, style: CellStyle(bold: true))
      for (index, row) in rows.prefix(linesCount).enumerated() {
        frame.put(" " + pad("\(index + 1).", 4) + row, row: linesTop + index)
        targets.append(
          ClickTarget(
            row: linesTop + index, columns: 0..<width,
            key: .character(Character(String((index + 1) % 10)))))
      }
    }
    frame.put(String(repeating: "─", count: width), row: rule, style: dim)
    drawTotals(order, into: &frame, top: totalsTop, width: width)

    // The status bar.
    frame.fill(row: statusRow, style: bar)
    var status: [String] = []
    if state.hasOperators {
      status.append(state.signedIn ?? "Nobody signed in")
    }
    if let name = order?["customer_name"]?.stringValue ?? order?["customer_id"]?.stringValue {
      status.append("Customer \(name)")
    }
    // A device that is well is named only where there is room: one that is not always is.
    var devices: [(text: String, isWell: Bool)] = []
    if let printer = state.printer {
      devices.append(("Printer \(printer.replacing("_", with: " "))", printer == "ok"))
    }
    if let display = state.display { devices.append(("Display \(display)", display == "ok")) }
    let drawer = state.drawer.map { ["Drawer \($0)"] } ?? []
    let connection: String
    switch state.connection {
    case .connecting: connection = "connecting… "
    case .online: connection = state.readOnly ? "cannot save! " : "online "
    case .offline:
      connection =
        "OFFLINE, reconnecting" + (state.waiting > 0 ? " (\(state.waiting) waiting)" : "") + " "
    }
    // Where it does not all fit, the devices that are well go first, then the drawer.
    let unwell = devices.filter { !$0.isWell }.map(\.text)
    let fits = { (parts: [String]) in
      parts.joined(separator: " · ").count + connection.count + 2 <= width
    }
    let shown =
      [status + devices.map(\.text) + drawer, status + unwell + drawer].first(where: fits)
      ?? status + unwell
    frame.put(" " + shown.joined(separator: " · "), row: statusRow, style: bar)
    var connectionStyle = bar
    if state.connection != .online || state.readOnly {
      connectionStyle = CellStyle(bold: true, reverse: true, color: CellStyle.red)
    }
    frame.put(
      connection, row: statusRow, column: max(0, width - connection.count), style: connectionStyle)

    // The message.
    if let isError = state.message?.isError {
      let style =
        isError ? CellStyle(bold: true, color: CellStyle.red) : CellStyle(color: CellStyle.green)
      for (index, text) in message.prefix(messageRows).enumerated() {
        frame.put(text, row: messageRow + index, style: style)
      }
    }

    // The input line: the prompt's question, or the code being typed.
    if let prompt = state.prompt {
      let shown = prompt.secret ? String(repeating: "•", count: prompt.text.count) : prompt.text
      let hint = prompt.hint.isEmpty ? "" : " (\(prompt.hint))"
      let label = " \(prompt.label)\(hint): "
      frame.put(label, row: inputRow, style: CellStyle(bold: true))
      if !prompt.isMenu {
        frame.put(shown, row: inputRow, column: label.count)
        frame.put(
          " ", row: inputRow, column: label.count + shown.count, style: CellStyle(reverse: true))
      }
    } else if case .text = state.pane {
      frame.put(" Up/Down scroll; any other key goes back.", row: inputRow, style: dim)
    } else {
      let quantity = state.quantity.map { "\($0) × " } ?? ""
      let label = " Scan or type a code: "
      frame.put(label, row: inputRow, style: CellStyle(bold: true))
      frame.put(quantity + state.input, row: inputRow, column: label.count)
      frame.put(
        " ", row: inputRow, column: label.count + quantity.count + state.input.count,
        style: CellStyle(reverse: true))
    }

    // The legend: the keys that work now, each a click target.
    var legend: [(String, String, Key)] = []
    if let prompt = state.prompt {
      for quick in prompt.quick {
        legend.append((String(quick.key), quick.label, .character(quick.key)))
      }
      if !prompt.isMenu { legend.append(("Enter", "OK", .enter)) }
      legend.append(("Esc", "Cancel", .escape))
    } else if case .text = state.pane {
      legend.append(("Esc", "Back", .escape))
    } else {
      for command in commands {
        // (The sign-in key signs out when someone is signed in.)
        let label = command.key == "s" && state.signedIn != nil ? "Sign out" : command.label
        legend.append((String(command.key), label, .character(command.key)))
      }
      legend.append(("^C", "Quit", .control("c")))
    }
    var row = legendRow
    var column = 1
    for (key, label, value) in legend {
      let length = key.count + 1 + label.count
      if column + length > width {
        row += 1
        column = 1
        if row >= height { break }
      }
      frame.put(key, row: row, column: column, style: CellStyle(bold: true, reverse: true))
      frame.put(" " + label, row: row, column: column + key.count)
      targets.append(ClickTarget(row: row, columns: column..<(column + length), key: value))
      column += length + 1
    }
    return (frame, targets)
  }

  /// The order's column heads.
  static func orderHeader(_ width: Int) -> String {
    let name = max(8, width - 25)
    return "  " + pad("#", 4) + padLeft("Qty", 4) + "  " + pad("Item", name) + padLeft("Amount", 11)
  }

  /// One row per line, and one under it for what changed its price (the way the receipt says
  /// it: the unit price, a sale, an override, a discount, a promotion); the selected line
  /// marked, kept in view.
  private static func drawLines(
    _ state: LaneState, order: JSONValue?, into frame: inout Frame, top: Int, count: Int,
    width: Int, targets: inout [ClickTarget]
  ) {
    let lines = order?["lines"]?.arrayValue ?? []
    if lines.isEmpty {
      frame.put("  (no items yet: scan one)", row: top, style: CellStyle(dim: true))
      return
    }
    let isOpen = order?["status"] != "completed" && state.order.map { $0 == order } ?? false
    let selected = isOpen ? state.currentLine : nil
    var rows: [(text: String, style: CellStyle, line: Int?)] = []
    var selectedEnd = 0
    let nameWidth = max(8, width - 25)
    for line in lines {
      let number = line["line"]?.int64Value.map { Int($0) }
      let voided = line["voided"] == .bool(true)
      let isSelected = number != nil && number == selected
      let amount = voided ? "VOID" : line["amount"]?.displayText ?? ""
      let text =
        (isSelected ? "> " : "  ") + pad(line["line"]?.displayText ?? "", 4)
        + padLeft(line["qty"]?.displayText ?? "", 4) + "  "
        + pad(line["name"]?.displayText ?? "", nameWidth) + padLeft(amount, 11)
      let style =
        isSelected ? CellStyle(reverse: true) : voided ? CellStyle(dim: true) : CellStyle.plain
      rows.append((text, style, number))
      let notes = Self.notes(line)
      if !notes.isEmpty {
        rows.append(("            " + notes.joined(separator: " · "), CellStyle(dim: true), number))
      }
      if isSelected { selectedEnd = rows.count }
    }
    // Keep the selected line (the newest, by default) in view.
    let first = max(0, min(rows.count - count, max(0, selectedEnd - count)))
    for (index, row) in rows[first...].prefix(count).enumerated() {
      frame.put(row.text, row: top + index, style: row.style)
      if row.style.reverse {
        frame.fill(row: top + index, column: row.text.count, style: row.style)
      }
      if let line = row.line, isOpen {
        targets.append(ClickTarget(row: top + index, columns: 0..<width, action: .selectLine(line)))
      }
    }
  }

  /// What a line's price owes to, as the receipt shows it.
  static func notes(_ line: JSONValue) -> [String] {
    var notes: [String] = []
    if let options = line["options"]?.objectValue {
      notes.append(
        options.members.map { "\($0.key) \($0.value.displayText)" }.joined(separator: ", "))
    }
    if (line["qty"]?.int64Value ?? 1) > 1 {
      notes.append("@ \(line["unit_price"]?.displayText ?? "")")
    }
    if let regular = line["regular_price"]?.stringValue, line["override"] == nil {
      notes.append("sale, reg \(regular)")
    }
    if let override = line["override"] {
      notes.append(
        "price changed, was \(override["was"]?.displayText ?? "") (\(override["reason"]?.displayText ?? ""))"
      )
    }
    if let discount = line["discount_amount"]?.stringValue {
      notes.append("discount -\(discount) (\(line["discount"]?["reason"]?.displayText ?? ""))")
    }
    if let promotion = line["promotion_discount"]?.stringValue {
      notes.append("promotion -\(promotion)")
    }
    if let card = line["reloads"]?.stringValue { notes.append("reloads \(card)") }
    return notes
  }

  /// The totals on the left in pairs, the total in big digits on the right.
  private static func drawTotals(_ order: JSONValue?, into frame: inout Frame, top: Int, width: Int)
  {
    guard let order else { return }
    let text = { (name: String) in order[name]?.displayText ?? "" }
    var items: [(String, String)] = [("Subtotal", text("subtotal"))]
    if let savings = order["promotion_savings"]?.stringValue {
      items.append(("Promotions", "-" + savings))
    }
    if let discount = order["discount_total"]?.stringValue, Self.isNonZero(discount) {
      items.append(("Discounts", "-" + discount))
    }
    items.append((order["tax_included"] == .bool(true) ? "Tax incl." : "Tax", text("tax")))
    let completed = order["status"] == "completed"
    if !(order["tenders"]?.arrayValue ?? []).isEmpty { items.append(("Paid", text("paid"))) }
    if completed {
      items.append(("Change", text("change_due")))
    } else if let cash = order["cash_due"]?.stringValue, cash != text("balance_due") {
      items.append(("Due", text("balance_due") + " (cash \(cash))"))
    } else {
      items.append(("Due", text("balance_due")))
    }
    for (index, item) in items.prefix(6).enumerated() {
      let row = top + index / 2
      let column = 1 + (index % 2) * 26
      let bold = item.0 == "Due" || item.0 == "Change"
      frame.put(
        pad(item.0, 11) + padLeft(item.1, 12), row: row, column: column,
        style: CellStyle(bold: bold))
    }
    let total = text("total")
    let digits = BigDigits.render(total)
    let digitsWidth = digits.first?.count ?? 0
    if width - digitsWidth - 7 >= 53 {
      let column = width - digitsWidth - 1
      frame.put("TOTAL", row: top + 1, column: column - 6, style: CellStyle(bold: true))
      for (index, row) in digits.enumerated() {
        frame.put(row, row: top + index, column: column, style: CellStyle(bold: true))
      }
    } else {
      frame.put(
        "TOTAL " + total, row: top + 2, column: max(0, width - total.count - 7),
        style: CellStyle(bold: true))
    }
  }

  /// `text` in rows of at most `width` columns, broken between words where it can be (the
  /// rows after the first indented by one, as the first is).
  static func wrap(_ text: String, width: Int) -> [String] {
    var rows: [String] = []
    var rest = Substring(text)
    let room = max(2, width)
    while rest.count > room {
      let slice = rest.prefix(room)
      let cut =
        slice.lastIndex(of: " ").flatMap { $0 > slice.startIndex ? $0 : nil } ?? slice.endIndex
      rows.append(String(rest[..<cut]))
      rest = " " + rest[cut...].drop { $0 == " " }
    }
    rows.append(String(rest))
    return rows
  }

  static func isNonZero(_ amount: String) -> Bool {
    amount.contains { $0 != "0" && $0 != "." && $0 != "," }
  }

  static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width
      ? String(text.prefix(max(0, width - 1))) + " "
      : text + String(repeating: " ", count: width - text.count)
  }

  static func padLeft(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
  }
}
