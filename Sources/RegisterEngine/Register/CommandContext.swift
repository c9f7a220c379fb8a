/// A payment asked for: one case per kind, each with only its own fields, so that a cash
/// tender with a card, or a gift card payment without the card's number, cannot be built.
/// `amount` nil: as much as the balance due (or the card's or the credit's balance) allows.
public enum TenderRequest: Sendable, Equatable {
  case cash(amount: Money)
  case card(CardInput, amount: Money?)
  /// A payment an external terminal approved: what it reported, never the card's number.
  case cardPresent(amount: Money, brand: String, last4: String, authCode: String)
  case giftCard(number: String, amount: Money?)
  /// A customer's store credit.
  case storeCredit(customerID: String, amount: Money?)
  /// One of the store's own tenders (`tenders` in the store settings), by name.
  case other(name: String, amount: Money, reference: String?)

  /// The kind of tender.
  public var type: TenderType {
    switch self {
    case .cash: .cash
    case .card: .card
    case .cardPresent: .cardPresent
    case .giftCard: .giftCard
    case .storeCredit: .storeCredit
    case .other: .other
    }
  }

  /// The amount asked for, when one is.
  public var amount: Money? {
    switch self {
    case .cash(let amount), .cardPresent(let amount, _, _, _), .other(_, let amount, _): amount
    case .card(_, let amount), .giftCard(_, let amount), .storeCredit(_, let amount): amount
    }
  }

  /// The card keyed, for a card tender.
  public var card: CardInput? {
    if case .card(let card, _) = self { return card }
    return nil
  }
}

/// Where a return's refund goes.
public enum RefundDestination: Sendable, Equatable {
  /// Back to the sale's tenders (cards, gift cards, ... first, the rest in cash).
  case tenders
  /// To a customer's store credit: the customer named, or the sale's customer when nil.
  case storeCredit(customerID: String?)
  /// All in cash: for a sale paid only in cash, as `tenders`; for one paid otherwise too, only
  /// where the store allows it (`cash_refunds`).
  case cash
}

/// A manager's approval sent with a request: `approve: {operator, pin}`.
public struct Approval: Sendable, Equatable {
  public var operatorID: String
  public var pin: String

  public init(operatorID: String, pin: String) {
    self.operatorID = operatorID
    self.pin = pin
  }
}

/// Who is asking and when: the facts `decide` needs that are not in the command.
public struct CommandContext: Sendable {
  public var now: Timestamp
  public var approval: Approval?
  /// Random bytes (PIN salts, message ids); injected so tests are repeatable.
  public var random: @Sendable (Int) -> [UInt8]
  /// PIN hashing already done off the event loop for this request (see `PINWork`).
  public var prepared: PreparedPINs
  /// The journal's last record before this command's (with its sum), for `close_day`'s Z
  /// report; nil without a journal.
  public var journalHead: JournalHead?

  public init(
    now: Timestamp, approval: Approval? = nil,
    random: @escaping @Sendable (Int) -> [UInt8] = { count in [UInt8](repeating: 7, count: count) },
    prepared: PreparedPINs = PreparedPINs()
  ) {
    self.now = now
    self.approval = approval
    self.random = random
    self.prepared = prepared
  }
}

/// One line of a return request: a line of the original receipt and how many of its units.
public struct ReturnRequestLine: Sendable, Equatable {
  /// What a return names: a line of the receipt by its number, or an item on the receipt by
  /// its SKU or a barcode of it, as a cashier scans the item brought back.
  public enum Item: Sendable, Equatable {
    case line(Int)
    case code(String)
  }

  public var item: Item
  public var quantity: Int64

  public init(line: Int, quantity: Int64) {
    item = .line(line)
    self.quantity = quantity
  }

  public init(code: String, quantity: Int64) {
    item = .code(code)
    self.quantity = quantity
  }
}
