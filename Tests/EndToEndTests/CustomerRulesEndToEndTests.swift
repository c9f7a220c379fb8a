import Foundation
import RegisterEngine
import Testing

/// `customer detach` and the one-customer-per-e-mail rule through register-cli, across a restart.
@Suite struct CustomerRulesEndToEndTests {
  @Test func detachAndDuplicateEmailThroughTheCLI() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(
      try daemon.cli(["customer", "add", "Dana Lee", "--email", "dana@example.com"]).status == 0)
    let duplicate = try daemon.cli(["customer", "add", "Dana", "--email", "DANA@example.com"])
    #expect(duplicate.status == 1)
    #expect(duplicate.stderr.contains("customer_exists"))
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["customer", "attach", "C1"]).status == 0)
    daemon.stop()
    try daemon.start()
    let order = try daemon.connect().send(#"{"op":"order"}"#)
    #expect(order["result"]?["customer_id"] == .string("C1"))
    let detached = try daemon.cli(["customer", "detach"])
    #expect(detached.status == 0, "\(detached.stderr)")
    daemon.stop()
    try daemon.start()
    let after = try daemon.connect().send(#"{"op":"order"}"#)
    #expect(after["result"]?["customer_id"] == nil || after["result"]?["customer_id"] == .null)
    let again = try daemon.cli(["customer", "detach"])
    #expect(again.status == 1)
    #expect(again.stderr.contains("customer_not_found"))
  }
}
