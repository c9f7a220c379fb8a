import RegisterServer
import Testing

@testable import RegisterEngine

/// One customer per e-mail address, and taking a customer off the open order again.
@Suite struct CustomerRulesTests {
  @Test func aSecondCustomerWithTheSameEmailIsRefusedWhateverItsCase() throws {
    let lane = try TestLane()
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee", email: "dana@example.com"))
    let again = try lane.send(
      Requests.CustomerAdd(name: "D. Lee", email: "Dana@Example.COM"))
    #expect(again.errorCode == "customer_exists")
    #expect(again["error"]?["message"]?.stringValue?.contains("C1 (Dana Lee)") == true)
    #expect(lane.register.customers.count == 1)
    // Without an e-mail, or with another one, a customer is added as before.
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee"))
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee", email: "dana.lee@example.com"))
    #expect(lane.register.customers.map(\.id) == ["C1", "C2", "C3"])
  }

  @Test func detachTakesTheCustomerOffTheOpenOrderAndReplays() throws {
    let lane = try TestLane()
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee", email: "dana@example.com"))
    let nothing = try lane.send(Requests.DetachCustomer())
    #expect(nothing.errorCode == "customer_not_found")
    try lane.ok(Requests.Add(sku: "JEANS"))
    let attached = try lane.ok(Requests.AttachCustomer(customerID: "C1"))
    #expect(attached["customer_id"] == .string("C1"))
    let detached = try lane.ok(Requests.DetachCustomer())
    #expect(detached["customer_id"] == nil || detached["customer_id"] == .null)
    #expect(lane.register.order.customerID == nil)
    // The sale completes without a customer: nothing in the customer's history.
    try lane.ok(Requests.Tender(.cash(amount: usd("100.00"))))
    let history = try lane.ok(Requests.CustomerHistory(customerID: "C1"))
    #expect(history["receipts"]?.arrayValue?.isEmpty == true)
    // The event round-trips through the journal's encoding.
    let event = Event.customerDetached(order: 7)
    let decoded = try Event.decode(
      type: event.eventType.rawValue, data: event.data, currency: .usd)
    #expect(decoded == event)
  }
}
