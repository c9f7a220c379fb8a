import Foundation
import RegisterEngine
import Testing

/// Gift-card reload through the real register-cli and registerd: the card keeps its new
/// balance across a kill -9 and a restart, and the receipt and the Z report show the reload.
@Suite struct GiftCardReloadEndToEndTests {
  @Test func aReloadRungUpWithTheCLISurvivesARestart() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"GIFT-25"}"#).isOK)
    let sold = try client.send(#"{"op":"tender","type":"cash","amount":"25.00"}"#)
    let number = try #require(
      sold.result["receipt"]?["receipt"]?["gift_cards"]?.arrayValue?.first?["number"]?
        .stringValue)

    let reload = try daemon.cli(["gift-card", "reload", number, "30.00"])
    #expect(reload.status == 0, "\(reload.stderr)")
    #expect(reload.stdout.contains("Gift card reload ****\(number.suffix(4))"), "\(reload.stdout)")
    #expect(!reload.stdout.contains(number), "the number is never shown in full")
    let paid = try daemon.cli(["tender", "cash", "30.00"])
    #expect(paid.status == 0, "\(paid.stderr)")
    #expect(paid.stdout.contains("Gift card reload ****\(number.suffix(4))"), "\(paid.stdout)")

    daemon.kill9()
    try daemon.start()
    let balance = try daemon.cli(["gift-card", "balance", number])
    #expect(balance.status == 0, "\(balance.stderr)")
    #expect(balance.stdout.contains("55.00"), "\(balance.stdout)")

    let closed = try daemon.cli(["close-day", "--yes"])
    #expect(closed.status == 0, "\(closed.stderr)")
    #expect(closed.stdout.contains("Gift cards reloaded (1)"), "\(closed.stdout)")
  }

  @Test func anUnknownCardIsRefusedInWords() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // A well-formed gift card number (it passes the Luhn check) that was never issued.
    let refused = try daemon.cli(["gift-card", "reload", "6001234567890125", "30.00"])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("no gift card"), "\(refused.stderr)")
    #expect(refused.stderr.contains("****0125"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("6001234567890125"), "the number is masked")
  }
}
