/// One decoded request line.
public struct Request: Sendable {
  /// The client's `id`, echoed in the reply (null when absent).
  public var id: JSONValue
  public var op: String
  public var command: Command
  /// The idempotency key, when the client sent one.
  public var key: String?
  /// The order version the client based this change on.
  public var expectVersion: Int?
  /// A manager's approval sent with the request.
  public var approval: Approval?
  /// A fingerprint of the request's content (without `id`), to spot a key reused for
  /// something else.
  public var fingerprint: String
}

/// A request line that could not be decoded: its `id` if we got that far, and the error.
public struct RequestFailure: Error, Sendable {
  public var id: JSONValue
  public var error: RegisterError
}

/// Turns request lines into `Request`s. Strict: unknown ops and unknown fields are refused.
public enum RequestDecoder {
  typealias OpDecoder = @Sendable (inout RequestFields) throws(RegisterError) -> Command

  /// The decoder of each op: an exhaustive switch, so an op cannot be declared without one.
  static func decoder(for op: Op) -> OpDecoder {
    switch op {
    case .hello:
      return { _ throws(RegisterError) in .hello }
    case .catalog:
      return { _ throws(RegisterError) in .catalog }
    case .catalogExport:
      return { _ throws(RegisterError) in .catalogExport }
    case .order:
      return { _ throws(RegisterError) in .showOrder }
    case .receipt:
      return { fields throws(RegisterError) in .receipt(number: try fields.optional("number")) }
    case .add:
      return decodeAdd
    case .remove:
      return { fields throws(RegisterError) in .remove(line: try fields.required("line")) }
    case .setQty:
      return { fields throws(RegisterError) in
        let line = try fields.required("line", as: Int.self)
        guard let quantity = try fields.quantity("qty") else {
          throw RegisterError(.badRequest, "qty is required")
        }
        return .setQuantity(line: line, quantity: quantity)
      }
    case .tender:
      return decodeTender
    case .void:
      return { fields throws(RegisterError) in
        .void(reason: try fields.text("reason", required: false))
      }
    case .discount:
      return { fields throws(RegisterError) in
        let line = try fields.optional("line", as: Int.self)
        let percent = try fields.percent("percent")
        let amount = try fields.money("amount")
        let reason = try fields.text("reason", required: true) ?? ""
        let value: DiscountValue?
        switch (percent, amount) {
        case (let percent?, nil): value = percent == .zero ? nil : .percent(percent)
        case (nil, let amount?): value = amount.isZero ? nil : .amount(amount)
        default:
          throw RegisterError(
            .badRequest,
            "a discount needs exactly one of percent (like \"10\") and amount (like \"5.00\"); 0 removes it"
          )
        }
        return .discount(line: line, value: value, reason: reason)
      }
    case .overridePrice:
      return { fields throws(RegisterError) in
        let line = try fields.required("line", as: Int.self)
        guard let price = try fields.money("unit_price") else {
          throw RegisterError(.badRequest, "unit_price is required, like \"19.99\"")
        }
        let reason = try fields.text("reason", required: true) ?? ""
        return .overridePrice(line: line, unitPrice: price, reason: reason)
      }
    case .voidLine:
      return { fields throws(RegisterError) in .voidLine(line: try fields.required("line")) }
    case .park:
      return { fields throws(RegisterError) in
        .park(note: try fields.text("note", required: false))
      }
    case .parked:
      return { _ throws(RegisterError) in .listParked }
    case .resume:
      return { fields throws(RegisterError) in .resume(orderID: try fields.required("order_id")) }
    case .`return`:
      return { fields throws(RegisterError) in
        let receipt = try fields.required("receipt", as: Int.self)
        guard let items = try fields.optional("lines", as: [JSONValue].self) else {
          throw RegisterError(.badRequest, "lines is required, like [{\"line\": 1, \"qty\": 1}]")
        }
        var lines: [ReturnRequestLine] = []
        for (index, item) in items.enumerated() {
          let path = "lines[\(index)]"
          do {
            var lineFields = RequestFields(
              try JSONFields(item, path: path), currency: fields.currency)
            let line = try lineFields.required("line", as: Int.self)
            guard let quantity = try lineFields.quantity("qty") else {
              throw RegisterError(.badRequest, "\(path).qty is required")
            }
            try lineFields.rejectUnknown()
            lines.append(ReturnRequestLine(line: line, quantity: quantity))
          } catch let error as RegisterError {
            throw error
          } catch {
            throw RegisterError(
              .badRequest, "\(path) must be an object like {\"line\": 1, \"qty\": 1}")
          }
        }
        let reason = try fields.text("reason", required: true) ?? ""
        return .returnItems(receipt: receipt, lines: lines, reason: reason)
      }
    case .subscribe:
      return { fields throws(RegisterError) in
        var topics: Set<String>?
        if let names = try fields.optional("topics", as: [String].self) {
          guard let expanded = Topics.expand(names) else {
            throw RegisterError(
              .badRequest,
              "unknown topic; use groups (\(Topics.groups.keys.sorted().joined(separator: ", "))) or event types"
            )
          }
          topics = expanded
        }
        let after = try fields.optional("after", as: Int64.self)
        if let after, after < 0 { throw RegisterError(.badRequest, "after must be 0 or more") }
        return .subscribe(topics: topics, after: after)
      }
    case .operatorAdd:
      return { fields throws(RegisterError) in
        let id = try operatorID(&fields)
        let name = try fields.text("name", required: true, maxLength: 80) ?? ""
        let roleName = try fields.required("role", as: String.self)
        guard let role = OperatorRole(rawValue: roleName) else {
          throw RegisterError(.badRequest, "role must be \"cashier\" or \"manager\"")
        }
        return .operatorAdd(id: id, name: name, role: role, pin: try pin(&fields))
      }
    case .operatorList:
      return { _ throws(RegisterError) in .operatorList }
    case .operatorRemove:
      return { fields throws(RegisterError) in
        .operatorRemove(id: try operatorID(&fields))
      }
    case .operatorSetPIN:
      return { fields throws(RegisterError) in
        .operatorSetPIN(id: try operatorID(&fields), pin: try pin(&fields))
      }
    case .operatorUnlock:
      return { fields throws(RegisterError) in
        .operatorUnlock(id: try operatorID(&fields))
      }
    case .signIn:
      return { fields throws(RegisterError) in
        .signIn(operatorID: try fields.required("operator"), pin: try pin(&fields))
      }
    case .signOut:
      return { _ throws(RegisterError) in .signOut }
    case .customerAdd:
      return { fields throws(RegisterError) in
        let name = try fields.text("name", required: true, maxLength: 80) ?? ""
        let email = try fields.optional("email", as: String.self)
        let phone = try fields.optional("phone", as: String.self)
        return .customerAdd(name: name, email: email, phone: phone)
      }
    case .customerFind:
      return { fields throws(RegisterError) in
        .customerFind(query: try fields.text("query", required: true, maxLength: 200) ?? "")
      }
    case .attachCustomer:
      return { fields throws(RegisterError) in
        .attachCustomer(customerID: try fields.required("customer_id"))
      }
    case .customerHistory:
      return { fields throws(RegisterError) in
        .customerHistory(customerID: try fields.required("customer_id"))
      }
    case .productAdd:
      return { fields throws(RegisterError) in
        guard let product = fields.raw("product") else {
          throw RegisterError(.badRequest, "product is required: a product as in the catalog file")
        }
        return .productAdd(product)
      }
    case .productUpdate:
      return { fields throws(RegisterError) in
        let sku = try fields.required("sku", as: String.self)
        guard case .object(let changes)? = fields.raw("changes"), !changes.isEmpty else {
          throw RegisterError(
            .badRequest,
            "changes is required: an object of fields to change, like {\"price\": \"12.00\"}")
        }
        return .productUpdate(sku: sku, changes: changes)
      }
    case .productRemove:
      return { fields throws(RegisterError) in
        .productRemove(sku: try fields.required("sku"))
      }
    case .stockAdjust:
      return { fields throws(RegisterError) in
        let sku = try fields.required("sku", as: String.self)
        let delta = try fields.required("delta", as: Int64.self)
        let reason = try fields.text("reason", required: true) ?? ""
        return .stockAdjust(sku: sku, delta: delta, reason: reason)
      }
    case .float:
      return { fields throws(RegisterError) in
        guard let amount = try fields.money("amount") else {
          throw RegisterError(.badRequest, "amount is required, like \"150.00\"")
        }
        return .setFloat(amount)
      }
    case .paidIn:
      return { fields throws(RegisterError) in
        guard let amount = try fields.money("amount") else {
          throw RegisterError(.badRequest, "amount is required")
        }
        return .paidIn(amount, reason: try fields.text("reason", required: true) ?? "")
      }
    case .paidOut:
      return { fields throws(RegisterError) in
        guard let amount = try fields.money("amount") else {
          throw RegisterError(.badRequest, "amount is required")
        }
        return .paidOut(amount, reason: try fields.text("reason", required: true) ?? "")
      }
    case .noSale:
      return { fields throws(RegisterError) in
        .noSale(reason: try fields.text("reason", required: false))
      }
    case .emailReceipt:
      return { fields throws(RegisterError) in
        .emailReceipt(receipt: try fields.required("receipt"), to: try fields.optional("to"))
      }
    case .report:
      return { fields throws(RegisterError) in
        let kindName = try fields.optional("kind", as: String.self) ?? "x"
        guard let kind = DayReport.Kind(rawValue: kindName) else {
          throw RegisterError(
            .badRequest, "kind must be \"x\" (the day so far) or \"z\" (a closed day)")
        }
        let day = try fields.optional("day", as: Int.self)
        if kind == .x && day != nil {
          throw RegisterError(
            .badRequest, "an X report is always of the open day; use kind \"z\" with day")
        }
        return .report(kind, day: day)
      }
    case .closeDay:
      return { fields throws(RegisterError) in
        var counted: Money?
        if let countedFields = try fields.nested("counted") {
          var cash = RequestFields(countedFields, currency: fields.currency)
          counted = try cash.money("cash")
          do {
            try cash.fields.rejectUnknown()
          } catch {
            throw RegisterError(
              .badRequest, "counted takes only \"cash\", like {\"cash\": \"412.35\"}")
          }
        }
        return .closeDay(countedCash: counted)
      }
    }
  }

  /// The names of all ops, sorted, for error messages and `hello` (sorted once: `hello` is the
  /// most frequent request there is).
  public static let opNames: [String] = Op.allCases.map(\.rawValue).sorted()

  /// Decodes one line (without its newline) against the store's currency.
  public static func decode(_ line: some Collection<UInt8>, currency: Currency)
    throws(RequestFailure) -> Request
  {
    let value: JSONValue
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw RequestFailure(
        id: .null,
        error: RegisterError(
          .badJSON,
          "the line is not valid JSON (\(error.description)); send one JSON object per line"))
    }
    return try decode(value, currency: currency)
  }

  /// Decodes a parsed request object.
  public static func decode(_ value: JSONValue, currency: Currency) throws(RequestFailure)
    -> Request
  {
    guard case .object(var object) = value else {
      throw RequestFailure(
        id: .null,
        error: RegisterError(
          .badRequest, "a request is a JSON object like {\"op\":\"order\"}, got \(value.typeName)"))
    }
    let id = object["id"] ?? .null
    do {
      guard let opValue = object["op"] else {
        throw RegisterError(
          .badRequest, "the request has no \"op\"; say what to do, like {\"op\":\"order\"}")
      }
      guard case .string(let op) = opValue else {
        throw RegisterError(.badRequest, "\"op\" must be a string, got \(opValue.typeName)")
      }
      guard let known = Op.named(op) else {
        throw RegisterError(
          .unknownOp, "there is no op \"\(op)\"; known ops: \(opNames.joined(separator: ", "))")
      }
      let decoder = decoder(for: known)
      var fields = RequestFields(try JSONFields(value), currency: currency)
      _ = fields.raw("id")
      _ = fields.raw("op")
      let key = try fields.optional("key", as: String.self)
      if let key, key.isEmpty || key.count > 200 {
        throw RegisterError(.badRequest, "key must be 1 to 200 characters")
      }
      // A key is journaled with its reply and echoed in key_reused: it must not look like a
      // card number (a masked key would no longer be the client's key).
      if let key, CardNumberMask.containsCardNumber(key) {
        throw RegisterError(.badRequest, "key must not look like a card number")
      }
      let expectVersion = try fields.optional("expect_version", as: Int.self)
      var approval: Approval?
      if let value = fields.raw("approve") {
        guard case .object(let object) = value, case .string(let id)? = object["operator"],
          case .string(let pin)? = object["pin"], object.count == 2
        else {
          throw RegisterError(
            .badRequest, "approve must be {\"operator\": \"ID\", \"pin\": \"PIN\"} of a manager")
        }
        approval = Approval(operatorID: id, pin: pin)
      }
      let command = try decoder(&fields)
      try fields.rejectUnknown()
      object["id"] = nil
      object["key"] = nil
      object["expect_version"] = nil
      object["approve"] = nil
      // PINs never go into a fingerprint (its hash is journaled with the key, and a short PIN
      // could be found from it).
      object["pin"] = nil
      // Card data never goes into the fingerprint (it may be kept with an idempotency key):
      // the last four digits and the expiry are enough to tell two card tenders apart.
      if case .object(var card) = object["card"] {
        if case .string(let number) = card["number"] {
          card["number"] = .string(String(number.filter(\.isNumber).suffix(4)))
        }
        card["cvv"] = nil
        object["card"] = .object(card)
      }
      return Request(
        id: id, op: op, command: command, key: key, expectVersion: expectVersion,
        approval: approval, fingerprint: JSONValue.object(object).canonical.serialized)
    } catch let error as RegisterError {
      throw RequestFailure(id: id, error: error)
    } catch {
      throw RequestFailure(id: id, error: RegisterError(.badRequest, "\(error)"))
    }
  }

  /// The operator an operator_* op is about: `operator_id`, or `id` (which is then also the
  /// request id the reply echoes).
  private static func operatorID(_ fields: inout RequestFields) throws(RegisterError) -> String {
    let id: String
    if let given = try fields.optional("operator_id", as: String.self) {
      id = given
    } else if case .string(let given)? = fields.raw("id") {
      id = given
    } else {
      throw RegisterError(
        .badRequest, "the operator's id is required: \"operator_id\" (or \"id\") as a string")
    }
    // An id is stored and shown as it is: one that looks like a card number is refused.
    guard !CardNumberMask.containsCardNumber(id) else {
      throw RegisterError(.badRequest, "an operator id must not look like a card number")
    }
    return id
  }

  /// A PIN: a string of 4 to 12 digits (never echoed in errors).
  private static func pin(_ fields: inout RequestFields) throws(RegisterError) -> String {
    guard case .string(let pin)? = fields.raw("pin") else {
      throw RegisterError(.badRequest, "pin is required, as a string of 4 to 12 digits")
    }
    return pin
  }

  private static func decodeAdd(_ fields: inout RequestFields) throws(RegisterError) -> Command {
    let sku = try fields.required("sku", as: String.self)
    let quantity = try fields.quantity("qty") ?? 1
    var options: [String: String] = [:]
    if let value = fields.raw("options") {
      guard case .object(let object) = value else {
        throw RegisterError(
          .badRequest, "options must be an object like {\"frame\": \"oak\"}, got \(value.typeName)")
      }
      for (group, choice) in object.members {
        guard case .string(let name) = choice else {
          throw RegisterError(
            .badRequest, "options.\(group) must be a string, got \(choice.typeName)")
        }
        options[group] = name
      }
    }
    return .add(sku: sku, quantity: quantity, options: options)
  }

  private static func decodeTender(_ fields: inout RequestFields) throws(RegisterError) -> Command {
    let typeName = try fields.required("type", as: String.self)
    guard let type = TenderType(rawValue: typeName) else {
      throw RegisterError(.badRequest, "type must be \"cash\" or \"card\", got \"\(typeName)\"")
    }
    let amount = try fields.money("amount")
    var card: CardInput?
    if let value = fields.raw("card") {
      card = try decodeCard(value)
    }
    return .tender(TenderRequest(type: type, amount: amount, card: card))
  }

  /// Card data. Any problem with it is `invalid_card`, and no message repeats the number.
  private static func decodeCard(_ value: JSONValue) throws(RegisterError) -> CardInput {
    do {
      var fields = try JSONFields(value, path: "card")
      let number = try fields.required("number", as: String.self)
      let month = try fields.required("exp_month", as: Int.self)
      let year = try fields.required("exp_year", as: Int.self)
      let cvv = try fields.required("cvv", as: String.self)
      try fields.rejectUnknown()
      return CardInput(number: number, expiryMonth: month, expiryYear: year, cvv: cvv)
    } catch {
      // Say which field, never what was in it: it may be a card number typed in the wrong box.
      let expected = [
        "card.number": "a string of digits", "card.exp_month": "an integer 1-12",
        "card.exp_year": "an integer like 2030", "card.cvv": "a string of 3 or 4 digits",
      ]
      let what =
        expected[error.path].map { "\(error.path) must be \($0)" }
        ?? (error.path == "card" ? "card must be an object" : "\(error.path) is not a card field")
      throw RegisterError(
        .invalidCard,
        "\(what); send card as {\"number\": \"4242...\", \"exp_month\": 12, \"exp_year\": 2030, \"cvv\": \"123\"}"
      )
    }
  }
}
