import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The protocol's JSON Schema: the committed file is what the declarations write, and each op's
/// declared fields are the ones its decoder takes — no more, no fewer.
@Suite struct ProtocolSchemaTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// A request for every op, the fewest fields it needs.
  static var samples: [Op: String] {
    var samples = SetupTests.requests
    samples[Requests.Hello.op] = #"{"op":"hello"}"#
    samples[Requests.Setup.op] = #"{"op":"setup","manager":{"id":"ann","name":"Ann","pin":"1234"}}"#
    return samples
  }

  static func decode(_ line: String) -> RegisterError? {
    do {
      _ = try RequestDecoder.decode(Array(line.utf8), currency: .usd)
      return nil
    } catch {
      return error.error
    }
  }

  @Test func theCommittedSchemaIsTheOneTheDeclarationsWrite() throws {
    let path = Self.root.appendingPathComponent("docs/protocol.schema.json")
    let committed = (try? String(contentsOf: path, encoding: .utf8)) ?? ""
    #expect(
      committed == ProtocolSchema.text,
      "docs/protocol.schema.json is stale: run `swift run register-cli schema > docs/protocol.schema.json`"
    )
  }

  @Test func theSchemaNamesEveryOpEventAndErrorCode() throws {
    let document = ProtocolSchema.document
    for op in Op.allCases {
      #expect(document["$defs"]?["request_\(op.rawValue)"] != nil, "\(op.rawValue)")
      #expect(document["$defs"]?["reply_\(op.rawValue)"] != nil, "\(op.rawValue)")
    }
    for type in EventType.allCases {
      #expect(document["$defs"]?["event_\(type.rawValue)"] != nil, "\(type.rawValue)")
    }
    let codes = document["$defs"]?["error_code"]?["enum"]?.arrayValue ?? []
    #expect(codes.count == ErrorCode.allCases.count)
  }

  @Test func everySampleDecodesAndValidates() throws {
    #expect(Set(Self.samples.keys) == Set(Op.allCases))
    for (op, line) in Self.samples {
      #expect(Self.decode(line) == nil, "\(op.rawValue): \(line)")
      let value = try JSONParser.parse(line)
      let problems = SchemaValidator.protocol.problems(value, as: "request")
      #expect(problems.isEmpty, "\(line): \(problems)")
    }
  }

  /// Every field an op declares is one its decoder takes: the sample with the field added (a
  /// value of its declared type) is never refused as an unknown field.
  @Test(arguments: Op.allCases)
  func everyDeclaredFieldIsTaken(_ op: Op) throws {
    let sample = try #require(Self.samples[op])
    for field in op.requestType.fields {
      var object = try #require(JSONParser.parse(sample).objectValue)
      if object[field.name] == nil { object[field.name] = Self.example(field.type) }
      let line = JSONValue.object(object).serialized
      let error = Self.decode(line)
      #expect(
        error?.message.contains("is not a field of this op") != true,
        "\(op.rawValue) declares \(field.name) but refuses it: \(error?.message ?? "")")
    }
  }

  /// Every field the decoder takes is declared: any field name another op declares, added to
  /// this op's sample, is refused unless this op declares it too.
  @Test(arguments: Op.allCases)
  func everyFieldTakenIsDeclared(_ op: Op) throws {
    let sample = try #require(Self.samples[op])
    let declared = Set(op.requestType.fields.map(\.name))
    let envelope: Set<String> = ["op", "id", "key", "expect_version", "approve"]
    var vocabulary = Set(Op.allCases.flatMap { $0.requestType.fields.map(\.name) })
    vocabulary.formUnion(["operator_id", "qty", "line", "number", "to", "kind", "day"])
    for name in vocabulary.subtracting(declared).subtracting(envelope).sorted() {
      var object = try #require(JSONParser.parse(sample).objectValue)
      guard object[name] == nil else { continue }
      object[name] = .string("x")
      let error = Self.decode(JSONValue.object(object).serialized)
      #expect(
        error?.message.contains("is not a field of this op") == true,
        "\(op.rawValue) takes \(name) but does not declare it: \(error?.message ?? "taken")")
    }
  }

  /// Every required field is required: the sample without it is refused.
  @Test(arguments: Op.allCases)
  func everyRequiredFieldIsRequired(_ op: Op) throws {
    let sample = try #require(Self.samples[op])
    for field in op.requestType.fields where field.required {
      var object = try #require(JSONParser.parse(sample).objectValue)
      object[field.name] = nil
      let line = JSONValue.object(object).serialized
      #expect(Self.decode(line) != nil, "\(op.rawValue) takes \(line) without \(field.name)")
      let problems = SchemaValidator.protocol.problems(.object(object), as: "request")
      #expect(!problems.isEmpty, "the schema allows \(line)")
    }
  }

  @Test func aRequestWithAnUnknownFieldOrOpIsOffTheSchema() throws {
    for line in [
      #"{"op":"add","sku":"TEE","colour":"red"}"#, #"{"op":"tender","type":"cheque"}"#,
      #"{"op":"nope"}"#, #"{"op":"add","sku":"TEE","qty":0}"#,
      #"{"op":"paid_in","amount":12.5,"reason":"x"}"#,
    ] {
      let problems = SchemaValidator.protocol.problems(try JSONParser.parse(line), as: "request")
      #expect(!problems.isEmpty, "\(line)")
      #expect(Self.decode(line) != nil, "\(line)")
    }
  }

  /// A value of `type`, for a request a decoder will read (not necessarily accept).
  static func example(_ type: WireType) -> JSONValue {
    switch type {
    case .string, .anyString: .string("x1")
    case .money: .string("1.00")
    case .percent: .string("10")
    case .integer(let range): .int(range.map { max($0.lowerBound, 1) } ?? 1)
    case .boolean: .bool(true)
    case .oneOfStrings(let names): .string(names.first ?? "")
    case .constant(let value): value
    case .array(let element, _): .array([example(element)])
    case .object(let fields, _):
      .object(
        fields.reduce(into: JSONObject()) { object, field in
          object[field.name] = example(field.type)
        })
    case .map: .object(["x": .string("y")])
    case .ref: .object([:])
    case .anyOf(let types): types.first.map(example) ?? .null
    case .nullable(let type): example(type)
    case .any: .string("x")
    }
  }
}

/// docs/PROTOCOL.md names what the schema names: every op, every error code.
@Suite struct ProtocolDocumentTests {
  static func document() throws -> String {
    try String(
      contentsOf: ProtocolSchemaTests.root.appendingPathComponent("docs/PROTOCOL.md"),
      encoding: .utf8)
  }

  /// The codes in the first column of the *Error codes* table.
  static func documentedCodes(_ text: String) -> Set<String> {
    guard let start = text.range(of: "## Error codes") else { return [] }
    var codes: Set<String> = []
    for line in text[start.upperBound...].split(separator: "\n") {
      if line.hasPrefix("## ") { break }
      guard line.hasPrefix("| `") else { continue }
      let cell = line.dropFirst(2).prefix { $0 != "|" }
      for part in cell.split(separator: ",") {
        let code = part.trimmingCharacters(in: .whitespaces).trimmingCharacters(
          in: CharacterSet(charactersIn: "`"))
        if !code.isEmpty { codes.insert(code) }
      }
    }
    return codes
  }

  @Test func theErrorTableHasEveryCodeTheSchemaHasAndNoOther() throws {
    let documented = Self.documentedCodes(try Self.document())
    let declared = Set(
      (ProtocolSchema.document["$defs"]?["error_code"]?["enum"]?.arrayValue ?? []).compactMap(
        \.stringValue))
    #expect(declared.count == ErrorCode.allCases.count)
    #expect(
      declared.subtracting(documented).isEmpty,
      "not in PROTOCOL.md: \(declared.subtracting(documented).sorted())")
    #expect(
      documented.subtracting(declared).isEmpty,
      "not a code: \(documented.subtracting(declared).sorted())")
  }

  @Test func everyOpIsDescribed() throws {
    let text = try Self.document()
    // A heading, the first cell of a table row, or a paragraph that starts with the op.
    let lines = text.split(separator: "\n")
    for op in Op.allCases {
      let name = "`\(op.rawValue)`"
      let described = lines.contains { line in
        if line.hasPrefix("### ") { return line.contains(name) }
        if line.hasPrefix("| ") { return line.dropFirst(2).prefix { $0 != "|" }.contains(name) }
        return line.hasPrefix(name)
      }
      #expect(described, "PROTOCOL.md does not describe \(op.rawValue)")
    }
  }
}

/// A tender is one case per kind with only its own fields: each kind's missing field is
/// refused where the request is read, with the field named, and nothing of another kind is
/// taken.
@Suite struct TenderKindsTests {
  @Test(arguments: [
    (#"{"op":"tender","type":"cash"}"#, "amount"),
    (#"{"op":"tender","type":"card"}"#, "card"),
    (#"{"op":"tender","type":"gift_card"}"#, "number"),
    (#"{"op":"tender","type":"store_credit"}"#, "customer_id"),
    (#"{"op":"tender","type":"other","name":"check"}"#, "amount"),
    (#"{"op":"tender","type":"other","amount":"1.00"}"#, "name"),
    (
      #"{"op":"tender","type":"card_present","amount":"1.00","last4":"4242","auth_code":"A1"}"#,
      "brand"
    ),
    (#"{"op":"tender","type":"cash","amount":"1.00","number":"6001234567890128"}"#, "number"),
    (#"{"op":"tender","type":"gift_card","number":"6001","customer_id":"C1"}"#, "customer_id"),
  ])
  func eachKindTakesItsOwnFieldsOnly(line: String, field: String) throws {
    let error = try #require(ProtocolSchemaTests.decode(line), "\(line) was taken")
    #expect(error.message.contains(field), "\(line): \(error.message)")
  }

  @Test func eachKindReadsBackAsItWasBuilt() throws {
    let card = CardInput(number: "4242424242424242", expiryMonth: 12, expiryYear: 2030, cvv: "739")
    let usd = { (units: Int64) in Money(minorUnits: units, currency: .usd) }
    let kinds: [TenderRequest] = [
      .cash(amount: usd(2_000)), .card(card, amount: nil), .card(card, amount: usd(500)),
      .cardPresent(amount: usd(100), brand: "VISA", last4: "4242", authCode: "A1"),
      .giftCard(number: "6001234567890128", amount: nil),
      .storeCredit(customerID: "C1", amount: usd(300)),
      .other(name: "check", amount: usd(1_000), reference: nil),
      .other(name: "voucher", amount: usd(1_000), reference: "V-7"),
    ]
    for kind in kinds {
      let line = RequestEnvelope().line(for: Requests.Tender(kind))
      let decoded = try RequestDecoder.decode(Array(line.utf8), currency: .usd)
      #expect((decoded.body as? Requests.Tender)?.request == kind, "\(line)")
    }
  }
}

/// The kinds a request declares (`variants`) are the ones its decoder reads: each kind with
/// its required fields is taken and valid; without any one of them it is refused by both.
@Suite struct RequestVariantTests {
  @Test(arguments: Op.allCases.filter { !$0.requestType.variants.isEmpty })
  func eachKindNeedsWhatItDeclares(_ op: Op) throws {
    let declared = Dictionary(
      uniqueKeysWithValues: op.requestType.fields.map { ($0.name, $0.type) })
    for variant in op.requestType.variants {
      var object = JSONObject()
      object["op"] = .string(op.rawValue)
      object[variant.field] = .string(variant.value)
      for name in variant.required {
        object[name] = Self.valid(name, declared[name] ?? .any)
      }
      let line = JSONValue.object(object).serialized
      #expect(ProtocolSchemaTests.decode(line) == nil, "\(line)")
      #expect(SchemaValidator.protocol.problems(.object(object), as: "request").isEmpty, "\(line)")
      for name in variant.required {
        var without = object
        without[name] = nil
        let short = JSONValue.object(without).serialized
        #expect(ProtocolSchemaTests.decode(short) != nil, "\(short) was taken")
        #expect(
          !SchemaValidator.protocol.problems(.object(without), as: "request").isEmpty,
          "the schema allows \(short)")
      }
    }
  }

  /// A value the decoder takes for the field `name`.
  static func valid(_ name: String, _ type: WireType) -> JSONValue {
    switch name {
    case "card":
      .object([
        "number": .string("4242424242424242"), "exp_month": .int(12), "exp_year": .int(2030),
        "cvv": .string("123"),
      ])
    case "last4": .string("4242")
    case "brand": .string("VISA")
    default: ProtocolSchemaTests.example(type)
    }
  }
}
