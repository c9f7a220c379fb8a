/// Reads a request's fields and turns every problem into the right protocol error: a missing,
/// mistyped or unknown field is `bad_request`; a bad amount is `invalid_amount`; a quantity
/// that is a number but not a whole one is `invalid_quantity`.
struct RequestFields {
  var fields: JSONFields
  let currency: Currency

  init(_ fields: JSONFields, currency: Currency) {
    self.fields = fields
    self.currency = currency
  }

  static func shape(_ error: JSONShapeError) -> RegisterError {
    RegisterError(.badRequest, "\(error.path) \(message: error.errorMessage)")
  }

  /// The error for a field `key` that was refused: a number out of a quantity field's range is
  /// `invalid_quantity`, anything else `bad_request`.
  func refusal(_ error: JSONShapeError, key: String) -> RegisterError {
    if IntegerRanges.quantityFields.contains(key), fields.has(key),
      case .number? = fields.peek(key)
    {
      return RegisterError(.invalidQuantity, "\(error.path) \(message: error.errorMessage)")
    }
    return Self.shape(error)
  }

  mutating func required<T: JSONDecodable>(_ key: String, as type: T.Type = T.self)
    throws(RegisterError) -> T
  {
    do { return try fields.required(key, as: type) } catch { throw refusal(error, key: key) }
  }

  /// A receipt number: a whole number, or the receipt's code as scanned off its barcode
  /// (`"R42"`, see `ReceiptCode`).
  mutating func receiptNumber(_ key: String) throws(RegisterError) -> Int? {
    guard case .string(let code)? = fields.peek(key) else { return try optional(key, as: Int.self) }
    _ = fields.raw(key)
    guard let number = ReceiptCode.number(in: code) else {
      throw RegisterError(
        .badRequest,
        "\(key) must be a receipt number, or its code as scanned (like \"R42\"), not \"\(code.prefix(40))\""
      )
    }
    return number
  }

  mutating func optional<T: JSONDecodable>(_ key: String, as type: T.Type = T.self)
    throws(RegisterError) -> T?
  {
    do { return try fields.optional(key, as: type) } catch { throw refusal(error, key: key) }
  }

  /// Free text (a reason, a note): non-blank, printable, at most `maxLength` characters,
  /// counted as Unicode scalars (`validateText`: a character may hold any number of combining
  /// marks, so a count of characters bounds nothing).
  mutating func text(_ key: String, required: Bool, maxLength: Int = 200) throws(RegisterError)
    -> String?
  {
    do {
      return try fields.text(key, required: required, maxLength: maxLength)
    } catch {
      throw Self.shape(error)
    }
  }

  /// An identifier someone else issued (a tax-exemption certificate's number): printable, at
  /// most `maxLength` characters, as free text is, but kept as it is — never masked, whatever
  /// its digits look like.
  mutating func identifier(_ key: String, required: Bool, maxLength: Int) throws(RegisterError)
    -> String?
  {
    do {
      return try fields.identifier(key, required: required, maxLength: maxLength)
    } catch {
      throw Self.shape(error)
    }
  }

  /// A quantity: a JSON integer. A number that is not a whole number in range is
  /// `invalid_quantity`; any other type is `bad_request`.
  mutating func quantity(_ key: String) throws(RegisterError) -> Int64? {
    guard let value = fields.raw(key) else { return nil }
    guard case .number(let text) = value else {
      throw RegisterError(
        .badRequest, "\(fields.pathOf(key)) must be a whole number, got \(value.typeName)")
    }
    let range = IntegerRanges.range(of: key)
    guard let quantity = Int64(text), range.contains(quantity) else {
      throw RegisterError(
        .invalidQuantity,
        "\(fields.pathOf(key)) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(text)"
      )
    }
    return quantity
  }

  /// An amount: a decimal string in the store currency, zero or more.
  mutating func money(_ key: String) throws(RegisterError) -> Money? {
    guard let value = fields.raw(key) else { return nil }
    guard case .string(let text) = value else {
      throw RegisterError(
        .badRequest,
        "\(fields.pathOf(key)) must be a decimal string like \"12.50\", not a JSON \(value.typeName) (money is never a number)"
      )
    }
    do {
      return try Money.parse(text, currency: currency)
    } catch {
      throw RegisterError(.invalidAmount, "\(fields.pathOf(key)): \(error.description)")
    }
  }

  /// A percentage: a decimal string from 0 to 100.
  mutating func percent(_ key: String) throws(RegisterError) -> Percent? {
    guard let value = fields.raw(key) else { return nil }
    guard case .string = value else {
      throw RegisterError(
        .badRequest,
        "\(fields.pathOf(key)) must be a decimal string like \"10\", not a JSON \(value.typeName)")
    }
    do {
      return try Percent(json: value, path: fields.pathOf(key))
    } catch {
      throw RegisterError(.invalidAmount, error.describedMessage)
    }
  }

  mutating func nested(_ key: String) throws(RegisterError) -> JSONFields? {
    do { return try fields.nested(key) } catch { throw Self.shape(error) }
  }

  mutating func raw(_ key: String) -> JSONValue? { fields.raw(key) }

  func rejectUnknown() throws(RegisterError) {
    do { try fields.rejectUnknown() } catch {
      throw RegisterError(
        .badRequest,
        "\(error.path) is not a field of this op; check the spelling (see docs/PROTOCOL.md)")
    }
  }
}
