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
      if let problem = replayProblem(event) {
        settleTotals()
        throw RecoveryError(
          "journal record seq \(record.sequence) (\(record.type)) cannot follow the records before it: \(problem). "
            + "registerd never writes such a record; restore the journal from a backup.")
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

extension Register {
  /// Why `event`, read from a journal, cannot follow what this register holds (nil: it can).
  /// `apply` takes `decide`'s word for these; a record registerd did not write is checked
  /// here, so that a replay never holds what no snapshot could (two receipts of one number).
  func replayProblem(_ event: Event) -> String? {
    var receipt: Int?
    if case .saleCompleted(_, let number, _, _, _) = event { receipt = number }
    if case .returnCompleted(let refund) = event { receipt = refund.receipt }
    if let receipt, receipt < nextReceiptNumber {
      return "receipt \(receipt) was numbered already (the next receipt is \(nextReceiptNumber))"
    }
    return nil
  }
}
