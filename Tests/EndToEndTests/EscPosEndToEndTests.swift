import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

@Suite("ESC/POS receipts and reports through register-cli", .serialized)
struct EscPosEndToEndTests {
  @Test(
    "receipt --escpos writes the printer's bytes: the receipt's lines, its barcode, a cut; the same after a restart"
  )
  func receiptBytes() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "OXF-BLU-15"]).status == 0)
    let sale = try daemon.cli(["tender", "cash", "50"])
    #expect(sale.status == 0, "\(sale.stderr)")

    let printed = try daemon.cli(["receipt", "1", "--escpos"])
    #expect(printed.status == 0, "\(printed.stderr)")
    let decoded = EscPosDecoder(printed.stdoutBytes)
    #expect(decoded.unknown.isEmpty, "\(decoded.transcript)")
    #expect(decoded.items.first == .initialize)
    #expect(decoded.codes == ["R1"])
    #expect(decoded.items.last == .cut(mode: 66, feed: 3))
    // The same lines as the text reprint.
    let text = try daemon.cli(["receipt", "1"])
    let textLines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast().map(String.init)
    #expect(Array(decoded.lines.prefix(textLines.count)) == textLines)
    #expect(decoded.unpaddedLines.contains("*** REPRINT ***"))
    // Never raw UTF-8: every byte above 0x7F would be a code page character, and there is none
    // in this store's names.
    #expect(printed.stdoutBytes.allSatisfy { $0 < 0x80 })

    // The barcode's text is what `return` takes when scanned.
    let scanned = try daemon.cli(["receipt", "R1"])
    #expect(scanned.status == 0)

    // Reports too; and after a restart the same bytes come back (they follow from the journal).
    let report = try daemon.cli(["report", "--escpos"])
    #expect(report.status == 0, "\(report.stderr)")
    #expect(EscPosDecoder(report.stdoutBytes).unpaddedLines.contains("X REPORT - DAY 1"))
    #expect(try daemon.cli(["close-day"]).status == 0)
    let z = try daemon.cli(["report", "z", "--escpos"])
    #expect(EscPosDecoder(z.stdoutBytes).unpaddedLines.contains("Z REPORT - DAY 1"))
    #expect(daemon.stop() == 0)
    try daemon.start()
    let again = try daemon.cli(["receipt", "1", "--escpos"])
    #expect(again.stdoutBytes == printed.stdoutBytes)
    #expect(try daemon.cli(["report", "z", "--escpos"]).stdoutBytes == z.stdoutBytes)

    // --json shows the reply itself, the bytes in base64.
    let json = try daemon.cli(["--json", "receipt", "1", "--escpos"])
    let reply = try JSONParser.parse(Array(json.stdout.utf8.dropLast()))
    #expect(reply.result["escpos"]?.stringValue.flatMap(Base64.decode) == printed.stdoutBytes)
  }
}
