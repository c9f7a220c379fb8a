/// The JSON shapes the protocol sends: the order, the catalog, receipts.
extension Register {
  /// The open order as the protocol shows it.
  public var orderJSON: JSONValue {
    Register.orderJSON(
      order, totals: totals, status: "open", currency: store.currency,
      cashDue: (try? cashDue(max(0, totals.total - order.paid))) ?? 0,
      change: 0, cashRounding: 0, hasCashRounding: store.cashRounding != nil,
      customerName: order.customerID.flatMap { customerBook.customer($0)?.name })
  }

  /// An order object: lines, totals, tenders, what is paid and what is still due.
  static func orderJSON(
    _ order: Order, totals: OrderTotals, status: String, currency: Currency, cashDue: Int64,
    change: Int64, cashRounding: Int64, hasCashRounding: Bool, receipt: Int? = nil,
    customerName: String? = nil
  ) -> JSONValue {
    let money = { (units: Int64) in
      JSONValue.string(Money(minorUnits: units, currency: currency).decimalString)
    }
    let lineTotals = Dictionary(uniqueKeysWithValues: totals.lines.map { ($0.line, $0) })
    let paid = order.paid
    let balance = status == "open" ? max(0, totals.total - paid) : 0
    return .object([
      "order_id": .int(order.id),
      "status": .string(status),
      "version": .int(order.version),
      "receipt": receipt.map { .int($0) },
      "lines": .array(
        order.lines.map { line in lineJSON(line, totals: lineTotals[line.line], money: money) }),
      "item_count": .int(totals.itemCount),
      "subtotal": money(totals.subtotal),
      "discount": order.discount.map(\.json),
      "discount_total": money(totals.discountTotal),
      "promotions": totals.promotions.isEmpty
        ? nil : .array(totals.promotions.map { $0.json(money: money) }),
      "promotion_savings": totals.promotionDiscounts > 0 ? money(totals.promotionDiscounts) : nil,
      "tax": money(totals.tax),
      "taxes": .array(totals.taxLines.map { $0.json(currency: currency) }),
      "tax_included": .bool(totals.taxIncluded),
      "gift_cards": totals.giftCards > 0 ? money(totals.giftCards) : nil,
      "total": money(totals.total),
      "tenders": .array(order.tenders.map(\.publicJSON)),
      "paid": money(paid),
      "balance_due": money(balance),
      "cash_due": hasCashRounding && status == "open" ? money(cashDue) : nil,
      "cash_rounding": cashRounding != 0 ? money(cashRounding) : nil,
      "change_due": money(change),
      "customer_id": order.customerID.map(JSONValue.string),
      "customer_name": customerName.map(JSONValue.string),
      "tax_exempt": order.taxExemption.map(JSONValue.string),
      "note": order.note.map(JSONValue.string),
    ])
  }

  static func lineJSON(_ line: OrderLine, totals: LineTotals?, money: (Int64) -> JSONValue)
    -> JSONValue
  {
    let gross = Checked.saturatingMultiply(line.chargedUnitPrice.minorUnits, line.quantity)
    return .object([
      "line": .int(line.line),
      "sku": .string(line.sku),
      "name": .string(line.name),
      "qty": .int(line.quantity),
      "unit_price": line.chargedUnitPrice.json,
      "regular_price": line.regularPrice != line.chargedUnitPrice ? line.regularPrice.json : nil,
      "amount": money(gross),
      "tax_class": .string(line.taxClass),
      "options": line.options.isEmpty
        ? nil
        : .object(line.options.reduce(into: JSONObject()) { $0[$1.group] = .string($1.choice) }),
      "override": line.override.map {
        .object([
          "unit_price": $0.unitPrice.json, "was": line.unitPrice.json, "reason": .string($0.reason),
        ])
      },
      "discount": line.discount?.json,
      "discount_amount": (totals?.lineDiscount ?? 0) > 0 ? money(totals?.lineDiscount ?? 0) : nil,
      "promotion_discount": (totals?.promotionDiscount ?? 0) > 0
        ? money(totals?.promotionDiscount ?? 0) : nil,
      "net": totals.map { money($0.net) },
      "voided": line.voided ? .bool(true) : nil,
      "gift_card": line.giftCard ? .bool(true) : nil,
      "reloads": line.reloads.map { .string(GiftCardNumber.masked($0)) },
    ])
  }

  /// The catalog reply: each product with its effective price and tax.
  /// `catalog`'s reply: at most `limit` products in catalog order, from the one after
  /// `afterSKU` (the last SKU of the page before) or from the first. When products follow the
  /// page, `remaining` says how many; a reply without it holds the last of them.
  func catalogPage(limit: Int, afterSKU: String?) throws(RegisterError) -> JSONValue {
    guard let page = products.page(after: afterSKU, limit: limit) else {
      throw RegisterError(
        .unknownSKU,
        "no product has SKU \"\(afterSKU ?? "")\" (removed since the page before?); list the catalog from its start"
      )
    }
    return catalogJSON(products: page.products, remaining: page.remaining)
  }

  private func catalogJSON(products page: [Product], remaining: Int) -> JSONValue {
    .object([
      "store": .object([
        "name": .string(store.name), "currency": .string(store.currency.code),
        "prices_include_tax": .bool(store.tax.pricesIncludeTax),
      ]),
      "products": .array(page.map(productJSON)),
      "promotions": promotions.isEmpty ? nil : .array(promotions.map(\.json)),
      "remaining": remaining > 0 ? .int(remaining) : nil,
    ])
  }

  /// A product as the protocol shows it: every field of the catalog file's product (so a
  /// client learns all a file can say, `gift_card` and `open_amount` included), with what the
  /// register works out beside them: the price charged now, the stock available (less what
  /// open and parked orders hold), the tax class in force and its rate.
  func productJSON(_ product: Product) -> JSONValue {
    let taxClass = product.taxClass ?? store.tax.defaultClass
    guard case .object(var object) = product.json else { return product.json }
    object["unit_price"] = product.unitPrice.json
    object["stock"] = product.stock.map { .int($0) } ?? .null
    object["available"] = product.stock.map { .int(max(0, $0 - reserved(sku: product.sku))) }
    object["tax_class"] = .string(taxClass)
    object["tax_rate"] = (store.tax.rate(of: taxClass) ?? .zero).json
    object["gift_card"] = .bool(product.giftCard)
    object["open_amount"] = .bool(product.openAmount)
    object["on_sale"] = .bool(product.salePrice != nil)
    return .object(object)
  }

  /// Units of `sku` held by the open order and parked orders (not available to sell).
  func reserved(sku: String) -> Int64 {
    order.quantity(ofSKU: sku) + orders.parkedQuantity(ofSKU: sku)
  }

  /// A parked order as `parked` lists it: the order object plus when and why it was parked.
  /// Its totals are the ones kept since it was parked, not computed again here.
  func parkedJSON(_ parkedOrder: Order) -> JSONValue {
    let totals = orders.parkedTotals[parkedOrder.id] ?? OrderTotals()
    guard
      case .object(var object) = Register.orderJSON(
        parkedOrder, totals: totals, status: "parked", currency: store.currency, cashDue: 0,
        change: 0, cashRounding: 0, hasCashRounding: false)
    else { return .null }
    object["parked_at"] = parkedOrder.parkedAt.map { .string($0.iso8601) }
    return .object(object)
  }
}

extension CompletedSale {
  /// The completed order, in the same shape as the open order.
  public var orderJSON: JSONValue {
    Register.orderJSON(
      order, totals: totals, status: "completed", currency: currency, cashDue: 0,
      change: change.minorUnits, cashRounding: cashRounding.minorUnits,
      hasCashRounding: false, receipt: receiptNumber, customerName: customer?.name)
  }

  /// The receipt as a JSON object: the same facts the text prints.
  public func receiptJSON(reprint: Bool = false) -> JSONValue {
    let money = { (units: Int64) in
      JSONValue.string(Money(minorUnits: units, currency: currency).decimalString)
    }
    let lineTotals = Dictionary(uniqueKeysWithValues: totals.lines.map { ($0.line, $0) })
    return .object([
      "number": .int(receiptNumber),
      "kind": .string("sale"),
      "reprint": reprint ? .bool(true) : nil,
      "day": .int(day),
      "at": .string(at.iso8601),
      "order_id": .int(order.id),
      "store": header.storeJSON,
      "currency": .string(currency.code),
      "operator": operatorName.map(JSONValue.string),
      "customer": customer.map { .object(["id": .string($0.id), "name": .string($0.name)]) },
      "tax_exempt": order.taxExemption.map(JSONValue.string),
      "lines": .array(
        order.lines.map { Register.lineJSON($0, totals: lineTotals[$0.line], money: money) }),
      "item_count": .int(totals.itemCount),
      "subtotal": money(totals.subtotal),
      "discount": order.discount.map(\.json),
      "line_discounts": money(totals.lineDiscounts),
      "order_discount": money(totals.orderDiscount),
      "promotions": totals.promotions.isEmpty
        ? nil : .array(totals.promotions.map { $0.json(money: money) }),
      "promotion_savings": totals.promotionDiscounts > 0 ? money(totals.promotionDiscounts) : nil,
      "tax_included": .bool(totals.taxIncluded),
      "taxes": .array(totals.taxLines.map { $0.json(currency: currency) }),
      "tax": money(totals.tax),
      "total": money(totals.total),
      "cash_rounding": money(cashRounding.minorUnits),
      "amount_due": amountDue.json,
      "tenders": .array(order.tenders.map(\.publicJSON)),
      "paid": money(order.paid),
      "change": change.json,
      "savings": money(totals.savings),
      "gift_cards": giftCards.isEmpty
        ? nil
        : .array(
          giftCards.map {
            .object([
              "line": .int($0.line), "number": .string($0.number), "amount": $0.amount.json,
            ])
          }),
      "gift_cards_total": totals.giftCards > 0 ? money(totals.giftCards) : nil,
    ])
  }

  /// The `receipt` member of a reply: number, text and the JSON form.
  public func receiptReply(reprint: Bool) -> JSONValue {
    .object([
      "number": .int(receiptNumber),
      "text": .string(ReceiptRenderer.text(self, reprint: reprint)),
      "receipt": receiptJSON(reprint: reprint),
    ])
  }
}

extension Register {
  /// The drawer so far today, as the drawer ops answer it: float, cash in and out, the day,
  /// and the cash the drawer should hold (written straight into `object`).
  static func writeDrawer(
    to object: inout JSONObjectWriter, _ totals: DayTotals, day: Int, currency: Currency
  ) {
    totals.writeDrawer(to: &object, currency: currency)
    object.int("day", day)
    object.money("expected_cash", totals.expectedCash, currency)
  }
}

extension TaxLine {
  /// `{class, rate, basis, tax}`, as orders, receipts and reports show tax.
  func json(currency: Currency) -> JSONValue {
    .object([
      "class": .string(taxClass), "rate": rate.json,
      "basis": Money(minorUnits: basis, currency: currency).json,
      "tax": Money(minorUnits: tax, currency: currency).json,
    ])
  }
}

extension ReceiptHeader {
  /// The store as receipts name it.
  var storeJSON: JSONValue {
    .object([
      "name": .string(storeName), "address": .array(address.map(JSONValue.string)),
      "phone": phone.map(JSONValue.string),
    ])
  }
}

extension DayTotals {
  /// The drawer's movements, as the drawer ops and the reports show them.
  func drawerJSON(currency: Currency) -> JSONValue {
    var object = JSONObjectWriter(capacity: 256)
    writeDrawer(to: &object, currency: currency)
    return JSONValue.parsingOwnOutput(object.finished())
  }

  /// The drawer's members, written into `object`.
  func writeDrawer(to object: inout JSONObjectWriter, currency: Currency) {
    object.money("float", float, currency)
    object.money("cash_taken", cashTaken, currency)
    object.money("change_given", changeGiven, currency)
    object.money("cash_refunds", cashRefunds, currency)
    object.money("paid_in", paidIn, currency)
    object.int("paid_in_count", paidInCount)
    object.money("paid_out", paidOut, currency)
    object.int("paid_out_count", paidOutCount)
    object.int("no_sales", noSales)
  }
}

extension Register {
  /// A customer as lookups show them: the customer's own fields and their store credit.
  func customerJSON(_ customer: Customer) -> JSONValue {
    guard case .object(var object) = customer.json else { return customer.json }
    object["store_credit"] = money(storedValue.storeCredit[customer.id] ?? 0).json
    return .object(object)
  }

  /// `product`: one product by SKU, or by a barcode it carries (a cashier scans the tag to
  /// see where else it is in stock).
  func productLookup(_ text: String) throws(RegisterError) -> JSONValue {
    var product = products[catalogSKU(text)]
    if product == nil, case .success(let barcode) = Barcode.parse(text) {
      product = products.product(barcode: barcode)
    }
    guard let product else {
      throw RegisterError(
        .unknownSKU, "no product has the SKU or barcode \"\(text)\"; the catalog op lists them",
        data: .object(["sku": .string(text)]))
    }
    return .object(["product": productJSON(product)])
  }

  /// `wishlist`: a customer's wishlist, oldest first, each product with what this lane has
  /// available and the stock at other stores; a product the catalog no longer has is listed
  /// as discontinued.
  func wishlistJSON(_ customerID: String) throws(RegisterError) -> JSONValue {
    guard let customer = customerBook.customer(customerID) else {
      throw RegisterError(.customerNotFound, "there is no customer \"\(id: customerID)\"")
    }
    let items = customerBook.wishlist(customerID).map { sku -> JSONValue in
      guard let product = products[sku] else {
        return .object([
          "sku": .string(sku), "in_stock": .bool(false), "discontinued": .bool(true),
        ])
      }
      let available = product.stock.map { max(0, $0 - reserved(sku: sku)) }
      return .object([
        "sku": .string(sku),
        "name": .string(product.name),
        "unit_price": product.unitPrice.json,
        "available": available.map { .int($0) },
        "in_stock": .bool(available.map { $0 > 0 } ?? true),
        "stores": product.stores.isEmpty ? nil : product.storesJSON,
      ])
    }
    return .object([
      "wishlist": .object([
        "customer_id": .string(customer.id), "name": .string(customer.name),
        "items": .array(items),
      ])
    ])
  }

  /// `gift_card_balance`: what is left on a card, what it was loaded with, when it was issued
  /// and last used.
  func giftCardBalance(_ text: String) throws(RegisterError) -> JSONValue {
    guard let number = GiftCardNumber.normalized(text), let card = storedValue.giftCards[number]
    else {
      throw RegisterError(
        .giftCardNotFound, "no gift card has the number \(text); check the number on the card")
    }
    return .object([
      "gift_card": .object([
        "number": .string(GiftCardNumber.masked(card.number)),
        "balance": money(card.balance).json,
        "issued_amount": money(card.issuedAmount).json,
        "issued_receipt": .int(card.receipt),
        "issued_day": .int(card.issuedDay),
        "issued_at": .string(card.issuedAt.iso8601),
        "last_used_at": card.lastUsedAt.map { .string($0.iso8601) },
      ])
    ])
  }
}

extension AppliedPromotion {
  /// A promotion as the order reply shows it: what it saved and each line's share.
  func json(money: (Int64) -> JSONValue) -> JSONValue {
    .object([
      "id": .string(id),
      "name": .string(name),
      "applications": .int(applications),
      "saving": money(saving),
      "lines": .array(
        lines.map {
          .object(["line": .int($0.line), "units": .int($0.units), "saving": money($0.saving)])
        }),
    ])
  }
}
