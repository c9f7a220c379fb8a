/// An X report (the day so far) or a Z report (the day, closed).
public struct DayReport: Sendable, Equatable {
  public enum Kind: String, Sendable {
    case x
    case z
  }

  public var kind: Kind
  public var day: Int
  public var openedAt: Timestamp?
  /// When the day was closed (Z) or the moment the report was taken (X).
  public var at: Timestamp
  public var totals: DayTotals
  public var countedCash: Money?
  public var header: ReceiptHeader
  public var currency: Currency
  /// The journal record of the close (Z only).
  public var sequence: Int64?
  /// The last journal record before the close, with its sum (Z only; nil in old journals).
  public var journalHead: JournalHead?
  /// A Z report printed again after the close is marked as a reprint; the close's own print
  /// and the offline replay of it are not.
  public var reprint = false

  /// The Z report of a closed day; `reprint` marks a copy asked for after the close.
  public init(closed: ClosedDay, reprint: Bool = false) {
    kind = .z
    day = closed.number
    openedAt = closed.openedAt
    at = closed.closedAt
    totals = closed.totals
    countedCash = closed.countedCash
    header = closed.header
    currency = closed.currency
    sequence = closed.sequence
    journalHead = closed.journalHead
    self.reprint = reprint
  }

  /// The X report of the register's open day, as of `time`.
  public init(openDayOf register: Register, at time: Timestamp) {
    kind = .x
    day = register.day.number
    openedAt = register.day.openedAt
    at = time
    totals = register.day.totals
    header = ReceiptHeader(store: register.store)
    currency = register.store.currency
  }
}

/// Prints X and Z reports at receipt width, and as JSON.
public enum ReportRenderer {
  public static func text(_ report: DayReport) -> String {
    layout(report).text
  }

  /// The report as ESC/POS bytes: the same lines as `text`, the title emphasised, the total
  /// in double height, a partial cut (no barcode: a report is not scanned back).
  public static func escpos(_ report: DayReport, options: EscPosOptions = EscPosOptions())
    -> [UInt8]
  {
    EscPos.document(layout(report), options: options, code: nil)
  }

  static func layout(_ report: DayReport) -> TextLayout {
    let money = { (units: Int64) in
      Money(minorUnits: units, currency: report.currency).decimalString
    }
    let totals = report.totals
    var out = TextLayout(width: report.header.width)
    out.styled(.emphasized) {
      $0.center(report.header.storeName)
      $0.rule("=")
      $0.center("\(report.kind == .z ? "Z" : "X") REPORT - DAY \(report.day)")
    }
    if report.kind == .x { out.center("(day still open)") }
    if report.reprint { out.center("*** REPRINT ***") }
    if let opened = report.openedAt {
      out.columns("Opened", "\(opened.local.dateString) \(opened.local.timeString)")
    }
    out.columns(
      report.kind == .z ? "Closed" : "As of",
      "\(report.at.local.dateString) \(report.at.local.timeString)")
    out.rule()
    out.columns("Sales", String(totals.salesCount))
    out.columns("Items sold", String(totals.itemsSold))
    out.columns("Gross sales", money(totals.gross))
    out.columns("Line discounts", money(-totals.lineDiscounts))
    out.columns("Order discounts", money(-totals.orderDiscounts))
    if totals.promotionDiscounts > 0 {
      out.columns("Promotions", money(-totals.promotionDiscounts))
      for promotion in totals.promotions {
        out.columns("  \(promotion.key) (\(promotion.count))", money(-promotion.amount))
      }
    }
    out.columns("Net sales", money(totals.netSales))
    for tax in totals.taxByClass {
      out.columns("Tax \(tax.taxClass) \(tax.rate.decimalString)%", money(tax.tax))
    }
    out.columns("Tax total", money(totals.tax))
    out.styled(.large) { $0.columns("Total sales", money(totals.total)) }
    out.columns("Cash rounding", money(totals.cashRounding))
    // Gift cards are money held for customers, not sales: on their own lines, outside the
    // sales totals above (their redemptions are also among the tenders below).
    out.columns("Gift cards sold (\(totals.giftCardsSold))", money(totals.giftCardsSoldAmount))
    if totals.giftCardsReloaded > 0 {
      out.columns(
        "Gift cards reloaded (\(totals.giftCardsReloaded))", money(totals.giftCardsReloadedAmount))
    }
    let redeemed = totals.giftCardsRedeemed
    out.columns("Gift cards redeemed (\(redeemed.count))", money(redeemed.amount))
    if totals.overrides > 0 {
      // Overridden lines are in gross sales at the price charged: this is a memo of how much
      // the overrides took off the list prices, not a further deduction from net sales.
      out.line("Price overrides (\(totals.overrides)), in gross:")
      out.columns("  below list price by", money(totals.overrideReduction))
    }
    out.rule()
    out.line("Tenders")
    for tender in totals.tenders {
      out.columns("  \(TenderWords.label(tender.key)) (\(tender.count))", money(tender.amount))
    }
    if totals.tenders.isEmpty { out.line("  (none)") }
    out.columns("Change given", money(totals.changeGiven))
    out.rule()
    out.columns("Voided orders (\(totals.voidedOrders))", money(totals.voidedOrdersAmount))
    out.columns("Voided lines (\(totals.voidedLines))", money(totals.voidedLinesAmount))
    for reversal in totals.reversals {
      out.columns(
        "  reversed \(TenderWords.label(reversal.key)) (\(reversal.count))", money(reversal.amount))
    }
    out.rule()
    out.columns("Returns (\(totals.returnsCount))", money(-totals.returnsTotal))
    out.columns("  items returned", String(totals.returnedItems))
    out.columns("  tax refunded", money(-totals.returnsTax))
    for refund in totals.refunds {
      out.columns(
        "  refund \(TenderWords.label(refund.key)) (\(refund.count))", money(-refund.amount))
    }
    if totals.refundCashRounding != 0 {
      out.columns("  refund cash rounding", money(-totals.refundCashRounding))
    }
    out.rule()
    if let first = totals.firstReceipt, let last = totals.lastReceipt {
      out.columns("Receipts", first == last ? "\(first)" : "\(first)-\(last)")
    } else {
      out.columns("Receipts", "none")
    }
    out.line("Drawer")
    out.columns("  Opening float", money(totals.float))
    out.columns("  Cash taken", money(totals.cashTaken))
    out.columns("  Change given", money(-totals.changeGiven))
    out.columns("  Cash refunds", money(-totals.cashRefunds))
    out.columns("  Paid in (\(totals.paidInCount))", money(totals.paidIn))
    out.columns("  Paid out (\(totals.paidOutCount))", money(-totals.paidOut))
    out.columns("  Expected cash", money(totals.expectedCash))
    if let counted = report.countedCash {
      out.columns("  Counted cash", counted.decimalString)
      let overShort = Checked.saturatingSubtract(counted.minorUnits, totals.expectedCash)
      out.columns(overShort < 0 ? "  Short" : "  Over", money(overShort))
    }
    out.columns("  No-sale opens", String(totals.noSales))
    out.rule()
    if let sequence = report.sequence {
      out.columns("This report is journal record", String(sequence))
    }
    if let head = report.journalHead {
      // The anchor as `register-cli verify --anchor` takes it (SEQ:SUM, one word), wrapped to
      // the paper: the lines after the first are typed on after it.
      out.line("Anchor (register-cli verify --anchor):")
      let anchor = "\(head.sequence):\(head.sum)"
      let chunk = report.header.width >= 38 ? 32 : 16
      var rest = Substring(anchor)
      while !rest.isEmpty {
        out.line("  " + rest.prefix(chunk))
        rest = rest.dropFirst(chunk)
      }
    }
    return out
  }

  public static func json(_ report: DayReport) -> JSONValue {
    let totals = report.totals
    let money = { (units: Int64) in
      JSONValue.string(Money(minorUnits: units, currency: report.currency).decimalString)
    }
    return .object([
      "kind": .string(report.kind.rawValue),
      "day": .int(report.day),
      "opened_at": report.openedAt.map { .string($0.iso8601) },
      report.kind == .z ? "closed_at" : "as_of": .string(report.at.iso8601),
      "currency": .string(report.currency.code),
      "sales_count": .int(totals.salesCount),
      "items_sold": .int(totals.itemsSold),
      "gross": money(totals.gross),
      "line_discounts": money(totals.lineDiscounts),
      "order_discounts": money(totals.orderDiscounts),
      "discounts": money(totals.discounts),
      "promotion_discounts": totals.promotionDiscounts > 0
        ? money(totals.promotionDiscounts) : nil,
      "promotions": totals.promotions.isEmpty
        ? nil
        : .array(
          totals.promotions.map {
            .object([
              "promotion": .string($0.key), "count": .int($0.count), "saving": money($0.amount),
            ])
          }),
      "price_overrides": .object([
        "count": .int(totals.overrides), "reduction": money(totals.overrideReduction),
      ]),
      "sale_savings": money(totals.savings),
      "net_sales": money(totals.netSales),
      "taxes": .array(totals.taxByClass.map { $0.json(currency: report.currency) }),
      "tax": money(totals.tax),
      "total": money(totals.total),
      "cash_rounding": money(totals.cashRounding),
      "gift_cards": .object([
        "sold": .object([
          "count": .int(totals.giftCardsSold), "amount": money(totals.giftCardsSoldAmount),
        ]),
        "reloaded": totals.giftCardsReloaded == 0
          ? nil
          : .object([
            "count": .int(totals.giftCardsReloaded),
            "amount": money(totals.giftCardsReloadedAmount),
          ]),
        "redeemed": .object([
          "count": .int(totals.giftCardsRedeemed.count),
          "amount": money(totals.giftCardsRedeemed.amount),
        ]),
      ]),
      "tenders": .array(
        totals.tenders.map {
          .object(["type": .string($0.key), "count": .int($0.count), "amount": money($0.amount)])
        }),
      "change_given": money(totals.changeGiven),
      "voided_orders": .object([
        "count": .int(totals.voidedOrders), "amount": money(totals.voidedOrdersAmount),
      ]),
      "voided_lines": .object([
        "count": .int(totals.voidedLines), "amount": money(totals.voidedLinesAmount),
      ]),
      "reversed_tenders": .array(
        totals.reversals.map {
          .object(["type": .string($0.key), "count": .int($0.count), "amount": money($0.amount)])
        }),
      "returns": .object([
        "count": .int(totals.returnsCount), "items": .int(totals.returnedItems),
        "net": money(totals.returnsNet), "tax": money(totals.returnsTax),
        "total": money(totals.returnsTotal), "cash_rounding": money(totals.refundCashRounding),
        "refunds": .array(
          totals.refunds.map {
            .object(["type": .string($0.key), "count": .int($0.count), "amount": money($0.amount)])
          }),
      ]),
      "first_receipt": totals.firstReceipt.map { .int($0) },
      "last_receipt": totals.lastReceipt.map { .int($0) },
      "drawer": totals.drawerJSON(currency: report.currency),
      "expected_cash": money(totals.expectedCash),
      "counted_cash": report.countedCash.map { $0.json },
      "over_short": report.countedCash.map {
        money(Checked.saturatingSubtract($0.minorUnits, totals.expectedCash))
      },
      "journal_seq": report.sequence.map { .int($0) },
      "journal_head": report.journalHead?.json,
      "reprint": report.reprint ? .bool(true) : nil,
    ])
  }

  /// The reply to `report` and `close_day`: the report as JSON and as text.
  public static func reply(_ report: DayReport) -> JSONValue {
    .object(["report": json(report), "text": .string(text(report))])
  }
}
