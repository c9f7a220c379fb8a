/// The journal's business facts for a back office: sales with their lines and tenders, returns,
/// voids, drawer moves and Z reports, flattened into rows keyed by (lane, seq) — the journal
/// sequence number of the record that made them — so a loader that sees a record twice can tell.
///
/// `BackOfficeExporter` replays records in order (it is a register) and returns each record's
/// rows. Money is a decimal string in the store currency; times are ISO 8601 with their offset.
/// Never a card number, a gift card number (only its last four digits) or a PIN.
public enum BackOfficeTable: String, CaseIterable, Sendable {
  case sales
  case saleLines = "sale_lines"
  case tenders
  case returns
  case returnLines = "return_lines"
  case voids
  case drawerMoves = "drawer_moves"
  case zReports = "z_reports"

  /// The table's columns, in order; every table starts with `lane` and `seq`.
  public var columns: [String] {
    switch self {
    case .sales:
      [
        "lane", "seq", "day", "at", "receipt", "order_id", "operator", "customer_id", "items",
        "gross", "discounts", "promotions", "net", "tax", "total", "gift_cards", "cash_rounding",
        "change",
      ]
    case .saleLines:
      [
        "lane", "seq", "line", "receipt", "day", "sku", "name", "category", "qty", "unit_price",
        "net", "tax_class", "tax_rate",
      ]
    case .tenders:
      [
        "lane", "seq", "position", "receipt", "day", "kind", "type", "amount", "brand", "last4",
        "name", "reference",
      ]
    case .returns:
      [
        "lane", "seq", "day", "at", "receipt", "original_receipt", "operator", "items", "net",
        "tax", "total", "cash_rounding", "reason",
      ]
    case .returnLines:
      [
        "lane", "seq", "line", "receipt", "day", "sku", "name", "qty", "unit_price", "net", "tax",
        "tax_class",
      ]
    case .voids:
      ["lane", "seq", "day", "at", "order_id", "operator", "amount", "reason"]
    case .drawerMoves:
      ["lane", "seq", "day", "at", "kind", "amount", "operator", "reason"]
    case .zReports:
      [
        "lane", "seq", "day", "opened_at", "closed_at", "sales_count", "items_sold", "gross",
        "discounts", "promotions", "net_sales", "tax", "total", "returns_count", "returns_total",
        "gift_cards_sold", "cash_expected", "counted_cash", "over_short", "gift_cards_reloaded",
      ]
    }
  }

  /// The columns that identify a row: the record, and the row within it.
  public var key: [String] {
    switch self {
    case .saleLines, .returnLines: ["lane", "seq", "line"]
    case .tenders: ["lane", "seq", "position"]
    case .sales, .returns, .voids, .drawerMoves, .zReports: ["lane", "seq"]
    }
  }
}

/// One value of a row.
public enum BackOfficeValue: Sendable, Equatable {
  case text(String)
  case integer(Int64)
  /// An amount or a rate, as a decimal string ("12.50", "7.5").
  case decimal(String)
  case null
}

/// One row of a table.
public struct BackOfficeRow: Sendable, Equatable {
  public var table: BackOfficeTable
  /// In the order of `table.columns`.
  public var values: [BackOfficeValue]
}

/// Replays journal records and says what each one means to a back office.
public struct BackOfficeExporter: Sendable {
  public private(set) var register: Register
  public let lane: String

  public init(lane: String, register: Register = Register()) {
    self.lane = lane
    self.register = register
  }

  /// Applies `record` (the next one in the journal) and returns its rows.
  public mutating func apply(_ record: JournalRecord) throws(RecoveryError) -> [BackOfficeRow] {
    let event: Event
    do {
      event = try Event.decode(
        type: record.type, data: record.data, currency: register.store.currency)
    } catch {
      throw RecoveryError(
        "journal record seq \(record.sequence) (\(record.type)) cannot be read: \(error.description)"
      )
    }
    // What a void cancels is the order as it stood: read before the event replaces it.
    let before = (day: register.day.number, orderTotal: register.totals.total)
    register.apply(
      event, at: record.at, operatorID: record.operatorID, sequence: record.sequence)
    return rows(of: event, record: record, before: before)
  }

  private func money(_ minorUnits: Int64) -> BackOfficeValue {
    .decimal(Money(minorUnits: minorUnits, currency: register.store.currency).decimalString)
  }

  private func text(_ value: String?) -> BackOfficeValue { value.map { .text($0) } ?? .null }

  private func rows(
    of event: Event, record: JournalRecord, before: (day: Int, orderTotal: Int64)
  ) -> [BackOfficeRow] {
    let lane = BackOfficeValue.text(lane)
    let seq = BackOfficeValue.integer(record.sequence)
    let at = BackOfficeValue.text(record.at.iso8601)
    let who = text(record.operatorID)
    switch event {
    case .saleCompleted(_, let number, _, _, _):
      guard let sale = register.receipts[number] else { return [] }
      return saleRows(sale, lane: lane, seq: seq, who: who)
    case .returnCompleted(let returned):
      guard let refund = register.returns[returned.receipt] else { return [] }
      return returnRows(refund, lane: lane, seq: seq, who: who)
    case .orderVoided(let order, let reason, _):
      return [
        BackOfficeRow(
          table: .voids,
          values: [
            lane, seq, .integer(Int64(before.day)), at, .integer(Int64(order)), who,
            money(before.orderTotal), text(reason),
          ])
      ]
    case .floatSet(let amount):
      return [drawerRow("float", amount.minorUnits, nil, lane, seq, at, who, before.day)]
    case .paidIn(let amount, let reason):
      return [drawerRow("paid_in", amount.minorUnits, reason, lane, seq, at, who, before.day)]
    case .paidOut(let amount, let reason):
      return [drawerRow("paid_out", amount.minorUnits, reason, lane, seq, at, who, before.day)]
    case .noSale(let reason):
      return [drawerRow("no_sale", 0, reason, lane, seq, at, who, before.day)]
    case .dayClosed(let number, _, _):
      guard let closed = register.closedDays[number] else { return [] }
      let totals = closed.totals
      let counted = closed.countedCash?.minorUnits
      return [
        BackOfficeRow(
          table: .zReports,
          values: [
            lane, seq, .integer(Int64(number)), text(closed.openedAt?.iso8601),
            .text(closed.closedAt.iso8601), .integer(Int64(totals.salesCount)),
            .integer(totals.itemsSold), money(totals.gross), money(totals.discounts),
            money(totals.promotionDiscounts), money(totals.netSales), money(totals.tax),
            money(totals.total),
            .integer(Int64(totals.returnsCount)), money(totals.returnsTotal),
            money(totals.giftCardsSoldAmount), money(totals.expectedCash),
            counted.map(money) ?? .null,
            counted.map { money(Checked.saturatingSubtract($0, totals.expectedCash)) } ?? .null,
            money(totals.giftCardsReloadedAmount),
          ])
      ]
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderParked, .orderResumed, .operatorAdded,
      .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn,
      .signedOut, .customerAdded, .customerAttached, .customerDetached, .wishlistAdded,
      .wishlistRemoved, .productAdded, .productUpdated, .productRemoved, .stockAdjusted,
      .receiptEmailed, .printQueued, .printDone:
      // Steps on the way to a sale, or not business facts: the sale's row has their outcome.
      return []
    }
  }

  private func drawerRow(
    _ kind: String, _ amount: Int64, _ reason: String?, _ lane: BackOfficeValue,
    _ seq: BackOfficeValue, _ at: BackOfficeValue, _ who: BackOfficeValue, _ day: Int
  ) -> BackOfficeRow {
    BackOfficeRow(
      table: .drawerMoves,
      values: [lane, seq, .integer(Int64(day)), at, .text(kind), money(amount), who, text(reason)])
  }

  private func saleRows(
    _ sale: CompletedSale, lane: BackOfficeValue, seq: BackOfficeValue, who: BackOfficeValue
  ) -> [BackOfficeRow] {
    let totals = sale.totals
    let day = BackOfficeValue.integer(Int64(sale.day))
    let receipt = BackOfficeValue.integer(Int64(sale.receiptNumber))
    // What the goods were sold for, before tax added on top (tax included when prices include
    // it): gross − discounts − promotions, as the Z report's net sales.
    let net = Checked.saturatingSubtract(
      Checked.saturatingSubtract(totals.subtotal, totals.discountTotal), totals.promotionDiscounts)
    var rows = [
      BackOfficeRow(
        table: .sales,
        values: [
          lane, seq, day, .text(sale.at.iso8601), receipt, .integer(Int64(sale.order.id)), who,
          text(sale.customer?.id), .integer(totals.itemCount), money(totals.subtotal),
          money(totals.discountTotal), money(totals.promotionDiscounts), money(net),
          money(totals.tax),
          // As the Z report counts it: the gift cards sold are money held, on their own column.
          money(Checked.saturatingSubtract(totals.total, totals.giftCards)),
          money(totals.giftCards), money(sale.cashRounding.minorUnits),
          money(sale.change.minorUnits),
        ])
    ]
    for line in sale.order.activeLines {
      let net = totals.lines.first { $0.line == line.line }?.net
      rows.append(
        BackOfficeRow(
          table: .saleLines,
          values: [
            lane, seq, .integer(Int64(line.line)), receipt, day, .text(line.sku), .text(line.name),
            text(register.products[line.sku]?.category), .integer(line.quantity),
            .decimal(line.chargedUnitPrice.decimalString), net.map(money) ?? .null,
            .text(line.taxClass), .decimal(line.taxRate.decimalString),
          ]))
    }
    for (index, tender) in sale.order.tenders.enumerated() {
      rows.append(tenderRow(tender, index, "sale", lane, seq, receipt, day))
    }
    return rows
  }

  private func returnRows(
    _ refund: CompletedReturn, lane: BackOfficeValue, seq: BackOfficeValue, who: BackOfficeValue
  ) -> [BackOfficeRow] {
    let day = BackOfficeValue.integer(Int64(refund.day))
    let receipt = BackOfficeValue.integer(Int64(refund.receiptNumber))
    var rows = [
      BackOfficeRow(
        table: .returns,
        values: [
          lane, seq, day, .text(refund.at.iso8601), receipt,
          .integer(Int64(refund.originalReceipt)), who, .integer(refund.itemCount),
          .decimal(refund.net.decimalString), .decimal(refund.tax.decimalString),
          .decimal(refund.total.decimalString), .decimal(refund.cashRounding.decimalString),
          .text(refund.reason),
        ])
    ]
    for line in refund.lines {
      rows.append(
        BackOfficeRow(
          table: .returnLines,
          values: [
            lane, seq, .integer(Int64(line.line)), receipt, day, .text(line.sku), .text(line.name),
            .integer(line.quantity), .decimal(line.unitPrice.decimalString),
            .decimal(line.net.decimalString), .decimal(line.tax.decimalString),
            .text(line.taxClass),
          ]))
    }
    for (index, tender) in refund.refunds.enumerated() {
      rows.append(tenderRow(tender, index, "refund", lane, seq, receipt, day))
    }
    return rows
  }

  /// A tender or refund: a card by brand and last four, a gift card by its last four only.
  private func tenderRow(
    _ tender: Tender, _ index: Int, _ kind: String, _ lane: BackOfficeValue,
    _ seq: BackOfficeValue, _ receipt: BackOfficeValue, _ day: BackOfficeValue
  ) -> BackOfficeRow {
    let last4 = tender.card?.last4 ?? tender.giftCard.map { String($0.suffix(4)) }
    return BackOfficeRow(
      table: .tenders,
      values: [
        lane, seq, .integer(Int64(index + 1)), receipt, day, .text(kind),
        .text(tender.type.rawValue), .decimal(tender.amount.decimalString),
        text(tender.card?.brand.rawValue), text(last4), text(tender.name),
        text(tender.reference.map(CardNumberMask.mask)),
      ])
  }
}
