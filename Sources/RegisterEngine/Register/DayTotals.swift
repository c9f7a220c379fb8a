/// Running totals of a business day, the source of the X and Z reports.
public struct DayTotals: Sendable, Equatable {
  public var salesCount = 0
  public var itemsSold: Int64 = 0
  /// Σ subtotals (before discounts).
  public var gross: Int64 = 0
  public var lineDiscounts: Int64 = 0
  public var orderDiscounts: Int64 = 0
  public var savings: Int64 = 0
  /// Lines sold at an overridden price, and what the overrides took off (negative: added).
  public var overrides = 0
  public var overrideReduction: Int64 = 0
  /// Tax by class name, in first-seen order.
  public var taxByClass: [TaxLine] = []
  public var tax: Int64 = 0
  /// Σ order totals (what was owed before cash rounding).
  public var total: Int64 = 0
  public var cashRounding: Int64 = 0
  /// Tender amounts by label ("cash", "card VISA", ...), in first-seen order.
  public var tenders: [TenderTotal] = []
  public var changeGiven: Int64 = 0
  public var voidedOrders = 0
  public var voidedOrdersAmount: Int64 = 0
  public var voidedLines = 0
  public var voidedLinesAmount: Int64 = 0
  /// Tenders handed back when orders were voided, by type.
  public var reversals: [TenderTotal] = []
  public var returnsCount = 0
  public var returnedItems: Int64 = 0
  public var returnsNet: Int64 = 0
  public var returnsTax: Int64 = 0
  public var returnsTotal: Int64 = 0
  /// Refunds paid out, by tender type.
  public var refunds: [TenderTotal] = []
  public var refundCashRounding: Int64 = 0
  /// The drawer: opening float, paid in and out, times opened without a sale.
  public var float: Int64 = 0
  public var paidIn: Int64 = 0
  public var paidInCount = 0
  public var paidOut: Int64 = 0
  public var paidOutCount = 0
  public var noSales = 0
  public var firstReceipt: Int?
  public var lastReceipt: Int?
  /// Gift cards sold (a liability, not in the sales figures above): how many, and their value.
  public var giftCardsSold: Int64 = 0
  public var giftCardsSoldAmount: Int64 = 0
  /// Gift cards reloaded (also money held): how many loads, and their value.
  public var giftCardsReloaded: Int64 = 0
  public var giftCardsReloadedAmount: Int64 = 0
  /// What promotions saved on the day's sales, in all and by promotion (its id, how many
  /// times it applied, what it saved), in first-seen order.
  public var promotionDiscounts: Int64 = 0
  public var promotions: [TenderTotal] = []

  public init() {}

  /// Gift cards redeemed: the gift-card tenders of completed sales.
  public var giftCardsRedeemed: TenderTotal {
    tenders.first { $0.key == TenderType.giftCard.rawValue }
      ?? TenderTotal(key: TenderType.giftCard.rawValue, count: 0, amount: 0)
  }

  public var discounts: Int64 { Checked.saturatingAdd(lineDiscounts, orderDiscounts) }

  /// Cash taken in tenders of completed sales.
  public var cashTaken: Int64 { tenders.first { $0.key == "cash" }?.amount ?? 0 }
  /// Cash paid out as refunds.
  public var cashRefunds: Int64 { refunds.first { $0.key == "cash" }?.amount ?? 0 }
  /// What the drawer should hold: float + cash taken − change given − cash refunds + paid in −
  /// paid out. (Every change to the totals is refused in `decide` unless `checkedExpectedCash`
  /// still computes afterwards, so the wrapping operators here never wrap.)
  public var expectedCash: Int64 {
    // Added in this order, as a sum of the list would (each drawer reply asks: no list built).
    var cash = Checked.saturatingAdd(float, cashTaken)
    cash = Checked.saturatingAdd(cash, Checked.saturatingSubtract(0, changeGiven))
    cash = Checked.saturatingAdd(cash, Checked.saturatingSubtract(0, cashRefunds))
    cash = Checked.saturatingAdd(cash, paidIn)
    return Checked.saturatingAdd(cash, Checked.saturatingSubtract(0, paidOut))
  }
  public var netSales: Int64 {
    Checked.saturatingSubtract(Checked.saturatingSubtract(gross, discounts), promotionDiscounts)
  }

  /// `expectedCash`, `netSales` and `discounts` computed with checked arithmetic: throws when
  /// any of them would not fit.
  func checkDerived() throws(ArithmeticOverflow) {
    var cash = try Checked.add(float, cashTaken)
    cash = try Checked.subtract(cash, changeGiven)
    cash = try Checked.subtract(cash, cashRefunds)
    cash = try Checked.add(cash, paidIn)
    _ = try Checked.subtract(cash, paidOut)
    _ = try Checked.subtract(
      gross, try Checked.add(try Checked.add(lineDiscounts, orderDiscounts), promotionDiscounts))
  }

  /// Folds one event into the totals, with checked arithmetic (money never wraps). `order` and
  /// `orderTotals` are the open order as the event finds it; `sale` and `refund` are what a
  /// `sale_completed` or `return_completed` event completes. `Register.apply` uses this, and
  /// `decide` runs it on a copy to refuse a change the day's totals could not hold.
  mutating func apply(
    _ event: Event, order: Order, orderTotals: OrderTotals, sale: CompletedSale? = nil,
    refund: CompletedReturn? = nil
  ) throws(ArithmeticOverflow) {
    switch event {
    case .lineVoided(let orderID, let number), .lineRemoved(let orderID, let number):
      // Taking a rung-up line off counts as a line void in the day's report.
      guard orderID == order.id, let line = order.lines.first(where: { $0.line == number }),
        !line.voided
      else { return }
      voidedLines += 1
      voidedLinesAmount = try Checked.add(
        voidedLinesAmount, try Checked.multiply(line.chargedUnitPrice.minorUnits, line.quantity))
    case .saleCompleted:
      guard let sale else { return }
      try record(sale)
    case .orderVoided(let orderID, _, let reversed):
      guard orderID == order.id else { return }
      voidedOrders += 1
      voidedOrdersAmount = try Checked.add(voidedOrdersAmount, orderTotals.total)
      for tender in reversed {
        try Self.add(tenderKey(tender), amount: tender.amount.minorUnits, to: &reversals)
      }
    case .returnCompleted:
      guard let refund else { return }
      try record(refund)
    case .floatSet(let amount):
      float = amount.minorUnits
    // A paid-in or paid-out changes nothing when its sum does not fit (the count goes up only
    // after it): the day book folds these in place (`DayBook.apply`).
    case .paidIn(let amount, _):
      paidIn = try Checked.add(paidIn, amount.minorUnits)
      paidInCount += 1
    case .paidOut(let amount, _):
      paidOut = try Checked.add(paidOut, amount.minorUnits)
      paidOutCount += 1
    case .noSale:
      noSales += 1
    case .storeConfigured, .catalogLoaded, .lineAdded, .quantitySet, .tenderAdded, .discountSet,
      .priceOverridden, .orderParked, .orderResumed, .operatorAdded, .operatorRemoved,
      .operatorPINSet, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut,
      .customerAdded, .customerAttached, .customerDetached, .wishlistAdded, .wishlistRemoved,
      .productAdded, .productUpdated,
      .productRemoved,
      .stockAdjusted, .receiptEmailed, .dayClosed, .printQueued, .printDone:
      // Not a change to the day's totals (lines rung up count when their sale completes).
      return
    }
    try checkDerived()
  }

  mutating func addTax(_ line: TaxLine) throws(ArithmeticOverflow) {
    if let index = taxByClass.firstIndex(where: {
      $0.taxClass == line.taxClass && $0.rate == line.rate
    }) {
      taxByClass[index].basis = try Checked.add(taxByClass[index].basis, line.basis)
      taxByClass[index].tax = try Checked.add(taxByClass[index].tax, line.tax)
    } else {
      taxByClass.append(line)
    }
  }

  mutating func record(_ sale: CompletedSale) throws(ArithmeticOverflow) {
    salesCount += 1
    itemsSold = try Checked.add(itemsSold, sale.totals.itemCount)
    gross = try Checked.add(gross, sale.totals.subtotal)
    lineDiscounts = try Checked.add(lineDiscounts, sale.totals.lineDiscounts)
    orderDiscounts = try Checked.add(orderDiscounts, sale.totals.orderDiscount)
    savings = try Checked.add(savings, sale.totals.savings)
    promotionDiscounts = try Checked.add(promotionDiscounts, sale.totals.promotionDiscounts)
    for promotion in sale.totals.promotions {
      let key = promotion.id
      if let index = promotions.firstIndex(where: { $0.key == key }) {
        promotions[index].count = Int(
          Checked.saturatingAdd(Int64(promotions[index].count), promotion.applications))
        promotions[index].amount = try Checked.add(promotions[index].amount, promotion.saving)
      } else {
        promotions.append(
          TenderTotal(key: key, count: Int(promotion.applications), amount: promotion.saving))
      }
    }
    for line in sale.order.activeLines {
      guard let override = line.override else { continue }
      overrides += 1
      let reduction = try Checked.multiply(
        try Checked.subtract(line.unitPrice.minorUnits, override.unitPrice.minorUnits),
        line.quantity)
      overrideReduction = try Checked.add(overrideReduction, reduction)
    }
    for line in sale.totals.taxLines { try addTax(line) }
    tax = try Checked.add(tax, sale.totals.tax)
    // The sales total leaves out the gift cards sold: they are reported on their own line.
    total = try Checked.add(total, try Checked.subtract(sale.totals.total, sale.totals.giftCards))
    var reloads: Int64 = 0
    var reloaded: Int64 = 0
    for line in sale.order.activeLines where line.reloads != nil {
      reloads = try Checked.add(reloads, line.quantity)
      reloaded = try Checked.add(
        reloaded, try Checked.multiply(line.chargedUnitPrice.minorUnits, line.quantity))
    }
    giftCardsSold = try Checked.add(
      giftCardsSold, try Checked.subtract(sale.totals.giftCardCount, reloads))
    giftCardsSoldAmount = try Checked.add(
      giftCardsSoldAmount, try Checked.subtract(sale.totals.giftCards, reloaded))
    giftCardsReloaded = try Checked.add(giftCardsReloaded, reloads)
    giftCardsReloadedAmount = try Checked.add(giftCardsReloadedAmount, reloaded)
    cashRounding = try Checked.add(cashRounding, sale.cashRounding.minorUnits)
    for tender in sale.order.tenders {
      try Self.add(tenderKey(tender), amount: tender.amount.minorUnits, to: &tenders)
    }
    changeGiven = try Checked.add(changeGiven, sale.change.minorUnits)
    firstReceipt = firstReceipt ?? sale.receiptNumber
    lastReceipt = sale.receiptNumber
  }

  static func add(_ key: String, amount: Int64, to list: inout [TenderTotal])
    throws(ArithmeticOverflow)
  {
    if let index = list.firstIndex(where: { $0.key == key }) {
      list[index].count += 1
      list[index].amount = try Checked.add(list[index].amount, amount)
    } else {
      list.append(TenderTotal(key: key, count: 1, amount: amount))
    }
  }

  mutating func record(_ refund: CompletedReturn) throws(ArithmeticOverflow) {
    returnsCount += 1
    returnedItems = try Checked.add(returnedItems, refund.itemCount)
    returnsNet = try Checked.add(returnsNet, refund.net.minorUnits)
    returnsTax = try Checked.add(returnsTax, refund.tax.minorUnits)
    returnsTotal = try Checked.add(returnsTotal, refund.total.minorUnits)
    refundCashRounding = try Checked.add(refundCashRounding, refund.cashRounding.minorUnits)
    for tender in refund.refunds {
      try Self.add(tenderKey(tender), amount: tender.amount.minorUnits, to: &refunds)
    }
    firstReceipt = firstReceipt ?? refund.receiptNumber
    lastReceipt = refund.receiptNumber
  }

  /// The report line a tender counts on: "cash", "card VISA", "card_present VISA",
  /// "gift_card", "store_credit", or a store tender's own name ("check"; the names of the
  /// built-in types are not allowed as store tender names, so they never collide).
  func tenderKey(_ tender: Tender) -> String {
    switch tender.type {
    case .card, .cardPresent:
      tender.card.map { "\(tender.type.rawValue) \($0.brand.rawValue)" } ?? tender.type.rawValue
    case .other: tender.name ?? tender.type.rawValue
    case .cash, .giftCard, .storeCredit: tender.type.rawValue
    }
  }
}

/// The count and sum of one kind of tender ("cash", "card VISA").
public struct TenderTotal: Sendable, Equatable {
  public var key: String
  public var count: Int
  public var amount: Int64
}

/// The business day the register is in.
public struct BusinessDay: Sendable, Equatable {
  public var number: Int
  public var openedAt: Timestamp?
  public var totals: DayTotals

  public init(number: Int) {
    self.number = number
    totals = DayTotals()
  }
}

/// A closed business day: its Z report, fixed when the day was closed.
public struct ClosedDay: Sendable, Equatable {
  public var number: Int
  public var openedAt: Timestamp?
  public var closedAt: Timestamp
  public var totals: DayTotals
  public var countedCash: Money?
  /// The journal sequence number of the `day_closed` record.
  public var sequence: Int64
  /// The record before the `day_closed` record, with its sum: the anchor the Z report prints.
  public var journalHead: JournalHead?
  public var header: ReceiptHeader
  public var currency: Currency
}
