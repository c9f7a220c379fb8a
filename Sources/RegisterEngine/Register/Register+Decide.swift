extension Register {
  /// The most units of one product a single line may hold.
  public static let maximumQuantity: Int64 = 9999
  /// The most lines an order may hold, voided ones included (a voided line stays on the
  /// order and its receipt). A full trolley is a few hundred; the bound keeps what one client
  /// can make the register hold, and the work of pricing an order, bounded.
  public static let maximumLines = 500
  /// The most tenders one order may take (a split payment is a handful).
  public static let maximumTenders = 50
  /// The most orders that may be parked at once.
  public static let maximumParked = 100
  /// The most products the catalog may hold (added with `product_add` or in the catalog file):
  /// a large store's range, with room; the bound keeps what a client or a file can make the
  /// register hold in memory, and in every snapshot, bounded.
  public static let maximumProducts = 100_000
  /// The most customers the register may know (`customer_add`). A store with a larger loyalty
  /// base keeps it in its back office.
  public static let maximumCustomers = 100_000
  /// The most operators (`operator_add`).
  public static let maximumOperators = 1_000

  /// Validates `command` against the current state: the events that carry it out and the
  /// manager who approved it (when one had to), or a refusal with a stable code and the events
  /// that stand even so (a wrong PIN is counted). Never changes anything.
  ///
  /// A read (a `Query`) is only authorized: it has no events.
  public func decide(_ request: any RequestBody, context: CommandContext) -> Decision {
    decideAndPrice(request, context: context).decision
  }

  /// `decide`, and the open order with the totals it checked the events against, when `apply`
  /// may take those totals rather than compute them again (see `PricedOrder`).
  public func decideAndPrice(_ request: any RequestBody, context: CommandContext) -> (
    decision: Decision, priced: PricedOrder?
  ) {
    if let mutation = request as? any Mutation {
      return decideAndPrice(mutation, context: context)
    }
    guard let query = request as? any DecodableRequestBody else {
      let error = RegisterError(.unknownOp, "\(Swift.type(of: request).wireName) is not an op")
      return (.rejected(error, events: []), nil)
    }
    var standing: [Event] = []
    do {
      let approvedBy = try authorize(query, context: context, standing: &standing)
      return (.accepted(events: standing, approvedBy: approvedBy), nil)
    } catch {
      return (.rejected(error, events: standing), nil)
    }
  }

  /// `decideAndPrice` for a change.
  func decideAndPrice(_ request: any Mutation, context: CommandContext) -> (
    decision: Decision, priced: PricedOrder?
  ) {
    // Events that stand whatever becomes of the request: a wrong PIN counted, and an
    // approval's right PIN resetting a count even if the request is then refused.
    var standing: [Event] = []
    do {
      var approvedBy = try authorize(request, context: context, standing: &standing)
      let events = try request.decide(on: self, context: context, standing: &standing)
      guard !events.isEmpty else {
        return (.accepted(events: standing, approvedBy: approvedBy), nil)
      }
      let after = try checkOutcome(of: events, at: context.now)
      let drawer = try checkDayTotals(of: events, orderAfter: after)
      // Rules judged on the state after the change: the discount limit (whatever mix of line,
      // order discounts and overrides got there) and the cash in the drawer.
      if approvedBy == nil,
        let rule = managerRule(events: events, orderAfter: after, drawer: drawer)
      {
        approvedBy = try approve(
          rule.reason, refusal: rule.refusal, context: context, standing: &standing)
      }
      // Worth handing on only where totalling costs something (promotions to search), and
      // only when the events leave what the order is priced with as it is.
      let priced =
        catalog.promotions.isEmpty || events.contains(where: \.changesPricing)
        ? nil
        : PricedOrder(order: after?.order ?? order, totals: after?.totals ?? totals)
      return (
        .accepted(events: standing + events + printJobs(for: events), approvedBy: approvedBy),
        priced
      )
    } catch {
      return (.rejected(error, events: standing), nil)
    }
  }

  /// `wishlist_to_order`: one unit of a wishlist product onto the order, off the wishlist.
  func decideWishlistToOrder(customerID: String, sku: String) throws(RegisterError) -> [Event] {
    try checkOnWishlist(customerID: customerID, sku: sku)
    do {
      return try decideAdd(sku: sku, quantity: 1, options: [:], amount: nil)
        + [.wishlistRemoved(customerID: customerID, sku: sku, order: order.id)]
    } catch {
      throw RegisterError(
        error.code, "\(message: error.errorMessage); it stays on \(id: customerID)'s wishlist",
        data: error.data)
    }
  }

  func decideVoidLine(_ number: Int) throws(RegisterError) -> [Event] {
    _ = try activeLine(number)
    return [.lineVoided(order: order.id, line: number)]
  }

  func decidePark(note: String?) throws(RegisterError) -> [Event] {
    guard !order.activeLines.isEmpty else {
      throw RegisterError(.emptyOrder, "the order has nothing on it to park")
    }
    guard order.tenders.isEmpty else {
      throw RegisterError(
        .orderHasTenders, "an order with tenders cannot be parked; finish paying or void it")
    }
    guard parked.count < Self.maximumParked else {
      throw RegisterError(
        .parkedFull,
        "\(parked.count) orders are parked, the most there may be; resume one and finish or void it first"
      )
    }
    return [.orderParked(order: order.id, note: note)]
  }

  func decideResume(orderID: Int) throws(RegisterError) -> [Event] {
    guard parked.contains(where: { $0.id == orderID }) else {
      let ids = parked.map { String($0.id) }
      throw RegisterError(
        .orderNotFound,
        "no parked order \(orderID)\(ids.isEmpty ? " (nothing is parked)" : " (parked: \(ids.joined(separator: ", ")))")"
      )
    }
    guard order.lines.isEmpty && order.tenders.isEmpty else {
      throw RegisterError(
        .orderNotEmpty,
        "order \(order.id) is open with items; park it (or finish or void it) before resuming another"
      )
    }
    return [.orderResumed(order: orderID, replacing: order.id)]
  }

  /// `scan`: one unit of the product a scanner read.
  func decideScan(code: String) throws(RegisterError) -> [Event] {
    let (product, labelPrice) = try scannedItem(code)
    // The store's choice (`scan_adds_to_line`): the same item scanned again is one more on
    // the line it just made, when that line is plain (no options, price override or label
    // price), as many tills do; otherwise each scan is a line.
    if store.scanAddsToLine, labelPrice == nil,
      let last = order.lines.last(where: { !$0.voided }), last.sku == product.sku,
      last.options.isEmpty, !last.giftCard, last.override == nil,
      last.unitPrice == product.unitPrice
    {
      return try decideSetQuantity(line: last.line, quantity: last.quantity + 1)
    }
    return try decideAdd(
      sku: product.sku, quantity: 1, options: [:], amount: nil, labelPrice: labelPrice)
  }

  func decideRemove(line: Int) throws(RegisterError) -> [Event] {
    _ = try activeLine(line)
    return [.lineRemoved(order: order.id, line: line)]
  }

  func decideVoid(reason: String?) throws(RegisterError) -> [Event] {
    guard !order.isEmpty || !order.lines.isEmpty else {
      throw RegisterError(.emptyOrder, "the order is empty; there is nothing to void")
    }
    return [.orderVoided(order: order.id, reason: reason, reversed: order.tenders)]
  }

  func decideOverridePrice(line number: Int, unitPrice price: Money, reason: String)
    throws(RegisterError) -> [Event]
  {
    guard try !activeLine(number).giftCard else {
      throw RegisterError(
        .invalidAmount, "line \(number) is a gift card: its price is its value and cannot change")
    }
    return [
      .priceOverridden(
        order: order.id, line: number, override: PriceOverride(unitPrice: price, reason: reason))
    ]
  }

  func decideCloseDay(countedCash counted: Money?, context: CommandContext)
    throws(RegisterError) -> [Event]
  {
    guard order.isEmpty else {
      throw RegisterError(
        .orderNotEmpty,
        "order \(order.id) is still open; complete, park or void it before closing the day")
    }
    return [.dayClosed(day: day.number, countedCash: counted, journalHead: context.journalHead)]
  }

  /// The open order and its totals after a request's events, when they change them.
  typealias OrderAfter = (order: Order, totals: OrderTotals)

  /// Applies `events` to a copy of the open order and makes sure the result can be totalled
  /// (no overflow) and no discount exceeds what it applies to, so that `apply` never meets an
  /// order it cannot total. Only the order is copied (this runs on every request), and the
  /// catalog too when an event changes what orders are priced with (tax settings, promotions,
  /// a product's category): the order is then totalled as `apply` will total it. Once payment
  /// has started, the total may only go up, whatever the change. Returns the order and its
  /// totals after the events, or nil when they leave both as they are (most events do not
  /// touch the order: no copy of it is handed on for them).
  @discardableResult
  func checkOutcome(of events: [Event], at now: Timestamp) throws(RegisterError) -> OrderAfter? {
    var copy = order
    var changed = false
    // A product's category matters only to promotions: without any, a product change leaves
    // every order's totals as they are (and the catalog is not copied).
    func reprices(_ event: Event) -> Bool {
      guard event.changesPricing else { return false }
      if case .storeConfigured = event { return true }
      if case .catalogLoaded = event { return true }
      return !catalog.promotions.isEmpty
    }
    var repricing: [Event] = []
    for event in events {
      if copy.apply(event, at: now) { changed = true }
      if reprices(event) { repricing.append(event) }
    }
    // The catalog the events leave, when they change pricing and the order has lines.
    var pricing: StoreCatalog?
    if !repricing.isEmpty, !copy.activeLines.isEmpty {
      var after = catalog
      for event in repricing { after.apply(event, sale: nil) }
      pricing = after
      changed = true
    }
    guard changed else { return nil }
    let priced = pricing ?? catalog
    let totals: OrderTotals
    do {
      totals = try OrderTotals.compute(
        copy, tax: priced.store.tax, promotions: priced.promotionContext(for: copy, at: now))
    } catch {
      throw RegisterError.overflow()
    }
    // Every amount the journal holds is read back within ±Money.maximumMinorUnits: an order
    // whose total is past it could be tendered for (a card pays the balance) and written to a
    // journal that could then never be replayed.
    guard abs(totals.total) <= Money.maximumMinorUnits else {
      throw RegisterError.overflow()
    }
    if !order.tenders.isEmpty && totals.total < self.totals.total {
      if pricing != nil {
        throw RegisterError(
          .orderHasTenders,
          "this would lower the total of order \(order.id) from \(money(self.totals.total).decimalString) to \(money(totals.total).decimalString) (its tax or promotions change), and payment has started on it (\(money(order.paid).decimalString) paid); finish paying or void the order first"
        )
      }
      throw RegisterError(
        .orderHasTenders,
        "payment has started (\(money(order.paid).decimalString) paid), so the total can only go up; finish paying, or void the order to start over"
      )
    }
    for line in totals.lines where line.lineDiscount > line.gross {
      throw RegisterError(
        .invalidDiscount,
        "line \(line.line)'s discount would be more than the line's amount (\(money(line.gross).decimalString))"
      )
    }
    if case .amount(let amount) = copy.discount?.value {
      let base = totals.subtotal - totals.lineDiscounts - totals.promotionDiscounts
      if amount.minorUnits > base {
        throw RegisterError(
          .invalidDiscount,
          "the order discount of \(amount.decimalString) would be more than the order's \(money(base).decimalString); lower or remove the order discount first"
        )
      }
    }
    return (copy, totals)
  }

  /// Runs `events` through a copy of the day's totals exactly as `apply` will, and refuses
  /// (`invalid_amount`) a change the totals could not hold: money never wraps. Returns the
  /// day's totals after the events.
  func checkDayTotals(
    of events: [Event], orderAfter after: OrderAfter?
  ) throws(RegisterError) -> DayTotals {
    var projected = day.totals
    /// Folds one event into `projected`, with the open order as the event finds it.
    func fold(_ event: Event, finding current: Order) throws(ArithmeticOverflow) {
      var sale: CompletedSale?
      var refund: CompletedReturn?
      switch event {
      case .saleCompleted(_, let receipt, let rounding, let change, let giftCards):
        sale = CompletedSale(
          receiptNumber: receipt, day: day.number, at: Timestamp(epochMilliseconds: 0),
          order: after?.order ?? order, totals: after?.totals ?? totals, cashRounding: rounding,
          change: change, header: ReceiptHeader(store: store), currency: store.currency,
          operatorName: nil, customer: nil, giftCards: giftCards)
      case .returnCompleted(let event):
        refund = CompletedReturn(
          receiptNumber: event.receipt, originalReceipt: event.original, day: day.number,
          at: Timestamp(epochMilliseconds: 0), lines: event.lines, refunds: event.refunds,
          cashRounding: event.cashRounding, reason: event.reason,
          header: ReceiptHeader(store: store), currency: store.currency, operatorName: nil,
          customer: nil)
      case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
        .discountSet, .priceOverridden, .lineVoided, .orderVoided, .orderParked, .orderResumed,
        .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked, .pinFailed,
        .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached, .customerDetached,
        .wishlistAdded, .wishlistRemoved,
        .productAdded,
        .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut, .noSale,
        .receiptEmailed, .dayClosed, .printQueued, .printDone:
        break
      }
      try projected.apply(event, order: current, orderTotals: totals, sale: sale, refund: refund)
    }
    do {
      if after == nil {
        // No event changes the order (`checkOutcome` found none that does): each finds it as
        // it is, read where it lies.
        for event in events { try fold(event, finding: order) }
      } else {
        var current = order
        for event in events {
          try fold(event, finding: current)
          _ = current.apply(event, at: Timestamp(epochMilliseconds: 0))
        }
      }
    } catch {
      throw RegisterError.overflow("the day's totals")
    }
    return projected
  }

  func activeLine(_ number: Int) throws(RegisterError) -> OrderLine {
    guard let index = order.index(ofLine: number) else {
      let numbers = order.lines.filter { !$0.voided }.map { String($0.line) }
      let hint =
        numbers.isEmpty ? "the order has no lines" : "lines are \(numbers.joined(separator: ", "))"
      throw RegisterError(.lineNotFound, "there is no line \(number) on the order (\(hint))")
    }
    let line = order.lines[index]
    guard !line.voided else {
      throw RegisterError(.lineVoided, "line \(number) is voided and can no longer change")
    }
    return line
  }

  func checkQuantity(_ quantity: Int64) throws(RegisterError) {
    guard (1...Self.maximumQuantity).contains(quantity) else {
      throw RegisterError(
        .invalidQuantity,
        "quantity must be a whole number from 1 to \(Self.maximumQuantity), got \(quantity)")
    }
  }

  /// Refuses when `sku` would be on the order more times than it has in stock.
  func checkStock(sku: String, adding quantity: Int64, excludingLine line: Int? = nil)
    throws(RegisterError)
  {
    guard let product = products[sku], let stock = product.stock else { return }
    guard stock > 0 else {
      throw RegisterError(.outOfStock, "\(product.name) (\(id: sku)) is out of stock")
    }
    let held = order.quantity(ofSKU: sku, excludingLine: line)
    let reserved = orders.parkedQuantity(ofSKU: sku)
    guard held + reserved + quantity <= stock else {
      var holding = held > 0 ? "; the order already holds \(held)" : ""
      if reserved > 0 { holding += "; parked orders hold \(reserved)" }
      throw RegisterError(
        .outOfStock, "only \(stock) of \(product.name) (\(id: sku)) in stock\(holding)")
    }
  }

  /// The product a scanned code names: a barcode of a product, else a product's SKU (a
  /// scanner may read a shelf label that carries the SKU). A code shaped like a barcode with a
  /// wrong check digit is a misread, and says so, rather than "unknown".
  ///
  /// With `price_barcode_prefixes` set, an EAN-13 with one of them that is no product's own
  /// code is read as `PP IIIII VVVVV C`: the product whose barcode is the code with the price
  /// digits zero, at the price VVVVV (in minor units) printed on its label.
  func scannedItem(_ code: String) throws(RegisterError) -> (Product, labelPrice: Money?) {
    switch Barcode.parse(code) {
    case .success(let barcode):
      if let product = products.product(barcode: barcode) { return (product, nil) }
      if let product = products[catalogSKU(code)] { return (product, nil) }
      if let embedded = barcode.priceEmbedded(prefixes: store.priceBarcodePrefixes) {
        guard let product = products.product(barcode: embedded.base) else {
          throw RegisterError(
            .unknownBarcode,
            "no product has the item code of the price label \(id: code) (its barcode would be \(embedded.base.digits)); add it with its SKU"
          )
        }
        return (product, money(embedded.price))
      }
      throw RegisterError(
        .unknownBarcode,
        "no product has the \(barcode.kind.rawValue) barcode \(id: code); add it with its SKU, or give the product that barcode (product_update)",
        data: .object(["code": .string(code), "kind": .string(barcode.kind.rawValue)])
      )
    case .failure(.badCheckDigit(let kind, _)):
      if let product = products[catalogSKU(code)] { return (product, nil) }
      throw RegisterError(
        .invalidBarcode,
        "\(code) is not a valid \(kind.rawValue): its check digit is wrong (a misread?); scan it again or type the SKU"
      )
    case .failure(.notABarcode):
      if let product = products[catalogSKU(code)] { return (product, nil) }
      throw RegisterError(
        .unknownBarcode, "no product has the barcode or SKU \"\(code)\"")
    }
  }

  /// `labelPrice`: the price a price-embedded barcode carried, which is the unit price.
  func decideAdd(
    sku typed: String, quantity: Int64, options: [String: String], amount: Money?,
    labelPrice: Money? = nil
  ) throws(RegisterError) -> [Event] {
    // A code typed or scanned into `add` that is no SKU but a product's barcode names that
    // product, as it would at `scan`: a cashier does not tell the two apart.
    var sku = catalogSKU(typed)
    if products[sku] == nil, case .success(let barcode) = Barcode.parse(typed),
      let product = products.product(barcode: barcode)
    {
      sku = product.sku
    }
    guard order.lines.count < Self.maximumLines else {
      throw RegisterError(
        .orderFull,
        "order \(order.id) holds \(order.lines.count) lines, the most one may; finish it, or park it and ring up the rest as a new order"
      )
    }
    guard let product = products[sku] else {
      throw RegisterError(
        .unknownSKU, "no product has SKU \"\(id: sku)\"; the catalog op lists them",
        data: .object(["sku": .string(sku)]))
    }
    try checkQuantity(quantity)
    try checkStock(sku: sku, adding: quantity)
    let chosen = try chooseOptions(options, for: product)
    var unit = product.unitPrice.minorUnits
    if let labelPrice {
      guard !product.giftCard else {
        throw RegisterError(
          .invalidBarcode,
          "\(product.name) is a gift card; it is not sold by a price label — ring it up by its SKU")
      }
      guard product.options.isEmpty else {
        throw RegisterError(
          .invalidOption,
          "\(product.name) has options; a price label cannot say which — ring it up by its SKU")
      }
      // The label's price is the price: not a sale price, not an override.
      let taxClass = product.taxClass ?? store.tax.defaultClass
      let line = OrderLine(
        line: order.nextLine, sku: sku, name: product.name, quantity: quantity,
        unitPrice: labelPrice, regularPrice: labelPrice, taxClass: taxClass,
        taxRate: store.tax.rate(of: taxClass) ?? .zero)
      return [.lineAdded(order: order.id, line: line)]
    }
    if product.giftCard {
      unit = try giftCardPrice(product, amount: amount)
      try checkGiftCardCount(adding: quantity)
      let line = OrderLine(
        line: order.nextLine, sku: sku, name: product.name, quantity: quantity,
        unitPrice: money(unit), regularPrice: money(unit),
        taxClass: product.taxClass ?? store.tax.defaultClass, taxRate: .zero, giftCard: true)
      return [.lineAdded(order: order.id, line: line)]
    }
    guard amount == nil else {
      throw RegisterError(
        .badRequest, "only an open-amount gift card takes an amount; \(id: sku) has its price")
    }
    var regular = product.price.minorUnits
    for option in chosen {
      // A catalog may list any number of option groups; their sum is checked, not trusted.
      do {
        unit = try Checked.add(unit, option.priceDelta.minorUnits)
        regular = try Checked.add(regular, option.priceDelta.minorUnits)
      } catch {
        throw RegisterError.overflow("those options")
      }
    }
    guard unit >= 0 else {
      throw RegisterError(.invalidOption, "those options would make the price negative")
    }
    let taxClass = product.taxClass ?? store.tax.defaultClass
    let line = OrderLine(
      line: order.nextLine, sku: sku, name: product.name, quantity: quantity,
      unitPrice: money(unit), regularPrice: money(regular), taxClass: taxClass,
      taxRate: store.tax.rate(of: taxClass) ?? .zero, options: chosen)
    return [.lineAdded(order: order.id, line: line)]
  }

  /// Matches the chosen options against the product's groups, in the product's group order.
  func chooseOptions(_ options: [String: String], for product: Product) throws(RegisterError)
    -> [ChosenOption]
  {
    for group in options.keys.sorted() where product.optionGroup(named: group) == nil {
      let known = product.options.map { "\"\($0.group)\"" }.joined(separator: ", ")
      throw RegisterError(
        .invalidOption,
        product.options.isEmpty
          ? "\(product.name) has no options, but \"\(group)\" was given"
          : "\(product.name) has no option group \"\(group)\" (groups: \(known))")
    }
    var chosen: [ChosenOption] = []
    for group in product.options {
      guard let choiceName = options[group.group] else {
        if group.required {
          let names = group.choices.map(\.name).joined(separator: ", ")
          throw RegisterError(
            .invalidOption, "\(product.name) needs a choice of \(group.group) (\(names))")
        }
        continue
      }
      guard let choice = group.choice(named: choiceName) else {
        let names = group.choices.map(\.name).joined(separator: ", ")
        throw RegisterError(
          .invalidOption, "\"\(choiceName)\" is not a \(group.group) choice (\(names))")
      }
      chosen.append(
        ChosenOption(group: group.group, choice: choice.name, priceDelta: choice.priceDelta))
    }
    return chosen
  }

  func decideSetQuantity(line number: Int, quantity: Int64) throws(RegisterError) -> [Event] {
    let line = try activeLine(number)
    try checkQuantity(quantity)
    guard line.reloads == nil || quantity == 1 else {
      throw RegisterError(
        .invalidQuantity, "line \(number) reloads one gift card: its quantity is 1")
    }
    if quantity > line.quantity {
      try checkStock(sku: line.sku, adding: quantity, excludingLine: number)
      if line.giftCard { try checkGiftCardCount(adding: quantity - line.quantity) }
    }
    if case .amount(let amount) = line.discount?.value {
      let gross = line.chargedUnitPrice.minorUnits.multipliedReportingOverflow(by: quantity)
      if !gross.overflow && amount.minorUnits > gross.partialValue {
        throw RegisterError(
          .invalidDiscount,
          "the line's discount of \(amount.decimalString) would exceed the line at quantity \(quantity)"
        )
      }
    }
    return [.quantitySet(order: order.id, line: number, quantity: quantity)]
  }

  func decideDiscount(
    line number: Int?, value: DiscountValue?, reason: String
  ) throws(RegisterError) -> Event {
    if let number {
      guard try !activeLine(number).giftCard else {
        throw RegisterError(
          .invalidDiscount,
          "line \(number) is a gift card: it is loaded with what is paid for it, so it cannot be discounted"
        )
      }
    } else if order.activeLines.isEmpty {
      throw RegisterError(.emptyOrder, "the order is empty; there is nothing to discount")
    }
    if let problem = value?.problem {
      throw RegisterError(.invalidDiscount, "\(problem)")
    }
    return .discountSet(
      order: order.id, line: number,
      discount: value.map { Discount(value: $0, reason: reason) })
  }
}
