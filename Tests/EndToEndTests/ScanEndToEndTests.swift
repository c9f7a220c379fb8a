import Foundation
import RegisterEngine
import Testing

/// Barcodes at the lane through the real daemon and register-cli: one scan, scan mode reading a
/// keyboard-wedge scanner's lines, and a return scanned off the receipt.
@Suite struct ScanEndToEndTests {
  @Test func scanOneCodeAndScanModeThenReturnByTheScannedReceipt() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // TEE-WHT-M's barcode in Data/products.json.
    let one = try daemon.cli(["scan", "2001234000079"])
    #expect(one.status == 0, "\(one.stderr)")
    #expect(one.stdout.contains("Classic Cotton Tee, White M"))
    #expect(one.stdout.contains("total"))

    // Scan mode: every line is a code, as a scanner types them (with CR/LF); a misread and an
    // unknown code are reported and scanning goes on.
    let lines = "012345670015\r\n2001234000078\n\n96385074\nSOCK-3PK\n20000011\n"
    let mode = try daemon.cli(["scan"], stdin: lines)
    #expect(mode.status == 1)
    #expect(mode.stderr.contains("invalid_barcode"))
    #expect(mode.stderr.contains("unknown_barcode"))
    #expect(mode.stdout.components(separatedBy: "\n").filter { $0.contains("total") }.count == 3)
    let order = try daemon.connect().send(#"{"op":"order"}"#)
    let skus = order["result"]?["lines"]?.arrayValue?.compactMap { $0["sku"]?.stringValue }
    #expect(skus == ["TEE-WHT-M", "SNK-WHT-9", "SOCK-3PK", "SOCK-3PK"])

    let paid = try daemon.cli(["tender", "cash", "500"])
    #expect(paid.status == 0, "\(paid.stderr)")
    // The receipt's barcode carries R1; the cashier scans it for the return.
    let refund = try daemon.cli(["return", "R1", "1:1", "--reason", "scanned receipt"])
    #expect(refund.status == 0, "\(refund.stderr)")
    #expect(refund.stdout.contains("RETURN"))
    let reprint = try daemon.cli(["receipt", "r1"])
    #expect(reprint.stdout.contains("REPRINT"))
    #expect(try daemon.cli(["receipt", "X1"]).status == 2)
    // In a batch a scan names its code; scan mode would eat the batch's own lines.
    let batch = try daemon.cli(["-"], stdin: "scan 2001234000079\nscan\nshow\n")
    #expect(batch.status == 2)
    #expect(batch.stderr.contains("line 2: scan needs a CODE"))
    #expect(batch.stdout.contains("Classic Cotton Tee, White M"))
  }
}
