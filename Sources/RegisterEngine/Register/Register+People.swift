extension Register {
  /// True once any operator exists: from then on changes need someone signed in.
  public var requiresSignIn: Bool { !operators.isEmpty }

  /// The operator signed in, if any.
  public var currentOperator: Operator? {
    signedIn.flatMap { id in operators.first { $0.id == id } }
  }

  func operatorNamed(_ id: String) throws(RegisterError) -> Operator {
    guard let person = operators.first(where: { $0.id == id }) else {
      throw RegisterError(.operatorNotFound, "there is no operator \"\(id)\"")
    }
    return person
  }

  /// Checks who may do `command`. Returns the manager who approved it, when approval was
  /// needed. With no operators defined the register runs open (anyone may do anything); after
  /// that every change needs someone signed in, and some need a manager: either signed in, or
  /// giving `approve: {operator, pin}` with the request.
  func authorize(_ command: Command, context: CommandContext) throws(RegisterError) -> String? {
    guard requiresSignIn else {
      if case .operatorAdd(_, _, let role, _) = command, role != .manager {
        throw RegisterError(
          .forbidden, "the first operator must be a manager (role \"manager\")")
      }
      return nil
    }
    guard command.isMutation else { return nil }
    if case .signIn = command { return nil }
    guard let current = currentOperator else {
      throw RegisterError(.notSignedIn, "nobody is signed in; sign in first (op sign_in)")
    }
    guard let reason = managerNeeded(for: command, by: current) else { return nil }
    if current.role == .manager { return current.id }
    guard let approval = context.approval else {
      throw RegisterError(
        .approvalRequired,
        "\(reason) needs a manager: sign in as a manager, or send approve: {operator, pin}")
    }
    let manager = try operatorNamed(approval.operatorID)
    guard manager.role == .manager else {
      throw RegisterError(
        .approvalRequired, "\(manager.id) is not a manager and cannot approve \(reason)")
    }
    try checkPIN(approval.pin, of: manager)
    return manager.id
  }

  /// Why `command` needs a manager, or nil when it does not.
  func managerNeeded(for command: Command, by current: Operator) -> String? {
    switch command {
    case .void: return "voiding an order"
    case .overridePrice: return "a price override"
    case .returnItems: return "a return"
    case .noSale: return "opening the drawer without a sale"
    case .operatorAdd, .operatorRemove, .operatorUnlock: return "managing operators"
    case .operatorSetPIN(let id, _):
      return id == current.id ? nil : "setting another operator's PIN"
    default: return nil
    }
  }

  /// Refuses a locked operator or a wrong PIN; a wrong PIN is counted (the refusal carries a
  /// `pin_failed` event, and the fifth in a row locks the operator).
  func checkPIN(_ pin: String, of person: Operator) throws(RegisterError) {
    guard !person.locked else {
      throw RegisterError(
        .operatorLocked,
        "\(person.id) is locked after too many wrong PINs; a manager must unlock them")
    }
    guard person.pin.matches(pin) else {
      let left = Operator.attemptsBeforeLock - person.failedAttempts - 1
      let warning =
        left > 0
        ? "\(left) more wrong PIN\(left == 1 ? "" : "s") will lock \(person.id)"
        : "\(person.id) is now locked"
      throw RegisterError(
        .wrongPIN, "wrong PIN for \(person.id); \(warning)", events: [.pinFailed(id: person.id)])
    }
  }

  func decidePeople(_ command: Command, context: CommandContext) throws(RegisterError) -> [Event] {
    switch command {
    case .operatorAdd(let id, let name, let role, let pin):
      try validateOperatorID(id)
      guard !operators.contains(where: { $0.id == id }) else {
        throw RegisterError(.operatorExists, "operator \"\(id)\" already exists")
      }
      try PINHash.validate(pin)
      let hash = PINHash(pin: pin, salt: context.random(16), iterations: store.pinIterations)
      return [.operatorAdded(Operator(id: id, name: name, role: role, pin: hash))]
    case .operatorRemove(let id):
      let person = try operatorNamed(id)
      let managers = operators.filter { $0.role == .manager }
      if person.role == .manager && managers.count == 1 && operators.count > 1 {
        throw RegisterError(
          .forbidden, "\(id) is the last manager; add another manager before removing them")
      }
      return [.operatorRemoved(id: id)]
    case .operatorSetPIN(let id, let pin):
      _ = try operatorNamed(id)
      try PINHash.validate(pin)
      return [
        .operatorPINSet(
          id: id, pin: PINHash(pin: pin, salt: context.random(16), iterations: store.pinIterations))
      ]
    case .operatorUnlock(let id):
      _ = try operatorNamed(id)
      return [.operatorUnlocked(id: id)]
    case .signIn(let id, let pin):
      let person = try operatorNamed(id)
      try checkPIN(pin, of: person)
      return [.signedIn(id: id)]
    case .signOut:
      guard let current = signedIn else {
        throw RegisterError(.notSignedIn, "nobody is signed in")
      }
      return [.signedOut(id: current)]
    case .customerAdd(let name, let email, let phone):
      if let email { try ContactValidation.validateEmail(email) }
      if let phone { try ContactValidation.validatePhone(phone) }
      return [
        .customerAdded(
          Customer(id: "C\(nextCustomerNumber)", name: name, email: email, phone: phone))
      ]
    case .attachCustomer(let id):
      guard customers.contains(where: { $0.id == id }) else {
        throw RegisterError(.customerNotFound, "there is no customer \"\(id)\"")
      }
      return [.customerAttached(order: order.id, customerID: id)]
    default:
      return []
    }
  }

  /// Customers matching `query`: by id, e-mail or phone exactly (phone by its digits), or by a
  /// part of the name, case-insensitive.
  public func findCustomers(_ query: String) -> [Customer] {
    let needle = query.lowercased()
    let digits = query.filter(\.isNumber)
    return customers.filter { customer in
      customer.id.lowercased() == needle || customer.email?.lowercased() == needle
        || (digits.count >= 3 && customer.phoneDigits.contains(digits))
        || customer.name.lowercased().contains(needle)
    }
  }

  /// A customer's receipts (sales and returns) with totals.
  public func customerHistory(_ id: String) throws(RegisterError) -> JSONValue {
    guard let customer = customers.first(where: { $0.id == id }) else {
      throw RegisterError(.customerNotFound, "there is no customer \"\(id)\"")
    }
    var entries: [(Int, JSONValue)] = []
    var spent: Int64 = 0
    var refunded: Int64 = 0
    for sale in receipts.values where sale.customer?.id == id {
      spent &+= sale.amountDue.minorUnits
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
    for refund in returns.values where refund.customer?.id == id {
      let amount = refund.refunds.reduce(Int64(0)) { $0 &+ $1.amount.minorUnits }
      refunded &+= amount
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
      "net": money(spent &- refunded).json,
    ])
  }

  /// Operators as `operator_list` shows them (never their PIN hashes).
  public var operatorsJSON: JSONValue {
    .object([
      "operators": .array(operators.map(\.publicJSON)),
      "signed_in": signedIn.map(JSONValue.string) ?? .null,
    ])
  }
}
