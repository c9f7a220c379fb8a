/// One returned line: how many units of which line of the original sale, and what was refunded
/// for them (net of that line's discounts, and its tax).
public struct ReturnLine: Sendable, Equatable {
  /// The line number on the original receipt.
  public var line: Int
  public var sku: String
  public var name: String
  public var quantity: Int64
  /// The unit price the line was sold at.
  public var unitPrice: Money
  /// What the units cost after discounts (tax included when prices include tax).
  public var net: Money
  /// The tax on (or contained in) them.
  public var tax: Money
  public var taxClass: String
  public var taxRate: Percent

  public init(
    line: Int, sku: String, name: String, quantity: Int64, unitPrice: Money, net: Money,
    tax: Money, taxClass: String, taxRate: Percent
  ) {
    self.line = line
    self.sku = sku
    self.name = name
    self.quantity = quantity
    self.unitPrice = unitPrice
    self.net = net
    self.tax = tax
    self.taxClass = taxClass
    self.taxRate = taxRate
  }
}

/// A return: items of an earlier receipt refunded to the tenders they were paid with.
public struct CompletedReturn: Sendable, Equatable, Numbered {
  public var receiptNumber: Int
  /// The receipt the items were sold on.
  public var originalReceipt: Int
  public var day: Int
  public var at: Timestamp
  public var lines: [ReturnLine]
  /// The refunds, one per original tender type used: card refunds name the same card.
  public var refunds: [Tender]
  /// The cash rounding of the cash refund (the cash handed back minus the exact cash share).
  public var cashRounding: Money
  public var reason: String
  public var header: ReceiptHeader
  public var currency: Currency
  public var operatorName: String?
  public var customer: CustomerRef?

  public var number: Int { receiptNumber }

  /// Σ net of the returned lines.
  public var net: Money {
    Money(minorUnits: Checked.saturatingSum(lines.map(\.net.minorUnits)), currency: currency)
  }
  /// Σ tax of the returned lines.
  public var tax: Money {
    Money(minorUnits: Checked.saturatingSum(lines.map(\.tax.minorUnits)), currency: currency)
  }
  /// What the customer is owed: net plus tax (net alone when prices include tax).
  public var total: Money {
    header.taxIncluded
      ? net
      : Money(
        minorUnits: Checked.saturatingAdd(net.minorUnits, tax.minorUnits), currency: currency)
  }
  public var itemCount: Int64 { Checked.saturatingSum(lines.map(\.quantity)) }
}

extension ReceiptRenderer {
  /// The text of a return receipt.
  public static func text(_ refund: CompletedReturn, reprint: Bool = false) -> String {
    layout(refund, reprint: reprint).text
  }

  /// The return receipt as ESC/POS bytes (see `escpos(_:reprint:options:)` for a sale's).
  public static func escpos(
    _ refund: CompletedReturn, reprint: Bool = false, options: EscPosOptions = EscPosOptions()
  ) -> [UInt8] {
    EscPos.document(
      layout(refund, reprint: reprint), options: options,
      code: ReceiptCode.text(for: refund.receiptNumber))
  }

  static func layout(_ refund: CompletedReturn, reprint: Bool) -> TextLayout {
    let money = { (units: Int64) in
      Money(minorUnits: units, currency: refund.currency).decimalString
    }
    var out = TextLayout(width: refund.header.width)
    header(&out, refund.header)
    if reprint { out.center("*** REPRINT ***") }
    out.rule("=")
    out.styled(.emphasized) { $0.center("RETURN") }
    let local = refund.at.local
    out.columns("Receipt \(refund.receiptNumber)", "\(local.dateString) \(local.timeString)")
    out.columns("Refund for receipt \(refund.originalReceipt)", "Day \(refund.day)")
    if let name = refund.operatorName { out.line("Cashier: \(name)") }
    if let customer = refund.customer { out.line("Customer: \(customer.name) (\(customer.id))") }
    out.line("Reason: \(refund.reason)", indent: "  ")
    out.rule()
    for line in refund.lines {
      out.columns("\(line.quantity) x \(line.name)", money(-line.net.minorUnits))
      if line.quantity > 1
        || line.net.minorUnits
          != Checked.saturatingMultiply(line.unitPrice.minorUnits, line.quantity)
      {
        out.line(
          "    @ \(line.unitPrice.decimalString), line \(line.line) of the sale", indent: "      ")
      }
    }
    out.rule()
    out.columns("Subtotal", money(-refund.net.minorUnits))
    let classes = refund.lines.reduce(into: [(String, Percent, Int64)]()) { result, line in
      if let index = result.firstIndex(where: { $0.0 == line.taxClass && $0.1 == line.taxRate }) {
        result[index].2 = Checked.saturatingAdd(result[index].2, line.tax.minorUnits)
      } else {
        result.append((line.taxClass, line.taxRate, line.tax.minorUnits))
      }
    }
    if refund.header.taxIncluded {
      out.styled(.large) { $0.columns("REFUND", money(-refund.total.minorUnits)) }
      for (name, rate, tax) in classes {
        out.columns("  incl. tax \(name) \(rate.decimalString)%", money(-tax))
      }
    } else {
      for (name, rate, tax) in classes {
        out.columns("Tax \(name) \(rate.decimalString)%", money(-tax))
      }
      out.styled(.large) { $0.columns("REFUND", money(-refund.total.minorUnits)) }
    }
    if refund.cashRounding.minorUnits != 0 {
      out.columns("Cash rounding", money(-refund.cashRounding.minorUnits))
    }
    out.rule()
    for tender in refund.refunds {
      out.columns("\(tender.label) refund", money(-tender.amount.minorUnits))
    }
    out.rule()
    out.columns("Items returned", String(refund.itemCount))
    if let footer = refund.header.footer {
      out.blank()
      out.center(footer)
    }
    return out
  }
}

extension CompletedReturn {
  /// The return receipt as a JSON object.
  public func receiptJSON(reprint: Bool = false) -> JSONValue {
    .object([
      "number": .int(receiptNumber),
      "kind": .string("return"),
      "reprint": reprint ? .bool(true) : nil,
      "original_receipt": .int(originalReceipt),
      "day": .int(day),
      "at": .string(at.iso8601),
      "store": header.storeJSON,
      "currency": .string(currency.code),
      "operator": operatorName.map(JSONValue.string),
      "customer": customer.map { .object(["id": .string($0.id), "name": .string($0.name)]) },
      "reason": .string(reason),
      "lines": .array(
        lines.map {
          .object([
            "line": .int($0.line), "sku": .string($0.sku), "name": .string($0.name),
            "qty": .int($0.quantity), "unit_price": $0.unitPrice.json, "net": $0.net.json,
            "tax": $0.tax.json, "tax_class": .string($0.taxClass),
          ])
        }),
      "item_count": .int(itemCount),
      "net": net.json,
      "tax": tax.json,
      "tax_included": .bool(header.taxIncluded),
      "total": total.json,
      "cash_rounding": cashRounding.json,
      "refunds": .array(refunds.map(\.publicJSON)),
    ])
  }

  /// The `receipt` member of a reply.
  public func receiptReply(reprint: Bool) -> JSONValue {
    .object([
      "number": .int(receiptNumber),
      "text": .string(ReceiptRenderer.text(self, reprint: reprint)),
      "receipt": receiptJSON(reprint: reprint),
    ])
  }
}
