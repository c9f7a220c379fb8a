import RegisterServer
import Testing

@testable import RegisterEngine

/// What clients can make the register hold beyond one order is bounded too: products,
/// customers and operators. At each bound the next `*_add` is refused with its own code and
/// changes nothing; one fewer, and it is taken. The states are built by applying the events
/// the adds would have journaled (as recovery does), not by sending 100,000 requests.
@Suite struct RegisterBoundsTests {
  /// A register from the test catalog with `events` applied, behind a service.
  private func lane(applying events: [Event]) throws -> RegisterService {
    let catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
    var register = Register(catalog: catalog, at: testTime)
    for event in events { register.apply(event, at: testTime) }
    return RegisterService(register: register, clock: ManualClock(testTime))
  }

  @Test func theCatalogHoldsAtMostItsProducts() throws {
    let catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json")
    let room = Register.maximumProducts - catalog.products.count
    var events: [Event] = []
    for number in 0..<room - 1 {
      let json = JSONValue.object([
        "sku": .string("P\(number)"), "name": .string("Product \(number)"),
        "description": .string(""), "category": .string("C"), "price": .string("1.00"),
      ])
      events.append(.productAdded(try Product(json: json, path: "p", store: catalog.store)))
    }
    let service = try lane(applying: events)
    try service.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "LAST", "name": "Last", "description": "", "category": "C", "price": "2.00",
        ]))
    )
    #expect(service.register.products.count == Register.maximumProducts)
    let before = service.register.products.count
    let refused = try service.send(
      Requests.ProductAdd(
        product: .object([
          "sku": "MORE", "name": "More", "description": "", "category": "C", "price": "2.00",
        ]))
    )
    #expect(refused.errorCode == "catalog_full")
    #expect(refused["error"]?["message"]?.stringValue?.contains("100000 products") == true)
    #expect(service.register.products.count == before)
    #expect(service.register.products["MORE"] == nil)
    // Removing one makes room.
    try service.ok(Requests.ProductRemove(sku: "P0"))
    try service.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "MORE", "name": "More", "description": "", "category": "C", "price": "2.00",
        ]))
    )
  }

  @Test func aCatalogFileWithMoreProductsIsRefused() throws {
    // The count is checked before any product is read, so empty objects stand in for them.
    let items = Array(repeating: "{}", count: Register.maximumProducts + 1).joined(separator: ",")
    let text = """
      {"store":{"name":"S","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[\(items)]}
      """
    let error = #expect(throws: CatalogError.self) {
      try CatalogFile.parse(Array(text.utf8), file: "big.json")
    }
    #expect(
      error?.description.contains("has 100001 products, more than the 100000 a catalog may hold")
        == true, "\(String(describing: error))")
  }

  @Test func theRegisterKnowsAtMostItsCustomers() throws {
    let events = (1..<Register.maximumCustomers).map {
      Event.customerAdded(Customer(id: "C\($0)", name: "Customer \($0)", email: nil, phone: nil))
    }
    let service = try lane(applying: events)
    try service.ok(Requests.CustomerAdd(name: "Last One"))
    #expect(service.register.customers.count == Register.maximumCustomers)
    let refused = try service.send(Requests.CustomerAdd(name: "One More"))
    #expect(refused.errorCode == "customers_full")
    #expect(service.register.customers.count == Register.maximumCustomers)
    #expect(!service.register.customers.contains { $0.name == "One More" })
  }

  @Test func thereAreAtMostSoManyOperators() throws {
    // PINs hashed with one iteration: the test is about the count, not the hash.
    let pin = PINHash(pin: "1234", salt: Array(repeating: 7, count: 16), iterations: 1)
    var events = [Event.operatorAdded(Operator(id: "boss", name: "Boss", role: .manager, pin: pin))]
    for number in 1..<Register.maximumOperators - 1 {
      events.append(
        .operatorAdded(Operator(id: "op\(number)", name: "Op \(number)", role: .cashier, pin: pin)))
    }
    let service = try lane(applying: events)
    try service.ok(Requests.SignIn(operatorID: "boss", pin: "1234"))
    try service.ok(
      Requests.OperatorAdd(operatorID: "last", name: "Last", role: .cashier, pin: "5678"))
    #expect(service.register.operators.count == Register.maximumOperators)
    let refused = try service.send(
      Requests.OperatorAdd(operatorID: "more", name: "More", role: .cashier, pin: "5678"))
    #expect(refused.errorCode == "operators_full")
    #expect(service.register.operators.count == Register.maximumOperators)
    // Removing one who left makes room.
    try service.ok(Requests.OperatorRemove(operatorID: "op1"))
    try service.ok(
      Requests.OperatorAdd(operatorID: "more", name: "More", role: .cashier, pin: "5678"))
  }
}

/// Customers are found by id and by e-mail address through indexes, which a snapshot does not
/// hold: they are built again from the customers when it is read.
@Suite struct CustomerIndexTests {
  @Test func customersAreFoundByIdAndAddressLiveAndAfterASnapshot() throws {
    let lane = try TestLane()
    try lane.ok(Requests.CustomerAdd(name: "Ann", email: "ann@example.com"))
    try lane.ok(Requests.CustomerAdd(name: "Bo", email: "Bo.Lee@Example.com"))
    try lane.ok(Requests.CustomerAdd(name: "Cy"))
    for register in [lane.register, try SnapshotCodecTests.roundTrip(lane.register)] {
      let book = register.customerBook
      #expect(book.customer("C2")?.name == "Bo")
      #expect(book.customer("C3")?.name == "Cy")
      #expect(book.customer("C4") == nil)
      #expect(book.customer(withEmail: "bo.lee@example.com")?.id == "C2")
      #expect(book.customer(withEmail: "ANN@EXAMPLE.COM")?.id == "C1")
      #expect(book.customer(withEmail: "cy@example.com") == nil)
      // The register answers from them: a taken address in another case, an attach.
      let service = RegisterService(register: register, clock: ManualClock(testTime))
      let taken = try service.send(
        Requests.CustomerAdd(name: "Other", email: "BO.LEE@example.com"))
      #expect(taken.errorCode == "customer_exists")
      #expect(taken["error"]?["message"]?.stringValue?.contains("C2") == true)
      try service.ok(Requests.AttachCustomer(customerID: "C3"))
      #expect(service.register.order.customerID == "C3")
    }
  }
}
