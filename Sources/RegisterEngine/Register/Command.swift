/// What a client asks the register to do, already decoded and type-checked.
public enum Command: Sendable {
  case hello
  /// At most `limit` products, from the one after `afterSKU` (from the first without it); the
  /// request (`Requests.Catalog`) supplies the default page.
  case catalog(limit: Int, afterSKU: String?)
  /// The live catalog as a catalog file document (store settings, products, current stock).
  case catalogExport
  case showOrder
  /// `escpos`: the reply also carries the receipt as ESC/POS bytes.
  case receipt(number: Int?, escpos: Bool = false)
  /// `amount`: what an open-amount gift card is loaded with (nil for every other product).
  case add(sku: String, quantity: Int64, options: [String: String], amount: Money? = nil)
  /// One unit of the product a scanner read: a barcode, or a SKU typed as a scanner types.
  case scan(code: String)
  case remove(line: Int)
  case setQuantity(line: Int, quantity: Int64)
  case tender(TenderRequest)
  case void(reason: String?)
  /// A discount on a line, or on the order when `line` is nil; a nil value clears it.
  case discount(line: Int?, value: DiscountValue?, reason: String)
  case overridePrice(line: Int, unitPrice: Money, reason: String)
  case voidLine(line: Int)
  case park(note: String?)
  case listParked
  case resume(orderID: Int)
  /// `refundTo`: where the refund goes (the sale's tenders, or a customer's store credit).
  case returnItems(
    receipt: Int, lines: [ReturnRequestLine], reason: String, refundTo: RefundDestination = .tenders
  )
  /// A gift card's balance, by its number.
  case giftCardBalance(number: String)
  /// Turn the connection into a listener for events (handled by the daemon's connection).
  case subscribe(topics: Set<String>?, after: Int64?)
  case report(DayReport.Kind, day: Int?, escpos: Bool = false)
  case operatorAdd(id: String, name: String, role: OperatorRole, pin: String)
  case operatorList
  case operatorRemove(id: String)
  case operatorSetPIN(id: String, pin: String)
  case operatorUnlock(id: String)
  /// The first run of an installed register: its store settings (a catalog file's `store`
  /// section; nil when a store file already gives them) and its first manager (nil when it
  /// has one).
  case setup(store: JSONValue?, manager: SetupManager?)
  case signIn(operatorID: String, pin: String)
  case signOut
  case customerAdd(name: String, email: String?, phone: String?, taxExempt: String? = nil)
  /// Customers matching `query`: at most `limit` of them (`Requests.CustomerFind` supplies
  /// `CustomerBook.defaultFindLimit` when the request does not say).
  case customerFind(query: String, limit: Int)
  case attachCustomer(customerID: String)
  /// Takes the customer off the open order.
  case detachCustomer
  case customerHistory(customerID: String)
  /// One product, with its stock here and at the chain's other stores.
  case product(sku: String)
  /// A customer's wishlist, with what is available.
  case wishlist(customerID: String)
  case wishlistAdd(customerID: String, sku: String)
  case wishlistRemove(customerID: String, sku: String)
  /// One unit of a wishlist product onto the open order, off the wishlist.
  case wishlistToOrder(customerID: String, sku: String)
  /// A product as the catalog file writes it.
  case productAdd(JSONValue)
  /// Fields to change (`null` removes an optional one).
  case productUpdate(sku: String, changes: JSONObject)
  case productRemove(sku: String)
  case stockAdjust(sku: String, delta: Int64, reason: String)
  case setFloat(Money)
  case paidIn(Money, reason: String)
  case paidOut(Money, reason: String)
  case noSale(reason: String?)
  case emailReceipt(receipt: Int, to: String?)
  /// A receipt printed again on the receipt printer (the last one when nil).
  case print(receipt: Int?)
  case closeDay(countedCash: Money?)

  /// The op this command was sent as.
  public var op: Op {
    switch self {
    case .hello: .hello
    case .catalog: .catalog
    case .catalogExport: .catalogExport
    case .showOrder: .order
    case .receipt: .receipt
    case .add: .add
    case .scan: .scan
    case .remove: .remove
    case .setQuantity: .setQty
    case .tender: .tender
    case .void: .void
    case .discount: .discount
    case .overridePrice: .overridePrice
    case .voidLine: .voidLine
    case .park: .park
    case .listParked: .parked
    case .resume: .resume
    case .returnItems: .`return`
    case .giftCardBalance: .giftCardBalance
    case .subscribe: .subscribe
    case .report: .report
    case .operatorAdd: .operatorAdd
    case .operatorList: .operatorList
    case .operatorRemove: .operatorRemove
    case .operatorSetPIN: .operatorSetPIN
    case .operatorUnlock: .operatorUnlock
    case .setup: .setup
    case .signIn: .signIn
    case .signOut: .signOut
    case .customerAdd: .customerAdd
    case .customerFind: .customerFind
    case .attachCustomer: .attachCustomer
    case .detachCustomer: .detachCustomer
    case .customerHistory: .customerHistory
    case .product: .product
    case .wishlist: .wishlist
    case .wishlistAdd: .wishlistAdd
    case .wishlistRemove: .wishlistRemove
    case .wishlistToOrder: .wishlistToOrder
    case .productAdd: .productAdd
    case .productUpdate: .productUpdate
    case .productRemove: .productRemove
    case .stockAdjust: .stockAdjust
    case .setFloat: .setFloat
    case .paidIn: .paidIn
    case .paidOut: .paidOut
    case .noSale: .noSale
    case .emailReceipt: .emailReceipt
    case .print: .print
    case .closeDay: .closeDay
    }
  }

  /// True when the command changes state (and so is journaled and needs durability).
  public var isMutation: Bool { op.isMutation }
}

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
