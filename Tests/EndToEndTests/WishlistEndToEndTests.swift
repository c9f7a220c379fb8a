import Foundation
import RegisterEngine
import Testing

/// Wishlists, stock at other stores and price-embedded labels through the real registerd and
/// register-cli, across restarts.
@Suite struct WishlistEndToEndTests {
  @Test func aWishlistSurvivesARestartAndMovesOntoTheOrder() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["customer", "add", "Dana Lee"]).status == 0)
    // The little black dress is out of stock here but at two other stores; the belt is in.
    let dress = try daemon.cli(["wishlist", "add", "C1", "DRS-LBD-M"])
    #expect(dress.status == 0, "\(dress.stderr)")
    #expect(try daemon.cli(["wishlist", "add", "C1", "BELT-LTH-M"]).status == 0)
    let twice = try daemon.cli(["wishlist", "add", "C1", "BELT-LTH-M"])
    #expect(twice.status == 1)
    #expect(twice.stderr.contains("already_on_wishlist"))
    daemon.stop()
    try daemon.start()
    let shown = try daemon.cli(["wishlist", "C1"])
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(shown.stdout.contains("Wishlist of Dana Lee (C1)"))
    #expect(shown.stdout.contains("DRS-LBD-M"))
    #expect(shown.stdout.contains("out of stock here; at Riverside (2), Downtown (1)"))
    #expect(shown.stdout.contains("9 here"))
    // Out of stock: refused, and it stays on the list.
    let refused = try daemon.cli(["wishlist", "to-order", "C1", "DRS-LBD-M"])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("out_of_stock"))
    let moved = try daemon.cli(["--json", "wishlist", "to-order", "C1", "BELT-LTH-M"])
    #expect(moved.status == 0, "\(moved.stderr)")
    let reply = try #require(try JSONParser.parse(moved.stdout)["result"])
    #expect(reply["lines"]?.arrayValue?.first?["sku"] == .string("BELT-LTH-M"))
    #expect(reply["wishlist"]?["items"]?.arrayValue?.map { $0["sku"] } == [.string("DRS-LBD-M")])
    #expect(try daemon.cli(["tender", "cash", "40.00"]).status == 0)
    daemon.stop()
    try daemon.start()
    let client = try daemon.connect()
    let list = try client.send(#"{"op":"wishlist","customer_id":"C1"}"#)
    #expect(
      list["result"]?["wishlist"]?["items"]?.arrayValue?.map { $0["sku"] } == [
        .string("DRS-LBD-M")
      ])
    let report = try client.send(#"{"op":"report","kind":"x"}"#)
    #expect(report["result"]?["report"]?["sales_count"] == .int(1))
    // The product lookup sends the customer to a store that has the dress.
    let product = try daemon.cli(["product", "DRS-LBD-M"])
    #expect(product.status == 0, "\(product.stderr)")
    #expect(product.stdout.contains("Other stores: Riverside 2, Downtown 1"))
    let byBarcode = try daemon.cli(["product", "2001234000567"])
    #expect(byBarcode.stdout.contains("DRS-LBD-M"))
    let unknown = try daemon.cli(["product", "NOPE"])
    #expect(unknown.status == 1)
    #expect(unknown.stderr.contains("unknown_sku"))
  }

  @Test func aPriceLabelRingsUpAtItsPriceAndReplays() throws {
    let catalog = """
      {"store": {"name": "Deli Lane", "address": [], "currency": "USD",
                 "tax": {"classes": {"standard": "10"}, "default_class": "standard"},
                 "price_barcode_prefixes": ["22"]},
       "products": [
         {"sku": "CHEESE", "name": "Deli Cheese", "description": "", "category": "Deli",
          "price": "0.00", "barcodes": ["2212345000005"]}]}
      """
    let daemon = try Daemon(catalog: catalog)
    defer { daemon.cleanup() }
    let scanned = try daemon.cli(["scan", "2212345012992"])
    #expect(scanned.status == 0, "\(scanned.stderr)")
    #expect(scanned.stdout.contains("Deli Cheese  12.99"))
    let sale = try daemon.cli(["tender", "cash", "20.00"])
    #expect(sale.status == 0, "\(sale.stderr)")
    #expect(sale.stdout.contains("14.29"))
    daemon.stop()
    try daemon.start()
    let receipt = try daemon.connect().send(#"{"op":"receipt","number":1}"#)
    #expect(receipt["result"]?["receipt"]?["total"] == .string("14.29"))
    let misread = try daemon.cli(["scan", "2212345012993"])
    #expect(misread.status == 1)
    #expect(misread.stderr.contains("invalid_barcode"))
  }
}
