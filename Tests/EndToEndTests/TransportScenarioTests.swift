import Foundation
import RegisterClient
import RegisterEngine
import RegisterTestSupport
import Testing

/// Scenarios run in-process and over the socket: both must get the same replies, byte for
/// byte once read.
@Suite("One test client, two transports: the same scenario gets the same replies", .serialized)
struct TransportScenarioTests {
  static func usd(_ minorUnits: Int64) -> Money { Money(minorUnits: minorUnits, currency: .usd) }

  /// Each transport's replies to `scenario`; they must be equal.
  func replies(_ scenario: (TestClient) throws -> [Reply]) throws -> [Reply] {
    let inProcess = try run(.inProcess, scenario)
    let live = try run(.live, scenario)
    #expect(inProcess.count == live.count)
    for (index, (local, remote)) in zip(inProcess, live).enumerated() {
      #expect(local == remote, "reply \(index + 1) differs between the transports")
    }
    return live
  }

  @Test("a sale paid in split tender: cash, then a card for the rest")
  func splitTender() throws {
    let replies = try replies { client in
      [
        try client.send(Requests.Add(sku: "OXF-BLU-15", quantity: 2)),
        // (Not a gift card: its number is drawn at random, so the two transports would differ.)
        try client.send(Requests.Add(sku: "BELT-LTH-M")),
        try client.send(Requests.Tender(.cash(amount: Self.usd(5_000)))),
        try client.send(
          Requests.Tender(
            .card(
              CardInput(
                number: "4242 4242 4242 4242", expiryMonth: 12, expiryYear: 2030, cvv: "123"),
              amount: nil))),
        try client.send(Requests.Order()),
      ]
    }
    #expect(replies.map(\.id) == [1, 2, 3, 4, 5])
    // 2 × 29.99 + 35.00 = 94.98 + 7.5 % tax (7.1235 → 7.12) = 102.10: 50.00 cash, 52.10 on the
    // card.
    #expect(replies[1].result?["total"] == "102.10")
    #expect(replies[2].result?["balance_due"] == "52.10")
    let sale = try #require(replies[3].result)
    #expect(sale["status"] == "completed")
    #expect(sale["receipt"]?["number"] == 1)
    let text = try #require(sale["receipt"]?["text"]?.stringValue)
    #expect(text.contains("2026-11-22 14:03:05"))
    #expect(text.contains("****4242"))
    #expect(!text.contains("4242 4242 4242 4242"))
    #expect(replies[4].result?["lines"]?.arrayValue?.isEmpty == true, "a new, empty order")
  }

  @Test("a keyed retry gets the first reply and changes nothing; a key reused is refused")
  func keyedRetry() throws {
    let replies = try replies { client in
      let keyed = RequestEnvelope(key: "add-tee-1")
      return [
        try client.send(Requests.Add(sku: "TEE-WHT-M"), envelope: keyed),
        try client.send(Requests.Add(sku: "TEE-WHT-M"), envelope: keyed),
        try client.send(Requests.Add(sku: "TEE-WHT-M", quantity: 2), envelope: keyed),
        try client.send(Requests.Order()),
      ]
    }
    let first = try #require(replies[0].result)
    #expect(replies[1].result == first, "the same reply again")
    #expect(replies[0].id == 1 && replies[1].id == 2, "each with its own id")
    #expect(replies[2].error?.code == .keyReused)
    #expect(replies[3].result?["lines"]?.arrayValue?.count == 1, "added once")
  }

  @Test("refusals carry their code, message and data")
  func refusals() throws {
    let replies = try replies { client in
      [
        try client.send(Requests.Add(sku: "NO-SUCH-SKU")),
        try client.send(Requests.Tender(.cash(amount: Self.usd(100)))),
        try client.send(Requests.Add(sku: "TEE-WHT-M")),
        try client.send(Requests.Remove(line: 1), envelope: RequestEnvelope(expectVersion: 99)),
        try client.send(Requests.SetQty(line: 7, quantity: 1)),
      ]
    }
    #expect(
      replies.map { $0.error?.code } == [
        .unknownSKU, .emptyOrder, nil, .versionConflict, .lineNotFound,
      ])
    #expect(replies[0].error?.message.contains("NO-SUCH-SKU") == true)
    // A version conflict carries the order as it is now.
    #expect(replies[3].error?.data?["version"] == replies[2].result?["version"])
  }
}
