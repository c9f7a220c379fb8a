/// One decoded request line: its envelope and its op's typed body.
public struct Request: Sendable {
  public var envelope: RequestEnvelope
  /// The op's typed body, as the register takes it: a read or a change.
  let operation: Operation
  /// The op's fields, typed (`Requests.Add`, `Requests.Tender`, …).
  public var body: any RequestBody { operation.body }
  /// The request object as it arrived, kept for the fingerprint of a keyed request.
  let object: JSONObject

  /// The client's `id`, echoed in the reply (null when absent).
  public var id: JSONValue { envelope.id }
  /// The op of the body.
  public var op: Op { Swift.type(of: body).op }
  /// The idempotency key, when the client sent one.
  public var key: String? { envelope.key }
  /// The order version the client based this change on.
  public var expectVersion: Int? { envelope.expectVersion }
  /// A manager's approval sent with the request.
  public var approval: Approval? { envelope.approval }

  /// A fingerprint of a keyed request's content (without the envelope), to spot a key reused
  /// for something else; nil without a key. Computed on demand: most requests carry no key,
  /// and serializing a canonical copy of the request is a measurable cost per request.
  ///
  /// It is the canonical serialization of the object as the client wrote it (members sorted),
  /// not of the typed body, so that a key an older journal stored still matches a retry.
  public var fingerprint: String? {
    guard key != nil else { return nil }
    var object = object
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
    return JSONValue.object(object).canonical.serialized
  }
}

/// A request line that could not be decoded: its `id` if we got that far, and the error.
public struct RequestFailure: Error, Sendable {
  public var id: JSONValue
  public var error: RegisterError
}

/// Turns request lines into `Request`s. Strict: unknown ops and unknown fields are refused.
public enum RequestDecoder {
  /// The names of all ops, sorted, for error messages and `hello` (sorted once: `hello` is the
  /// most frequent request there is).
  public static let opNames: [String] = Requests.all.map { $0.wireName }.sorted()

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
    guard case .object(let object) = value else {
      throw RequestFailure(
        id: .null,
        error: RegisterError(
          .badRequest, "a request is a JSON object like {\"op\":\"order\"}, got \(value.typeName)"))
    }
    let id = object["id"] ?? .null
    // The id is the client's own: echoed as it is, whatever its digits look like, and never
    // journaled or logged.
    do {
      guard let opValue = object["op"] else {
        throw RegisterError(
          .badRequest, "the request has no \"op\"; say what to do, like {\"op\":\"order\"}")
      }
      guard case .string(let op) = opValue else {
        throw RegisterError(.badRequest, "\"op\" must be a string, got \(opValue.typeName)")
      }
      guard let known = OpTable.named(op) else {
        throw RegisterError(
          .unknownOp, "there is no op \"\(op)\"; known ops: \(opNames.joined(separator: ", "))")
      }
      var fields = RequestFields(try JSONFields(value), currency: currency)
      _ = fields.raw("op")
      let envelope = try RequestEnvelope(from: &fields)
      let operation = try known.operation(from: &fields)
      try fields.rejectUnknown()
      return Request(envelope: envelope, operation: operation, object: object)
    } catch let error as RegisterError {
      throw RequestFailure(id: id, error: error)
    } catch {
      throw RequestFailure(id: id, error: RegisterError(.badRequest, "\(error)"))
    }
  }
}
