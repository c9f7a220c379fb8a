import RegisterServer
import Testing

@testable import RegisterEngine

/// The catalog of the pricing tests: three tax classes (standard 7.5 %, food 5.5 %, exempt 0 %),
/// plain products, a sale item, and products whose options change the price.
///
/// - PRINT: 10.00; size required (5x7 +0.00, 8x10 +4.50, wallet −2.00); frame optional
///   (oak +15.00, metal +12.25).
/// - MUG: 12.00, on sale at 9.00; print optional (photo +3.00).
let pricingCatalogJSON = """
  {
    "store": {
      "name": "Pricing Lane",
      "address": ["1 Main St"],
      "currency": "USD",
      "tax": {
        "classes": {"standard": "7.5", "food": "5.5", "exempt": "0"},
        "default_class": "standard"
      }
    },
    "products": [
      {"sku": "JEANS", "name": "Jeans", "description": "", "category": "Bottoms",
       "price": "49.99"},
      {"sku": "TEE", "name": "T-Shirt", "description": "", "category": "Tops",
       "price": "20.00", "sale_price": "15.00", "stock": 5},
      {"sku": "GIFT", "name": "Gift Card", "description": "", "category": "Gift Cards",
       "price": "25.00", "tax_class": "exempt"},
      {"sku": "TEA", "name": "Tea", "description": "", "category": "Food",
       "price": "4.20", "tax_class": "food"},
      {"sku": "PRINT", "name": "Photo Print", "description": "", "category": "Prints",
       "price": "10.00",
       "options": [
         {"group": "size", "required": true, "choices": [
           {"name": "5x7", "price_delta": "0.00"},
           {"name": "8x10", "price_delta": "4.50"},
           {"name": "wallet", "price_delta": "-2.00"}]},
         {"group": "frame", "choices": [
           {"name": "oak", "price_delta": "15.00"},
           {"name": "metal", "price_delta": "12.25"}]}
       ]},
      {"sku": "MUG", "name": "Mug", "description": "", "category": "Gifts",
       "price": "12.00", "sale_price": "9.00",
       "options": [
         {"group": "print", "required": false, "choices": [
           {"name": "photo", "price_delta": "3.00"}]}
       ]}
    ]
  }
  """

/// A store whose products are all tax exempt and priced 10.00 to 10.09 (SKUs P0 to P9), so that
/// a single line gives a balance ending in any cent; cash is rounded to `increment` when given.
/// TAXED is 9.99 at 7.5 %: 9.99 + 0.74925 → 0.75 tax = 10.74.
func cashCatalogJSON(increment: String?) -> String {
  let rounding = increment.map { #""cash_rounding": "\#($0)","# } ?? ""
  let products = (0...9).map { cent in
    #"{"sku": "P\#(cent)", "name": "Item \#(cent)", "description": "", "category": "Test", "#
      + #""price": "10.0\#(cent)", "tax_class": "exempt"}"#
  }
  return """
    {
      "store": {
        "name": "Cash Lane", "address": [], "currency": "USD", \(rounding)
        "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"}
      },
      "products": [
        \(products.joined(separator: ",\n    ")),
        {"sku": "TAXED", "name": "Taxed", "description": "", "category": "Test",
         "price": "9.99"}
      ]
    }
    """
}

extension TestLane {
  /// A lane on the catalog `json` (instead of `testCatalogJSON`), on the same fixed clock.
  init(catalogJSON json: String) throws {
    let catalog = try CatalogFile.parse(Array(json.utf8), file: "pricing-catalog.json")
    clock = ManualClock(testTime)
    service = RegisterService(register: Register(catalog: catalog, at: testTime), clock: clock)
  }
}

extension JournalLane {
  /// A journaling lane on the catalog `json`, started as registerd starts on an empty data
  /// directory.
  init(catalogJSON json: String) throws {
    catalog = try CatalogFile.parse(Array(json.utf8), file: "pricing-catalog.json")
    journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
    service = RegisterService(register: Register(), clock: clock, journal: journal)
    service.rebuilds(from: storage)
    try service.commit(Register.startupEvents(for: catalog, current: nil))
  }
}

/// Minor units of a money string in a reply ("-0.02" → -2); fails the test when it is not one.
func cents(
  _ value: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Int64 {
  let text = try #require(value?.stringValue, sourceLocation: sourceLocation)
  return try Money.parse(text, currency: .usd, allowNegative: true).minorUnits
}

/// Minor units as the protocol writes them: 1003 → "10.03".
func decimal(_ minorUnits: Int64) -> String {
  Money(minorUnits: minorUnits, currency: .usd).decimalString
}

/// `left` and `right` on one receipt line of `width` columns, as `TextLayout.columns` prints a
/// pair that fits.
func receiptRow(_ left: String, _ right: String, width: Int = 40) -> String {
  left + String(repeating: " ", count: width - left.count - right.count) + right
}
