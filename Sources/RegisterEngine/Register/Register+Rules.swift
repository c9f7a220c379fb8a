extension Register {
  /// A rule a change breaks unless a manager approves it: why, and the code of the refusal
  /// when nobody does.
  struct ManagerRule {
    var reason: String
    var refusal: ErrorCode
  }

  /// The rule, judged on the state after `events`, that makes a change need a manager, if any:
  /// cash paid out beyond what the drawer should hold, or a line discounted (its own discount,
  /// its share of the order discount and a lowered price together) beyond the store's
  /// `discount_approval_limit`.
  func managerRule(events: [Event], orderAfter after: OrderAfter?, drawer: DayTotals)
    -> ManagerRule?
  {
    if let reason = cashShortfall(events, drawer: drawer) {
      return ManagerRule(reason: reason, refusal: .insufficientCash)
    }
    // An order the events leave as it is discounts nothing more than it did (every line is
    // measured against itself before), so only a changed one is judged.
    if requiresSignIn, let after, let reason = discountOverLimit(after) {
      return ManagerRule(reason: reason, refusal: .approvalRequired)
    }
    return nil
  }

  /// Gets a manager's approval for `reason`: the signed-in manager, or the one named in the
  /// request's `approve` with the right PIN. Throws `refusal` when there is none. The approval's
  /// PIN check adds the events that stand either way to `standing`.
  func approve(
    _ reason: String, refusal: ErrorCode, context: CommandContext, standing: inout [Event]
  ) throws(RegisterError) -> String {
    guard requiresSignIn else {
      throw RegisterError(
        refusal, "\(reason); with no operators set up there is no manager who could approve it")
    }
    if let current = currentOperator, current.role == .manager {
      return current.id
    }
    return try managerApproval(
      context: context, refusal: refusal, needs: "\(reason); that needs a manager",
      reason: "this: \(reason)", standing: &standing)
  }

  /// Why `events` pay out more cash than the drawer holds, or nil. Cash goes out in paid-outs
  /// and in cash refunds; the drawer must not be expected to hold less than nothing afterwards.
  func cashShortfall(_ events: [Event], drawer: DayTotals) -> String? {
    var out: Int64 = 0
    for event in events {
      switch event {
      case .paidOut(let amount, _):
        out = out.addingReportingOverflow(amount.minorUnits).partialValue
      case .returnCompleted(let refund):
        for tender in refund.refunds where tender.type == .cash {
          out = out.addingReportingOverflow(tender.amount.minorUnits).partialValue
        }
      case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
        .discountSet, .priceOverridden, .saleCompleted, .lineVoided, .orderVoided, .orderParked,
        .orderResumed, .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked,
        .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAdded, .customerAttached,
        .customerDetached, .wishlistAdded, .wishlistRemoved,
        .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn,
        .noSale, .receiptEmailed, .dayClosed, .printQueued, .printDone:
        // No cash leaves the drawer.
        continue
      }
    }
    guard out > 0, drawer.expectedCash < 0 else { return nil }
    return
      "paying out \(money(out).decimalString) in cash is more than the drawer should hold (\(money(day.totals.expectedCash).decimalString))"
  }

  /// Why a line of the order after a change is discounted beyond the approval limit, or nil.
  ///
  /// A line's total reduction is what a price override took off, plus its own discount, plus
  /// its share of the order discount, as a percentage of the line's amount before any of them
  /// (its unit price × quantity). Only a line whose percentage the change raised is judged, so
  /// a discount a manager approved earlier does not need approving again for every later
  /// change. Spreading the order discount over several lines may add a minor unit to a line's
  /// share; that is allowed.
  func discountOverLimit(_ after: (order: Order, totals: OrderTotals)) -> String? {
    guard let limit = store.discountApprovalLimit else { return nil }
    let before = Dictionary(
      totals.lines.map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
    for lineTotals in after.totals.lines {
      guard let line = after.order.lines.first(where: { $0.line == lineTotals.line }),
        let (reduction, base) = Self.reduction(of: line, totals: lineTotals), base > 0,
        reduction > 0
      else { continue }
      if let old = before[line.line],
        let oldLine = order.lines.first(where: { $0.line == line.line }),
        let (oldReduction, oldBase) = Self.reduction(of: oldLine, totals: old), oldBase > 0,
        Int128(reduction) * Int128(oldBase) <= Int128(oldReduction) * Int128(base)
      {
        continue
      }
      guard var allowed = try? limit.of(base) else { continue }
      if lineTotals.orderDiscount > 0 && after.totals.lines.count > 1 { allowed += 1 }
      guard reduction > allowed else { continue }
      let tenths = Int128(reduction) * 1000 / Int128(base)
      return
        "line \(line.line) would be \(tenths / 10).\(tenths % 10)% off (over the \(limit.decimalString)% a cashier may give)"
    }
    return nil
  }

  /// A line's reduction (override, own discount and order-discount share) and its amount before
  /// them, in minor units; nil if they do not fit.
  static func reduction(of line: OrderLine, totals: LineTotals) -> (Int64, Int64)? {
    do {
      let base = try Checked.multiply(line.unitPrice.minorUnits, line.quantity)
      let lowered = try Checked.subtract(base, totals.gross)
      let reduction = try Checked.add(
        lowered, try Checked.add(totals.lineDiscount, totals.orderDiscount))
      return (reduction, base)
    } catch {
      return nil
    }
  }
}
