import RegisterEngine

/// Everything the lane screen shows, as plain values: what registerd said last (the open
/// order, who is signed in, the day, the printer, the drawer), the connection, and what the
/// cashier is doing (typing a code, answering a prompt, reading a list). `LaneView` draws it;
/// `Lane` changes it.
package struct LaneState {
  package enum Connection: Equatable {
    case connecting
    case online
    /// Lost; trying again. `waiting`: changes typed meanwhile, sent once it is back.
    case offline
  }

  /// What the middle of the screen shows.
  package enum Pane: Equatable {
    /// The order being rung up.
    case order
    /// A page of text: a report, a receipt, the keys' help. Any key goes back.
    case text(title: String, lines: [String])
    /// Numbered rows to choose from (parked orders, customers found) while a prompt asks which.
    case list(title: String, rows: [String])
  }

  /// The message line: the last confirmation or refusal, in a cashier's words.
  package struct Message: Equatable {
    package var text: String
    package var isError: Bool

    package init(_ text: String, isError: Bool = false) {
      self.text = text
      self.isError = isError
    }
  }

  /// A question on the input line: its label, what is typed (shown as bullets when
  /// `secret`), a hint, and single keys that answer at once.
  package struct PromptView: Equatable {
    package var label: String
    package var text = ""
    package var secret = false
    package var hint = ""
    /// Keys that answer the prompt at once (a quick cash amount, a menu choice).
    package var quick: [QuickKey] = []
    /// A menu: only the quick keys answer; nothing is typed.
    package var isMenu = false

    package init(
      label: String, secret: Bool = false, hint: String = "", quick: [QuickKey] = [],
      isMenu: Bool = false
    ) {
      self.label = label
      self.secret = secret
      self.hint = hint
      self.quick = quick
      self.isMenu = isMenu
    }
  }

  /// A key that answers a prompt with `value`.
  package struct QuickKey: Equatable {
    package var key: Character
    package var label: String
    package var value: String

    package init(_ key: Character, _ label: String, value: String? = nil) {
      self.key = key
      self.label = label
      self.value = value ?? String(key)
    }
  }

  package var store = ""
  /// The store's currency code (`hello`), for amounts the cashier types.
  package var currency: String?
  /// The open order (registerd's order object).
  package var order: JSONValue?
  /// The sale just completed, shown (with its change) until the next order has a line.
  package var completed: JSONValue?
  /// Who is signed in, as shown: "Amy Chen (cashier)"; nil: nobody.
  package var signedIn: String?
  /// False when the register has no operators at all (it runs open).
  package var hasOperators = false
  package var day: Int?
  /// The receipt printer's status, when the store has one.
  package var printer: String?
  /// The customer's pole display's status, when registerd drives one.
  package var display: String?
  /// The store's own tenders (check, voucher), as registerd lists them.
  package var tenders: [String] = []
  /// The cash the drawer should hold.
  package var drawer: String?
  /// registerd cannot write its journal: changes are refused.
  package var readOnly = false
  package var connection = Connection.connecting
  /// Changes made while registerd could not be reached, to be sent (each with its key) when
  /// it can.
  package var waiting = 0
  package var message: Message?
  /// What is typed on the input line (a code, a SKU).
  package var input = ""
  /// A quantity typed before the scan (`3*` or `3x`).
  package var quantity: Int64?
  /// The line selected (by its number on the order).
  package var selectedLine: Int?
  package var prompt: PromptView?
  package var pane = Pane.order {
    didSet { textScroll = 0 }
  }
  /// The first line of a text pane shown.
  package var textScroll = 0
  /// The terminal shows colour (off under `NO_COLOR`).
  package var colors = true

  package init() {}

  /// The lines of the order shown: the open order's, or the completed sale's while the new
  /// order is empty.
  package var shownOrder: JSONValue? {
    if let order, !(order["lines"]?.arrayValue ?? []).isEmpty { return order }
    return completed ?? order
  }

  /// The open order's line numbers, in order.
  package var lineNumbers: [Int] {
    (order?["lines"]?.arrayValue ?? []).compactMap { $0["line"]?.int64Value.map { Int($0) } }
  }

  /// The selected line, if it is still on the order; else the newest.
  package var currentLine: Int? {
    let numbers = lineNumbers
    if let selectedLine, numbers.contains(selectedLine) { return selectedLine }
    return numbers.last
  }
}
