/// Prints receipts: fixed-width text for the printer and the same facts as a JSON object.
/// Both depend only on the `CompletedSale`, which holds only journaled facts, so a reprint or
/// a replay years later produces the same bytes.
public enum ReceiptRenderer {
  /// The receipt text. `reprint` adds a REPRINT banner (never used at the moment of sale).
  public static func text(_ sale: CompletedSale, reprint: Bool = false) -> String {
    layout(sale, reprint: reprint).text
  }

  /// The receipt as ESC/POS bytes for a receipt printer: the same lines as `text`, the store's
  /// name emphasised, the total in double height, the receipt's code as a barcode (or QR
  /// code) a return can be scanned from, and a partial cut.
  public static func escpos(
    _ sale: CompletedSale, reprint: Bool = false, options: EscPosOptions = EscPosOptions()
  ) -> [UInt8] {
    EscPos.document(
      layout(sale, reprint: reprint), options: options,
      code: ReceiptCode.text(for: sale.receiptNumber))
  }

  static func layout(_ sale: CompletedSale, reprint: Bool) -> TextLayout {
    let money = { (units: Int64) in Money(minorUnits: units, currency: sale.currency).decimalString
    }
    var out = TextLayout(width: sale.header.width)
    header(&out, sale.header)
    if reprint { out.center("*** REPRINT ***") }
    out.rule("=")
    let local = sale.at.local
    out.columns("Receipt \(sale.receiptNumber)", "\(local.dateString) \(local.timeString)")
    out.columns("Order \(sale.order.id)", "Day \(sale.day)")
    if let name = sale.operatorName { out.line("Cashier: \(name)") }
    if let customer = sale.customer { out.line("Customer: \(customer.name) (\(customer.id))") }
    if let certificate = sale.order.taxExemption {
      out.line("Tax exempt: certificate \(certificate)")
    }
    out.rule()
    let lineTotals = Dictionary(uniqueKeysWithValues: sale.totals.lines.map { ($0.line, $0) })
    // A return names an item by its SKU or barcode; where one product is on several lines
    // (scanned twice, one of them discounted), their numbers tell the lines apart.
    var seen: [String: Int] = [:]
    for line in sale.order.lines where !line.voided { seen[line.sku, default: 0] += 1 }
    for line in sale.order.lines {
      itemLines(
        &out, line, totals: lineTotals[line.line], money: money,
        number: (seen[line.sku] ?? 0) > 1 && !line.voided)
    }
    out.rule()
    // An order of gift cards alone has no items: no subtotal, no item count.
    let hasItems = sale.totals.itemCount != 0 || sale.totals.giftCardCount == 0
    if hasItems { out.columns("Subtotal", money(sale.totals.subtotal)) }
    for promotion in sale.totals.promotions {
      out.columns(promotion.name, "-" + money(promotion.saving))
    }
    if let discount = sale.order.discount, sale.totals.orderDiscount > 0 {
      out.columns(
        "Order discount \(discount.label) (\(discount.reason))",
        "-" + money(sale.totals.orderDiscount))
    }
    if sale.totals.lineDiscounts > 0 {
      out.columns("Line discounts", "-" + money(sale.totals.lineDiscounts))
    }
    if !sale.header.taxIncluded {
      for tax in sale.totals.taxLines {
        out.columns("Tax \(tax.taxClass) \(tax.rate.decimalString)%", money(tax.tax))
      }
    }
    if sale.totals.giftCards > 0 {
      out.columns("Gift cards (no tax)", money(sale.totals.giftCards))
    }
    out.styled(.large) { $0.columns("TOTAL", money(sale.totals.total)) }
    if sale.header.taxIncluded {
      for tax in sale.totals.taxLines {
        out.columns("  incl. tax \(tax.taxClass) \(tax.rate.decimalString)%", money(tax.tax))
      }
    }
    if sale.cashRounding.minorUnits != 0 {
      out.columns("Cash rounding", money(sale.cashRounding.minorUnits))
      out.columns("Amount due", sale.amountDue.decimalString)
    }
    out.rule()
    for tender in sale.order.tenders {
      out.columns(tender.label, tender.amount.decimalString)
    }
    out.columns("Change", sale.change.decimalString)
    if !sale.giftCards.isEmpty {
      // The only place a gift card's whole number is printed: it is what the customer spends.
      out.rule()
      out.line("Gift cards issued")
      for card in sale.giftCards {
        out.columns("  " + GiftCardNumber.grouped(card.number), card.amount.decimalString)
      }
    }
    // What the customer saved: sale prices, promotions and every discount.
    let saved = Checked.saturatingAdd(
      Checked.saturatingAdd(sale.totals.savings, sale.totals.promotionDiscounts),
      sale.totals.discountTotal)
    if hasItems || saved > 0 { out.rule() }
    if hasItems { out.columns("Items", String(sale.totals.itemCount)) }
    if saved > 0 {
      out.columns("You saved", money(saved))
    }
    if let footer = sale.header.footer {
      out.blank()
      out.center(footer)
    }
    return out
  }

  static func header(_ out: inout TextLayout, _ header: ReceiptHeader) {
    out.styled(.emphasized) { $0.center(header.storeName) }
    for line in header.address { out.center(line) }
    if let phone = header.phone { out.center(phone) }
  }

  private static func itemLines(
    _ out: inout TextLayout, _ line: OrderLine, totals: LineTotals?,
    money: (Int64) -> String, number: Bool
  ) {
    let gross = Checked.saturatingMultiply(line.chargedUnitPrice.minorUnits, line.quantity)
    let label = (number ? "#\(line.line) " : "") + "\(line.quantity) x \(line.name)"
    if line.voided {
      out.columns(label, "VOID")
      out.line("    (voided, \(money(gross)) not charged)", indent: "      ")
      return
    }
    out.columns(label, money(gross))
    for option in line.options {
      let delta =
        option.priceDelta.minorUnits == 0
        ? "" : " (\(option.priceDelta.minorUnits > 0 ? "+" : "")\(option.priceDelta.decimalString))"
      out.line("    \(option.group): \(option.choice)\(delta)", indent: "      ")
    }
    if line.quantity > 1 {
      out.line("    @ \(line.chargedUnitPrice.decimalString) each", indent: "      ")
    }
    if let override = line.override {
      out.line(
        "    price override, was \(line.unitPrice.decimalString) (\(override.reason))",
        indent: "      ")
    } else if line.isOnSale {
      let saving = Checked.saturatingMultiply(
        Checked.saturatingSubtract(line.regularPrice.minorUnits, line.unitPrice.minorUnits),
        line.quantity)
      out.line(
        "    sale, reg \(line.regularPrice.decimalString), save \(money(saving))", indent: "      ")
    }
    if let discount = line.discount, let totals, totals.lineDiscount > 0 {
      out.columns(
        "    discount \(discount.label) (\(discount.reason))", "-" + money(totals.lineDiscount),
        indent: "    ")
    }
  }
}
