extension Register {
  /// True once any operator exists: from then on changes need someone signed in.
  public var requiresSignIn: Bool { !operators.isEmpty }

  /// The operator signed in, if any.
  public var currentOperator: Operator? {
    signedIn.flatMap { id in operators.first { $0.id == id } }
  }

  /// The operator whose id is exactly `id`, byte for byte (`hasSameBytes`): an id that merely
  /// looks the same (a Kelvin sign for a "K") names nobody, so every event names an operator
  /// by the bytes it was added with.
  func operatorNamed(_ id: String) throws(RegisterError) -> Operator {
    guard let person = operators.first(where: { $0.id.hasSameBytes(as: id) }) else {
      throw RegisterError(.operatorNotFound, "there is no operator \"\(id: id)\"")
    }
    return person
  }

  /// Checks who may do `command`. Returns the manager who approved it, when approval was
  /// needed. With no operators defined the register runs open (anyone may do anything); after
  /// that every change needs someone signed in, and some need a manager: either signed in, or
  /// giving `approve: {operator, pin}` with the request. Events that stand even if the request
  /// is refused (an approval's PIN counted or reset) are added to `standing`.
  func authorize(
    _ request: any DecodableRequestBody, context: CommandContext, standing: inout [Event]
  ) throws(RegisterError) -> String? {
    guard requiresSignIn else { return nil }
    let access = request.access(signedIn: currentOperator?.id)
    if let current = currentOperator, staff.isIdle(at: context.now, store: store),
      access != .open
    {
      // Signed out for being idle, journaled even though the request is refused, so a replay
      // signs them out at the same record.
      standing.append(.signedOut(id: current.id))
      throw RegisterError(
        .signedOutIdle,
        "\(id: current.id) was signed out after \(store.operatorIdleMinutes) minutes without a change; sign in again"
      )
    }
    let work: String
    switch access {
    case .open: return nil
    case .cashier:
      guard currentOperator != nil else { throw notSignedIn() }
      return nil
    case .manager(let named):
      guard currentOperator != nil else { throw notSignedIn() }
      work = named
    }
    guard let current = currentOperator else { throw notSignedIn() }
    if current.role == .manager { return current.id }
    return try managerApproval(
      context: context, refusal: .approvalRequired, needs: "\(work) needs a manager",
      reason: work, standing: &standing)
  }

  private func notSignedIn() -> RegisterError {
    RegisterError(.notSignedIn, "nobody is signed in; sign in first (op sign_in)")
  }

  /// The manager's approval sent with the request (`approve: {operator, pin}`), checked: who
  /// approved. A right PIN that resets a count of wrong ones adds `pin_accepted` to
  /// `standing`; a wrong one adds `pin_failed`. Without an approval, the request is refused
  /// with `refusal`, saying `needs`.
  func managerApproval(
    context: CommandContext, refusal: ErrorCode, needs: String, reason: String,
    standing: inout [Event]
  ) throws(RegisterError) -> String {
    guard let approval = context.approval else {
      throw RegisterError(
        refusal, "\(needs): sign in as a manager, or send approve: {operator, pin}",
        data: .object(["needs": .string(needs)]))
    }
    let manager = try operatorNamed(approval.operatorID)
    guard manager.role == .manager else {
      throw RegisterError(
        .approvalRequired, "\(id: manager.id) is not a manager and cannot approve \(reason)")
    }
    try checkPIN(approval.pin, of: manager, context: context, standing: &standing)
    // Any right PIN resets the count, not only a sign-in's: otherwise a manager who approves
    // between wrong PINs drifts toward a lock that a right PIN should have prevented. The
    // reset stands even if the request is refused afterwards.
    if manager.failedAttempts > 0 || manager.locked {
      standing.append(.pinAccepted(id: manager.id))
    }
    return manager.id
  }

  /// When `person`'s lock ends: the store's `lockout_minutes` after the journaled time of the
  /// wrong PIN that locked them (nil: not locked, or locked with no time — until unlocked).
  public func lockExpiry(of person: Operator) -> Timestamp? {
    Staff.lockExpiry(of: person, lockoutMinutes: store.lockoutMinutes)
  }

  /// True while `person` is locked at `now`: locked by wrong PINs and the lock has not expired.
  public func isLocked(_ person: Operator, at now: Timestamp) -> Bool {
    Staff.isLocked(person, at: now, lockoutMinutes: store.lockoutMinutes)
  }

  /// Refuses a PIN of the wrong shape (not hashed, not counted), a locked operator or a wrong
  /// PIN; a wrong PIN is counted (`pin_failed` is added to `standing`, and the fifth in a row
  /// locks the operator for the store's `lockout_minutes`).
  func checkPIN(
    _ pin: String, of person: Operator, context: CommandContext, standing: inout [Event]
  ) throws(RegisterError) {
    try PINHash.validate(pin)
    guard !isLocked(person, at: context.now) else {
      let until = lockExpiry(of: person).map { " until \($0.local.timeString)" } ?? ""
      throw RegisterError(
        .operatorLocked,
        """
        \(id: person.id) is locked after too many wrong PINs\(until); a manager can unlock them \
        sooner (register-cli operator unlock \(id: person.id)), or, with registerd stopped, the \
        machine's owner (register-cli operator unlock \(id: person.id) --data-dir DIR)
        """)
    }
    guard person.pin.matches(pin, prepared: context.prepared) else {
      // After an expired lock the count starts again.
      let counted = person.locked ? 0 : person.failedAttempts
      let left = Operator.attemptsBeforeLock - counted - 1
      let warning =
        left > 0
        ? "\(left) more wrong PIN\(left == 1 ? "" : "s") will lock \(person.id)"
        : "\(person.id) is now locked for \(store.lockoutMinutes) minutes"
      standing.append(.pinFailed(id: person.id))
      throw RegisterError(.wrongPIN, "wrong PIN for \(id: person.id); \(warning)")
    }
  }

  /// The PBKDF2 work `request` will need, so that the daemon can do it off its event loop
  /// before handing the request in (see `PINWork`). A PIN of the wrong shape, or one of an unknown
  /// operator (or, in an approval, of a non-manager) is never hashed and costs nothing. A locked
  /// operator's PIN is prepared all the same: a line handled before this one may unlock them,
  /// and a wrong guess would put the hash back on the event loop. New PINs get their fresh salt
  /// from `random` here.
  public func pinWork(for request: Request, random: (Int) -> [UInt8]) -> PINWork {
    var work = PINWork()
    func check(_ pin: String, of id: String, managerOnly: Bool) {
      guard (try? PINHash.validate(pin)) != nil,
        let person = operators.first(where: { $0.id.hasSameBytes(as: id) }),
        !managerOnly || person.role == .manager
      else { return }
      work.checks.append(
        PINDerivation(pin: pin, salt: person.pin.salt, iterations: person.pin.iterations))
    }
    func fresh(_ pin: String) {
      guard (try? PINHash.validate(pin)) != nil else { return }
      work.fresh.append(PINDerivation(pin: pin, salt: random(16), iterations: store.pinIterations))
    }
    // An approval is prepared whenever a change carries one, even if it turns out not to be
    // needed: whether it is needed can change with the lines handled before this one (who is
    // signed in, the order's amounts), and guessing "not needed" wrongly would put the hash
    // back on the event loop. Hashing one for nothing costs only a worker's time.
    if let approval = request.approval, requiresSignIn, case .mutation = request.operation {
      check(approval.pin, of: approval.operatorID, managerOnly: true)
    }
    for use in request.operation.body.pins {
      switch use {
      case .check(let pin, let id): check(pin, of: id, managerOnly: false)
      case .new(let pin): fresh(pin)
      }
    }
    return work
  }

  func decideOperatorAdd(
    id: String, name: String, role: OperatorRole, pin: String, context: CommandContext
  ) throws(RegisterError) -> [Event] {
    if !requiresSignIn, role != .manager {
      throw RegisterError(.forbidden, "the first operator must be a manager (role \"manager\")")
    }
    try validateOperatorID(id)
    guard !operators.contains(where: { $0.id == id }) else {
      throw RegisterError(.operatorExists, "operator \"\(id: id)\" already exists")
    }
    guard operators.count < Self.maximumOperators else {
      throw RegisterError(
        .operatorsFull,
        "there are \(operators.count) operators, the most there may be; remove one who has left first"
      )
    }
    try PINHash.validate(pin)
    let hash = context.prepared.newHash(
      pin: pin, iterations: store.pinIterations, random: context.random)
    return [.operatorAdded(Operator(id: id, name: name, role: role, pin: hash))]
  }

  func decideOperatorRemove(id: String) throws(RegisterError) -> [Event] {
    let person = try operatorNamed(id)
    let managers = operators.filter { $0.role == .manager }
    if person.role == .manager && managers.count == 1 && operators.count > 1 {
      throw RegisterError(
        .forbidden, "\(id: id) is the last manager; add another manager before removing them")
    }
    return [.operatorRemoved(id: id)]
  }

  func decideOperatorSetPIN(id: String, pin: String, context: CommandContext)
    throws(RegisterError) -> [Event]
  {
    _ = try operatorNamed(id)
    try PINHash.validate(pin)
    let hash = context.prepared.newHash(
      pin: pin, iterations: store.pinIterations, random: context.random)
    return [.operatorPINSet(id: id, pin: hash)]
  }

  func decideOperatorUnlock(id: String) throws(RegisterError) -> [Event] {
    _ = try operatorNamed(id)
    return [.operatorUnlocked(id: id)]
  }

  func decideSignIn(id: String, pin: String, context: CommandContext, standing: inout [Event])
    throws(RegisterError) -> [Event]
  {
    let person = try operatorNamed(id)
    try checkPIN(pin, of: person, context: context, standing: &standing)
    return [.signedIn(id: id)]
  }

  func decideSignOut() throws(RegisterError) -> [Event] {
    guard let current = signedIn else {
      throw RegisterError(.notSignedIn, "nobody is signed in")
    }
    return [.signedOut(id: current)]
  }

  func decideCustomerAdd(name: String, email: String?, phone: String?, taxExempt: String?)
    throws(RegisterError) -> [Event]
  {
    guard customers.count < Self.maximumCustomers else {
      throw RegisterError(
        .customersFull,
        "the register knows \(customers.count) customers, the most it may; keep further customers in the back office"
      )
    }
    if let email {
      try ContactValidation.validateEmail(email)
      // One customer per address: a second card for the same person splits their history.
      if let existing = customerBook.customer(withEmail: email) {
        throw RegisterError(
          .customerExists,
          "customer \(existing.id) (\(existing.name)) already has the e-mail \(email); attach them instead"
        )
      }
    }
    if let phone { try ContactValidation.validatePhone(phone) }
    return [
      .customerAdded(
        Customer(
          id: "C\(nextCustomerNumber)", name: name, email: email, phone: phone,
          taxExempt: taxExempt))
    ]
  }

  func decideAttachCustomer(id: String) throws(RegisterError) -> [Event] {
    guard let customer = customerBook.customer(id) else {
      throw RegisterError(.customerNotFound, "there is no customer \"\(id: id)\"")
    }
    let exemption = customer.taxExempt
    if exemption != nil {
      guard !store.tax.pricesIncludeTax else {
        throw RegisterError(
          .invalidCustomer,
          "customer \(id: id) is tax-exempt, and this store's prices include tax; a tax-exempt sale needs prices without tax"
        )
      }
      guard order.tenders.isEmpty else {
        throw RegisterError(
          .orderHasTenders,
          "customer \(id: id) is tax-exempt, which would lower a total that payment has started on; attach them before taking payment, or void the order"
        )
      }
    }
    return [.customerAttached(order: order.id, customerID: id, taxExempt: exemption)]
  }

  func decideDetachCustomer() throws(RegisterError) -> [Event] {
    guard order.customerID != nil else {
      throw RegisterError(
        .customerNotFound, "no customer is attached to order \(order.id); nothing to detach")
    }
    return [.customerDetached(order: order.id)]
  }

  func decideWishlistAdd(customerID: String, sku typed: String) throws(RegisterError) -> [Event] {
    let sku = catalogSKU(typed)
    guard customerBook.customer(customerID) != nil else {
      throw RegisterError(.customerNotFound, "there is no customer \"\(id: customerID)\"")
    }
    guard products[sku] != nil else {
      throw RegisterError(
        .unknownSKU, "no product has SKU \"\(id: sku)\"; the catalog op lists them",
        data: .object(["sku": .string(sku)]))
    }
    let list = customerBook.wishlist(customerID)
    guard !list.contains(sku) else {
      throw RegisterError(
        .alreadyOnWishlist, "\(id: sku) is already on \(id: customerID)'s wishlist")
    }
    guard list.count < CustomerBook.maximumWishlist else {
      throw RegisterError(
        .wishlistFull,
        "\(id: customerID)'s wishlist holds \(list.count) products, the most it may; remove one first"
      )
    }
    return [.wishlistAdded(customerID: customerID, sku: sku)]
  }

  func decideWishlistRemove(customerID: String, sku: String) throws(RegisterError) -> [Event] {
    try checkOnWishlist(customerID: customerID, sku: sku)
    return [.wishlistRemoved(customerID: customerID, sku: sku)]
  }

  /// Refuses unless `sku` is on the wishlist of customer `customerID` (who must exist).
  func checkOnWishlist(customerID: String, sku: String) throws(RegisterError) {
    guard customerBook.customer(customerID) != nil else {
      throw RegisterError(.customerNotFound, "there is no customer \"\(id: customerID)\"")
    }
    guard customerBook.wishlist(customerID).contains(sku) else {
      throw RegisterError(.notOnWishlist, "\(id: sku) is not on \(id: customerID)'s wishlist")
    }
  }

  /// The first `limit` customers matching `query`, in the order they were added, and how many
  /// match: by id, e-mail or phone exactly (phone by its digits), or by a part of the name,
  /// case-insensitive.
  public func findCustomers(_ query: String, limit: Int) -> (customers: [Customer], matches: Int) {
    customerBook.find(query, limit: limit)
  }

  /// A customer's receipts (sales and returns) with totals.
  public func customerHistory(_ id: String) throws(RegisterError) -> JSONValue {
    guard let customer = customerBook.customer(id) else {
      throw RegisterError(.customerNotFound, "there is no customer \"\(id: id)\"")
    }
    var entries: [(Int, JSONValue)] = []
    var spent: Int64 = 0
    var refunded: Int64 = 0
    // The customer's receipts by number (found through the ledger's index: a year of receipts
    // is not read to find one customer's).
    let numbers = ledger.customerReceipts[id] ?? []
    for sale in numbers.compactMap(ledger.sale) where sale.customer?.id == id {
      spent = Checked.saturatingAdd(spent, sale.amountDue.minorUnits)
      entries.append(
        (
          sale.receiptNumber,
          .object([
            "receipt": .int(sale.receiptNumber), "kind": "sale", "day": .int(sale.day),
            "at": .string(sale.at.iso8601), "items": .int(sale.totals.itemCount),
            "total": sale.amountDue.json,
          ])
        ))
    }
    for refund in numbers.compactMap(ledger.refund) where refund.customer?.id == id {
      let amount = Checked.saturatingSum(refund.refunds.map(\.amount.minorUnits))
      refunded = Checked.saturatingAdd(refunded, amount)
      entries.append(
        (
          refund.receiptNumber,
          .object([
            "receipt": .int(refund.receiptNumber), "kind": "return",
            "original_receipt": .int(refund.originalReceipt), "day": .int(refund.day),
            "at": .string(refund.at.iso8601), "items": .int(refund.itemCount),
            "total": money(-amount).json,
          ])
        ))
    }
    return .object([
      "customer": customer.json,
      "receipts": .array(entries.sorted { $0.0 < $1.0 }.map(\.1)),
      "spent": money(spent).json, "refunded": money(refunded).json,
      "net": money(Checked.saturatingSubtract(spent, refunded)).json,
    ])
  }

  /// Operators as `operator_list` shows them at `now` (never their PIN hashes).
  public func operatorsJSON(at now: Timestamp) -> JSONValue {
    .object([
      "operators": .array(operators.map { publicJSON(of: $0, at: now) }),
      "signed_in": signedIn.map(JSONValue.string) ?? .null,
    ])
  }

  /// One operator as replies show them at `now`: a lock that has expired shows as unlocked with
  /// no wrong PINs, as the next PIN check treats it; a lock in force shows when it ends.
  func publicJSON(of person: Operator, at now: Timestamp) -> JSONValue {
    let locked = isLocked(person, at: now)
    let expired = person.locked && !locked
    return .object([
      "id": .string(person.id), "name": .string(person.name),
      "role": .string(person.role.rawValue), "locked": .bool(locked),
      "failed_attempts": .int(expired ? 0 : person.failedAttempts),
      "locked_until": locked ? lockExpiry(of: person).map { .string($0.iso8601) } : nil,
    ])
  }
}
