import RegisterEngine

/// Snapshots written on their own thread when one is due and every change is durable; the
/// receipts a snapshot archived leave memory.
extension Server {
  /// Starts a snapshot when one is due and every change is durable (under constant load it
  /// waits for the first pause: a snapshot is of a state that is all on disk).
  func startSnapshot() {
    guard snapshotDue, let snapshots, !snapshots.isBusy, !journal.isBusy,
      let (register, head) = service.durableState
    else { return }
    snapshotDue = false
    snapshots.start(register, head: head)
  }

  /// Takes finished snapshots: the receipts they archived leave memory.
  func collectSnapshots() {
    guard let snapshots else { return }
    for result in snapshots.takeCompletions() {
      switch result {
      case .success(let written):
        service.archiveReceipts(written.archived)
        Log.info(
          "snapshot of record \(written.snapshot.sequence) written to \(written.snapshot.path) (\(written.bytes) bytes"
            + (written.archived.isEmpty
              ? ""
              : "; receipts of day(s) \(written.archived.map { String($0.day) }.joined(separator: ", ")) archived")
            + (written.removed > 0 ? "; \(written.removed) older snapshot(s) removed" : "") + ")")
      case .failure(let error):
        // Nothing is lost: start-up replays from the previous snapshot; the next close or
        // full segment tries again.
        Log.warning(
          "could not write a snapshot (\(error)); the journal has everything, start-up reads more of it"
        )
      }
    }
  }
}
