/// The order being rung up (or one that is parked or was completed).
public struct Order: Sendable, Equatable {
  public var id: Int
  /// Increases with every change, so a client can say which state it based a change on.
  public var version: Int
  public var lines: [OrderLine]
  public var tenders: [Tender]
  /// A discount on the whole order, spread over the lines.
  public var discount: Discount?
  public var customerID: String?
  /// The tax-exemption certificate of the attached customer: the order is not taxed.
  public var taxExemption: String?
  /// The note given when the order was parked.
  public var note: String?
  /// The number the next added line gets.
  public var nextLine: Int
  /// When the first change was made to the order.
  public var openedAt: Timestamp?
  /// When the order was parked (while it is parked).
  public var parkedAt: Timestamp?

  public init(id: Int) {
    self.id = id
    version = 0
    lines = []
    tenders = []
    nextLine = 1
  }

  /// Lines that count (not voided).
  public var activeLines: [OrderLine] { lines.filter { !$0.voided } }

  /// True when nothing that counts has been rung up and nothing paid.
  public var isEmpty: Bool { activeLines.isEmpty && tenders.isEmpty }

  /// The index of a line by its number.
  public func index(ofLine line: Int) -> Int? {
    lines.firstIndex { $0.line == line }
  }

  /// How many units of `sku` the order holds (voided lines do not count).
  public func quantity(ofSKU sku: String, excludingLine excluded: Int? = nil) -> Int64 {
    var total: Int64 = 0
    for line in lines where line.sku == sku && !line.voided && line.line != excluded {
      total += line.quantity
    }
    return total
  }

  /// The sum of the tenders. `decide` keeps it within the order's total; should a journal say
  /// otherwise, it stops at the largest amount rather than wrap (so `total − paid` cannot trap).
  public var paid: Int64 {
    tenders.reduce(0) { sum, tender in
      let (next, overflow) = sum.addingReportingOverflow(tender.amount.minorUnits)
      return overflow ? (tender.amount.minorUnits < 0 ? Int64.min : Int64.max) : next
    }
  }
}

extension Order {
  /// True when `event` changes this order's lines, tenders, discounts or customer: it is about
  /// this order and names a line the order has (a line added must have a number the order does
  /// not have yet: everything looks lines up by number). False for every other event.
  func admits(_ event: Event) -> Bool {
    switch event {
    case .lineAdded(let orderID, let line):
      return orderID == id && index(ofLine: line.line) == nil
    case .lineRemoved(let orderID, let number), .quantitySet(let orderID, let number, _),
      .priceOverridden(let orderID, let number, _), .lineVoided(let orderID, let number):
      return orderID == id && index(ofLine: number) != nil
    case .discountSet(let orderID, let number, _):
      return orderID == id && (number.map { index(ofLine: $0) != nil } ?? true)
    case .tenderAdded(let orderID, _), .customerAttached(let orderID, _, _),
      .customerDetached(let orderID):
      return orderID == id
    case .storeConfigured, .catalogLoaded, .saleCompleted, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut,
      .noSale, .receiptEmailed, .dayClosed, .wishlistAdded, .wishlistRemoved, .printQueued,
      .printDone:
      return false
    }
  }

  /// Applies an event that changes this order's lines, tenders, discounts or customer (see
  /// `admits`), and bumps the version. Returns false, changing nothing, for any other event.
  mutating func apply(_ event: Event, at time: Timestamp) -> Bool {
    guard admits(event) else { return false }
    switch event {
    case .lineAdded(_, let line):
      lines.append(line)
      nextLine = max(nextLine, line.line + 1)
    case .lineRemoved(_, let number):
      guard let index = index(ofLine: number) else { return false }
      lines.remove(at: index)
    case .quantitySet(_, let number, let quantity):
      guard let index = index(ofLine: number) else { return false }
      lines[index].quantity = quantity
    case .tenderAdded(_, let tender):
      tenders.append(tender)
    case .discountSet(_, let number, let newDiscount):
      if let number {
        guard let index = index(ofLine: number) else { return false }
        lines[index].discount = newDiscount
      } else {
        discount = newDiscount
      }
    case .priceOverridden(_, let number, let override):
      guard let index = index(ofLine: number) else { return false }
      lines[index].override = override
    case .customerAttached(_, let customer, let exemption):
      customerID = customer
      taxExemption = exemption
    case .customerDetached:
      customerID = nil
      taxExemption = nil
    case .lineVoided(_, let number):
      guard let index = index(ofLine: number) else { return false }
      lines[index].voided = true
    case .storeConfigured, .catalogLoaded, .saleCompleted, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut,
      .noSale, .receiptEmailed, .dayClosed, .wishlistAdded, .wishlistRemoved, .printQueued,
      .printDone:
      return false
    }
    version += 1
    if openedAt == nil { openedAt = time }
    return true
  }
}
