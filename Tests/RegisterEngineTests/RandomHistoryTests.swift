import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// Random request lines a cashier could send: most are accepted, some are refused (a line that
/// is not there, stock run out, a return of more than was sold); only what is accepted (and what
/// a refusal still records) reaches the journal.
enum RandomHistory {
  static func request(_ random: inout SplitMix64, register: Register) -> String {
    let lines = max(1, register.order.nextLine - 1)
    let line = 1 + random.below(lines + 1)
    let receipts = max(1, register.nextReceiptNumber - 1)
    let sku = random.pick(["TEE", "JEANS", "GIFT", "HAT", "NOPE"])
    func cents(_ range: Int) -> String { "\(random.below(range)).\(10 + random.below(90))" }
    switch random.below(24) {
    case 0...5: return #"{"op":"add","sku":"\#(sku)","qty":\#(1 + random.below(3))}"#
    case 6: return #"{"op":"set_qty","line":\#(line),"qty":\#(1 + random.below(4))}"#
    case 7: return #"{"op":"remove","line":\#(line)}"#
    case 8: return #"{"op":"void_line","line":\#(line)}"#
    case 9:
      return #"{"op":"discount","line":\#(line),"percent":"\#(1 + random.below(40))","reason":"r"}"#
    case 10: return #"{"op":"discount","amount":"\#(cents(5))","reason":"order"}"#
    case 11:
      return #"{"op":"override_price","line":\#(line),"unit_price":"\#(cents(30))","reason":"r"}"#
    case 12, 13: return #"{"op":"tender","type":"cash","amount":"\#(cents(120))"}"#
    case 14: return #"{"op":"tender","type":"card","card":\#(cardJSON())}"#
    case 15: return #"{"op":"park","note":"n\#(random.below(9))"}"#
    case 16: return #"{"op":"resume","order_id":\#(1 + random.below(register.nextOrderID))}"#
    case 17: return #"{"op":"void","reason":"r"}"#
    case 18:
      let qty = 1 + random.below(2)
      return
        #"{"op":"return","receipt":\#(1 + random.below(receipts)),"lines":[{"line":\#(line),"qty":\#(qty)}],"reason":"r"}"#
    case 19: return #"{"op":"paid_in","amount":"\#(cents(20))","reason":"r"}"#
    case 20: return #"{"op":"paid_out","amount":"\#(cents(20))","reason":"r"}"#
    case 21: return #"{"op":"customer_add","name":"Cu\#(random.below(99))"}"#
    case 22:
      let customer = 1 + random.below(max(1, register.nextCustomerNumber))
      return #"{"op":"attach_customer","customer_id":"C\#(customer)"}"#
    default:
      return random.below(3) == 0
        ? #"{"op":"close_day"}"# : #"{"op":"stock_adjust","sku":"TEE","delta":2,"reason":"r"}"#
    }
  }

  /// Drives `count` random requests from `seed` through a journaling lane.
  static func drive(seed: UInt64, count: Int) throws -> JournalLane {
    let lane = try JournalLane()
    var random = SplitMix64(seed: seed)
    for _ in 0..<count {
      lane.clock.advance(milliseconds: Int64(1 + random.below(90_000)))
      try lane.send(request(&random, register: lane.register))
    }
    return lane
  }

  /// The register's state as text, in a fixed order (dictionaries sorted): receipts as printed,
  /// and every part of the state a later request or report reads.
  static func digest(_ register: Register) -> String {
    var out: [String] = []
    out.append("order \(register.order)")
    out.append("totals \(register.totals)")
    out.append("parked \(register.parked)")
    for order in register.parked {
      // Kept by `apply` since the order was parked: the same as computing them now.
      let kept = register.orders.parkedTotals[order.id]
      out.append("parked totals \(kept.map { "\($0)" } ?? "missing")")
    }
    out.append("next order \(register.nextOrderID) receipt \(register.nextReceiptNumber)")
    out.append("last receipt \(String(describing: register.lastReceiptNumber))")
    out.append("products \(register.products.all)")
    out.append("base \(register.catalogBase)")
    out.append("store \(register.store)")
    out.append("day \(register.day)")
    for number in register.closedDays.keys.sorted() {
      out.append("closed \(String(describing: register.closedDays[number]))")
    }
    for sale in register.receipts.values { out.append(ReceiptRenderer.text(sale)) }
    for refund in register.returns.values { out.append(ReceiptRenderer.text(refund)) }
    for receipt in register.returnedQuantities.keys.sorted() {
      let lines = register.returnedQuantities[receipt] ?? [:]
      out.append("returned \(receipt): \(lines.sorted { $0.key < $1.key })")
    }
    for receipt in register.refunded.keys.sorted() {
      guard let state = register.refunded[receipt] else { continue }
      let cards = state.cards.map { "\($0.key.brand.rawValue) \($0.key.last4) \($0.value)" }
      out.append("refunded \(receipt): cash \(state.cash) cards \(cards.sorted())")
    }
    out.append("customers \(register.customers) next \(register.nextCustomerNumber)")
    out.append("operators \(register.operators) signed in \(String(describing: register.signedIn))")
    out.append("seq \(register.lastSequence) at \(String(describing: register.lastActivity))")
    return out.joined(separator: "\n")
  }
}

@Suite struct RandomHistoryTests {
  /// Digests of the seeded histories below as the register computed them before its state was
  /// split into parts (commit 81a76bc): the split must not change any state or receipt.
  /// Regenerated once when products gained `barcodes` (and Data/products.json its codes): with
  /// the old catalog and the new field taken out of the digest, the old digests still matched;
  /// and again when customers and orders gained their tax exemption (with `taxExempt: nil` and
  /// `taxExemption: nil` taken out, the previous digests matched); and again when tenders
  /// gained gift cards, store credit, store tenders and card_present (with the new fields at
  /// their defaults — Tender's nil sources, `giftCard: false`, `openAmount: false`, the zero
  /// gift card totals, `tenders: []` — taken out, the previous digests matched); and again
  /// when totals gained promotions (with `promotionDiscount: 0`, `promotionDiscounts: 0` and
  /// `promotions: []` taken out, the previous digests matched); and again when products
  /// gained their stock at other stores and the store its price-label prefixes (with those,
  /// `stores: []` and `priceBarcodePrefixes: []` taken out too, the digests of before both
  /// changes matched); and again when the store settings gained the receipt printer's (with
  /// those and `printerCodePage: cp437, receiptBarcode: code128, printer: nil` taken out, the
  /// digests of before all three changes matched); and again when the store settings gained
  /// `operatorIdleMinutes` (with `operatorIdleMinutes: 15, ` taken out, the digests matched);
  /// and again when a return's tax became the rate on the net refunded in all in its class
  /// (seed 5 only: two returns refund 3.69 and 1.55 of tax on 49.26 and 20.60 where the lines'
  /// shares of the sale's tax gave 3.70 and 1.54; the other seeds' digests did not change).
  /// And again, without such a proof, when three deliberate changes met: the store settings
  /// gained `cashRefunds` and `scanAddsToLine`, receipts number the lines of a product rung up
  /// on several lines (`#2 1 x …`), and the Z report names tenders in words and labels its
  /// anchor; taking out the two settings and the line numbers alone did not give the old
  /// digests back (the reports' words differ too), and the replay check below still holds.
  /// And again when receipts' "You saved" came to count discounts too and a receipt of gift
  /// cards alone dropped its item count and subtotal (with both put back as they were, the
  /// previous digests matched). And again when order lines gained the gift card a reload loads
  /// and the day's totals its reloads (with `, reloads: nil` and `, giftCardsReloaded: 0,
  /// giftCardsReloadedAmount: 0` taken out of the digest, the previous digests matched).
  /// Regenerate (only for a deliberate change of state or receipts) by printing
  /// `SHA256.hex(Array(RandomHistory.digest(live).utf8))` here.
  static let before: [UInt64: String] = [
    1: "b62a2b0976b5454c6b1a08e1245538d5649cfacb16c657df428869a7988b6716",
    2: "9e377f481bfea966538ad20edf44cf0d75c9e25a196b9e3784929f9394b4b106",
    3: "9d4a3521853742bc2cb948f812becce1ddafc9f1252c88b5515825df4f7230ff",
    4: "02122c8489e49eeccbde657ef604cff7381f8bf55b67e09059817d2b2845dee6",
    5: "5188644bb955d6fd323e83664a974158c03deb75cda04ba95c9648584519b34a",
    6: "ce324bbca4220cc02a939a10fad175da0b913ed8dac98fcd5037be196e509c49",
  ]

  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func aRandomHistory(seed: UInt64) throws {
    let lane = try RandomHistory.drive(seed: seed, count: 400)
    let live = lane.register
    let digest = RandomHistory.digest(live)
    #expect(SHA256.hex(Array(digest.utf8)) == Self.before[seed])
    // Replaying the journal rebuilds the same state, part by part.
    let replayed = try Register.replaying(lane.scan().records)
    #expect(RandomHistory.digest(replayed) == digest)
    // The history reached the parts worth checking.
    #expect(live.receipts.count > 3)
    #expect(!live.returns.isEmpty)
    #expect(!live.closedDays.isEmpty)
  }
}
