import Foundation
import Testing

@testable import RegisterEngine

/// Finding things as cashiers type them: customers without accents or case, SKUs in lower case
/// when no other SKU differs only by case, and (as a store setting) a second scan of the same
/// item adding to its line.
@Suite struct FindingThingsTests {
  @Test(arguments: [
    ("José Müller", ["jose", "JOSE", "müller", "muller", "jose muller", "José"]),
    ("Zoë Straße", ["zoe", "strasse", "ZOË", "zoe str"]),
    ("Łukasz Żółć", ["lukasz", "zolc"]),
    ("Ærø Ødegård", ["aero", "odegard"]),
    // Stored decomposed (e + combining acute): found the same way.
    ("Rene\u{301} Dupont", ["rene", "rené"]),
  ])
  func aCustomerIsFoundWithoutAccentsOrCase(name: String, queries: [String]) throws {
    let lane = try TestLane()
    let added = try lane.ok(Requests.CustomerAdd(name: name))
    let id = try #require(added["customer_id"]?.stringValue, "\(added)")
    for query in queries {
      let found = try lane.ok(Requests.CustomerFind(query: query))
      let ids = found["customers"]?.arrayValue?.compactMap { $0["customer_id"]?.stringValue } ?? []
      #expect(ids == [id], "\(query) → \(found.serialized)")
    }
    // Folding does not make everything match.
    let none = try lane.ok(Requests.CustomerFind(query: "josef"))
    #expect(none["customers"]?.arrayValue?.isEmpty == true)
  }

  @Test func aSKUTypedInAnotherCaseIsFoundWhenOnlyOneMatches() throws {
    let lane = try TestLane()
    let order = try lane.ok(Requests.Add(sku: "tee"))
    #expect(order["lines"]?.arrayValue?.first?["sku"] == "TEE")
    try lane.ok(Requests.Scan(code: "Jeans"))
    #expect(lane.register.order.lines.map(\.sku) == ["TEE", "JEANS"])
    #expect(try lane.ok(Requests.ProductLookup(sku: "jeans"))["product"]?["sku"] == "JEANS")

    // Two SKUs that differ only by case: each is exact only.
    let text = testCatalogJSON.replacingOccurrences(
      of: #"{"sku": "JEANS","#,
      with:
        #"{"sku": "Tee", "name": "Other tee", "description": "", "category": "Tops", "price": "1.00"}, {"sku": "JEANS","#
    )
    let both = try TestLane(catalog: try CatalogFile.parse(Array(text.utf8), file: "t"))
    #expect(try both.send(Requests.Add(sku: "tee")).errorCode == "unknown_sku")
    try both.ok(Requests.Add(sku: "Tee"))
    try both.ok(Requests.Add(sku: "TEE"))
    #expect(both.register.order.lines.map(\.sku) == ["Tee", "TEE"])
  }

  @Test func aSecondScanAddsToTheLineOnlyWhereTheStoreSaysSo() throws {
    let plain = try TestLane()
    try plain.ok(Requests.Scan(code: "JEANS"))
    try plain.ok(Requests.Scan(code: "JEANS"))
    #expect(plain.register.order.lines.map(\.quantity) == [1, 1], "default: a line per scan")

    let text = testCatalogJSON.replacingOccurrences(
      of: #""receipt_footer": "Thank you!""#,
      with: #""receipt_footer": "Thank you!", "scan_adds_to_line": true"#)
    let merging = try TestLane(catalog: try CatalogFile.parse(Array(text.utf8), file: "t"))
    try merging.ok(Requests.Scan(code: "JEANS"))
    try merging.ok(Requests.Scan(code: "jeans"))
    #expect(merging.register.order.lines.map(\.quantity) == [2])
    // Another item between: a new line; an overridden line is not added to.
    try merging.ok(Requests.Scan(code: "TEE"))
    try merging.ok(Requests.Scan(code: "JEANS"))
    #expect(merging.register.order.lines.map(\.quantity) == [2, 1, 1])
    try merging.ok(Requests.OverridePrice(line: 3, unitPrice: usd("40.00"), reason: "dent"))
    try merging.ok(Requests.Scan(code: "JEANS"))
    #expect(merging.register.order.lines.map(\.quantity) == [2, 1, 1, 1])
    // Stock still holds: TEE has 3, one is on line 2; two more go on a new line, no third.
    try merging.ok(Requests.Scan(code: "TEE"))
    try merging.ok(Requests.Scan(code: "TEE"))
    #expect(merging.register.order.lines.map(\.quantity) == [2, 1, 1, 1, 2])
    #expect(try merging.send(Requests.Scan(code: "TEE")).errorCode == "out_of_stock")
  }
}
