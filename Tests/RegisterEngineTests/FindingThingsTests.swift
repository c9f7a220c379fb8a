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
    let added = try lane.ok(#"{"op":"customer_add","name":"\#(name)"}"#)
    let id = try #require(added["customer_id"]?.stringValue, "\(added)")
    for query in queries {
      let found = try lane.ok(#"{"op":"customer_find","query":"\#(query)"}"#)
      let ids = found["customers"]?.arrayValue?.compactMap { $0["customer_id"]?.stringValue } ?? []
      #expect(ids == [id], "\(query) → \(found.serialized)")
    }
    // Folding does not make everything match.
    let none = try lane.ok(#"{"op":"customer_find","query":"josef"}"#)
    #expect(none["customers"]?.arrayValue?.isEmpty == true)
  }

  @Test func aSKUTypedInAnotherCaseIsFoundWhenOnlyOneMatches() throws {
    let lane = try TestLane()
    let order = try lane.ok(#"{"op":"add","sku":"tee"}"#)
    #expect(order["lines"]?.arrayValue?.first?["sku"] == "TEE")
    try lane.ok(#"{"op":"scan","code":"Jeans"}"#)
    #expect(lane.register.order.lines.map(\.sku) == ["TEE", "JEANS"])
    #expect(try lane.ok(#"{"op":"product","sku":"jeans"}"#)["product"]?["sku"] == "JEANS")

    // Two SKUs that differ only by case: each is exact only.
    let text = testCatalogJSON.replacingOccurrences(
      of: #"{"sku": "JEANS","#,
      with:
        #"{"sku": "Tee", "name": "Other tee", "description": "", "category": "Tops", "price": "1.00"}, {"sku": "JEANS","#
    )
    let both = try TestLane(catalog: try CatalogFile.parse(Array(text.utf8), file: "t"))
    #expect(try both.send(#"{"op":"add","sku":"tee"}"#).errorCode == "unknown_sku")
    try both.ok(#"{"op":"add","sku":"Tee"}"#)
    try both.ok(#"{"op":"add","sku":"TEE"}"#)
    #expect(both.register.order.lines.map(\.sku) == ["Tee", "TEE"])
  }

  @Test func aSecondScanAddsToTheLineOnlyWhereTheStoreSaysSo() throws {
    let plain = try TestLane()
    try plain.ok(#"{"op":"scan","code":"JEANS"}"#)
    try plain.ok(#"{"op":"scan","code":"JEANS"}"#)
    #expect(plain.register.order.lines.map(\.quantity) == [1, 1], "default: a line per scan")

    let text = testCatalogJSON.replacingOccurrences(
      of: #""receipt_footer": "Thank you!""#,
      with: #""receipt_footer": "Thank you!", "scan_adds_to_line": true"#)
    let merging = try TestLane(catalog: try CatalogFile.parse(Array(text.utf8), file: "t"))
    try merging.ok(#"{"op":"scan","code":"JEANS"}"#)
    try merging.ok(#"{"op":"scan","code":"jeans"}"#)
    #expect(merging.register.order.lines.map(\.quantity) == [2])
    // Another item between: a new line; an overridden line is not added to.
    try merging.ok(#"{"op":"scan","code":"TEE"}"#)
    try merging.ok(#"{"op":"scan","code":"JEANS"}"#)
    #expect(merging.register.order.lines.map(\.quantity) == [2, 1, 1])
    try merging.ok(#"{"op":"override_price","line":3,"unit_price":"40.00","reason":"dent"}"#)
    try merging.ok(#"{"op":"scan","code":"JEANS"}"#)
    #expect(merging.register.order.lines.map(\.quantity) == [2, 1, 1, 1])
    // Stock still holds: TEE has 3, one is on line 2; two more go on a new line, no third.
    try merging.ok(#"{"op":"scan","code":"TEE"}"#)
    try merging.ok(#"{"op":"scan","code":"TEE"}"#)
    #expect(merging.register.order.lines.map(\.quantity) == [2, 1, 1, 1, 2])
    #expect(try merging.send(#"{"op":"scan","code":"TEE"}"#).errorCode == "out_of_stock")
  }
}
