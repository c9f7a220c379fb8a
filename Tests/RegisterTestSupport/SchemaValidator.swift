import RegisterEngine
import Testing

/// Checks JSON against the protocol's schema (`ProtocolSchema.document`), so that every
/// request the register takes and every reply and event it sends in the tests is held to what
/// the schema promises an integrator.
///
/// It knows the keywords the schema uses: `$ref` (into `#/$defs`), `type`, `properties`,
/// `required`, `additionalProperties`, `propertyNames`, `items`, `maxItems`, `enum`, `const`,
/// `anyOf`, `oneOf`,
/// `minimum`, `maximum`, `minLength`, `maxLength` and `pattern`. The end-to-end suite also
/// checks with Python's `jsonschema`, an implementation of the whole standard.
public struct SchemaValidator: Sendable {
  private let definitions: JSONObject
  private let patterns: [String: PatternBox]

  /// The validator for the protocol's own schema.
  public static let `protocol` = SchemaValidator(ProtocolSchema.document)

  public init(_ document: JSONValue) {
    guard case .object(let defs)? = document["$defs"] else {
      definitions = JSONObject()
      patterns = [:]
      return
    }
    definitions = defs
    var found: [String: PatternBox] = [:]
    func collect(_ value: JSONValue) {
      switch value {
      case .object(let object):
        if case .string(let pattern)? = object["pattern"], found[pattern] == nil {
          found[pattern] = PatternBox(pattern)
        }
        for member in object.members { collect(member.value) }
      case .array(let items): items.forEach(collect)
      default: break
      }
    }
    collect(document)
    patterns = found
  }

  /// What is wrong with `value` as the definition `name` (empty: it is valid).
  public func problems(_ value: JSONValue, as name: String) -> [String] {
    guard let schema = definitions[name] else { return ["no definition \(name)"] }
    var found: [String] = []
    check(value, schema, path: "$", into: &found)
    return found
  }

  private func check(
    _ value: JSONValue, _ schema: JSONValue, path: String, into found: inout [String]
  ) {
    guard case .object(let rules) = schema else { return }
    if case .string(let reference)? = rules["$ref"] {
      let name = String(reference.dropFirst("#/$defs/".count))
      guard let target = definitions[name] else {
        found.append("\(path): unknown $ref \(reference)")
        return
      }
      check(value, target, path: path, into: &found)
    }
    if case .string(let type)? = rules["type"], !Self.has(value, type: type) {
      found.append("\(path): expected \(type), got \(value.typeName)")
      return
    }
    if let constant = rules["const"], !Self.same(constant, value) {
      found.append("\(path): expected \(constant.serialized), got \(value.serialized)")
    }
    if case .array(let allowed)? = rules["enum"], !allowed.contains(where: { Self.same($0, value) })
    {
      found.append(
        "\(path): \(value.serialized) is not one of \(JSONValue.array(allowed).serialized)")
    }
    if case .array(let options)? = rules["anyOf"] {
      let matches = options.contains { option in
        var inner: [String] = []
        check(value, option, path: path, into: &inner)
        return inner.isEmpty
      }
      if !matches {
        found.append("\(path): matches none of anyOf (\(value.serialized.prefix(200)))")
      }
    }
    if case .array(let options)? = rules["oneOf"] {
      var failures: [String] = []
      let matching = options.filter { option in
        var inner: [String] = []
        check(value, option, path: path, into: &inner)
        if inner.count <= 3 { failures += inner }
        return inner.isEmpty
      }.count
      if matching != 1 {
        found.append(
          "\(path): matches \(matching) of oneOf, not one\(failures.isEmpty ? "" : ": " + failures.prefix(6).joined(separator: "; "))"
        )
      }
    }
    switch value {
    case .string(let text):
      let length = text.unicodeScalars.count
      if let minimum = rules["minLength"]?.int64Value, length < minimum {
        found.append("\(path): shorter than \(minimum)")
      }
      if let maximum = rules["maxLength"]?.int64Value, length > maximum {
        found.append("\(path): longer than \(maximum)")
      }
      if case .string(let pattern)? = rules["pattern"], let box = patterns[pattern],
        !box.matches(text)
      {
        found.append("\(path): \"\(text.prefix(60))\" does not match \(pattern)")
      }
    case .number(let text):
      if let number = Int64(text) {
        if let minimum = rules["minimum"]?.int64Value, number < minimum {
          found.append("\(path): \(number) is below \(minimum)")
        }
        if let maximum = rules["maximum"]?.int64Value, number > maximum {
          found.append("\(path): \(number) is above \(maximum)")
        }
      }
    case .array(let items):
      if let maximum = rules["maxItems"]?.int64Value, items.count > maximum {
        found.append("\(path): more than \(maximum) items")
      }
      if let itemSchema = rules["items"] {
        for (index, item) in items.enumerated() {
          check(item, itemSchema, path: "\(path)[\(index)]", into: &found)
        }
      }
    case .object(let object):
      let properties: JSONObject
      if case .object(let declared)? = rules["properties"] {
        properties = declared
      } else {
        properties = JSONObject()
      }
      if case .array(let required)? = rules["required"] {
        for case .string(let name) in required where object[name] == nil {
          found.append("\(path): \(name) is required")
        }
      }
      if let names = rules["propertyNames"] {
        for member in object.members {
          var inner: [String] = []
          check(.string(member.key), names, path: path, into: &inner)
          if !inner.isEmpty { found.append("\(path): \(member.key) is not allowed here") }
        }
      }
      for member in object.members {
        if let propertySchema = properties[member.key] {
          check(member.value, propertySchema, path: "\(path).\(member.key)", into: &found)
        } else if let extra = rules["additionalProperties"] {
          if extra == .bool(false) {
            found.append("\(path): \(member.key) is not allowed")
          } else {
            check(member.value, extra, path: "\(path).\(member.key)", into: &found)
          }
        }
      }
    case .null, .bool: break
    }
  }

  private static func has(_ value: JSONValue, type: String) -> Bool {
    switch (type, value) {
    case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array),
      ("object", .object), ("number", .number):
      true
    case ("integer", .number(let text)): Int64(text) != nil
    default: false
    }
  }

  /// JSON equality (numbers by value as integers where they are).
  private static func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    if case .number(let left) = lhs, case .number(let right) = rhs,
      let a = Int64(left), let b = Int64(right)
    {
      return a == b
    }
    return lhs == rhs
  }
}

/// A compiled `pattern` (ECMA-262 as JSON Schema has it; the schema's patterns use only what
/// Swift's regular expressions read the same way).
private final class PatternBox: @unchecked Sendable {
  let regex: Regex<AnyRegexOutput>?

  init(_ pattern: String) {
    regex = try? Regex(pattern)
  }

  func matches(_ text: String) -> Bool {
    guard let regex else { return false }
    return (try? regex.firstMatch(in: text)) != nil
  }
}

/// Holds every exchange of the tests to the protocol's schema: a request the register
/// took must be one the schema allows, and every reply must be one it describes for the op.
public enum SchemaCheck {
  public static func exchange(
    request line: String, reply: JSONValue, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard let request = try? JSONParser.parse(line), case .string(let name)? = request["op"],
      Op.named(name) != nil
    else { return }
    let validator = SchemaValidator.protocol
    let replyProblems = validator.problems(reply, as: "reply_\(name)")
    #expect(
      replyProblems.isEmpty,
      "reply to \(name): \(replyProblems) in \(reply.serialized.prefix(600))",
      sourceLocation: sourceLocation)
    if reply["ok"] == .bool(true) {
      let requestProblems = validator.problems(request, as: "request")
      #expect(
        requestProblems.isEmpty, "\(line) was taken but the schema refuses it: \(requestProblems)",
        sourceLocation: sourceLocation)
    }
  }
}
