import Testing

@testable import RegisterEngine

/// True when `text` has a whole line equal to `line`.
private func hasLine(_ text: String, _ line: String) -> Bool {
  text.split(separator: "\n", omittingEmptySubsequences: false).contains { $0 == line }
}

/// True when `text` has a line that starts with `prefix`.
private func hasLine(_ text: String, startingWith prefix: String) -> Bool {
  text.split(separator: "\n").contains { $0.hasPrefix(prefix) }
}

@Suite struct CashRoundingTests {
  /// A balance ending in every cent from .x0 to .x9 (one exempt item at 10.00 … 10.09), and
  /// what settles it in cash, rounded half up to the increment:
  ///
  ///   balance  to 0.05          to 0.10
  ///   10.00    10.00 ( 0.00)    10.00 ( 0.00)
  ///   10.01    10.00 (−0.01)    10.00 (−0.01)
  ///   10.02    10.00 (−0.02)    10.00 (−0.02)
  ///   10.03    10.05 (+0.02)    10.00 (−0.03)
  ///   10.04    10.05 (+0.01)    10.00 (−0.04)
  ///   10.05    10.05 ( 0.00)    10.10 (+0.05)  exactly half goes up
  ///   10.06    10.05 (−0.01)    10.10 (+0.04)
  ///   10.07    10.05 (−0.02)    10.10 (+0.03)
  ///   10.08    10.10 (+0.02)    10.10 (+0.02)
  ///   10.09    10.10 (+0.01)    10.10 (+0.01)
  ///
  /// Paying 20.00 in cash, the change is 20.00 − the cash due.
  @Test(
    arguments: [
      ("0.05", "P0", 1000, 1000), ("0.05", "P1", 1001, 1000), ("0.05", "P2", 1002, 1000),
      ("0.05", "P3", 1003, 1005), ("0.05", "P4", 1004, 1005), ("0.05", "P5", 1005, 1005),
      ("0.05", "P6", 1006, 1005), ("0.05", "P7", 1007, 1005), ("0.05", "P8", 1008, 1010),
      ("0.05", "P9", 1009, 1010),
      ("0.10", "P0", 1000, 1000), ("0.10", "P1", 1001, 1000), ("0.10", "P2", 1002, 1000),
      ("0.10", "P3", 1003, 1000), ("0.10", "P4", 1004, 1000), ("0.10", "P5", 1005, 1010),
      ("0.10", "P6", 1006, 1010), ("0.10", "P7", 1007, 1010), ("0.10", "P8", 1008, 1010),
      ("0.10", "P9", 1009, 1010),
    ] as [(String, String, Int64, Int64)])
  func boundaryValuesOfTheIncrement(
    increment: String, sku: String, balance: Int64, due: Int64
  ) throws {
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: increment))
    let open = try lane.ok(Requests.Add(sku: sku))
    #expect(open["total"] == .string(decimal(balance)))
    #expect(open["balance_due"] == .string(decimal(balance)))
    #expect(open["cash_due"] == .string(decimal(due)))
    #expect(open["cash_rounding"] == nil)

    // Cash from the exact balance up to (not including) a rounded-up due would leave the sale
    // neither settled nor owing: refused, and nothing changes.
    let before = lane.snapshot
    for amount in balance..<max(balance, due) {
      let refused = try lane.send(Requests.Tender(.cash(amount: usd(decimal(amount)))))
      #expect(refused.errorCode == "invalid_amount", "\(decimal(amount))")
      #expect(lane.snapshot == before)
    }

    let done = try lane.ok(Requests.Tender(.cash(amount: usd("20.00"))))
    let rounding = due - balance
    #expect(done["status"] == "completed")
    #expect(done["total"] == .string(decimal(balance)))
    #expect(done["paid"] == "20.00")
    #expect(done["change_due"] == .string(decimal(2000 - due)))
    #expect(done["cash_rounding"] == (rounding == 0 ? nil : .string(decimal(rounding))))
    #expect(done["cash_due"] == nil)
    let receipt = try #require(done["receipt"]?["receipt"])
    #expect(receipt["cash_rounding"] == .string(decimal(rounding)))
    #expect(receipt["amount_due"] == .string(decimal(due)))
    #expect(receipt["change"] == .string(decimal(2000 - due)))
    let sale = try #require(lane.register.receipts[1])
    #expect(sale.cashRounding.minorUnits == rounding)
    #expect(sale.change.minorUnits == 2000 - due)
    // Σ tenders − change = total + cash rounding.
    #expect(sale.order.paid - sale.change.minorUnits == sale.totals.total + rounding)

    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(hasLine(text, receiptRow("TOTAL", decimal(balance))))
    #expect(hasLine(text, receiptRow("Change", decimal(2000 - due))))
    if rounding != 0 {
      #expect(hasLine(text, receiptRow("Cash rounding", decimal(rounding))))
      #expect(hasLine(text, receiptRow("Amount due", decimal(due))))
    } else {
      #expect(!text.contains("Cash rounding"))
      #expect(!text.contains("Amount due"))
    }
  }

  @Test(arguments: [("0.05", "P3"), ("0.10", "P5")])
  func theRoundedUpDueSettlesExactly(increment: String, sku: String) throws {
    // 10.03 → 10.05 and 10.05 → 10.10: tendering the cash due leaves no change.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: increment))
    let open = try lane.ok(Requests.Add(sku: sku))
    let due = try #require(open["cash_due"]?.stringValue)
    let done = try lane.ok(Requests.Tender(.cash(amount: usd(due))))
    #expect(done["status"] == "completed")
    #expect(done["change_due"] == "0.00")
    #expect(done["receipt"]?["receipt"]?["amount_due"] == .string(due))
  }

  @Test func aRoundedDownDueSettlesWithLessThanTheBalance() throws {
    // 10.02 is due as 10.00 in cash: 10.00 completes the sale (rounding −0.02, no change).
    // 10.02 in cash is not a whole number of 0.05 steps: it is refused, rather than giving
    // 0.02 back from a drawer that has no pennies.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P2"))
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    #expect(done["status"] == "completed")
    #expect(done["cash_rounding"] == "-0.02")
    #expect(done["change_due"] == "0.00")
    try lane.ok(Requests.Add(sku: "P2"))
    let exact = try lane.send(Requests.Tender(.cash(amount: usd("10.02"))))
    #expect(exact.errorCode == "invalid_amount")
    #expect(exact["error"]?["message"]?.stringValue?.contains("steps of 0.05") == true)
    #expect(lane.register.order.tenders.isEmpty)
  }

  @Test func taxIsAddedBeforeTheCashIsRounded() throws {
    // 9.99 + 9.99 × 7.5 % (0.74925 → 0.75) = 10.74 → 10.75 in cash (+0.01).
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    let open = try lane.ok(Requests.Add(sku: "TAXED"))
    #expect(open["tax"] == "0.75")
    #expect(open["total"] == "10.74")
    #expect(open["cash_due"] == "10.75")
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("11.00"))))
    #expect(done["cash_rounding"] == "0.01")
    #expect(done["change_due"] == "0.25")
  }

  @Test func partialCashBelowTheBalanceIsNotRounded() throws {
    // 10.03: 5.00 cash leaves 5.03 (due as 5.05 in cash); nothing is rounded until the cash
    // that settles the sale: 5.05 then completes it with +0.02.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P3"))
    let partial = try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    #expect(partial["status"] == "open")
    #expect(partial["paid"] == "5.00")
    #expect(partial["balance_due"] == "5.03")
    #expect(partial["cash_due"] == "5.05")
    #expect(partial["cash_rounding"] == nil)
    #expect(partial["receipt"] == nil)
    #expect(lane.register.receipts.isEmpty)

    let before = lane.snapshot
    for amount in ["5.03", "5.04"] {
      let refused = try lane.send(Requests.Tender(.cash(amount: usd(amount))))
      #expect(refused.errorCode == "invalid_amount")
    }
    #expect(lane.snapshot == before)

    let done = try lane.ok(Requests.Tender(.cash(amount: usd("5.05"))))
    #expect(done["status"] == "completed")
    #expect(done["paid"] == "10.05")
    #expect(done["cash_rounding"] == "0.02")
    #expect(done["change_due"] == "0.00")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(hasLine(text, receiptRow("Cash", "5.00")))
    #expect(hasLine(text, receiptRow("Cash", "5.05")))
    #expect(hasLine(text, receiptRow("Cash rounding", "0.02")))
    #expect(hasLine(text, receiptRow("Amount due", "10.05")))
  }

  @Test func zeroCashIsRefusedWhileCashIsDue() throws {
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P3"))
    let before = lane.snapshot
    let refused = try lane.send(Requests.Tender(.cash(amount: usd("0.00"))))
    #expect(refused.errorCode == "invalid_amount")
    #expect(lane.snapshot == before)
  }

  @Test func aCardForTheExactBalanceIsNeverRounded() throws {
    // 10.03 by card: no rounding, even though cash would be due as 10.05.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P3"))
    let done = try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    #expect(done["status"] == "completed")
    #expect(done["paid"] == "10.03")
    #expect(done["cash_rounding"] == nil)
    #expect(done["change_due"] == "0.00")
    let receipt = try #require(done["receipt"]?["receipt"])
    #expect(receipt["cash_rounding"] == "0.00")
    #expect(receipt["amount_due"] == "10.03")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(!text.contains("Cash rounding"))
    #expect(!text.contains("Amount due"))
    #expect(lane.register.receipts[1]?.cashRounding.minorUnits == 0)
  }

  @Test func cardFirstThenCashRoundsOnlyTheCashPart() throws {
    // 10.03: card 5.00 leaves 5.03, due as 5.05 in cash; 10.00 cash → +0.02, change 4.95.
    // Σ tenders − change = 5.00 + 10.00 − 4.95 = 10.05 = 10.03 + 0.02.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P3"))
    let partial = try lane.ok(
      Requests.Tender(.card(testCard(), amount: usd("5.00"))))
    #expect(partial["status"] == "open")
    #expect(partial["balance_due"] == "5.03")
    #expect(partial["cash_due"] == "5.05")
    let before = lane.snapshot
    #expect(
      try lane.send(Requests.Tender(.cash(amount: usd("5.04")))).errorCode
        == "invalid_amount")
    #expect(lane.snapshot == before)
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    #expect(done["status"] == "completed")
    #expect(done["cash_rounding"] == "0.02")
    #expect(done["change_due"] == "4.95")
    #expect(done["tenders"]?.arrayValue?.map { $0["amount"] } == ["5.00", "10.00"])
    let receipt = try #require(done["receipt"]?["receipt"])
    #expect(receipt["amount_due"] == "10.05")
    let sale = try #require(lane.register.receipts[1])
    #expect(sale.order.paid - sale.change.minorUnits == sale.totals.total + 2)
  }

  @Test func theCardPartDecidesWhichWayTheCashRounds() throws {
    // 10.03 all in cash rounds up (+0.02); after a 0.01 card the cash part is 10.02, which
    // rounds down to 10.00 (−0.02).
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P3"))
    let partial = try lane.ok(
      Requests.Tender(.card(testCard(), amount: usd("0.01"))))
    #expect(partial["cash_due"] == "10.00")
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.00"))))
    #expect(done["cash_rounding"] == "-0.02")
    #expect(done["change_due"] == "0.00")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(hasLine(text, receiptRow("Cash rounding", "-0.02")))
    #expect(hasLine(text, receiptRow("Amount due", "10.01")))
  }

  @Test func cashFirstThenACardForTheRestIsNotRounded() throws {
    // 10.03: 5.00 cash, then the card takes the exact 5.03 left.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    try lane.ok(Requests.Add(sku: "P3"))
    try lane.ok(Requests.Tender(.cash(amount: usd("5.00"))))
    let done = try lane.ok(Requests.Tender(.card(testCard(), amount: nil)))
    #expect(done["status"] == "completed")
    #expect(done["tenders"]?.arrayValue?.map { $0["amount"] } == ["5.00", "5.03"])
    #expect(done["cash_rounding"] == nil)
    #expect(done["receipt"]?["receipt"]?["cash_rounding"] == "0.00")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(!hasLine(text, startingWith: "Cash rounding"))
  }

  @Test func withoutCashRoundingThereIsNoCashDue() throws {
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: nil))
    let open = try lane.ok(Requests.Add(sku: "P3"))
    #expect(open["balance_due"] == "10.03")
    #expect(open["cash_due"] == nil)
    let done = try lane.ok(Requests.Tender(.cash(amount: usd("10.03"))))
    #expect(done["status"] == "completed")
    #expect(done["change_due"] == "0.00")
    #expect(done["cash_rounding"] == nil)
    #expect(done["receipt"]?["receipt"]?["cash_rounding"] == "0.00")
    let text = try #require(done["receipt"]?["text"]?.stringValue)
    #expect(!text.contains("Cash rounding"))
    #expect(!text.contains("Amount due"))
    // The original test store has no cash rounding either.
    let plain = try TestLane()
    #expect(try plain.ok(Requests.Add(sku: "JEANS"))["cash_due"] == nil)
  }

  @Test func theXReportSumsTheCashRounding() throws {
    // Five sales in a 0.05 store:
    //   10.03 cash 20.00  → +0.02, change 9.95
    //   10.07 cash 20.00  → −0.02, change 9.95
    //   10.04 cash 10.05  → +0.01, change 0.00
    //   10.03 card        →  0.00
    //   10.08 card 5.00, cash 10.00 (5.08 → 5.10) → +0.02, change 4.90
    // cash rounding 0.03; total 50.25; cash 20.00 + 20.00 + 10.05 + 10.00 = 60.05 (4);
    // card 10.03 + 5.00 = 15.03 (2); change 24.80.
    // Tenders − change = 75.08 − 24.80 = 50.28 = total + cash rounding.
    let lane = try TestLane(catalogJSON: cashCatalogJSON(increment: "0.05"))
    for (sku, tenders) in [
      ("P3", [#"{"op":"tender","type":"cash","amount":"20.00"}"#]),
      ("P7", [#"{"op":"tender","type":"cash","amount":"20.00"}"#]),
      ("P4", [#"{"op":"tender","type":"cash","amount":"10.05"}"#]),
      ("P3", [#"{"op":"tender","type":"card","card":\#(cardJSON())}"#]),
      (
        "P8",
        [
          #"{"op":"tender","type":"card","amount":"5.00","card":\#(cardJSON())}"#,
          #"{"op":"tender","type":"cash","amount":"10.00"}"#,
        ]
      ),
    ] {
      try lane.ok(Requests.Add(sku: sku))
      for tender in tenders { try lane.ok(tender) }
    }
    #expect(lane.register.receipts.count == 5)
    let result = try lane.ok(Requests.Report(kind: .x))
    let report = try #require(result["report"])
    #expect(report["sales_count"] == .int(5))
    #expect(report["total"] == "50.25")
    #expect(report["cash_rounding"] == "0.03")
    #expect(
      report["tenders"]
        == [
          .object(["type": "cash", "count": 4, "amount": "60.05"]),
          .object(["type": "card VISA", "count": 2, "amount": "15.03"]),
        ])
    #expect(report["change_given"] == "24.80")
    let text = try #require(result["text"]?.stringValue)
    #expect(hasLine(text, receiptRow("Cash rounding", "0.03")))
    #expect(hasLine(text, receiptRow("Total sales", "50.25")))
  }
}
