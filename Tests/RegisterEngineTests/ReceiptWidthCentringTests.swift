import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// Centred lines on a receipt narrower than the paper: `receipt_width` 32 on a printer of 42 or
/// 48 columns. The printer's own centring (ESC a 1) would centre them on the paper; they are to
/// be centred on the receipt, as the text receipt has them.
@Suite struct ReceiptWidthCentringTests {
  static let narrowStore = testCatalogJSON.replacingOccurrences(
    of: #""receipt_footer": "Thank you!""#,
    with: #""receipt_footer": "Thank you!", "receipt_width": 32"#)

  /// The columns a printed line takes on paper `paper` columns wide, the way a printer lays it
  /// out: left-justified, or centred on the paper while ESC a 1 is in force.
  static func onPaper(_ decoded: EscPosDecoder, paper: Int) -> [String] {
    decoded.items.compactMap { item -> String? in
      guard case .line(let text, let style) = item else { return nil }
      guard style.centered else { return text }
      return String(repeating: " ", count: max(0, (paper - text.count) / 2)) + text
    }
  }

  @Test(
    "receipt_width 32 on 42- and 48-column paper: each centred line sits in the middle of the receipt",
    arguments: [42, 48])
  func centredOnTheReceipt(paper: Int) throws {
    let catalog = try CatalogFile.parse(Array(Self.narrowStore.utf8), file: "narrow.json")
    #expect(catalog.store.receiptWidth == 32)
    let lane = try TestLane(catalog: catalog)
    try lane.ok(Requests.Add(sku: "TEE"))
    try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    let sale = try #require(lane.register.receipts[1])
    let text = ReceiptRenderer.text(sale).split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast().map(String.init)
    let printed = Self.onPaper(EscPosDecoder(ReceiptRenderer.escpos(sale)), paper: paper)
    for centred in ["Test Lane", "1 Main St", "Springfield", "Thank you!"] {
      let padding = (32 - centred.count) / 2
      let expected = String(repeating: " ", count: padding) + centred
      #expect(text.contains(expected), "the text receipt centres \(centred) in 32 columns")
      #expect(
        printed.contains(expected),
        "\(centred) printed \(printed.first { $0.hasSuffix(centred) } ?? "nowhere") on \(paper) columns"
      )
    }
    // Line for line what the text receipt says, up to the symbol.
    #expect(Array(printed.prefix(text.count)) == text)
  }
}
