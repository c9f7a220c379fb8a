/// The register's rules for paying: each kind of tender and what it may cover, stored value
/// (gift cards, store credit), the cash steps and rounding, and the sale's completion once the
/// order is paid.
extension Register {
  func decideTender(
    _ request: TenderRequest, context: CommandContext
  ) throws(RegisterError) -> [Event] {
    guard !order.activeLines.isEmpty else {
      throw RegisterError(.emptyOrder, "the order is empty; add items before taking payment")
    }
    guard order.tenders.count < Self.maximumTenders else {
      throw RegisterError(
        .orderFull,
        "order \(order.id) has taken \(order.tenders.count) tenders, the most one may; take the balance in one tender, or void the order"
      )
    }
    let balance = totals.total - order.paid
    var events: [Event] = []
    let tender: Tender
    switch request {
    case .cash(let amount):
      let due = try cashDue(balance)
      try checkCashStep(amount, what: "a cash tender", due: due)
      guard amount.minorUnits > 0 || due == 0 else {
        throw RegisterError(.invalidAmount, "a tender amount must be greater than zero")
      }
      if amount.minorUnits >= balance && amount.minorUnits < due {
        // Cash rounds the balance up here; taking this would leave nothing due and the sale
        // not settled.
        throw RegisterError(
          .invalidAmount,
          "in cash the balance of \(money(balance).decimalString) is due as \(money(due).decimalString) (cash rounding); tender \(money(due).decimalString) or more, or less than \(money(balance).decimalString)"
        )
      }
      events.append(.tenderAdded(order: order.id, tender: Tender(type: .cash, amount: amount)))
      if amount.minorUnits >= due {
        events.append(
          try saleCompletion(
            cashRounding: due - balance, change: amount.minorUnits - due, context: context))
      }
      return events
    case .card(let card, let requested):
      let summary: CardSummary
      do {
        summary = try CardValidator.validate(card, today: context.now.local)
      } catch .expired(let month, let year) {
        throw RegisterError(
          .cardExpired,
          "\(CardError.expired(month: month, year: year)); use another card")
      } catch {
        throw RegisterError(.invalidCard, "\(error)")
      }
      let amount = try nonCashAmount(requested ?? money(balance), balance: balance, "a card")
      tender = Tender(type: .card, amount: money(amount), card: summary)
    case .cardPresent(let amount, let brand, let last4, let authCode):
      tender = try cardPresentTender(
        amount: amount, brand: brand, last4: last4, authCode: authCode, balance: balance)
    case .giftCard(let number, let amount):
      tender = try giftCardTender(number: number, amount: amount, balance: balance)
    case .storeCredit(let customer, let amount):
      tender = try storeCreditTender(customer: customer, amount: amount, balance: balance)
    case .other(let name, let amount, let reference):
      tender = try storeTender(name: name, amount: amount, reference: reference, balance: balance)
    }
    events.append(.tenderAdded(order: order.id, tender: tender))
    if tender.amount.minorUnits == balance {
      events.append(try saleCompletion(cashRounding: 0, change: 0, context: context))
    }
    return events
  }

  /// A non-cash amount: more than zero, and never more than the balance due (no change is
  /// given on anything but cash). `what` names the tender in the message.
  private func nonCashAmount(_ amount: Money, balance: Int64, _ what: String) throws(RegisterError)
    -> Int64
  {
    guard amount.minorUnits > 0 else {
      throw RegisterError(.invalidAmount, "a tender amount must be greater than zero")
    }
    guard amount.minorUnits <= balance else {
      throw RegisterError(
        .tenderExceedsBalance,
        "\(what) cannot pay more than the balance due of \(money(balance).decimalString) (no change is given on it)"
      )
    }
    return amount.minorUnits
  }

  /// The amount a gift card or store credit pays: as asked, or the lesser of what is on it and
  /// the balance due; never more than either.
  private func storedValueAmount(
    _ requested: Money?, available: Int64, balance: Int64, what: String
  ) throws(RegisterError) -> Int64 {
    guard available > 0 else {
      throw RegisterError(.insufficientBalance, "\(what) has no balance left")
    }
    let amount = requested?.minorUnits ?? min(available, balance)
    guard amount > 0 else {
      throw RegisterError(.invalidAmount, "a tender amount must be greater than zero")
    }
    guard amount <= available else {
      throw RegisterError(
        .insufficientBalance,
        "\(what) has a balance of \(money(available).decimalString); tender that much or less")
    }
    return try nonCashAmount(money(amount), balance: balance, what)
  }

  /// A gift card cannot pay for gift cards: it would turn a card into a new bearer card with no
  /// money changing hands (and launder a found or stolen number).
  private func refuseGiftCardForGiftCard() throws(RegisterError) {
    throw RegisterError(
      .giftCardForGiftCard,
      "gift cards cannot be bought with a gift card; pay for the gift cards another way")
  }

  private func giftCardTender(number text: String, amount: Money?, balance: Int64)
    throws(RegisterError) -> Tender
  {
    if order.activeLines.contains(where: \.giftCard) { try refuseGiftCardForGiftCard() }
    guard let number = GiftCardNumber.normalized(text), let card = storedValue.giftCards[number]
    else {
      // The number is masked in the message like a card number (it passes the Luhn check).
      throw RegisterError(
        .giftCardNotFound, "no gift card has the number \(text); check the number on the card")
    }
    let taken = try storedValueAmount(
      amount, available: card.balance, balance: balance,
      what: "gift card ****\(number.suffix(4))")
    return Tender(type: .giftCard, amount: money(taken), giftCard: number)
  }

  private func storeCreditTender(customer: String, amount: Money?, balance: Int64)
    throws(RegisterError) -> Tender
  {
    guard customerBook.customer(customer) != nil else {
      throw RegisterError(.customerNotFound, "no customer \(customer)")
    }
    let taken = try storedValueAmount(
      amount, available: storedValue.storeCredit[customer] ?? 0, balance: balance,
      what: "the store credit of \(customer)")
    return Tender(type: .storeCredit, amount: money(taken), customerID: customer)
  }

  private func storeTender(
    name: String, amount requested: Money, reference: String?, balance: Int64
  )
    throws(RegisterError) -> Tender
  {
    guard store.tenders.contains(name) else {
      throw RegisterError(
        .unknownTender,
        store.tenders.isEmpty
          ? "this store takes no store tenders (store setting \"tenders\")"
          : "this store's tenders are \(store.tenders.joined(separator: ", ")), not \"\(name)\"")
    }
    let amount = try nonCashAmount(requested, balance: balance, "a \(name)")
    return Tender(type: .other, amount: money(amount), name: name, reference: reference)
  }

  /// A payment an external terminal approved. Nothing in it may be a card number: the brand
  /// is one of the known names, last4 exactly four digits, the authorization code 1–12 letters
  /// and digits that do not look like a card number. No message repeats what was sent.
  private func cardPresentTender(
    amount requested: Money, brand brandName: String, last4: String, authCode code: String,
    balance: Int64
  ) throws(RegisterError) -> Tender {
    let brands = CardBrand.allCases.map(\.rawValue).joined(separator: ", ")
    guard let brand = CardBrand(rawValue: brandName.uppercased()) else {
      throw RegisterError(.invalidCard, "brand must be one of \(brands)")
    }
    guard last4.unicodeScalars.count == 4,
      last4.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) })
    else {
      throw RegisterError(
        .invalidCard, "last4 must be exactly the last 4 digits of the card (never the number)")
    }
    guard (1...12).contains(code.unicodeScalars.count),
      code.unicodeScalars.allSatisfy({
        ("0"..."9").contains($0) || ("A"..."Z").contains($0) || ("a"..."z").contains($0)
      }),
      // A payment field typed beside the card's last four, where a card number typed in the
      // wrong box would otherwise be kept: not an identifier the store chose.
      !CardNumberMask.containsCardNumber(code)
    else {
      throw RegisterError(
        .invalidCard,
        "auth_code must be the terminal's authorization code: 1 to 12 letters and digits")
    }
    let amount = try nonCashAmount(requested, balance: balance, "a card_present tender")
    return Tender(
      type: .cardPresent, amount: money(amount), card: CardSummary(brand: brand, last4: last4),
      authCode: code)
  }

  /// The event that completes the open order's sale, with a new gift card for each gift-card
  /// unit on it. Numbers come from the request's random source and are journaled, so a replay
  /// gives the same numbers; a number already issued (or drawn twice) is drawn again.
  func saleCompletion(cashRounding: Int64, change: Int64, context: CommandContext)
    throws(RegisterError) -> Event
  {
    var issued: [IssuedGiftCard] = []
    var taken: Set<String> = []
    for line in order.activeLines where line.giftCard && line.reloads == nil {
      for _ in 0..<max(0, line.quantity) {
        var number: String?
        for _ in 0..<16 {
          let candidate = GiftCardNumber.make(from: context.random(8))
          if storedValue.giftCards[candidate] == nil && !taken.contains(candidate) {
            number = candidate
            break
          }
        }
        guard let number else {
          throw RegisterError(
            .internalError, "could not draw a new gift card number; the random source repeats")
        }
        taken.insert(number)
        issued.append(
          IssuedGiftCard(line: line.line, number: number, amount: line.chargedUnitPrice))
      }
    }
    return .saleCompleted(
      order: order.id, receipt: nextReceiptNumber, cashRounding: money(cashRounding),
      change: money(change), giftCards: issued)
  }

  /// The most gift cards one order may sell: each is a number drawn and printed.
  public static let maximumGiftCardsPerOrder: Int64 = 100

  /// What one gift card of `product` is loaded with: its price, or for an open-amount card the
  /// amount the cashier gave, within `Product.openAmountRange`. Not while a gift card pays.
  func giftCardPrice(_ product: Product, amount: Money?) throws(RegisterError) -> Int64 {
    if order.tenders.contains(where: { $0.type == .giftCard }) { try refuseGiftCardForGiftCard() }
    let range = Product.openAmountRange(store.currency)
    let bounds =
      "\(money(range.lowerBound).decimalString) to \(money(range.upperBound).decimalString)"
    guard product.openAmount else {
      guard amount == nil else {
        throw RegisterError(
          .badRequest,
          "\(id: product.sku) is a gift card of \(product.price.decimalString); it takes no amount")
      }
      return product.price.minorUnits
    }
    guard let amount else {
      throw RegisterError(
        .invalidAmount,
        "\(id: product.sku) is an open-amount gift card: give its amount (\(bounds))")
    }
    guard range.contains(amount.minorUnits) else {
      throw RegisterError(
        .invalidAmount, "a gift card is loaded with \(bounds), not \(amount.decimalString)")
    }
    return amount.minorUnits
  }

  /// `gift_card_reload`: value loaded onto a gift card already issued, as a line of the sale
  /// (money held for the customer, like a gift card sold: not discounted, not taxed). The card
  /// takes the value when the sale completes; the amount is bounded as an open-amount card's.
  func decideGiftCardReload(number text: String, amount: Money) throws(RegisterError) -> [Event] {
    if order.tenders.contains(where: { $0.type == .giftCard }) { try refuseGiftCardForGiftCard() }
    guard let number = GiftCardNumber.normalized(text), let card = storedValue.giftCards[number]
    else {
      throw RegisterError(
        .giftCardNotFound, "no gift card has the number \(text); check the number on the card")
    }
    let range = Product.openAmountRange(store.currency)
    guard range.contains(amount.minorUnits) else {
      throw RegisterError(
        .invalidAmount,
        "a gift card is loaded with \(money(range.lowerBound).decimalString) to \(money(range.upperBound).decimalString), not \(amount.decimalString)"
      )
    }
    try checkGiftCardCount(adding: 1)
    // What the card will hold once this order's reloads of it are loaded must stay countable.
    var balance = card.balance
    for line in order.activeLines where line.reloads == number {
      balance = balance.addingReportingOverflow(line.chargedUnitPrice.minorUnits).partialValue
    }
    guard !balance.addingReportingOverflow(amount.minorUnits).overflow else {
      throw RegisterError.overflow("the gift card's balance")
    }
    let line = OrderLine(
      line: order.nextLine, sku: Self.giftCardReloadSKU,
      name: "Gift card reload \(GiftCardNumber.masked(number))", quantity: 1,
      unitPrice: amount, regularPrice: amount, taxClass: store.tax.defaultClass, taxRate: .zero,
      giftCard: true, reloads: number)
    return [.lineAdded(order: order.id, line: line)]
  }

  /// The SKU a reload line carries: it is no product of the catalog.
  public static let giftCardReloadSKU = "GIFT-CARD-RELOAD"

  /// Refuses more gift cards on the order than `maximumGiftCardsPerOrder`.
  func checkGiftCardCount(adding quantity: Int64) throws(RegisterError) {
    var count: Int64 = 0
    for line in order.activeLines where line.giftCard { count += line.quantity }
    guard count + quantity <= Self.maximumGiftCardsPerOrder else {
      throw RegisterError(
        .invalidQuantity,
        "one order sells at most \(Self.maximumGiftCardsPerOrder) gift cards (it has \(count))")
    }
  }

  /// In a store that rounds cash (no pennies in the drawer), refuses an amount of cash that is
  /// not a whole number of the increment: such cash cannot be handed over, and change worked
  /// out from it would not be either. `due` (what is due in cash) goes into the message.
  func checkCashStep(_ amount: Money, what: String, due: Int64? = nil) throws(RegisterError) {
    guard let increment = store.cashRounding?.minorUnits, increment > 0,
      amount.minorUnits % increment != 0
    else { return }
    let dueText = due.map { "; the cash due is \(money($0).decimalString)" } ?? ""
    throw RegisterError(
      .invalidAmount,
      "this store handles cash in steps of \(money(increment).decimalString): \(what) of \(amount.decimalString) is not a multiple of \(money(increment).decimalString)\(dueText)"
    )
  }

  /// What settles `balance` in cash: the balance rounded half up to the store's cash increment.
  func cashDue(_ balance: Int64) throws(RegisterError) -> Int64 {
    guard let increment = store.cashRounding?.minorUnits, balance > 0 else { return balance }
    do {
      return try Checked.roundHalfUp(balance, toMultipleOf: increment)
    } catch {
      throw RegisterError.overflow()
    }
  }
}
