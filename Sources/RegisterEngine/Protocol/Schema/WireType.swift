/// The type of a value on the wire, as the protocol's declarations state it: each request type
/// declares its fields with these, each op its result, each event its data. The protocol's
/// JSON Schema (`ProtocolSchema`) is written from them, so the schema says what the
/// declarations say.
public indirect enum WireType: Sendable, Equatable {
  /// A non-empty string, at most `maxLength` Unicode scalars, matching `pattern` when given.
  case string(maxLength: Int? = nil, pattern: String? = nil)
  /// Any string, the empty one included (a name not given yet, a receipt's text).
  case anyString
  /// An amount: a decimal string in the store currency (never a JSON number).
  case money
  /// A percentage: a decimal string from 0 to 100.
  case percent
  /// A whole number, within `range` when given.
  case integer(ClosedRange<Int64>? = nil)
  case boolean
  /// One of these strings.
  case oneOfStrings([String])
  /// Exactly this value.
  case constant(JSONValue)
  /// An array of values of one type.
  case array(WireType, maxItems: Int? = nil)
  /// An object with these fields; `open` when it may carry others (a client ignores them).
  case object([WireField], open: Bool = false)
  /// An object whose keys are free and whose values are of one type.
  case map(WireType)
  /// A definition shared by several declarations (`ProtocolSchema.definitions`).
  case ref(String)
  /// Any of these.
  case anyOf([WireType])
  /// The type, or JSON `null`.
  case nullable(WireType)
  /// Any JSON value.
  case any

  /// The unnamed empty object `{}`.
  public static let empty = WireType.object([])
  /// An identifier or name: a non-empty string.
  public static let text = WireType.string()
  /// A timestamp: RFC 3339 with milliseconds and the UTC offset.
  public static let timestamp = WireType.ref("timestamp")
  /// A receipt's number, or its code as scanned (`"R42"`).
  public static let receiptNumber = WireType.anyOf([
    .integer(1...Int64(Int32.max)), .ref("receipt_code"),
  ])
}

/// One member of an object on the wire: its name, type, whether it must be there, and one line
/// saying what it is.
public struct WireField: Sendable, Equatable {
  public let name: String
  public let type: WireType
  public let required: Bool
  public let doc: String

  public init(_ name: String, _ type: WireType, required: Bool, _ doc: String) {
    self.name = name
    self.type = type
    self.required = required
    self.doc = doc
  }

  /// A member that must be there.
  public static func required(_ name: String, _ type: WireType, _ doc: String) -> WireField {
    WireField(name, type, required: true, doc)
  }

  /// A member that may be left out.
  public static func optional(_ name: String, _ type: WireType, _ doc: String) -> WireField {
    WireField(name, type, required: false, doc)
  }
}

/// One kind of a request whose fields depend on its kind (a tender's `type`): the value of the
/// field that names the kind, the fields that kind needs and the ones it may carry.
public struct WireVariant: Sendable, Equatable {
  public let field: String
  public let value: String
  public let required: [String]
  public let optional: [String]

  public init(_ field: String, _ value: String, required: [String], optional: [String] = []) {
    self.field = field
    self.value = value
    self.required = required
    self.optional = optional
  }
}

extension WireType {
  /// The JSON Schema (2020-12) for this type; `$ref`s point into `#/$defs`.
  public var schema: JSONValue {
    switch self {
    case .string(let maxLength, let pattern):
      return .object([
        "type": .string("string"), "minLength": .int(1), "maxLength": maxLength.map { .int($0) },
        "pattern": pattern.map(JSONValue.string),
      ])
    case .anyString: return .object(["type": .string("string")])
    case .money: return Self.reference("money")
    case .percent: return Self.reference("percent")
    case .integer(let range):
      return .object([
        "type": .string("integer"), "minimum": range.map { .int($0.lowerBound) },
        "maximum": range.map { .int($0.upperBound) },
      ])
    case .boolean: return .object(["type": .string("boolean")])
    case .oneOfStrings(let names):
      return .object(["type": .string("string"), "enum": .array(names.map(JSONValue.string))])
    case .constant(let value): return .object(["const": value])
    case .array(let element, let maxItems):
      return .object([
        "type": .string("array"), "items": element.schema, "maxItems": maxItems.map { .int($0) },
      ])
    case .object(let fields, let open):
      return Self.objectSchema(fields, open: open)
    case .map(let value):
      return .object(["type": .string("object"), "additionalProperties": value.schema])
    case .ref(let name): return Self.reference(name)
    case .anyOf(let types): return .object(["anyOf": .array(types.map(\.schema))])
    case .nullable(let type):
      return .object(["anyOf": .array([type.schema, .object(["type": .string("null")])])])
    case .any: return .object([:])
    }
  }

  static func reference(_ name: String) -> JSONValue {
    .object(["$ref": .string("#/$defs/" + name)])
  }

  /// An object schema: each field with its description, the required ones listed.
  static func objectSchema(_ fields: [WireField], open: Bool, description: String? = nil)
    -> JSONValue
  {
    var properties = JSONObject()
    for field in fields {
      // An integer without a range of its own has its field's (`IntegerRanges`).
      let type =
        field.type == .integer(nil) ? .integer(IntegerRanges.range(of: field.name)) : field.type
      guard case .object(var property) = type.schema else { continue }
      property["description"] = .string(field.doc)
      properties[field.name] = .object(property)
    }
    let required = fields.filter(\.required).map { JSONValue.string($0.name) }
    return .object([
      "type": .string("object"), "description": description.map(JSONValue.string),
      "properties": .object(properties), "required": required.isEmpty ? nil : .array(required),
      "additionalProperties": open ? nil : .bool(false),
    ])
  }
}
