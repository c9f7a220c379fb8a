/// What happened to the register: the only thing the journal stores. `Register.apply` folds
/// events into state and cannot fail; recovery and replay are `apply` over the journal.
///
/// The cases with a payload of more than about a hundred bytes (settings, a product, an order
/// line, a tender, an operator) are `indirect`: an event is copied several times on its way
/// from `decide` to the journal, and an enum is as large as its largest case (258 bytes
/// before, copied byte by byte each time, for a 48-byte paid in).
public enum Event: Sendable, Equatable {
  /// The store settings in force from now on (journaled at start-up when they changed).
  indirect case storeConfigured(StoreSettings)
  /// The catalog's products as read from the catalog file (at first start and when the file
  /// was edited by hand), with the file's promotions (journaled only when there are some, so
  /// a record without them means none).
  case catalogLoaded([Product], promotions: [Promotion] = [])
  indirect case lineAdded(order: Int, line: OrderLine)
  case lineRemoved(order: Int, line: Int)
  case quantitySet(order: Int, line: Int, quantity: Int64)
  indirect case tenderAdded(order: Int, tender: Tender)
  /// A discount set on a line (or on the whole order when `line` is nil); nil clears it.
  case discountSet(order: Int, line: Int?, discount: Discount?)
  /// A line's unit price replaced by the cashier.
  case priceOverridden(order: Int, line: Int, override: PriceOverride)
  /// The order is paid: it gets its receipt number; stock goes down; a new order opens.
  /// `giftCards`: the gift cards it sold, one per unit, with the numbers `decide` drew.
  case saleCompleted(
    order: Int, receipt: Int, cashRounding: Money, change: Money,
    giftCards: [IssuedGiftCard] = [])
  /// A line stays on the order, marked voided, and no longer counts.
  case lineVoided(order: Int, line: Int)
  /// The open order was cancelled; its tenders were handed back (cash) or voided (cards).
  case orderVoided(order: Int, reason: String?, reversed: [Tender])
  /// The open order was set aside; a new one opens.
  case orderParked(order: Int, note: String?)
  /// A parked order became the open order again, replacing the empty order `replacing`.
  case orderResumed(order: Int, replacing: Int)
  /// Items of an earlier receipt were refunded.
  case returnCompleted(ReturnEvent)
  indirect case operatorAdded(Operator)
  case operatorRemoved(id: String)
  case operatorPINSet(id: String, pin: PINHash)
  case operatorUnlocked(id: String)
  /// A wrong PIN for this operator; the fifth in a row locks them.
  case pinFailed(id: String)
  /// A right PIN for this operator outside a sign-in (a manager's approval): it resets their
  /// count of wrong PINs, as a sign-in does. Journaled only when there was a count to reset.
  case pinAccepted(id: String)
  case signedIn(id: String)
  case signedOut(id: String)
  case customerAdded(Customer)
  /// `taxExempt`: the customer's tax-exemption certificate, which makes the order untaxed.
  case customerAttached(order: Int, customerID: String, taxExempt: String? = nil)
  /// The customer taken off the open order again (`detach_customer`).
  case customerDetached(order: Int)
  /// A product put on a customer's wishlist.
  case wishlistAdded(customerID: String, sku: String)
  /// A product taken off a customer's wishlist; `order` is the order it was moved onto
  /// (`wishlist_to_order`), nil when it was simply removed.
  case wishlistRemoved(customerID: String, sku: String, order: Int? = nil)
  indirect case productAdded(Product)
  indirect case productUpdated(Product)
  case productRemoved(sku: String)
  case stockAdjusted(sku: String, delta: Int64, reason: String)
  /// The opening float in the drawer for the day.
  case floatSet(amount: Money)
  case paidIn(amount: Money, reason: String)
  case paidOut(amount: Money, reason: String)
  /// The drawer was opened without a sale.
  case noSale(reason: String?)
  /// A receipt was written to the outbox as an e-mail.
  case receiptEmailed(receipt: Int, to: String, messageID: String)
  /// The business day ended (the Z report); the next day starts with zero totals.
  /// `journalHead` is the last journal record before this one, printed on the Z report to
  /// anchor the chain (nil in journals written before it was recorded, and without a journal).
  case dayClosed(day: Int, countedCash: Money?, journalHead: JournalHead? = nil)
  /// A job for the receipt printer (a receipt, the drawer kick), queued to print in order.
  case printQueued(PrintJob)
  /// The printer took the job's bytes (journaled by registerd after writing them).
  case printDone(job: Int)

  /// The event's type name, as journaled and sent to subscribers.
  public var type: String { eventType.rawValue }

  /// True for an event that changes what orders are priced with rather than an order itself:
  /// the store's tax settings, the promotions, or a product's category (which decides the
  /// promotions its lines take part in). Lines keep the price they were added at, so a
  /// product's price is not among them.
  public var changesPricing: Bool {
    switch self {
    case .storeConfigured, .catalogLoaded, .productAdded, .productUpdated, .productRemoved:
      true
    case .lineAdded, .lineRemoved, .quantitySet, .tenderAdded, .discountSet, .priceOverridden,
      .saleCompleted, .lineVoided, .orderVoided, .orderParked, .orderResumed, .returnCompleted,
      .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
      .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached, .customerDetached,
      .wishlistAdded, .wishlistRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale,
      .receiptEmailed, .dayClosed, .printQueued, .printDone:
      false
    }
  }

  /// The event's data as JSON (money as decimal strings; never card numbers).
  /// Writes the `data` member: the bytes `data`'s tree writes, written directly for the
  /// drawer events (a durable paid in or paid out is the register's most frequent write that
  /// is not part of a sale); every other event writes its tree.
  func writeData(to writer: inout JSONObjectWriter) {
    if case .paidIn(let amount, let reason) = self {
      writeDrawerData(amount: amount, reason: reason, to: &writer)
    } else if case .paidOut(let amount, let reason) = self {
      writeDrawerData(amount: amount, reason: reason, to: &writer)
    } else if case .floatSet(let amount) = self {
      writer.object("data") { $0.money("amount", amount.minorUnits, amount.currency) }
    } else {
      writer.value("data", data)
    }
  }

  private func writeDrawerData(amount: Money, reason: String, to writer: inout JSONObjectWriter) {
    writer.object("data") { data in
      data.money("amount", amount.minorUnits, amount.currency)
      data.string("reason", reason)
    }
  }

  public var data: JSONValue {
    switch self {
    case .storeConfigured(let settings): settings.json
    case .catalogLoaded(let products, let promotions):
      .object([
        "products": .array(products.map(\.json)),
        "promotions": promotions.isEmpty ? nil : .array(promotions.map(\.json)),
      ])
    case .lineAdded(let order, let line):
      .object(["order_id": .int(order), "line": line.eventJSON])
    case .lineRemoved(let order, let line):
      .object(["order_id": .int(order), "line": .int(line)])
    case .quantitySet(let order, let line, let quantity):
      .object(["order_id": .int(order), "line": .int(line), "qty": .int(quantity)])
    case .tenderAdded(let order, let tender):
      .object(["order_id": .int(order), "tender": tender.json])
    case .discountSet(let order, let line, let discount):
      .object([
        "order_id": .int(order), "line": line.map { .int($0) },
        "discount": discount?.json ?? .null,
      ])
    case .priceOverridden(let order, let line, let override):
      .object([
        "order_id": .int(order), "line": .int(line), "unit_price": override.unitPrice.json,
        "reason": .string(override.reason),
      ])
    case .saleCompleted(let order, let receipt, let rounding, let change, let giftCards):
      .object([
        "order_id": .int(order), "receipt": .int(receipt), "cash_rounding": rounding.json,
        "change": change.json,
        "gift_cards": giftCards.isEmpty ? nil : .array(giftCards.map(\.json)),
      ])
    case .lineVoided(let order, let line):
      .object(["order_id": .int(order), "line": .int(line)])
    case .orderVoided(let order, let reason, let reversed):
      .object([
        "order_id": .int(order), "reason": reason.map(JSONValue.string),
        "reversed_tenders": .array(reversed.map(\.json)),
      ])
    case .orderParked(let order, let note):
      .object(["order_id": .int(order), "note": note.map(JSONValue.string)])
    case .orderResumed(let order, let replacing):
      .object(["order_id": .int(order), "replacing": .int(replacing)])
    case .returnCompleted(let refund):
      refund.json
    case .operatorAdded(let person): person.eventJSON
    case .operatorRemoved(let id), .operatorUnlocked(let id), .pinFailed(let id),
      .pinAccepted(let id), .signedIn(let id), .signedOut(let id):
      .object(["operator_id": .string(id)])
    case .operatorPINSet(let id, let pin):
      .object(["operator_id": .string(id), "pin_hash": .string(pin.encoded)])
    case .customerAdded(let customer): customer.json
    case .customerAttached(let order, let customer, let taxExempt):
      .object([
        "order_id": .int(order), "customer_id": .string(customer),
        "tax_exempt": taxExempt.map(JSONValue.string),
      ])
    case .customerDetached(let order): .object(["order_id": .int(order)])
    case .wishlistAdded(let customer, let sku):
      .object(["customer_id": .string(customer), "sku": .string(sku)])
    case .wishlistRemoved(let customer, let sku, let order):
      .object([
        "customer_id": .string(customer), "sku": .string(sku), "order_id": order.map { .int($0) },
      ])
    case .productAdded(let product), .productUpdated(let product): product.json
    case .productRemoved(let sku): .object(["sku": .string(sku)])
    case .stockAdjusted(let sku, let delta, let reason):
      .object(["sku": .string(sku), "delta": .int(delta), "reason": .string(reason)])
    case .floatSet(let amount): .object(["amount": amount.json])
    case .paidIn(let amount, let reason), .paidOut(let amount, let reason):
      .object(["amount": amount.json, "reason": .string(reason)])
    case .noSale(let reason): .object(["reason": reason.map(JSONValue.string)])
    case .receiptEmailed(let receipt, let to, let messageID):
      .object(["receipt": .int(receipt), "to": .string(to), "message_id": .string(messageID)])
    case .dayClosed(let day, let counted, let head):
      .object(["day": .int(day), "counted_cash": counted?.json, "journal_head": head?.json])
    case .printQueued(let job): job.json
    case .printDone(let job): .object(["job": .int(job)])
    }
  }

  /// Reads an event back from its type and data. Amounts are read in `currency`, the store
  /// currency in force at that point of the journal.
  public static func decode(
    type: String, data: JSONValue, currency: Currency
  ) throws(JSONShapeError) -> Event {
    // Member paths (`data.line.sku`) are built only for the message of a record that fails:
    // recovery, replay and export read every record, nearly always good.
    let event = try withPathsOnFailure("data") { path throws(JSONShapeError) in
      try decode(type: type, data: data, currency: currency, path: path)
    }
    if let (member, number) = event.nonPositiveNumber {
      throw JSONShapeError(
        path: joinPath("data", member),
        message: "must be a whole number from 1 to \(IntegerRanges.maximumCounter), got \(number)")
    }
    return event
  }

  /// The first of the event's order, line, receipt, day and print-job numbers that is below 1
  /// (its member's path under `data`, and the number), or nil when all are 1 or more. Requests
  /// may name 0 or -1 (not found, as `IntegerRanges` says); registerd writes none in a record,
  /// and a snapshot holds none, so a record with one is refused: replayed, it would leave a
  /// register whose snapshot does not read back.
  var nonPositiveNumber: (member: String, number: Int)? {
    // Checked for every record a replay, an export or `verify --events` reads: no array is
    // built for it (`??` takes the first, evaluating the rest only while none is found).
    func below1(_ member: String, _ number: Int?) -> (member: String, number: Int)? {
      guard let number, number < 1 else { return nil }
      return (member, number)
    }
    switch self {
    case .storeConfigured, .catalogLoaded, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded,
      .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn,
      .paidOut, .noSale, .wishlistAdded:
      return nil
    case .lineAdded(let order, let line):
      return below1("order_id", order) ?? below1("line.line", line.line)
    case .lineRemoved(let order, let line), .lineVoided(let order, let line),
      .quantitySet(let order, let line, _), .priceOverridden(let order, let line, _):
      return below1("order_id", order) ?? below1("line", line)
    case .discountSet(let order, let line, _):
      return below1("order_id", order) ?? below1("line", line)
    case .tenderAdded(let order, _), .orderVoided(let order, _, _), .orderParked(let order, _),
      .customerAttached(let order, _, _), .customerDetached(let order):
      return below1("order_id", order)
    case .saleCompleted(let order, let receipt, _, _, let giftCards):
      return below1("order_id", order) ?? below1("receipt", receipt)
        ?? giftCards.lazy.compactMap { below1("gift_cards.line", $0.line) }.first
    case .orderResumed(let order, let replacing):
      return below1("order_id", order) ?? below1("replacing", replacing)
    case .returnCompleted(let event):
      return below1("receipt", event.receipt) ?? below1("original_receipt", event.original)
        ?? event.lines.lazy.compactMap { below1("lines.line", $0.line) }.first
    case .wishlistRemoved(_, _, let order):
      return below1("order_id", order)
    case .receiptEmailed(let receipt, _, _):
      return below1("receipt", receipt)
    case .dayClosed(let day, _, _):
      return below1("day", day)
    case .printQueued(let job):
      switch job.document {
      case .receipt(let receipt, _): return below1("job", job.id) ?? below1("receipt", receipt)
      case .drawer: return below1("job", job.id)
      }
    case .printDone(let job):
      return below1("job", job)
    }
  }

  private static func decode(
    type: String, data: JSONValue, currency: Currency, path: String
  ) throws(JSONShapeError) -> Event {
    var fields = try JSONFields(data, path: path)
    let event: Event
    guard let kind = EventType.named(type) else {
      throw JSONShapeError(path: "type", message: "unknown event type \"\(type)\"")
    }
    switch kind {
    case .storeConfigured:
      return .storeConfigured(try StoreSettings(json: data, path: path))
    case .catalogLoaded:
      let items = try fields.required("products", as: [JSONValue].self)
      var products: [Product] = []
      for (index, item) in items.enumerated() {
        products.append(
          try Product(
            json: item, path: indexPath(joinPath(path, "products"), index), currency: currency,
            taxClasses: nil))
      }
      var promotions: [Promotion] = []
      if let list = try fields.optional("promotions", as: [JSONValue].self) {
        for (index, item) in list.enumerated() {
          promotions.append(
            try Promotion(
              json: item, path: indexPath(joinPath(path, "promotions"), index), currency: currency))
        }
      }
      event = .catalogLoaded(products, promotions: promotions)
    case .lineAdded:
      let order = try fields.required("order_id", as: Int.self)
      guard let lineValue = fields.raw("line") else {
        throw JSONShapeError(path: joinPath(path, "line"), message: "is required")
      }
      event = .lineAdded(
        order: order,
        line: try OrderLine(eventJSON: lineValue, path: joinPath(path, "line"), currency: currency))
    case .lineRemoved:
      event = .lineRemoved(
        order: try fields.required("order_id"), line: try fields.required("line"))
    case .quantitySet:
      event = .quantitySet(
        order: try fields.required("order_id"), line: try fields.required("line"),
        quantity: try fields.required("qty"))
    case .tenderAdded:
      let order = try fields.required("order_id", as: Int.self)
      guard let tenderValue = fields.raw("tender") else {
        throw JSONShapeError(path: joinPath(path, "tender"), message: "is required")
      }
      event = .tenderAdded(
        order: order,
        tender: try Tender(json: tenderValue, path: joinPath(path, "tender"), currency: currency)
      )
    case .discountSet:
      let order = try fields.required("order_id", as: Int.self)
      let line = try fields.optional("line", as: Int.self)
      guard let value = fields.raw("discount") else {
        throw JSONShapeError(path: joinPath(path, "discount"), message: "is required (null clears)")
      }
      let discount =
        value == .null
        ? nil : try Discount(json: value, path: joinPath(path, "discount"), currency: currency)
      event = .discountSet(order: order, line: line, discount: discount)
    case .priceOverridden:
      let order = try fields.required("order_id", as: Int.self)
      let line = try fields.required("line", as: Int.self)
      guard let price = try fields.money("unit_price", currency: currency) else {
        throw JSONShapeError(path: joinPath(path, "unit_price"), message: "is required")
      }
      let reason = try fields.required("reason", as: String.self)
      event = .priceOverridden(
        order: order, line: line, override: PriceOverride(unitPrice: price, reason: reason))
    case .saleCompleted:
      event = .saleCompleted(
        order: try fields.required("order_id"), receipt: try fields.required("receipt"),
        cashRounding: try fields.money("cash_rounding", currency: currency, allowNegative: true)
          ?? .zero(currency),
        change: try fields.money("change", currency: currency) ?? .zero(currency),
        giftCards: try fields.optional("gift_cards", as: [JSONValue].self).map {
          items throws(JSONShapeError) in
          var cards: [IssuedGiftCard] = []
          for (index, item) in items.enumerated() {
            cards.append(
              try IssuedGiftCard(
                json: item, path: indexPath(joinPath(path, "gift_cards"), index), currency: currency
              ))
          }
          return cards
        } ?? [])
    case .lineVoided:
      event = .lineVoided(order: try fields.required("order_id"), line: try fields.required("line"))
    case .orderVoided:
      var reversed: [Tender] = []
      for (index, item) in (try fields.optional("reversed_tenders", as: [JSONValue].self) ?? [])
        .enumerated()
      {
        reversed.append(
          try Tender(
            json: item, path: indexPath(joinPath(path, "reversed_tenders"), index),
            currency: currency))
      }
      event = .orderVoided(
        order: try fields.required("order_id"), reason: try fields.optional("reason"),
        reversed: reversed)
    case .orderParked:
      event = .orderParked(
        order: try fields.required("order_id"), note: try fields.optional("note"))
    case .orderResumed:
      event = .orderResumed(
        order: try fields.required("order_id"), replacing: try fields.required("replacing"))
    case .returnCompleted:
      return .returnCompleted(try ReturnEvent(json: data, path: path, currency: currency))
    case .operatorAdded:
      return .operatorAdded(try Operator(eventJSON: data, path: path))
    case .operatorRemoved: event = .operatorRemoved(id: try fields.required("operator_id"))
    case .operatorUnlocked: event = .operatorUnlocked(id: try fields.required("operator_id"))
    case .pinFailed: event = .pinFailed(id: try fields.required("operator_id"))
    case .pinAccepted: event = .pinAccepted(id: try fields.required("operator_id"))
    case .signedIn: event = .signedIn(id: try fields.required("operator_id"))
    case .signedOut: event = .signedOut(id: try fields.required("operator_id"))
    case .operatorPINSet:
      let id = try fields.required("operator_id", as: String.self)
      guard let pin = PINHash(encoded: try fields.required("pin_hash", as: String.self)) else {
        throw JSONShapeError(path: joinPath(path, "pin_hash"), message: "not a PIN hash")
      }
      event = .operatorPINSet(id: id, pin: pin)
    case .customerAdded:
      return .customerAdded(try Customer(eventJSON: data, path: path))
    case .customerAttached:
      event = .customerAttached(
        order: try fields.required("order_id"), customerID: try fields.required("customer_id"),
        taxExempt: try fields.optional("tax_exempt"))
    case .customerDetached:
      event = .customerDetached(order: try fields.required("order_id"))
    case .wishlistAdded:
      event = .wishlistAdded(
        customerID: try fields.required("customer_id"), sku: try fields.required("sku"))
    case .wishlistRemoved:
      event = .wishlistRemoved(
        customerID: try fields.required("customer_id"), sku: try fields.required("sku"),
        order: try fields.optional("order_id"))
    case .productAdded, .productUpdated:
      let product = try Product(json: data, path: path, currency: currency, taxClasses: nil)
      return kind == .productAdded ? .productAdded(product) : .productUpdated(product)
    case .productRemoved: event = .productRemoved(sku: try fields.required("sku"))
    case .stockAdjusted:
      event = .stockAdjusted(
        sku: try fields.required("sku"), delta: try fields.required("delta"),
        reason: try fields.required("reason"))
    case .floatSet:
      guard let amount = try fields.money("amount", currency: currency) else {
        throw JSONShapeError(path: joinPath(path, "amount"), message: "is required")
      }
      event = .floatSet(amount: amount)
    case .paidIn, .paidOut:
      guard let amount = try fields.money("amount", currency: currency) else {
        throw JSONShapeError(path: joinPath(path, "amount"), message: "is required")
      }
      let reason = try fields.required("reason", as: String.self)
      event =
        kind == .paidIn
        ? .paidIn(amount: amount, reason: reason) : .paidOut(amount: amount, reason: reason)
    case .noSale: event = .noSale(reason: try fields.optional("reason"))
    case .receiptEmailed:
      event = .receiptEmailed(
        receipt: try fields.required("receipt"), to: try fields.required("to"),
        messageID: try fields.required("message_id"))
    case .printQueued:
      return .printQueued(try PrintJob(json: data, path: path))
    case .printDone:
      event = .printDone(job: try fields.required("job"))
    case .dayClosed:
      event = .dayClosed(
        day: try fields.required("day"),
        countedCash: try fields.money("counted_cash", currency: currency),
        journalHead: try fields.optional("journal_head"))
    }
    try fields.rejectUnknown()
    return event
  }
}
