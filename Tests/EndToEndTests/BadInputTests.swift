import Foundation
import RegisterEngine
import RegisterServer
import Testing

@Suite("Bad input gets a clear error and changes nothing", .serialized)
struct BadInputTests {
  static let cases: [(String, String)] = [
    ("{not json", "bad_json"),
    (#"{"op":"add","sku":"TEE-WHT-M",}"#, "bad_json"),
    ("[1,2,3]", "bad_request"),
    (#""just a string""#, "bad_request"),
    ("42", "bad_request"),
    (#"{"sku":"TEE-WHT-M"}"#, "bad_request"),
    (#"{"op":42}"#, "bad_request"),
    (#"{"op":"dance"}"#, "unknown_op"),
    (#"{"op":"add"}"#, "bad_request"),
    (#"{"op":"add","sku":7}"#, "bad_request"),
    (#"{"op":"add","sku":"TEE-WHT-M","qty":"2"}"#, "bad_request"),
    (#"{"op":"add","sku":"TEE-WHT-M","qty":0}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"TEE-WHT-M","qty":-3}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"TEE-WHT-M","qty":1.5}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"TEE-WHT-M","qty":100000}"#, "invalid_quantity"),
    (#"{"op":"add","sku":"TEE-WHT-M","colour":"red"}"#, "bad_request"),
    (#"{"op":"add","sku":"NOPE"}"#, "unknown_sku"),
    (#"{"op":"add","sku":"DRS-LBD-M"}"#, "out_of_stock"),
    (#"{"op":"add","sku":"COAT-WOOL-M","qty":2}"#, "out_of_stock"),
    (#"{"op":"remove","line":99}"#, "line_not_found"),
    (#"{"op":"set_qty","line":1,"qty":2}"#, "line_not_found"),
    (#"{"op":"tender","type":"cash","amount":"5.00"}"#, "empty_order"),
    (#"{"op":"void"}"#, "empty_order"),
    (#"{"op":"receipt","number":12}"#, "receipt_not_found"),
  ]

  @Test("each bad request gets its error code, and the order is unchanged")
  func errors() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    let before = try client.send(#"{"op":"order"}"#)
    for (line, code) in Self.cases {
      let reply = try client.send(line)
      #expect(reply["ok"] == .bool(false), "\(line)")
      #expect(reply.errorCode == code, "\(line) → \(reply.serialized)")
      let message = reply["error"]?["message"]?.stringValue ?? ""
      #expect(!message.isEmpty, "\(line) has no message")
      #expect(try client.send(#"{"op":"order"}"#) == before, "\(line) changed the order")
    }
    #expect(try client.send(#"{"op":"hello"}"#).isOK)
  }

  static let orderCases: [(String, String)] = [
    (#"{"op":"tender","type":"cash","amount":20}"#, "bad_request"),
    (#"{"op":"tender","type":"cash","amount":"-1.00"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"1.001"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"12,50"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash","amount":"99999999999999999999999"}"#, "invalid_amount"),
    (#"{"op":"tender","type":"cash"}"#, "bad_request"),
    (#"{"op":"tender","type":"cheque","amount":"5"}"#, "bad_request"),
    (
      #"{"op":"tender","type":"card","card":{"number":"4242424242424241","exp_month":12,"exp_year":2030,"cvv":"123"}}"#,
      "invalid_card"
    ),
    (
      #"{"op":"tender","type":"card","card":{"number":"4242424242424242","exp_month":1,"exp_year":2020,"cvv":"123"}}"#,
      "card_expired"
    ),
    (
      #"{"op":"tender","type":"card","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"12"}}"#,
      "invalid_card"
    ),
    (
      #"{"op":"tender","type":"card","card":{"number":"378282246310005","exp_month":12,"exp_year":2030,"cvv":"123"}}"#,
      "invalid_card"
    ),
    (
      #"{"op":"tender","type":"card","card":{"number":4242424242424242,"exp_month":12,"exp_year":2030,"cvv":"123"}}"#,
      "invalid_card"
    ),
    (
      #"{"op":"tender","type":"card","card":{"number":"4242424242424242","exp_month":13,"exp_year":2030,"cvv":"123"}}"#,
      "invalid_card"
    ),
    (
      #"{"op":"tender","type":"card","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030}}"#,
      "invalid_card"
    ),
    (
      #"{"op":"tender","type":"card","amount":"500.00","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"123"}}"#,
      "tender_exceeds_balance"
    ),
    (
      #"{"op":"tender","type":"card","amount":"0.00","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"123"}}"#,
      "invalid_amount"
    ),
    (#"{"op":"set_qty","line":1,"qty":0}"#, "invalid_quantity"),
    (#"{"op":"set_qty","line":1,"qty":13}"#, "out_of_stock"),
  ]

  @Test("bad tenders and quantities on a non-empty order change nothing, and never echo the card")
  func orderErrors() throws {
    // At debug, so every message the daemon can write about these requests is in its log.
    let daemon = try Daemon(arguments: ["--log-level", "debug"])
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"OXF-BLU-15"}"#).isOK)
    let before = try client.send(#"{"op":"order"}"#)
    for (line, code) in Self.orderCases {
      let reply = try client.send(line)
      #expect(reply.errorCode == code, "\(line) → \(reply.serialized)")
      #expect(!reply.serialized.contains("4242424242424241"))
      #expect(!reply.serialized.contains("4242424242424242"))
      #expect(!reply.serialized.contains("378282246310005"))
      #expect(try client.send(#"{"op":"order"}"#) == before, "\(line) changed the order")
    }
    daemon.stop()
    for number in ["4242424242424241", "4242424242424242", "378282246310005"] {
      #expect(!daemon.log.contains(number), "the daemon's log holds \(number)")
    }
  }

  @Test("invalid UTF-8 is bad_json and the connection stays open")
  func invalidUTF8() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    try client.sendRaw([0x7B, 0x22, 0x6F, 0x70, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x0A])
    #expect(try client.read().errorCode == "bad_json")
    #expect(try client.send(#"{"op":"hello"}"#).isOK)
  }

  @Test("a line over 64 KiB gets line_too_long, is discarded, and the connection stays usable")
  func hugeLine() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    let huge = #"{"op":"add","sku":""# + String(repeating: "A", count: 70_000) + "\"}\n"
    try client.sendRaw(Array(huge.utf8))
    let reply = try client.read()
    #expect(reply.errorCode == "line_too_long")
    // A very long line in several pieces is reported once.
    try client.sendRaw(Array(String(repeating: "x", count: 100_000).utf8))
    try client.sendRaw(Array(String(repeating: "y", count: 100_000).utf8))
    try client.sendRaw(Array("\n".utf8))
    #expect(try client.read().errorCode == "line_too_long")
    let next = try client.send(#"{"id":2,"op":"order"}"#)
    #expect(next["id"] == .int(2))
    #expect(next.result["lines"] == .array([]))
  }

  @Test("deeply nested JSON is refused, not a crash")
  func deepNesting() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    let deep = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
    #expect(try client.send(deep).errorCode == "bad_json")
    #expect(try client.send(#"{"op":"hello"}"#).isOK)
  }

  @Test("a client that disconnects mid-request changes nothing")
  func disconnectMidLine() throws {
    let daemon = try Daemon(arguments: ["--log-level", "debug"])
    defer { daemon.cleanup() }
    do {
      // The unfinished last line is still a request at end of stream (see
      // ConnectionEndToEndTests): cut in the middle of its JSON, it is refused.
      let quitter = try daemon.connect()
      try quitter.sendRaw(Array(#"{"op":"add","sku":"TEE-WHT-M""#.utf8))
    }
    // Closed once its last line was handled.
    #expect(daemon.waitForConnectionsClosed(), "\(daemon.log)")
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"order"}"#).result["lines"] == .array([]))
  }

  @Test("requests on one line-set are answered in order, one reply per line, ids echoed")
  func pipelined() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    var lines = ""
    for index in 0..<50 {
      lines += #"{"id":\#(index),"op":"add","sku":"SOCK-3PK"}"# + "\n"
    }
    lines += #"{"id":[1,{"a":null}],"op":"order"}"# + "\n"
    try client.sendRaw(Array(lines.utf8))
    for index in 0..<50 {
      let reply = try client.read()
      #expect(reply["id"] == .int(index))
      #expect(reply.result["lines"]?.arrayValue?.count == index + 1)
    }
    let last = try client.read()
    #expect(last["id"] == .array([.int(1), .object(["a": .null])]))
  }

  @Test("a client that never reads does not block the others or grow memory without bound")
  func stalledClient() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let stalled = try UnixSocket.connect(to: daemon.socketPath)
    defer { close(stalled) }
    UnixSocket.setNonBlocking(stalled)
    let request = Array(String(repeating: #"{"op":"catalog"}"# + "\n", count: 100).utf8)
    var sent = 0
    let deadline = Date().addingTimeInterval(5)
    // Push requests until the daemon stops reading (the socket buffer fills).
    while Date() < deadline {
      let count = request.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return UnixSocket.send(stalled, base, raw.count)
      }
      if count <= 0 { break }
      sent += count
    }
    #expect(sent > 0)
    let other = try daemon.connect()
    let start = Date()
    for _ in 0..<20 { #expect(try other.send(#"{"op":"hello"}"#).isOK) }
    #expect(Date().timeIntervalSince(start) < 5)
    let kilobytes = try #require(residentKiB(daemon.process.processIdentifier))
    #expect(kilobytes < 200_000, "daemon RSS \(kilobytes) kB")
  }
}
