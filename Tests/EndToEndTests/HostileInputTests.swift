import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

// The hostile-input corpus: a running registerd is sent every
// kind of malformed JSON document, and every op with each of its fields replaced by extreme
// values, and must answer every line with exactly one well-formed reply, in order, stay up,
// never echo a card number, and leave a journal that verifies and recovers.
//
// Everything is generated here, from a seeded pseudo-random generator: a failure message names
// the seed, and `REGISTERD_CORPUS_SEED=<seed> swift test --filter HostileInputTests` replays
// exactly the same lines.

/// One line of the corpus and what its reply must look like.
struct HostileLine {
  /// The bytes sent, without the newline (never containing one).
  var bytes: [UInt8]
  /// What the line is, for failure messages: op, field and value.
  var label: String
  /// Blank lines are skipped by the protocol and get no reply.
  var expectsReply = true
  /// The `id` the reply must echo.
  var expectedID: JSONValue = .null
  /// A set-up step the rest depends on (signing the manager in again): it must succeed.
  var mustSucceed = false
  /// The hostile value is in an identifier's place (a SKU, a barcode, an operator id, a key):
  /// an identifier is quoted and kept as it is, whatever its digits look like.
  var inIdentifier = false

  init(_ bytes: [UInt8], label: String) {
    self.bytes = bytes.map { $0 == 0x0A ? 0x0B : $0 }
    self.label = label
    // What the daemon's framer makes of it: one trailing "\r" dropped, space/tab-only skipped.
    var framed = self.bytes
    if framed.last == 0x0D { framed.removeLast() }
    if framed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
      expectsReply = false
    } else if framed.count <= LineFramer.maximumLineLength,
      let value = try? JSONParser.parse(framed), let id = value["id"]
    {
      // The id is the client's own, echoed as it is.
      expectedID = id
    }
  }

  init(_ text: String, label: String) { self.init(Array(text.utf8), label: label) }

  /// The line as printable text (shortened), for messages.
  var shown: String { Self.printable(bytes, limit: 160) }

  /// Bytes as one printable line: control characters, line separators and bytes that are not
  /// UTF-8 are written as `\x` escapes.
  static func printable(_ bytes: [UInt8], limit: Int) -> String {
    let text = String(decoding: bytes.prefix(limit), as: UTF8.self).unicodeScalars.map { scalar in
      let special: Set<UInt32> = [0x7F, 0x85, 0x2028, 0x2029, 0xFFFD]
      return scalar.value < 0x20 || special.contains(scalar.value)
        ? "\\x\(String(scalar.value, radix: 16))" : String(scalar)
    }.joined()
    return bytes.count > limit ? "\(text)… (\(bytes.count) bytes)" : text
  }

}

/// A step in a path to a member of a request template.
enum PathStep: CustomStringConvertible, Equatable {
  case key(String)
  case index(Int)

  var description: String {
    switch self {
    case .key(let key): ".\(key)"
    case .index(let index): "[\(index)]"
    }
  }
}

func pathLabel(_ path: [PathStep]) -> String {
  String(path.map(\.description).joined().dropFirst())
}

/// Builds the corpus. Deterministic for a seed.
struct CorpusBuilder {
  var random: SplitMix64
  var serial = 0

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  static let hole = "@@HOLE-7f3a9c@@"

  // MARK: Extreme values (raw JSON text, possibly not valid JSON, possibly not UTF-8)

  static func quoted(_ text: String) -> [UInt8] { JSONValue.string(text).serializedBytes }

  /// Numbers and number-like tokens, valid and not.
  static let numbers: [String] = [
    "-9223372036854775808", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "18446744073709551616", "1000000000000000000000000000000", "1e30", "-1e30", "-0", "-0.0", "0",
    "-1", "-2", "1", "2147483648", "-2147483649", "4294967296", "1e400", "-1e400", "1e-400",
    "1E+2", "0.1", "1.0", "1.5", "99999", "10000", "9999", "4242424242424242",
    "1" + String(repeating: "0", count: 999), "0." + String(repeating: "7", count: 1000),
    "1e" + String(repeating: "9", count: 40), "-1e-" + String(repeating: "9", count: 40),
    // Not JSON: each must be bad_json.
    "01", "-01", "-", "1.", ".1", "+1", "1e", "1e+", "0x1F", "NaN", "-NaN", "Infinity",
    "-Infinity", "1_000", "1,5", "\u{0661}", "１",
  ]

  /// Strings (as JSON string literals, escaped by the writer) and raw string-ish byte runs.
  static let strings: [[UInt8]] = {
    var values: [[UInt8]] = [
      "", " ", "\u{0}", "a\u{0}b", "\u{1}\u{1F}", "\t\n\r", "\u{7F}\u{85}\u{2028}\u{2029}",
      "\u{FEFF}", "\u{1F600}", "\u{202E}gnp.exe", "4242424242424242", "4242 4242 4242 4242",
      "4242-4242-4242-4242", "4111111111111111", "378282246310005", "5555555555554444",
      "-9223372036854775808", "9223372036854775808", "1e400", "-0", "0.1", "-1", "-1.00", "0",
      "0.001", "9999999999999.99", "10000000000000.00", "1000000000000000000000000000000",
      "NaN", "Infinity", "12,50", "1_000", "+1", "１２", "\u{0663}", "../../etc/passwd",
      "%s%n%x", "<script>", "null", "C1",
      String(repeating: "a", count: 200), String(repeating: "b", count: 201),
      String(repeating: "é", count: 30_000),
    ].map(quoted)
    // A string of 100 KB: the line is over the 64 KiB bound (line_too_long).
    values.append(quoted(String(repeating: "x", count: 100_000)))
    // Raw bytes JSON forbids or that are not UTF-8; each line must be bad_json.
    values += [
      [0x22, 0x61, 0x00, 0x62, 0x22], [0x22, 0x1F, 0x22], [0x22, 0x09, 0x22], [0x22, 0xFF, 0x22],
      [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
      [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0x80, 0x22],
      Array(#""\uD800""#.utf8), Array(#""\uDC00\uD800""#.utf8), Array(#""\uD800\u0041""#.utf8),
      Array(#""\uD800\""#.utf8), Array(#""\x41""#.utf8), Array(#""\u00G0""#.utf8),
      Array(#""\'""#.utf8), Array("'single'".utf8), Array(#""unterminated"#.utf8),
      Array(#""\"#.utf8), Array(#""\u12""#.utf8),
    ]
    return values
  }()

  /// Everything else: literals, wrong types, nesting.
  static let others: [String] = [
    "null", "true", "false", "[]", "{}", "[1]", "[null]", #"{"a":1}"#, #"["TEE-WHT-M"]"#,
    #"{"cash":"1.00","extra":1}"#, #"[{"line":1,"qty":1}]"#,
    String(repeating: "[", count: 30) + String(repeating: "]", count: 30),
    String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
    String(repeating: #"{"a":"#, count: 70) + "1" + String(repeating: "}", count: 70),
    String(repeating: "[", count: 10_000),
    String(repeating: #"{"a":"#, count: 5_000),
    "nul", "tru", "True", "NULL", "undefined", "[1,]", "{,}", #"{"a" 1}"#, "[1 2]",
  ]

  /// The fixed extreme values every field gets.
  static let extremes: [[UInt8]] =
    numbers.map { Array($0.utf8) } + strings + others.map { Array($0.utf8) }

  /// The core extremes every field of every op gets (the full list goes to each template's
  /// first field, and to the envelope of `add`, to keep the run short).
  static let core: [[UInt8]] =
    [
      "-9223372036854775808", "9223372036854775807", "9223372036854775808",
      "-9223372036854775809", "1000000000000000000000000000000", "1e30", "-0", "-0.0", "0", "-1",
      "1e400", "-1e400", "0.1", "1.5", "4242424242424242", "1" + String(repeating: "0", count: 999),
      "null", "true", "[]", "{}",
      String(repeating: "[", count: 30) + String(repeating: "]", count: 30),
      String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
      String(repeating: "[", count: 10_000),
    ].map { Array($0.utf8) }
    + [
      "", " ", "a\u{0}b", "\u{1}\u{1F}", "4242424242424242", "4242 4242 4242 4242",
      "-9223372036854775808", "1e400", "-1.00", "9999999999999.99", "10000000000000.00",
      "1000000000000000000000000000000", "NaN", String(repeating: "b", count: 201),
      String(repeating: "é", count: 30_000), String(repeating: "x", count: 100_000),
    ].map(quoted)

  /// A few values for fields where the whole list would only repeat the decoder's shape check.
  static let short: [[UInt8]] =
    ["null", "-0", "1e400", "9223372036854775808", "[]", #"{"a":[[[1]]]}"#, "\"\"", "true"].map {
      Array($0.utf8)
    } + [quoted("4242424242424242"), quoted(String(repeating: "y", count: 70_000))]

  /// Seeded random values of every kind.
  mutating func randomValue() -> [UInt8] {
    switch random.below(7) {
    case 0:
      return Array(String(Int64(bitPattern: random.next())).utf8)
    case 1:
      let digits = (0..<(1 + random.below(40))).map { _ in String(random.below(10)) }.joined()
      return Array(((random.below(2) == 0 ? "-" : "") + digits).utf8)
    case 2:
      let mantissa = "\(random.below(1000)).\(random.below(1000))"
      let exponent = Int(Int16(truncatingIfNeeded: random.next()))
      return Array("\(random.below(2) == 0 ? "-" : "")\(mantissa)e\(exponent)".utf8)
    case 3:
      // Random Unicode scalars (the writer escapes what JSON needs escaped).
      var text = ""
      for _ in 0..<random.below(300) {
        let ranges: [ClosedRange<UInt32>] = [
          0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF,
        ]
        let range = random.pick(ranges)
        let value =
          range.lowerBound + UInt32(random.below(Int(range.upperBound - range.lowerBound)))
        if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
      }
      return Self.quoted(text)
    case 4:
      // A string literal of random bytes: control characters, invalid UTF-8, stray quotes.
      var bytes: [UInt8] = [0x22]
      for _ in 0..<random.below(64) { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
      bytes.append(0x22)
      return bytes
    case 5:
      // A random \u escape, lone surrogates included.
      let hex = String(random.below(0x10000), radix: 16, uppercase: true)
      let code = String(repeating: "0", count: 4 - hex.count) + hex
      return Array("\"a\\u\(code)b\"".utf8)
    default:
      return randomStructure(depth: random.below(80))
    }
  }

  private mutating func randomStructure(depth: Int) -> [UInt8] {
    guard depth > 0 else { return Array(random.pick(["1", "null", "\"s\"", "-0", "1e400"]).utf8) }
    let inner = randomStructure(depth: depth - 1)
    return random.below(2) == 0
      ? [0x5B] + inner + [0x5D] : Array(#"{"k":"#.utf8) + inner + [0x7D]
  }

  // MARK: Templates

  /// A line from a template: `#N#` becomes the line's serial number (fresh SKUs and ids), and
  /// the member at `path` becomes `raw`.
  mutating func line(
    template: JSONValue, id: Bool = true, path: [PathStep]?, raw: [UInt8], label: String
  ) -> HostileLine {
    serial += 1
    var value = template
    if id, case .object(var object) = value {
      // The id goes first, so a reply can be matched even when the rest of the line is cut.
      var withID = JSONObject()
      withID["id"] = .int(serial)
      for (key, member) in object.members where key != "id" { withID[key] = member }
      object = withID
      value = .object(object)
    }
    if let path { value = Self.setting(value, at: path[...], to: .string(Self.hole)) }
    var bytes = Array(value.serializedBytes)
    let unique = Array("#N#".utf8)
    while let range = bytes.firstRange(of: unique) {
      bytes.replaceSubrange(range, with: Array(String(serial).utf8))
    }
    if let range = bytes.firstRange(of: Self.quoted(Self.hole)) {
      bytes.replaceSubrange(range, with: raw)
    }
    return HostileLine(bytes, label: label)
  }

  static func setting(_ value: JSONValue, at path: ArraySlice<PathStep>, to new: JSONValue)
    -> JSONValue
  {
    guard let step = path.first else { return new }
    switch (step, value) {
    case (.key(let key), .object(var object)):
      object[key] = setting(object[key] ?? .null, at: path.dropFirst(), to: new)
      return .object(object)
    case (.index(let index), .array(var items)) where index < items.count:
      items[index] = setting(items[index], at: path.dropFirst(), to: new)
      return .array(items)
    default:
      return value
    }
  }

  /// Every member path of a template (nested objects and arrays included), `op` and `id` aside.
  static func paths(of value: JSONValue, prefix: [PathStep] = []) -> [[PathStep]] {
    switch value {
    case .object(let object):
      return object.members.flatMap { key, member -> [[PathStep]] in
        if prefix.isEmpty && (key == "op" || key == "id") { return [] }
        let path = prefix + [.key(key)]
        return [path] + paths(of: member, prefix: path)
      }
    case .array(let items):
      return items.indices.flatMap { index -> [[PathStep]] in
        let path = prefix + [.index(index)]
        return [path] + paths(of: items[index], prefix: path)
      }
    default:
      return []
    }
  }
}

/// Base requests, valid against the set-up register; each field of each is replaced in turn.
/// An op the daemon has that is not listed here is still covered: `{"op": NAME}` with the
/// fields docs/PROTOCOL.md names for it.
let requestTemplates: [String: [String]] = [
  "catalog": [#"{"op":"catalog","limit":3,"after_sku":"SOCK-3PK"}"#],
  "receipt": [#"{"op":"receipt","number":1}"#],
  "add": [
    #"{"op":"add","sku":"SOCK-3PK","qty":1}"#,
    #"{"op":"add","sku":"PRINT-ART","qty":1,"options":{"size":"8x10","frame":"none"}}"#,
  ],
  "remove": [#"{"op":"remove","line":1}"#],
  "set_qty": [#"{"op":"set_qty","line":1,"qty":2}"#],
  "tender": [
    #"{"op":"tender","type":"cash","amount":"1.00"}"#,
    #"{"op":"tender","type":"card","amount":"1.00","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"123"}}"#,
  ],
  "void": [
    #"{"op":"void","reason":"corpus"}"#,
    #"{"op":"void","reason":"corpus","approve":{"operator":"za","pin":"1111"}}"#,
  ],
  "discount": [
    #"{"op":"discount","line":1,"percent":"10","reason":"corpus"}"#,
    #"{"op":"discount","amount":"1.00","reason":"corpus"}"#,
  ],
  "override_price": [
    #"{"op":"override_price","line":1,"unit_price":"5.00","reason":"corpus"}"#,
    #"{"op":"override_price","line":1,"unit_price":"5.00","reason":"corpus","approve":{"operator":"za","pin":"1111"}}"#,
  ],
  "void_line": [#"{"op":"void_line","line":1}"#],
  "park": [#"{"op":"park","note":"corpus"}"#],
  "resume": [#"{"op":"resume","order_id":1}"#],
  "return": [
    #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"corpus"}"#
  ],
  "subscribe": [#"{"op":"subscribe","topics":["day"],"after":0}"#],
  "operator_add": [
    #"{"op":"operator_add","operator_id":"n#N#","name":"N","role":"cashier","pin":"1234"}"#
  ],
  "operator_remove": [#"{"op":"operator_remove","operator_id":"zr"}"#],
  "operator_set_pin": [#"{"op":"operator_set_pin","operator_id":"zs","pin":"4321"}"#],
  "operator_unlock": [#"{"op":"operator_unlock","operator_id":"zu"}"#],
  "sign_in": [#"{"op":"sign_in","operator":"zi","pin":"1111"}"#],
  "customer_add": [
    #"{"op":"customer_add","name":"Dana","email":"dana@example.com","phone":"555-0100"}"#
  ],
  "customer_find": [
    #"{"op":"customer_find","query":"Dana"}"#, #"{"op":"customer_find","query":"Dana","limit":5}"#,
  ],
  "attach_customer": [#"{"op":"attach_customer","customer_id":"C1"}"#],
  "customer_history": [#"{"op":"customer_history","customer_id":"C1"}"#],
  "product_add": [
    #"{"op":"product_add","product":{"sku":"ZP-#N#","name":"Zed","description":"","category":"Test","price":"1.00","sale_price":"0.50","stock":5,"tax_class":"standard","colors":["red"]}}"#
  ],
  "product_update": [
    #"{"op":"product_update","sku":"ZZ-BASE","changes":{"price":"2.00","sale_price":"1.00","stock":3,"name":"Zed"}}"#
  ],
  "product_remove": [#"{"op":"product_remove","sku":"ZR-#N#"}"#],
  "stock_adjust": [#"{"op":"stock_adjust","sku":"TEE-WHT-M","delta":1,"reason":"corpus"}"#],
  "float": [#"{"op":"float","amount":"100.00"}"#],
  "paid_in": [#"{"op":"paid_in","amount":"1.00","reason":"corpus"}"#],
  "paid_out": [#"{"op":"paid_out","amount":"1.00","reason":"corpus"}"#],
  "no_sale": [
    #"{"op":"no_sale","reason":"corpus"}"#,
    #"{"op":"no_sale","reason":"corpus","approve":{"operator":"za","pin":"1111"}}"#,
  ],
  "email_receipt": [#"{"op":"email_receipt","receipt":1,"to":"dana@example.com"}"#],
  "report": [#"{"op":"report","kind":"z","day":1}"#, #"{"op":"report","kind":"x"}"#],
  "close_day": [#"{"op":"close_day","counted":{"cash":"10.00"}}"#],
]

/// Ops whose hostile line is sent right after a reset to an order with one line, so that values
/// the decoder accepts go on to decide and apply (a tender, a discount, a quantity).
let opsOnAnOrderWithALine: Set<String> = [
  "remove", "set_qty", "tender", "void", "discount", "override_price", "void_line", "park",
  "attach_customer",
]
/// Ops that need the open order empty.
let opsOnAnEmptyOrder: Set<String> = ["close_day", "resume"]

/// The field names docs/PROTOCOL.md gives an op: the `{…}` after its heading and the fields
/// column of its table row.
func documentedFields(of op: String, in document: String) -> Set<String> {
  var names: Set<String> = []
  let identifier = Set("abcdefghijklmnopqrstuvwxyz_0123456789")
  func words(_ text: Substring) -> [String] {
    text.split { !identifier.contains($0) }.map(String.init)
  }
  var rest = document[...]
  while let start = rest.range(of: "`\(op)` `{") {
    let after = rest[start.upperBound...]
    if let end = after.range(of: "}`") { names.formUnion(words(after[..<end.lowerBound])) }
    rest = after
  }
  for line in document.split(separator: "\n") where line.hasPrefix("| `\(op)` |") {
    let columns = line.split(separator: "|", omittingEmptySubsequences: false)
    guard columns.count > 2 else { continue }
    for (index, part) in columns[2].split(separator: "`").enumerated() where index % 2 == 1 {
      if part.allSatisfy({ identifier.contains($0) }) { names.insert(String(part)) }
    }
  }
  return names
}

/// Sends corpus lines to the daemon and checks every reply; restarts the daemon after a crash
/// (recording the line that caused it) so one run finds every failing line.
final class CorpusRunner: @unchecked Sendable {
  let daemon: Daemon
  let seed: UInt64
  var client: Client
  var linesSent = 0
  var repliesChecked = 0
  var failures: [String] = []
  var crashes = 0
  /// Where the daemon's log stood when the current process started (to quote its crash).
  private var logOffset = 0
  static let cardNumbers = [
    "4242424242424242", "4111111111111111", "378282246310005", "5555555555554444",
  ]
  /// Members that hold identifiers, in requests and journal records: kept and quoted as they
  /// are (a request `id` too, echoed; a key is journaled as its digest when it looks like a
  /// card number, which the journal check below proves).
  static let identifierFields: Set<String> = [
    "id", "sku", "code", "operator_id", "operator", "customer_id", "tax_exempt", "barcodes",
    "after_sku", "skus",
  ]

  /// The card numbers `text` (a journal) holds outside identifier members.
  static func cardNumbersOutsideIdentifiers(_ text: String) -> [String] {
    var found: Set<String> = []
    for line in text.split(separator: "\n") {
      if let value = try? JSONParser.parse(Array(line.utf8)) {
        found.formUnion(cardNumbersOutsideIdentifiers(value))
      }
    }
    return found.sorted()
  }

  /// The card numbers `value` holds outside identifier members.
  static func cardNumbersOutsideIdentifiers(_ value: JSONValue) -> [String] {
    var found: Set<String> = []
    func walk(_ value: JSONValue) {
      switch value {
      case .string(let string), .number(let string):
        let digits = string.filter { $0 != " " && $0 != "-" }
        for number in cardNumbers where digits.contains(number) { found.insert(number) }
      case .array(let items): items.forEach(walk)
      case .object(let object):
        for member in object.members where !identifierFields.contains(member.key) {
          walk(member.value)
        }
      case .null, .bool: break
      }
    }
    walk(value)
    return found.sorted()
  }

  init(daemon: Daemon, seed: UInt64) throws {
    self.daemon = daemon
    self.seed = seed
    client = try daemon.connect()
  }

  var reproduce: String { "seed \(seed) (REGISTERD_CORPUS_SEED=\(seed) reproduces it)" }

  func fail(_ message: String, _ location: SourceLocation = #_sourceLocation) {
    failures.append(message)
    Issue.record("\(message) — \(reproduce)", sourceLocation: location)
  }

  /// What is wrong with a reply line to `line`, or nil.
  static func problem(with text: String, to line: HostileLine) -> String? {
    guard let reply = try? JSONParser.parse(text), case .object(let object) = reply else {
      return "the reply is not a JSON object: \(text.prefix(300))"
    }
    // The id is the client's own token, echoed as sent (which `expectedID` checks); everything
    // else is the daemon's.
    let found = cardNumbersOutsideIdentifiers(JSONValue.object(object))
    if !line.inIdentifier, let number = found.first {
      return "the reply contains the card number \(number): \(text.prefix(300))"
    }
    if object["id"] != line.expectedID {
      return "the reply's id is \(object["id"]?.serialized ?? "missing"), expected "
        + "\(line.expectedID.serialized) (out of order?): \(text.prefix(300))"
    }
    if line.mustSucceed && object["ok"] != .bool(true) {
      return "a set-up step was refused: \(text.prefix(300))"
    }
    switch object["ok"] {
    case .bool(true):
      if object["result"] == nil { return "ok without a result: \(text.prefix(300))" }
    case .bool(false):
      guard let code = reply["error"]?["code"]?.stringValue, !code.isEmpty,
        code.allSatisfy({ $0.isASCII && ($0.isLowercase || $0 == "_" || $0.isNumber) }),
        code.first?.isLetter == true
      else { return "no snake_case error.code: \(text.prefix(300))" }
      if reply["error"]?["message"]?.stringValue?.isEmpty != false {
        return "error \(code) without a message"
      }
    default:
      return "no ok member: \(text.prefix(300))"
    }
    return nil
  }

  /// Reads the next reply line, skipping (but checking) subscription events.
  private func readReply() throws -> String? {
    while true {
      guard let text = try client.connection.readLine() else { return nil }
      if let value = try? JSONParser.parse(text), value["event"] != nil, value["ok"] == nil {
        let digits = text.filter { $0 != " " && $0 != "-" }
        if Self.cardNumbers.contains(where: { digits.contains($0) }) {
          fail("an event line contains a card number: \(text.prefix(300))")
        }
        continue
      }
      return text
    }
  }

  /// Runs `lines` pipelined on a fresh connection (a writer thread sends while this thread
  /// reads, so neither side can block the other), then a `hello` sentinel. After a missing
  /// reply the rest is replayed one line at a time to name the culprit.
  func run(_ lines: [HostileLine], group: String) throws {
    guard !lines.isEmpty else { return }
    client = try freshClient()
    let sentinel = HostileLine(#"{"id":"end \#(group)","op":"hello"}"#, label: "sentinel")
    let all = lines + [sentinel]
    var payload: [UInt8] = []
    for line in all { payload += line.bytes + [0x0A] }
    let sender = client
    let bytes = payload
    let writer = DispatchGroup()
    writer.enter()
    DispatchQueue.global().async {
      try? sender.connection.send(bytes: bytes)
      writer.leave()
    }
    linesSent += all.count
    var index = 0
    var broken = false
    while index < all.count {
      let line = all[index]
      if !line.expectsReply {
        index += 1
        continue
      }
      let text: String?
      do { text = try readReply() } catch { text = nil }
      guard let text else {
        broken = true
        break
      }
      repliesChecked += 1
      if let problem = Self.problem(with: text, to: line) {
        fail("\(group): line \(index) \(line.label) `\(line.shown)`: \(problem)")
        // A wrong id means replies and lines no longer pair up: name the line and go serial.
        if problem.contains("id is") {
          broken = true
          break
        }
      }
      index += 1
    }
    if broken {
      // Shut the connection so the writer cannot stay blocked, then find the culprit by
      // sending the rest one line at a time.
      shutdown(client.connection.fd, Int32(SHUT_RDWR))
      _ = writer.wait(timeout: .now() + 10)
      settle()
      if !daemon.isRunning {
        fail(
          "\(group): the daemon died with lines \(index)... in flight (\(all[index].label)); "
            + "replaying them one by one; daemon log: \(logTail())")
        try restart()
      }
      try runSerially(Array(all[index...]), group: group)
    } else {
      _ = writer.wait(timeout: .now() + 30)
    }
    if !daemon.isRunning {
      fail("\(group): the daemon exited; daemon log: \(logTail())")
      try restart()
    }
  }

  /// One line at a time, each on a connection that is known to be good.
  private func runSerially(_ lines: [HostileLine], group: String) throws {
    for line in lines {
      client = try freshClient()
      try? client.connection.send(bytes: line.bytes + [0x0A])
      linesSent += 1
      guard line.expectsReply else { continue }
      let text: String?
      do { text = try readReply() } catch { text = nil }
      guard let text else {
        settle()
        let state =
          daemon.isRunning
          ? "no reply (the daemon is still running)"
          : "the daemon died (status \(daemon.exitCode.map(String.init) ?? "?"))"
        fail("\(group): \(line.label) `\(line.shown)`: \(state); daemon log: \(logTail())")
        if !daemon.isRunning { try restart() }
        continue
      }
      repliesChecked += 1
      if let problem = Self.problem(with: text, to: line) {
        fail("\(group): \(line.label) `\(line.shown)`: \(problem)")
      }
    }
  }

  /// Waits (up to two seconds) for a daemon that closed a connection on us to be seen exiting.
  private func settle() {
    _ = exitStatus(of: daemon.process, timeout: 2)
  }

  /// A new connection; a daemon that refuses it has died (or is dying): restart it first.
  private func freshClient() throws -> Client {
    if let client = try? daemon.connect() { return client }
    settle()
    if !daemon.isRunning { try restart() }
    return try daemon.connect()
  }

  private func logTail() -> String {
    let log = Array(daemon.log.utf8)
    let recent = log.count > logOffset ? Array(log[logOffset...]) : []
    let lines = String(decoding: recent, as: UTF8.self).split(separator: "\n")
    let interesting = lines.filter {
      $0.contains("rror") || $0.contains("atal") || $0.contains("rash") || $0.contains("trap")
    }
    // The first frames of a backtrace name the function and line that trapped.
    let frames = lines.filter { $0.contains(".swift:") }.prefix(2)
    let shown = interesting.isEmpty ? Array(lines.suffix(3)) : Array(interesting.suffix(4))
    return (shown + frames).joined(separator: " | ")
  }

  /// Restarts a daemon that died: the restart itself must recover the journal.
  private func restart() throws {
    crashes += 1
    daemon.kill9()
    logOffset = daemon.log.utf8.count
    do {
      try daemon.start()
    } catch {
      fail("the daemon does not start again after the crash: \(error)")
      throw error
    }
  }
}

@Suite("Hostile input: every line gets one well-formed reply, and the daemon stays up")
struct HostileInputTests {
  static let seed: UInt64 = {
    let text = ProcessInfo.processInfo.environment["REGISTERD_CORPUS_SEED"] ?? ""
    if text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) { return value }
    return UInt64(text) ?? 0x5EED_2026_0009
  }()

  /// The repository's catalog with cheap PIN hashes (the corpus signs in and approves often)
  /// and one more product for the catalog ops to change.
  static func catalog() throws -> String {
    let text = try String(
      contentsOf: Binaries.repository.appendingPathComponent("Data/products.json"), encoding: .utf8)
    return text.replacingOccurrences(
      of: #""discount_approval_limit": "20""#,
      with: #""discount_approval_limit": "20", "pin_hash_iterations": 1000"#)
  }

  /// Operators, a customer, a product and a completed sale (receipt 1) for the templates.
  static let setUp: [String] = [
    #"{"op":"operator_add","operator_id":"mo","name":"Mo","role":"manager","pin":"9876"}"#,
    #"{"op":"sign_in","operator":"mo","pin":"9876"}"#,
    #"{"op":"operator_add","operator_id":"za","name":"Za","role":"manager","pin":"1111"}"#,
    #"{"op":"operator_add","operator_id":"zi","name":"Zi","role":"cashier","pin":"1111"}"#,
    #"{"op":"operator_add","operator_id":"zr","name":"Zr","role":"cashier","pin":"1111"}"#,
    #"{"op":"operator_add","operator_id":"zs","name":"Zs","role":"cashier","pin":"1111"}"#,
    #"{"op":"operator_add","operator_id":"zu","name":"Zu","role":"cashier","pin":"1111"}"#,
    #"{"op":"customer_add","name":"Dana","email":"dana@example.com","phone":"555-0100"}"#,
    #"{"op":"product_add","product":{"sku":"ZZ-BASE","name":"Base","description":"","category":"Test","price":"3.00","stock":10}}"#,
    #"{"op":"float","amount":"100.00"}"#,
    #"{"op":"add","sku":"SOCK-3PK","qty":2}"#,
    #"{"op":"add","sku":"OXF-BLU-15"}"#,
    #"{"op":"tender","type":"cash","amount":"100.00"}"#,
  ]

  /// JSONTestSuite-style documents that are not JSON (the n_ kinds), and odd ones that are.
  static let malformedDocuments: [[UInt8]] = {
    var documents: [String] = [
      "[", "]", "{", "}", "[1", "[1,", "[1,]", "[,1]", "[1,,2]", "[\"a\",]", "{\"a\":1,}",
      "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{:1}", "{1:1}", "{null:1}", "{\"a\":1 \"b\":2}",
      "{'op':'hello'}", "['a']", "{\"op\":'hello'}", "{\"op\":\"hello\"", "{\"op\":\"hello\"}}",
      "{\"op\":\"hello\"}{}", "{\"op\":\"hello\"} x", "{\"op\":\"hello\"}]", "[]]", "[1]x",
      "{\"op\":\"hel\\lo\"}", "{\"op\":\"\\x68ello\"}", "{\"op\":\"\\u00\"}",
      "{\"op\":\"\\uqqqq\"}",
      "{\"op\":\"\\\"}", "[\"\\a\"]", "[\"\\u0\"]", "[\"\\uD800\"]", "[\"\\uDBFF\\uDBFF\"]",
      "[\"\\uDFAA\"]", "[\"\\uD834\\uDd\"]", "[\"\\ud800abc\"]",
      "[01]", "[-01]", "[1.]", "[.1]", "[+1]", "[1e]", "[1e+]", "[-]", "[--1]", "[0x42]",
      "[1_000]", "[NaN]", "[-NaN]", "[Infinity]", "[-Infinity]", "[infinity]", "[1.0e]",
      "[1e400]", "[-1e400]", "[-0]", "[1" + String(repeating: "0", count: 1000) + "]",
      "[1e" + String(repeating: "9", count: 1000) + "]", "[tru]", "[nul]", "[True]", "[NULL]",
      "[undefined]", "{\"op\":undefined}", "/* c */ {}", "{} // c", "{\"op\":\"hello\"}#",
      "\u{FEFF}{\"op\":\"hello\"}", "\u{FEFF}", "{\"op\":\"hello\",\"op\":\"order\"}",
      "{\"id\":1,\"id\":2,\"op\":\"hello\"}", "{\"a\":{\"b\":1,\"b\":2},\"op\":\"hello\"}",
      "1", "-0", "0.5", "1e400", "\"op\"", "\"\"", "true", "false", "null", "[]", "[{}]",
      "[{\"op\":\"hello\"}]", "{}", "{\"op\":null}", "{\"op\":1}", "{\"op\":[\"hello\"]}",
      "{\"op\":{\"op\":\"hello\"}}", "{\"op\":\"\"}", "{\"op\":\"HELLO\"}", "{\"op\":\" hello\"}",
      "{\"op\":\"hello\\u0000\"}", "{\"OP\":\"hello\"}", "{\"op\":\"hello\",\"\":1}",
      "\u{0C}{\"op\":\"hello\"}", "\u{0B}{\"op\":\"hello\"}", "\u{A0}{\"op\":\"hello\"}",
      "{\"op\":\"hello\"}\u{0C}", "{\"op\":\"hello\"}\r{}", " \r ", "\r\r",
      "{\"op\"\u{0C}:\"hello\"}", "{\"op\":\"he\u{7F}llo\"}",
      String(repeating: "[", count: 10_000),
      String(repeating: "[", count: 10_000)
        + String(repeating: "]", count: 10_000),
      String(repeating: "{\"a\":", count: 10_000),
      String(repeating: "[", count: 65)
        + String(repeating: "]", count: 65),
      String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
      "[" + String(repeating: "1,", count: 20_000) + "1]",
      "{" + (0..<3000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}",
    ]
    documents += ["\"\u{0}\"", "[\"\u{1F}\"]", "[\"\t\"]", "\u{0}", "{\"op\":\"hello\"}\u{0}"]
    var raw = documents.map { Array($0.utf8) }
    raw += [
      [0xFF], [0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D], [0x7B, 0xFF, 0x7D],
      Array("[\"".utf8) + [0xC0, 0xAF] + Array("\"]".utf8),
      Array("[\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8),
      Array("[\"".utf8) + [0xE0, 0xFF] + Array("\"]".utf8),
      Array("[\"".utf8) + [0xF8, 0x88, 0x80, 0x80, 0x80] + Array("\"]".utf8),
      Array("{\"op\":\"hello\"}".utf8) + [0x80],
      [0x00, 0x00, 0x00],
      Array("{\"op\":\"ad".utf8) + [0x00] + Array("d\"}".utf8),
    ]
    return raw
  }()

  @Test("the hostile corpus: one well-formed reply per line, in order; the daemon stays up")
  func corpus() throws {
    let started = Date()
    let daemon = try Daemon(catalog: try Self.catalog())
    defer { daemon.cleanup() }
    let seed = Self.seed
    let setup = try daemon.connect()
    for line in Self.setUp {
      let reply = try setup.send(line)
      try #require(reply.isOK, "set-up \(line) → \(reply.serialized)")
    }
    let hello = try setup.send(#"{"op":"hello"}"#)
    let opValues = try #require(hello.result["ops"]?.arrayValue)
    let ops = opValues.compactMap(\.stringValue)
    try #require(ops.count > 20, "hello lists the ops")
    let protocolText = try String(
      contentsOf: Binaries.repository.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)

    let runner = try CorpusRunner(daemon: daemon, seed: seed)
    var builder = CorpusBuilder(seed: seed)
    let signIn = #"{"op":"sign_in","operator":"mo","pin":"9876"}"#
    let orderReset = [
      #"{"op":"void","reason":"reset"}"#, #"{"op":"add","sku":"SOCK-3PK","qty":2}"#,
    ]

    // 1. Documents that are not JSON, and JSON that is not a request: each line alone, and
    //    each as the value of a request's field.
    var documentLines: [HostileLine] = []
    for (index, document) in Self.malformedDocuments.enumerated() {
      documentLines.append(HostileLine(document, label: "document \(index)"))
      documentLines.append(
        builder.line(
          template: .object(["op": "add", "sku": "SOCK-3PK"]), path: [.key("sku")], raw: document,
          label: "document \(index) as add.sku"))
    }
    // Blank lines get no reply; the framer skips them (the sentinel checks nothing was sent).
    documentLines += ["", " ", "\t \t", "\r"].map { HostileLine($0, label: "blank") }
    // Seeded mutations of valid requests: bytes replaced, inserted, deleted; lines cut short.
    let valid = requestTemplates.values.flatMap { $0 }.sorted()
    for index in 0..<400 {
      var bytes = Array(builder.random.pick(valid).utf8)
      for _ in 0..<(1 + builder.random.below(3)) {
        let position = builder.random.below(bytes.count)
        let byte = UInt8(truncatingIfNeeded: builder.random.next())
        switch builder.random.below(4) {
        case 0: bytes[position] = byte
        case 1: bytes.insert(byte, at: position)
        case 2: bytes.remove(at: position)
        default: bytes = Array(bytes.prefix(position))
        }
        if bytes.isEmpty { bytes = [byte] }
      }
      documentLines.append(HostileLine(bytes, label: "mutation \(index)"))
    }
    try runner.run(documentLines, group: "documents")

    // 2. Every op from hello, every field of its templates (and the ones the protocol document
    //    names), replaced by every extreme value and a few seeded random ones.
    var groups = 0
    for op in ops.sorted() {
      let templates = (requestTemplates[op] ?? [#"{"op":"\#(op)"}"#]).map {
        (try? JSONParser.parse($0)) ?? .object(["op": .string(op)])
      }
      let documented = documentedFields(of: op, in: protocolText)
      for (number, template) in templates.enumerated() {
        var paths = CorpusBuilder.paths(of: template)
        if number == 0 {
          let known = Set(
            paths.compactMap { path -> String? in
              if case .key(let key)? = path.first { return key }
              return nil
            })
          paths += documented.subtracting(known).sorted().map { [.key($0)] }
          paths += ["id", "key", "expect_version"].map { [.key($0)] }
          if template["approve"] == nil { paths.append([.key("approve")]) }
          paths.append([.key("zzz_unknown")])
          if op == "hello" { paths.append([.key("op")]) }
        }
        for path in paths {
          let field = pathLabel(path)
          let envelope = ["id", "key", "expect_version", "approve", "zzz_unknown", "op"]
          var values: [[UInt8]]
          if path == paths.first || (op == "add" && envelope.contains(field)) {
            values = CorpusBuilder.extremes
          } else if envelope.contains(field) {
            values = CorpusBuilder.short
          } else {
            values = CorpusBuilder.core
          }
          for _ in 0..<4 { values.append(builder.randomValue()) }
          var lines: [HostileLine] = []
          for value in values {
            if opsOnAnOrderWithALine.contains(op) {
              lines += orderReset.map { HostileLine($0, label: "reset") }
            } else if opsOnAnEmptyOrder.contains(op) {
              lines.append(HostileLine(orderReset[0], label: "reset"))
            }
            let shown = HostileLine.printable(value, limit: 40)
            var line = builder.line(
              template: template, id: field != "id", path: path, raw: value,
              label: "\(op).\(field)=\(shown)")
            line.inIdentifier = CorpusRunner.identifierFields.contains(
              String(field.split(separator: ".").last ?? ""))
            lines.append(line)
          }
          var again = HostileLine(signIn, label: "sign in again")
          again.mustSucceed = true
          lines.append(again)
          try runner.run(lines, group: "\(op) #\(number) \(field)")
          groups += 1
        }
      }
    }

    // 3. Sequences: values decide/apply accepted, then the day goes on and closes.
    let sequence: [String] = [
      #"{"op":"void","reason":"reset"}"#,
      #"{"op":"add","sku":"SOCK-3PK","qty":9999}"#,
      #"{"op":"set_qty","line":1,"qty":9999}"#,
      #"{"op":"add","sku":"GIFT-50","qty":9999}"#,
      #"{"op":"override_price","line":1,"unit_price":"9999999999999.99","reason":"x"}"#,
      #"{"op":"discount","amount":"9999999999999.99","reason":"x"}"#,
      #"{"op":"tender","type":"cash","amount":"9999999999999.99"}"#,
      #"{"op":"tender","type":"cash","amount":"9999999999999.99"}"#,
      #"{"op":"paid_in","amount":"9999999999999.99","reason":"x"}"#,
      #"{"op":"paid_in","amount":"9999999999999.99","reason":"x"}"#,
      #"{"op":"paid_out","amount":"9999999999999.99","reason":"x"}"#,
      #"{"op":"stock_adjust","sku":"ZZ-BASE","delta":9223372036854775807,"reason":"x"}"#,
      #"{"op":"stock_adjust","sku":"ZZ-BASE","delta":1,"reason":"x"}"#,
      #"{"op":"add","sku":"ZZ-BASE","qty":9999}"#,
      #"{"op":"tender","type":"cash","amount":"9999999999999.99"}"#,
      #"{"op":"report"}"#,
      #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":9223372036854775807}],"reason":"x"}"#,
      #"{"op":"void","reason":"reset"}"#,
      #"{"op":"close_day","counted":{"cash":"9999999999999.99"}}"#,
      #"{"op":"report","kind":"z"}"#,
      #"{"op":"float","amount":"9999999999999.99"}"#,
      #"{"op":"close_day","counted":{"cash":"0"}}"#,
      #"{"op":"report","kind":"z","day":9223372036854775807}"#,
      #"{"op":"subscribe","topics":["sale"],"after":9223372036854775807}"#,
      #"{"op":"hello"}"#,
    ]
    let sequenceLines = sequence.enumerated().map { index, text in
      builder.line(
        template: (try? JSONParser.parse(text)) ?? .null, path: nil, raw: [],
        label: "sequence step \(index)")
    }
    try runner.run(sequenceLines, group: "sequence")
    let midway = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(
      midway.status == 0,
      "verify while running, after the corpus: \(midway.stdout) \(midway.stderr) — seed \(seed)")

    // 4. The daemon is still up and answers; nothing it wrote holds a card number.
    #expect(daemon.isRunning, "the daemon is still running — seed \(seed)")
    let after = try daemon.connect()
    #expect(try after.send(#"{"id":"last","op":"hello"}"#)["id"] == .string("last"))
    #expect(runner.crashes == 0, "the daemon crashed \(runner.crashes) times — seed \(seed)")
    let recorded = (try? journalText(daemon.dataDirectory)) ?? ""
    let log = daemon.log
    for number in CorpusRunner.cardNumbers {
      #expect(!log.contains(number), "the log holds \(number) — seed \(seed)")
    }
    let inJournal = CorpusRunner.cardNumbersOutsideIdentifiers(recorded)
    #expect(inJournal.isEmpty, "the journal holds \(inJournal) outside identifiers — seed \(seed)")

    // 5. Stopped, the journal verifies; started again, the register recovers and answers.
    #expect(daemon.stop() == 0, "registerd stops cleanly")
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "verify: \(verify.stdout) \(verify.stderr) — seed \(seed)")
    try daemon.start()
    let again = try daemon.connect()
    #expect(try again.send(#"{"id":1,"op":"hello"}"#).isOK)
    #expect(try again.send(#"{"id":2,"op":"order"}"#).isOK)

    let seconds = Date().timeIntervalSince(started)
    print(
      "hostile corpus: \(runner.linesSent) lines (\(documentLines.count) documents and mutations, "
        + "\(groups) op/field groups, \(sequenceLines.count) sequence steps), "
        + "\(runner.repliesChecked) replies checked, \(runner.failures.count) failures, "
        + "\(runner.crashes) restarts, \(String(format: "%.1f", seconds)) s, seed \(seed)")
  }
}
