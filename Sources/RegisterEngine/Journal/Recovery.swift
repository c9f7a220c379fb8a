/// A journal that cannot be replayed, with what to do about it.
public struct RecoveryError: Error, CustomStringConvertible {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}

extension Register {
  /// Rebuilds a register by applying journal records in order: the same `apply` the live
  /// register uses, so the state — receipts, numbers, stock, the open order — comes back exactly.
  public static func replaying(
    _ records: some Sequence<JournalRecord>, progress: ((Int) -> Void)? = nil
  ) throws(RecoveryError) -> Register {
    var register = Register()
    try register.replay(records, progress: progress)
    return register
  }

  /// Applies more journal records, in order, to this register (records that follow the last
  /// one it has applied).
  public mutating func replay(
    _ records: some Sequence<JournalRecord>, progress: ((Int) -> Void)? = nil
  ) throws(RecoveryError) {
    var count = 0
    for record in records {
      let event: Event
      do {
        event = try Event.decode(
          type: record.type, data: record.data, currency: store.currency)
      } catch {
        // What was applied stays readable (its totals computed), as if replayed one by one.
        settleTotals()
        throw RecoveryError(
          "journal record seq \(record.sequence) (\(record.type)) cannot be read: \(error.description). "
            + "It may come from a newer registerd; run that version, or restore the journal from a backup."
        )
      }
      if let problem = event.receiptProblem(next: nextReceiptNumber) {
        settleTotals()
        throw RecoveryError(outOfTurn: record, problem)
      }
      // The open order's totals are computed when something reads them, not for each line.
      apply(
        event, at: record.at, operatorID: record.operatorID, sequence: record.sequence,
        deferringTotals: true)
      if let key = record.key { remember(key) }
      count += 1
      if count % 10_000 == 0 { progress?(count) }
    }
    settleTotals()
  }
}

extension RecoveryError {
  /// `record` cannot follow the records before it, for `problem` (start-up and `verify
  /// --events` say it in the same words).
  public init(outOfTurn record: JournalRecord, _ problem: String) {
    self.init(
      "journal record seq \(record.sequence) (\(record.type)) cannot follow the records before it: \(problem). "
        + "registerd never writes such a record; restore the journal from a backup.")
  }
}

extension Event {
  /// The receipt number this event gives: a sale's or a return's (they share one sequence).
  public var receiptGiven: Int? {
    if case .saleCompleted(_, let number, _, _, _) = self { return number }
    if case .returnCompleted(let refund) = self { return refund.receipt }
    return nil
  }

  /// Why this event, read from a journal whose next receipt number is `next`, cannot follow
  /// the records before it (nil: it can). `apply` takes `decide`'s word that a receipt number
  /// is never given twice; a record registerd did not write is checked, so that a replay never
  /// holds what no snapshot could (two receipts of one number). Gaps are allowed, as `apply`
  /// always allowed them.
  public func receiptProblem(next: Int) -> String? {
    guard let receipt = receiptGiven, receipt < next else { return nil }
    return "receipt \(receipt) was numbered already (the next receipt is \(next))"
  }
}
