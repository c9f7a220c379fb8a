import Foundation
import RegisterEngine
import Testing

/// A read whose work grows with the store (`catalog_export` of a large catalog) is worked out
/// on a thread of its own: the lanes are answered meanwhile, the client that asked gets its
/// replies in the order it asked, and a drain waits for it.
@Suite(.serialized) struct ComputedReplyEndToEndTests {
  /// A catalog file of `count` products (about 230 ms to export in a debug build).
  static func catalog(products count: Int) -> String {
    let products = (0..<count).map { index in
      #"{"sku":"P\#(index)","name":"Product \#(index)","description":"A product.","category":"C\#(index % 50)","price":"\#(index % 90 + 1).99","stock":5}"#
    }
    return #"""
      {"store":{"name":"Big Store","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},
      "products":[\#(products.joined(separator: ",\n"))]}
      """#
  }

  static let exportThenHello = Array(
    (#"{"id":1,"op":"catalog_export"}"# + "\n" + #"{"id":2,"op":"hello"}"# + "\n").utf8)

  @Test func aLaneIsAnsweredWhileALargeCatalogIsExported() throws {
    let daemon = try Daemon(catalog: Self.catalog(products: 40_000))
    defer { daemon.cleanup() }
    let exporter = try daemon.connect()
    let lane = try daemon.connect()
    #expect(try lane.send(#"{"op":"hello"}"#)["ok"] == true)
    try exporter.sendRaw(Self.exportThenHello)
    usleep(20_000)  // the daemon has the export in hand
    // A sale on the lane, every change durable, while the export is worked out.
    #expect(try lane.send(#"{"op":"add","sku":"P7"}"#)["ok"] == true)
    #expect(try lane.send(#"{"op":"tender","type":"cash","amount":"20.00"}"#)["ok"] == true)
    #expect(try lane.send(#"{"op":"order"}"#)["ok"] == true)
    // Worked out on the event loop, the export would have held the lane's requests until it
    // was sent: its reply would be waiting here already.
    #expect(
      !exporter.connection.waitForInput(milliseconds: 0),
      "the lane's requests were answered before the export")
    let export = try exporter.read()
    #expect(export["id"] == .int(1))
    let products = export["result"]?["catalog"]?["products"]?.arrayValue
    #expect(products?.count == 40_000)
    // The export describes the catalog when it was asked for: before the sale's stock count.
    #expect(products?.first { $0["sku"] == "P7" }?["stock"] == .int(5))
    // The exporter's next reply comes after it, in the order it asked.
    #expect(try exporter.read()["id"] == .int(2))
    let now = try daemon.connect().send(#"{"op":"catalog_export"}"#)
    let sold = now["result"]?["catalog"]?["products"]?.arrayValue?.first { $0["sku"] == "P7" }
    #expect(sold?["stock"] == .int(4))
  }

  @Test func aDrainWaitsForAnExportBeingWorkedOut() throws {
    let daemon = try Daemon(catalog: Self.catalog(products: 40_000))
    defer { daemon.cleanup() }
    let exporter = try daemon.connect()
    #expect(try exporter.send(#"{"op":"hello"}"#)["ok"] == true)
    try exporter.sendRaw(Self.exportThenHello)
    usleep(20_000)
    kill(daemon.process.processIdentifier, SIGTERM)
    let export = try exporter.read()
    #expect(export["id"] == .int(1))
    #expect(export["result"]?["catalog"]?["products"]?.arrayValue?.count == 40_000)
    #expect(try exporter.read()["id"] == .int(2))
    #expect(daemon.stop() == 0)
  }
}
