import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The rule of docs/PRICING.md, *Returns*, written again from the words, apart from
/// `SaleRefunds`: plain arithmetic on the sale's recorded lines, and the promotions' saving on
/// the units kept found by `PromotionReferenceTests.bruteForce` (every way of grouping them)
/// instead of `PromotionEngine`.
private struct RefundReference {
  struct Line {
    var number: Int
    var sku: String
    var quantity: Int64
    var unitPrice: Int64
    var net: Int64
    var promotion: Int64
    var promoted: Bool
    var group: Int
  }

  var lines: [Line] = []
  /// Each tax group's rate and the tax it charged.
  var groups: [(rate: Percent, tax: Int64)] = []
  var included: Bool
  var promotions: [Promotion]
  var promotionSaving: Int64
  /// What the returns so far gave back, per line.
  var refunded: [Int: (net: Int64, tax: Int64)] = [:]
  var returned: [Int: Int64] = [:]

  init(_ sale: CompletedSale) {
    included = sale.header.taxIncluded
    promotions = sale.promotions
    promotionSaving = sale.totals.promotionDiscounts
    var keys: [String] = []
    for line in sale.order.lines where !line.voided && !line.giftCard {
      guard let totals = sale.totals.lines.first(where: { $0.line == line.line }) else { continue }
      let key = sale.header.taxPerLine ? "line \(line.line)" : "\(line.taxClass) \(line.taxRate)"
      var group = keys.firstIndex(of: key) ?? -1
      if group < 0 {
        group = keys.count
        keys.append(key)
        let tax =
          sale.header.taxPerLine
          ? totals.tax
          : sale.totals.taxLines.first { $0.taxClass == line.taxClass && $0.rate == line.taxRate }?
            .tax ?? 0
        groups.append((line.taxRate, tax))
      }
      lines.append(
        Line(
          number: line.line, sku: line.sku, quantity: line.quantity,
          unitPrice: line.chargedUnitPrice.minorUnits, net: totals.net,
          promotion: totals.promotionDiscount,
          promoted: line.override == nil && line.discount == nil, group: group))
    }
  }

  var net: Int64 { lines.map(\.net).reduce(0, +) }
  var tax: Int64 { groups.map(\.tax).reduce(0, +) }

  /// `numerator / denominator` rounded half up (both non-negative).
  static func halfUp(_ numerator: Int64, _ denominator: Int64) -> Int64 {
    denominator == 0 ? 0 : (2 * numerator + denominator) / (2 * denominator)
  }

  static func part(_ amount: Int64, _ count: Int64, _ whole: Int64) -> Int64 {
    halfUp(amount * count, whole)
  }

  static func taxOf(_ amount: Int64, _ rate: Percent, included: Bool) -> Int64 {
    included
      ? halfUp(amount * rate.millionths, 100_000_000 + rate.millionths)
      : halfUp(amount * rate.millionths, 100_000_000)
  }

  /// `amount` over `weights` in proportion: floors, then a unit each to the largest
  /// remainders (the earlier first on a tie).
  static func share(_ amount: Int64, _ weights: [Int64]) -> [Int64] {
    let total = weights.reduce(0, +)
    guard total > 0 else { return weights.map { _ in 0 } }
    var parts = weights.map { amount * $0 / total }
    let order = weights.indices.sorted {
      let left = amount * weights[$0] % total
      let right = amount * weights[$1] % total
      return left != right ? left > right : $0 < $1
    }
    for index in order.prefix(Int(amount - parts.reduce(0, +))) { parts[index] += 1 }
    return parts
  }

  /// The first list of weights with a weight above zero decides; with none, the first member
  /// takes it all.
  static func share(_ amount: Int64, byFirstOf lists: [[Int64]]) -> [Int64] {
    if let weights = lists.first(where: { $0.contains { $0 > 0 } }) {
      return share(amount, weights)
    }
    let count = lists.first?.count ?? 0
    return (0..<count).map { $0 == 0 ? amount : 0 }
  }

  /// What the promotions save on the units kept once `after` units have come back, found by
  /// trying every grouping.
  func keptSaving(_ after: [Int: Int64]) -> Int64 {
    var units: [PromotionReferenceTests.Unit] = []
    for line in lines where line.promoted && line.unitPrice > 0 {
      for _ in 0..<(line.quantity - (after[line.number] ?? 0)) {
        units.append(.init(sku: line.sku, category: "", price: line.unitPrice))
      }
    }
    return PromotionReferenceTests.bruteForce(units, promotions)
  }

  /// Returns `requested` and says what each of its lines gets back.
  mutating func give(back requested: [(line: Int, quantity: Int64)]) -> [(net: Int64, tax: Int64)] {
    var after = returned
    for request in requested { after[request.line, default: 0] += request.quantity }
    let everything = lines.allSatisfy { after[$0.number] == $0.quantity }
    let netBefore = refunded.values.map(\.net).reduce(0, +)
    let taxBefore = refunded.values.map(\.tax).reduce(0, +)
    // Net: what the returned units were charged, less what the kept units cost more now.
    var owed = net
    if !everything {
      var target = lines.map { Self.part($0.net, after[$0.number] ?? 0, $0.quantity) }.reduce(0, +)
      if promotionSaving > 0 {
        let had = lines.map {
          $0.promotion - Self.part($0.promotion, after[$0.number] ?? 0, $0.quantity)
        }.reduce(0, +)
        target -= had - keptSaving(after)
      }
      owed = min(net, max(netBefore, target))
    }
    // (Requests name lines of the sale only: `lines` has each.)
    let members = requested.compactMap { request in lines.first { $0.number == request.line } }
    let charged = zip(requested, members).map { request, line in
      let before = returned[line.number] ?? 0
      return Self.part(line.net, before + request.quantity, line.quantity)
        - Self.part(line.net, before, line.quantity)
    }
    let prices = zip(requested, members).map { $0.quantity * $1.unitPrice }
    let nets = Self.share(
      max(0, owed - netBefore), byFirstOf: [charged, prices, requested.map(\.quantity)])
    // Tax: each group's rate on what the group has had back in all.
    var own = requested.map { _ in Int64(0) }
    for group in Set(members.map(\.group)) {
      let inGroup = members.indices.filter { members[$0].group == group }
      let ofGroup = lines.filter { $0.group == group }.map(\.number)
      let groupNet =
        ofGroup.map { refunded[$0]?.net ?? 0 }.reduce(0, +) + inGroup.map { nets[$0] }.reduce(0, +)
      let groupTax = ofGroup.map { refunded[$0]?.tax ?? 0 }.reduce(0, +)
      let due = Self.taxOf(groupNet, groups[group].rate, included: included)
      let parts = Self.share(
        max(0, due - groupTax), byFirstOf: [inGroup.map { nets[$0] }, inGroup.map { prices[$0] }])
      for (member, part) in zip(inGroup, parts) { own[member] = part }
    }
    let left = max(0, tax - taxBefore)
    let taxes = Self.share(
      everything ? left : min(left, own.reduce(0, +)), byFirstOf: [own, nets, prices])
    for (index, request) in requested.enumerated() {
      let before = refunded[request.line] ?? (0, 0)
      refunded[request.line] = (before.net + nets[index], before.tax + taxes[index])
    }
    returned = after
    return zip(nets, taxes).map { ($0, $1) }
  }
}

extension SplitMix64 {
  fileprivate mutating func int(_ range: ClosedRange<Int64>) -> Int64 {
    range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
  }
}

/// Random promotional sales and returns in every tax mode: each return refunds what the
/// reference says, no return gives back more than the sale charged (net and tax each), and a
/// sale returned whole gives back exactly its net and tax. The same history's back-office
/// export has gross − discounts − promotions = net on every sale and Z report row.
@Suite struct RefundPropertyTests {
  static let modes: [(rounding: String, inclusive: Bool)] = [
    ("per_total", false), ("per_line", false), ("per_total", true), ("per_line", true),
  ]

  /// Six products over two classes and two categories, and one to three promotions of any kind
  /// over them.
  static func catalog(_ random: inout SplitMix64, mode: Int) -> String {
    let rates = ["5.5", "7.5", "8.875", "20"]
    let skus = (0..<6).map { "P\($0)" }
    let products = skus.enumerated().map { index, sku in
      let price = decimal(random.int(1...6_000))
      let taxClass = index % 3 == 2 ? "reduced" : "standard"
      return #"{"sku": "\#(sku)", "name": "Item \#(index)", "description": "", "#
        + #""category": "\#(index % 2 == 0 ? "Even" : "Odd")", "price": "\#(price)", "#
        + #""tax_class": "\#(taxClass)"}"#
    }
    var promotions: [String] = []
    for index in 0..<Int(random.int(1...3)) {
      let list = skus.filter { _ in random.int(0...99) < 45 }
      let scope =
        list.isEmpty
        ? #""sku": "\#(random.pick(skus))""#
        : #""skus": [\#(list.map { "\"\($0)\"" }.joined(separator: ", "))]"#
      let price = decimal(random.int(100...9_000))
      let percent = random.pick(["10", "12.5", "33.333", "50", "100"])
      let rule =
        switch random.int(0...3) {
        case 0:
          #""kind": "quantity_price", "quantity": \#(random.int(2...3)), "price": "\#(price)""#
        case 1:
          #""kind": "buy_get", "buy": \#(random.int(1...2)), "get": 1, "percent_off": "\#(percent)""#
        case 2: #""kind": "mix_match", "quantity": \#(random.int(2...3)), "price": "\#(price)""#
        default: #""kind": "category_percent", "percent": "\#(percent)""#
        }
      // A percentage off is by category (which the sale records as the list of its SKUs).
      let kind =
        rule.hasPrefix(#""kind": "category"#)
        ? #""category": "\#(random.pick(["Even", "Odd"]))""# : scope
      promotions.append(#"{"id": "R\#(index)", "name": "R\#(index)", \#(kind), \#(rule)}"#)
    }
    let (rounding, inclusive) = modes[mode]
    return """
      {
        "store": {
          "name": "Random Lane", "address": [], "currency": "USD",
          "tax": {"classes": {"standard": "\(random.pick(rates))", "reduced": "\(random.pick(rates))"},
                  "default_class": "standard", "rounding": "\(rounding)",
                  "prices_include_tax": \(inclusive)}
        },
        "products": [\(products.joined(separator: ", "))],
        "promotions": [\(promotions.joined(separator: ", "))]
      }
      """
  }

  @Test(arguments: 0..<4)
  func randomReturnsRefundWhatTheRuleSaysAndAddUpToTheSale(mode: Int) throws {
    var random = SplitMix64(seed: 0x2EF0_0000 + UInt64(mode))
    var promoted = 0
    var partial = 0
    var failures = 0
    for history in 0..<8 {
      let lane = try JournalLane(catalogJSON: Self.catalog(&random, mode: mode))
      for sale in 1...12 {
        let context = "mode \(mode), history \(history), sale \(sale)"
        var units: Int64 = 0
        while units < 2 || (units < 8 && random.int(0...2) > 0) {
          let quantity = random.int(1...min(3, 8 - units))
          units += quantity
          let added = try lane.ok(
            Requests.Add(sku: "P\(random.int(0...5))", quantity: quantity))
          if random.int(0...9) == 0,
            let line = added["lines"]?.arrayValue?.last?["line"]?.int64Value
          {
            try lane.ok(
              Requests.Discount(line: Int(line), value: .percent(percent("15")), reason: "r"))
          }
        }
        if random.int(0...3) == 0 {
          try lane.ok(#"{"op":"discount","percent":"\#(random.int(1...30))","reason":"r"}"#)
        }
        let done = try lane.ok(Requests.Tender(.cash(amount: usd("5000.00"))))
        #expect(done["status"] == "completed", "\(context)")
        let number = Int(try #require(done["receipt"]?["number"]?.int64Value))
        let sold = try #require(lane.register.receipts[number])
        if sold.totals.promotionDiscounts > 0 { promoted += 1 }
        var reference = RefundReference(sold)
        // Returns of one to three lines at a time, until everything is back (or, now and
        // then, some of it is kept).
        let keepSome = random.int(0...4) == 0
        var netBack: Int64 = 0
        var taxBack: Int64 = 0
        while true {
          let open = reference.lines.filter { (reference.returned[$0.number] ?? 0) < $0.quantity }
          guard !open.isEmpty, !(keepSome && open.count == 1) else { break }
          var requested: [(line: Int, quantity: Int64)] = []
          for line in open where requested.isEmpty || random.int(0...2) == 0 {
            let left = line.quantity - (reference.returned[line.number] ?? 0)
            requested.append((line.number, random.int(1...left)))
          }
          let body = requested.map { #"{"line":\#($0.line),"qty":\#($0.quantity)}"# }
          let reply = try lane.ok(
            #"{"op":"return","receipt":\#(number),"lines":[\#(body.joined(separator: ","))],"reason":"r"}"#
          )
          let expected = reference.give(back: requested)
          let lines = try #require(reply["receipt"]?["lines"]?.arrayValue)
          let got = try lines.map { (try cents($0["net"]), try cents($0["tax"])) }
          let matches =
            got.count == expected.count && zip(got, expected).allSatisfy { $0 == $1 }
          #expect(matches, "\(context): \(requested) → \(got), the rule says \(expected)")
          for (net, tax) in got {
            #expect(net >= 0 && tax >= 0, "\(context)")
            netBack += net
            taxBack += tax
          }
          #expect(netBack <= reference.net && taxBack <= reference.tax, "\(context): never more")
          if !matches { failures += 1 }
          if failures > 3 { return }
        }
        if keepSome {
          partial += 1
        } else {
          #expect(netBack == reference.net && taxBack == reference.tax, "\(context): all back")
          #expect(
            (sold.header.taxIncluded ? netBack : netBack + taxBack)
              == sold.totals.total - sold.totals.giftCards, "\(context)")
        }
      }
      try lane.ok(Requests.CloseDay())
      // The journal replays to the same receipts and refunds.
      let records = lane.scan().records
      let replayed = try Register.replaying(records)
      #expect(RegisterState(replayed) == RegisterState(lane.register), "history \(history)")
      // Every sale and Z report row of the export: gross − discounts − promotions = net.
      var exporter = BackOfficeExporter(lane: "L")
      var checked = 0
      for record in records {
        for row in try exporter.apply(record) {
          let names: (net: String, sale: Bool)
          switch row.table {
          case .sales: names = ("net", true)
          case .zReports: names = ("net_sales", false)
          default: continue
          }
          let value = try JSONParser.parse(String(BackOfficeFormat.ndjson(row).dropLast()))
          let gross = try cents(value["gross"])
          let identity = try gross - cents(value["discounts"]) - cents(value["promotions"])
          #expect(identity == (try cents(value[names.net])), "history \(history): \(value)")
          if names.sale {
            // The sale's merchandise total is that net, with the tax on top unless included.
            let tax = mode >= 2 ? 0 : try cents(value["tax"])
            #expect(try cents(value["total"]) == identity + tax, "history \(history)")
          }
          checked += 1
        }
      }
      #expect(checked == 13, "history \(history): 12 sales and a Z report")
    }
    #expect(promoted >= 30, "promotions saved something on \(promoted) sales")
    #expect(partial >= 5, "\(partial) sales partly kept")
  }
}
