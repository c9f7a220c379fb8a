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

  public init() {}

  public var discounts: Int64 { lineDiscounts &+ orderDiscounts }

  /// Cash taken in tenders of completed sales.
  public var cashTaken: Int64 { tenders.first { $0.key == "cash" }?.amount ?? 0 }
  /// Cash paid out as refunds.
  public var cashRefunds: Int64 { refunds.first { $0.key == "cash" }?.amount ?? 0 }
  /// What the drawer should hold: float + cash taken − change given − cash refunds + paid in −
  /// paid out.
  public var expectedCash: Int64 {
    float &+ cashTaken &- changeGiven &- cashRefunds &+ paidIn &- paidOut
  }
  public var netSales: Int64 { gross &- discounts }

  mutating func addTax(_ line: TaxLine) {
    if let index = taxByClass.firstIndex(where: {
      $0.taxClass == line.taxClass && $0.rate == line.rate
    }) {
      taxByClass[index].basis &+= line.basis
      taxByClass[index].tax &+= line.tax
    } else {
      taxByClass.append(line)
    }
  }

  mutating func addTender(_ key: String, amount: Int64, count: Int = 1) {
    if let index = tenders.firstIndex(where: { $0.key == key }) {
      tenders[index].count += count
      tenders[index].amount &+= amount
    } else {
      tenders.append(TenderTotal(key: key, count: count, amount: amount))
    }
  }

  mutating func record(_ sale: CompletedSale) {
    salesCount += 1
    itemsSold &+= sale.totals.itemCount
    gross &+= sale.totals.subtotal
    lineDiscounts &+= sale.totals.lineDiscounts
    orderDiscounts &+= sale.totals.orderDiscount
    savings &+= sale.totals.savings
    for line in sale.order.activeLines {
      guard let override = line.override else { continue }
      overrides += 1
      overrideReduction &+=
        (line.unitPrice.minorUnits &- override.unitPrice.minorUnits) &* line.quantity
    }
    for line in sale.totals.taxLines { addTax(line) }
    tax &+= sale.totals.tax
    total &+= sale.totals.total
    cashRounding &+= sale.cashRounding.minorUnits
    for tender in sale.order.tenders {
      addTender(tenderKey(tender), amount: tender.amount.minorUnits)
    }
    changeGiven &+= sale.change.minorUnits
    firstReceipt = firstReceipt ?? sale.receiptNumber
    lastReceipt = sale.receiptNumber
  }

  mutating func addReversal(_ key: String, amount: Int64) {
    Self.add(key, amount: amount, to: &reversals)
  }

  static func add(_ key: String, amount: Int64, to list: inout [TenderTotal]) {
    if let index = list.firstIndex(where: { $0.key == key }) {
      list[index].count += 1
      list[index].amount &+= amount
    } else {
      list.append(TenderTotal(key: key, count: 1, amount: amount))
    }
  }

  mutating func record(_ refund: CompletedReturn) {
    returnsCount += 1
    returnedItems &+= refund.itemCount
    returnsNet &+= refund.net.minorUnits
    returnsTax &+= refund.tax.minorUnits
    returnsTotal &+= refund.total.minorUnits
    refundCashRounding &+= refund.cashRounding.minorUnits
    for tender in refund.refunds {
      Self.add(tenderKey(tender), amount: tender.amount.minorUnits, to: &refunds)
    }
    firstReceipt = firstReceipt ?? refund.receiptNumber
    lastReceipt = refund.receiptNumber
  }

  func tenderKey(_ tender: Tender) -> String {
    tender.card.map { "card \($0.brand.rawValue)" } ?? tender.type.rawValue
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
