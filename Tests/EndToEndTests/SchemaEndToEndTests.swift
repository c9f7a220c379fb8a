import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// A day at a real registerd, every op used, every reply and event written down, then checked
/// against docs/protocol.schema.json by Python's `jsonschema` — an implementation of JSON
/// Schema that is not the project's own. (Every end-to-end exchange is also checked by the
/// project's validator as it happens; see `Client.read`.)
@Suite("Replies and events validate against the published schema", .serialized)
struct SchemaEndToEndTests {
  /// A Python with the `jsonschema` module (Debian's python3-jsonschema): the one on `PATH`,
  /// or the system's when another Python comes first on `PATH` without it.
  static let python: URL? = {
    let candidates = [
      ExternalProgram.python3.path, ExternalProgram.python3.path(searchPath: "/usr/bin"),
    ].compactMap { $0 }
    return candidates.first { python in
      let result = try? runProgram(URL(fileURLWithPath: python), ["-c", "import jsonschema"])
      return result?.status == 0
    }.map { URL(fileURLWithPath: $0) }
  }()

  /// Checks each line of `log` (`{"def": NAME, "value": …}`) against `#/$defs/NAME` of the
  /// committed schema; prints each failure and exits 1 when there is one.
  static let checker = """
    import json, sys
    from jsonschema import Draft202012Validator
    schema = json.load(open(sys.argv[1]))
    Draft202012Validator.check_schema(schema)
    failures = 0
    count = 0
    defs = schema["$defs"]
    def resolve(node):
        while isinstance(node, dict) and "$ref" in node:
            node = defs[node["$ref"].split("/")[-1]]
        return node
    def declared(node):
        node = resolve(node)
        names = set(node.get("properties", {}))
        for alternative in node.get("anyOf", []):
            names |= declared(alternative)
        return names
    for line in open(sys.argv[2]):
        entry = json.loads(line)
        validator = Draft202012Validator({"$ref": "#/$defs/" + entry["def"], "$defs": defs})
        for error in validator.iter_errors(entry["value"]):
            failures += 1
            print(entry["def"], list(error.path), error.message[:300])
        # A result may be open to additions, but every member it has now is declared: an
        # integrator generating types from the schema must see what the register sends.
        value = entry["value"]
        if entry["def"].startswith("reply_") and value.get("ok") is True:
            success = resolve(defs[entry["def"]])["anyOf"][0]
            names = declared(resolve(success)["properties"]["result"])
            for name in sorted(set(value["result"]) - names) if names else []:
                failures += 1
                print(entry["def"], "result member not in the schema:", name)
        count += 1
    print("checked", count)
    sys.exit(1 if failures else 0)
    """

  @Test(
    .tags(.outsideProgram), .requires(.python3),
    .enabled(if: python != nil, "Python's jsonschema is not installed (python3-jsonschema)"))
  func aDayOfEveryOpValidatesInPython() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let lane = try daemon.connect()
    let display = try daemon.connect()
    var log: [JSONValue] = []
    func note(_ name: String, _ value: JSONValue) {
      log.append(.object(["def": .string(name), "value": value]))
    }
    @discardableResult
    func send(_ line: String) throws -> JSONValue {
      let request = try JSONParser.parse(line)
      let reply = try lane.send(line)
      let op = request["op"]?.stringValue ?? ""
      note(Op.named(op) == nil ? "reply" : "reply_\(op)", reply)
      if reply["ok"] == .bool(true) { note("request", request) }
      return reply
    }

    let subscribed = try display.send(#"{"op":"subscribe","after":0}"#)
    note("reply_subscribe", subscribed)
    for line in [
      #"{"op":"hello"}"#, #"{"op":"catalog","limit":2}"#, #"{"op":"product","sku":"TEE-WHT-M"}"#,
      #"{"op":"float","amount":"100.00"}"#, #"{"op":"customer_add","name":"Dana Lee"}"#,
      #"{"op":"customer_find","query":"dana"}"#, #"{"op":"customer_add","name":"Dana Park"}"#,
      #"{"op":"customer_find","query":"dana","limit":1}"#,
      #"{"op":"add","sku":"OXF-BLU-15","qty":2}"#,
      #"{"op":"scan","code":"2001234000079"}"#, #"{"op":"set_qty","line":2,"qty":2}"#,
      #"{"op":"discount","line":1,"percent":"10","reason":"loyalty"}"#,
      #"{"op":"override_price","line":2,"unit_price":"12.00","reason":"matched"}"#,
      #"{"op":"attach_customer","customer_id":"C1"}"#, #"{"op":"add","sku":"GIFT-25"}"#,
      #"{"op":"tender","type":"cash","amount":"50.00"}"#,
    ] {
      try send(line)
    }
    let due = try #require(try send(#"{"op":"order"}"#)["result"]?["balance_due"]?.stringValue)
    try send(
      #"{"op":"tender","type":"card","amount":"\#(due)","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"123"}}"#
    )
    for line in [
      #"{"op":"receipt"}"#, #"{"op":"receipt","number":"R1","escpos":true}"#,
      #"{"op":"customer_history","customer_id":"C1"}"#,
      #"{"op":"wishlist_add","customer_id":"C1","sku":"SCARF-WOOL"}"#,
      #"{"op":"wishlist","customer_id":"C1"}"#,
      #"{"op":"wishlist_to_order","customer_id":"C1","sku":"SCARF-WOOL"}"#,
      #"{"op":"park","note":"back soon"}"#, #"{"op":"parked"}"#, #"{"op":"add","sku":"CAP-BSB"}"#,
      #"{"op":"void_line","line":1}"#, #"{"op":"remove","line":1}"#,
      #"{"op":"void","reason":"changed mind"}"#, #"{"op":"resume","order_id":2}"#,
      #"{"op":"detach_customer"}"#, #"{"op":"tender","type":"cash"}"#,
      #"{"op":"return","receipt":1,"lines":[{"item":"OXF-BLU-15","qty":1}],"reason":"too small"}"#,
      #"{"op":"paid_in","amount":"5.00","reason":"change"}"#,
      #"{"op":"paid_out","amount":"2.00","reason":"stamps"}"#, #"{"op":"no_sale","reason":"x"}"#,
      #"{"op":"email_receipt","receipt":1,"to":"dana@example.com"}"#, #"{"op":"print"}"#,
      #"{"op":"product_add","product":{"sku":"NEW-1","name":"New","description":"","category":"Tops","price":"3.00","stock":4}}"#,
      #"{"op":"product_update","sku":"NEW-1","changes":{"price":"3.50"}}"#,
      #"{"op":"stock_adjust","sku":"NEW-1","delta":2,"reason":"delivery"}"#,
      #"{"op":"product_remove","sku":"NEW-1"}"#, #"{"op":"catalog_export"}"#,
      #"{"op":"gift_card_balance","number":"6000000000000000"}"#,
      #"{"op":"operator_add","operator_id":"ann","name":"Ann","role":"manager","pin":"2468"}"#,
      #"{"op":"operator_add","operator_id":"bob","name":"Bob","role":"cashier","pin":"1357"}"#,
      #"{"op":"sign_in","operator":"bob","pin":"9999"}"#,
      #"{"op":"sign_in","operator":"bob","pin":"1357"}"#, #"{"op":"operator_list"}"#,
      #"{"op":"no_sale"}"#, #"{"op":"operator_set_pin","operator_id":"bob","pin":"1358"}"#,
      #"{"op":"sign_out"}"#, #"{"op":"sign_in","operator":"ann","pin":"2468"}"#,
      #"{"op":"operator_unlock","operator_id":"bob"}"#,
      #"{"op":"operator_remove","operator_id":"bob"}"#, #"{"op":"report"}"#,
      #"{"op":"report","kind":"x","escpos":true}"#,
      #"{"op":"close_day","counted":{"cash":"100.00"}}"#, #"{"op":"report","kind":"z","day":1}"#,
      #"{"op":"setup"}"#, #"{"op":"nope"}"#, #"{"op":"add","sku":"NO-SUCH"}"#, #"not json"#,
    ] {
      if line.hasPrefix("{") {
        try send(line)
      } else {
        note("reply", try lane.send(line))
      }
    }
    // Every event the day made, as the display received them.
    let last = try #require(try lane.send(#"{"op":"hello"}"#)["result"]?["journal_seq"]?.int64Value)
    var seen: Int64 = 0
    while seen < last {
      let event = try display.read()
      note("event", event)
      seen = event["seq"]?.int64Value ?? seen
    }
    #expect(log.count > 120, "\(log.count) lines")

    let logFile = daemon.directory.url.appendingPathComponent("exchanges.ndjson")
    try Data(log.map { $0.serialized + "\n" }.joined().utf8).write(to: logFile)
    let schema = ProtocolSchemaFile.path
    let result = try runProgram(
      try #require(Self.python), ["-c", Self.checker, schema, logFile.path])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("checked \(log.count)"), "\(result.stdout)")
  }
}

/// The committed schema, next to the sources.
enum ProtocolSchemaFile {
  static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("docs/protocol.schema.json").path
}
