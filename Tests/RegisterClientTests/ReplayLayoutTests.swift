import RegisterEngine
import Testing

@testable import RegisterClient

/// `replay` lays a day's receipts out on two threads (`PrintedReceipt.laidOut`): the paper roll
/// must come out as one thread would print it, every receipt once, in number order.
@Suite struct ReplayLayoutTests {
  static let catalog = """
    {"store": {"name": "Layout Lane", "currency": "USD",
               "tax": {"classes": {"standard": "7.5"}, "default_class": "standard"}},
     "products": [
       {"sku": "TEE", "name": "T-Shirt", "description": "", "category": "Tops", "price": "20.00"},
       {"sku": "MUG", "name": "Mug", "description": "", "category": "Home", "price": "8.50"}]}
    """

  /// A day of `sales` cash sales and two returns, in memory.
  static func day(sales: Int) throws -> Register {
    let start = Timestamp(epochMilliseconds: 1_773_601_385_000, utcOffsetSeconds: -18_000)
    let service = RegisterService(
      register: Register(), clock: ManualClock(start),
      random: { [UInt8](repeating: 7, count: $0) }, journal: nil)
    let catalog = try CatalogFile.parse(Array(catalog.utf8), file: "layout.json")
    try service.commit(Register.startupEvents(for: catalog, current: nil))
    for sale in 1...sales {
      let sku = sale % 3 == 0 ? "MUG" : "TEE"
      #expect(
        service.handle(line: #"{"op":"add","sku":"\#(sku)","qty":\#(1 + sale % 4)}"#).contains(
          #""ok":true"#))
      #expect(
        service.handle(line: #"{"op":"tender","type":"cash","amount":"500.00"}"#).contains(
          #""ok":true"#))
    }
    for receipt in [1, 2] {
      let line = #"{"op":"return","receipt":\#(receipt),"lines":[{"line":1,"qty":1}],"reason":"r"}"#
      #expect(service.handle(line: line).contains(#""ok":true"#))
    }
    return service.register
  }

  @Test func twoThreadsPrintWhatOneWould() throws {
    let printed = PrintedReceipt.all(ofDay: 1, in: try Self.day(sales: 70))
    #expect(printed.count == 72)
    #expect(PrintedReceipt.laidOut(printed) { $0.number } == Array(1...72))
    #expect(PrintedReceipt.laidOut(printed) { $0.text } == printed.map(\.text))
    #expect(PrintedReceipt.laidOut(printed) { $0.reply } == printed.map(\.reply))
  }

  /// A short day is laid out on one thread, and an empty one gives nothing.
  @Test func shortDays() throws {
    let printed = PrintedReceipt.all(ofDay: 1, in: try Self.day(sales: 3))
    #expect(PrintedReceipt.laidOut(printed) { $0.number } == [1, 2, 3, 4, 5])
    #expect(PrintedReceipt.laidOut([]) { $0.number }.isEmpty)
  }
}
