import RegisterServer
import Testing

@testable import RegisterEngine

/// A small catalog for the register tests: a sale item with little stock, an untracked item, a
/// tax-exempt gift card and a product that is out of stock.
let testCatalogJSON = """
  {
    "store": {
      "name": "Test Lane",
      "address": ["1 Main St", "Springfield"],
      "currency": "USD",
      "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"},
      "receipt_footer": "Thank you!"
    },
    "products": [
      {"sku": "TEE", "name": "T-Shirt", "description": "Cotton tee", "category": "Tops",
       "price": "20.00", "sale_price": "15.00", "stock": 3},
      {"sku": "JEANS", "name": "Jeans", "description": "", "category": "Bottoms",
       "price": "49.99"},
      {"sku": "GIFT", "name": "Gift Card", "description": "", "category": "Gift Cards",
       "price": "25.00", "tax_class": "exempt"},
      {"sku": "HAT", "name": "Sold Out Hat", "description": "", "category": "Accessories",
       "price": "12.00", "stock": 0}
    ]
  }
  """

/// 2026-03-15 14:03:05 at UTC−05:00.
let testTime = Timestamp(epochMilliseconds: 1_773_601_385_000, utcOffsetSeconds: -18_000)

/// Card data for a request; a Visa that passes every check on `testTime`.
func cardJSON(
  _ number: String = "4242424242424242", month: String = "12", year: String = "2030",
  cvv: String = "\"739\""
) -> String {
  "{\"number\":\"\(number)\",\"exp_month\":\(month),\"exp_year\":\(year),\"cvv\":\(cvv)}"
}

/// A register on `testCatalogJSON` behind the protocol, on a fixed clock.
struct TestLane {
  let service: RegisterService
  let clock: ManualClock

  init() throws {
    try self.init(
      catalog: try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "test-catalog.json"))
  }

  init(catalog: Catalog) throws {
    clock = ManualClock(testTime)
    service = RegisterService(register: Register(catalog: catalog, at: testTime), clock: clock)
  }

  var register: Register { service.register }

  /// Sends one request line and returns the parsed reply.
  @discardableResult
  func send(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.send(line, sourceLocation: sourceLocation)
  }

  /// Sends a request that must succeed and returns its `result`.
  @discardableResult
  func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try service.ok(line, sourceLocation: sourceLocation)
  }

  /// The state a refused request must leave exactly as it was.
  var snapshot: Snapshot {
    Snapshot(
      order: register.order, totals: register.totals, products: register.products,
      receiptCount: register.receipts.count, nextReceiptNumber: register.nextReceiptNumber,
      nextOrderID: register.nextOrderID)
  }
}

struct Snapshot: Equatable {
  var order: Order
  var totals: OrderTotals
  var products: ProductList
  var receiptCount: Int
  var nextReceiptNumber: Int
  var nextOrderID: Int
}

extension JSONValue {
  /// The error code of a failed reply.
  var errorCode: String? { self["error"]?["code"]?.stringValue }
}
