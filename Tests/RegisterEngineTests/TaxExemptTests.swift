import RegisterServer
import Testing

@testable import RegisterEngine

/// A customer with a tax-exemption certificate: their orders are not taxed, the receipt names
/// the certificate, and everything downstream (reports, returns, replay) follows.
@Suite struct TaxExemptTests {
  /// A lane with a tax-exempt customer C1 and an ordinary one C2, and JEANS (49.99) rung up.
  func lane() throws -> JournalLane {
    let lane = try JournalLane()
    try lane.ok(Requests.CustomerAdd(name: "City School", taxExempt: "EX-4471"))
    try lane.ok(Requests.CustomerAdd(name: "Dana Lee"))
    try lane.ok(Requests.Add(sku: "JEANS"))
    return lane
  }

  @Test func attachingAnExemptCustomerTakesTheTaxOffAndDetachingPutsItBack() throws {
    let lane = try lane()
    #expect(try lane.ok(Requests.Order())["tax"] == .string("3.75"))
    let exempt = try lane.ok(Requests.AttachCustomer(customerID: "C1"))
    #expect(exempt["tax"] == .string("0.00"))
    #expect(exempt["total"] == .string("49.99"))
    #expect(exempt["tax_exempt"] == .string("EX-4471"))
    let back = try lane.ok(Requests.DetachCustomer())
    #expect(back["tax"] == .string("3.75"))
    #expect(back["tax_exempt"] == nil)
    // An ordinary customer changes nothing.
    #expect(try lane.ok(Requests.AttachCustomer(customerID: "C2"))["tax"] == .string("3.75"))
  }

  @Test func theReceiptReportAndReturnFollowTheExemption() throws {
    let lane = try lane()
    try lane.ok(Requests.AttachCustomer(customerID: "C1"))
    let sale = try lane.ok(Requests.Tender(.cash(amount: usd("49.99"))))
    let text = sale["receipt"]?["text"]?.stringValue ?? ""
    #expect(text.contains("Tax exempt: certificate EX-4471"))
    #expect(text.contains("Tax standard 0%"))
    #expect(sale["receipt"]?["receipt"]?["tax_exempt"] == .string("EX-4471"))
    let report = try lane.ok(Requests.Report(kind: .x))["report"]
    #expect(report?["tax"] == .string("0.00"))
    #expect(report?["net_sales"] == .string("49.99"))
    let refund = try lane.ok(
      Requests.Return(
        receipt: 1, lines: [ReturnRequestLine(line: 1, quantity: 1)], reason: "unused"))
    #expect(refund["receipt"]?["total"] == .string("49.99"))
    #expect(refund["receipt"]?["tax"] == .string("0.00"))
    // Replaying the journal gives the same state, receipts included.
    let replayed = try Register.replaying(lane.scan().records)
    #expect(RegisterState(replayed) == RegisterState(lane.register))
    #expect(replayed.customers == lane.register.customers)
    #expect(replayed.receipts[1]?.order.taxExemption == "EX-4471")
  }

  @Test func refusedAfterPaymentStartedOrWherePricesIncludeTax() throws {
    let lane = try lane()
    try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    let late = try lane.send(Requests.AttachCustomer(customerID: "C1"))
    #expect(late.errorCode == "order_has_tenders")
    #expect(lane.register.order.customerID == nil)
    // (An ordinary customer may still be attached.)
    try lane.ok(Requests.AttachCustomer(customerID: "C2"))

    let text = testCatalogJSON.replacingOccurrences(
      of: #""default_class": "standard"}"#,
      with: #""default_class": "standard", "prices_include_tax": true}"#)
    #expect(text != testCatalogJSON)
    let catalog = try CatalogFile.parse(Array(text.utf8), file: "inclusive.json")
    let inclusive = RegisterService(
      register: Register(catalog: catalog, at: testTime), clock: ManualClock(testTime))
    try inclusive.ok(Requests.CustomerAdd(name: "City School", taxExempt: "EX-4471"))
    try inclusive.ok(Requests.Add(sku: "JEANS"))
    let refused = try inclusive.send(Requests.AttachCustomer(customerID: "C1"))
    #expect(refused.errorCode == "invalid_customer")
  }

  @Test(arguments: [
    #"{"op":"customer_add","name":"X","tax_exempt":""}"#,
    #"{"op":"customer_add","name":"X","tax_exempt":5}"#,
    #"{"op":"customer_add","name":"X","tax_exempt":"\#(String(repeating: "A", count: 41))"}"#,
  ])
  func badCertificatesAreRefused(line: String) throws {
    let lane = try TestLane()
    #expect(try lane.send(line).errorCode == "bad_request")
    #expect(lane.register.customers.isEmpty)
  }
}
