import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// Extreme numbers and card numbers against the real daemon: a number out of range gets a
/// clear error and the daemon stays up; a card number is never echoed or logged.
@Suite("Extreme numbers and card numbers against the real daemon", .serialized)
struct PromiseRulesEndToEndTests {
  @Test("the stock_adjust that crashed registerd gets invalid_quantity and the daemon stays up")
  func extremeDeltaDoesNotCrash() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    let lines = [
      #"{"op":"stock_adjust","sku":"TEE-WHT-M","delta":-9223372036854775808,"reason":"x"}"#,
      #"{"op":"stock_adjust","sku":"TEE-WHT-M","delta":9223372036854775807,"reason":"x"}"#,
      #"{"op":"stock_adjust","sku":"TEE-WHT-M","delta":1e30,"reason":"x"}"#,
      #"{"op":"add","sku":"TEE-WHT-M","qty":-9223372036854775808}"#,
    ]
    for line in lines {
      let reply = try client.send(line)
      #expect(reply.errorCode == "invalid_quantity", "\(line) → \(reply.serialized)")
    }
    for line in [
      #"{"op":"remove","line":9223372036854775807}"#,
      #"{"op":"subscribe","after":9223372036854775807}"#,
    ] {
      #expect(try client.send(line).errorCode == "bad_request", "\(line)")
    }
    let hello = try client.send(#"{"op":"hello"}"#)
    #expect(hello.isOK)
    let product = try client.send(#"{"op":"catalog"}"#).result["products"]?.arrayValue?.first {
      $0["sku"] == "TEE-WHT-M"
    }
    #expect(product?["stock"] == .int(40))
    #expect(daemon.isRunning)
  }

  @Test(
    "a card number is masked in replies and in the daemon's log", arguments: Transport.allCases)
  func cardNumbersAreMaskedInRepliesAndLog(_ transport: Transport) throws {
    try run(transport) { client in
      let error = try client.refused(Requests.Add(sku: "4242 4242 4242 4242"), .unknownSKU)
      #expect(error?.message.contains("****4242") == true)
      #expect(error?.message.contains("4242 4242 4242 4242") == false)
      #expect(error?.data.map { $0.serialized.contains("4242 4242 4242 4242") } != true)
      // An identifier is quoted as it is: an EAN-13 that passes the Luhn check is a barcode.
      let scanned = try client.refused(Requests.Scan(code: "5449000000996"), .unknownBarcode)
      #expect(scanned?.message.contains("5449000000996") == true)
      return client
    } afterwards: { daemon, client in
      // A catalog that cannot be read is logged with the reason, which quotes the file.
      let bad = try String(contentsOfFile: daemon.catalogPath, encoding: .utf8)
        .replacingOccurrences(
          of: #""currency": "USD""#, with: #""currency": "4242 4242 4242 4242""#)
      try bad.write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
      kill(daemon.process.processIdentifier, SIGHUP)
      #expect(
        daemon.waitForLog("SIGHUP: not reloading"), "the bad catalog was not logged: \(daemon.log)")
      let log = daemon.log
      #expect(log.contains("****4242"), "\(log)")
      #expect(!log.contains("4242 4242 4242 4242"), "\(log)")
      try client.ok(Requests.Hello())
    }
  }
}
