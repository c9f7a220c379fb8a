import Foundation
import RegisterEngine
import RegisterTestSupport
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

  @Test(arguments: Transport.allCases)
  func aSecondCustomerWithTheSameEmailIsRefusedWhateverItsCase(_ transport: Transport) throws {
    try run(transport) { client in
      try client.ok(Requests.CustomerAdd(name: "Dana Lee", email: "dana@example.com"))
      let again = try client.refused(
        Requests.CustomerAdd(name: "D. Lee", email: "Dana@Example.COM"), .customerExists)
      #expect(again?.message.contains("C1 (Dana Lee)") == true)
      let one = try client.ok(Requests.CustomerFind(query: "Lee"))
      #expect(one["customers"]?.arrayValue?.count == 1, "one customer: \(one.serialized)")
      // Without an e-mail, or with another one, a customer is added as before.
      try client.ok(Requests.CustomerAdd(name: "Dana Lee"))
      try client.ok(Requests.CustomerAdd(name: "Dana Lee", email: "dana.lee@example.com"))
      let found = try client.ok(Requests.CustomerFind(query: "Lee"))
      #expect(
        found["customers"]?.arrayValue?.compactMap { $0["customer_id"]?.stringValue }
          == ["C1", "C2", "C3"])
    }
  }

  @Test(arguments: Transport.allCases)
  func detachTakesTheCustomerOffTheOpenOrder(_ transport: Transport) throws {
    try run(transport) { client in
      try client.ok(Requests.CustomerAdd(name: "Dana Lee", email: "dana@example.com"))
      try client.refused(Requests.DetachCustomer(), .customerNotFound)
      try client.ok(Requests.Add(sku: "JNS-SLM-3232"))
      let attached = try client.ok(Requests.AttachCustomer(customerID: "C1"))
      #expect(attached["customer_id"] == .string("C1"))
      let detached = try client.ok(Requests.DetachCustomer())
      #expect(detached["customer_id"] == nil || detached["customer_id"] == .null)
      let order = try client.ok(Requests.Order())
      #expect(order["customer_id"] == nil || order["customer_id"] == .null)
      // The sale completes without a customer: nothing in the customer's history.
      try client.ok(Requests.Tender(.cash(amount: usd("100.00"))))
      let history = try client.ok(Requests.CustomerHistory(customerID: "C1"))
      #expect(history["receipts"]?.arrayValue?.isEmpty == true)
    }
  }
}
