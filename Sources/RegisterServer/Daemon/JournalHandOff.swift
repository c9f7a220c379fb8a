import RegisterEngine

/// The loop's side of the journal: staged groups handed to the writer thread (or written on
/// the loop without one), finished writes handed back to the service, and after a failed
/// write, storage tried again when `StorageRetry` says (the register refuses changes until a
/// try succeeds).
final class JournalHandOff {
  let writer: JournalWriter?
  /// When to try storage again after a failed write.
  private var retry = StorageRetry()
  private let service: RegisterService
  /// Called when storage works again after a failure (the register takes changes again).
  var onStorageWorksAgain: () -> Void = {}

  init(writer: JournalWriter?, service: RegisterService) {
    self.writer = writer
    self.service = service
  }

  /// The writer's wake-up, for the loop to poll.
  var notifyFD: Int32? { writer?.notifyFD }
  /// True while a write is outstanding on the writer's thread.
  var isBusy: Bool { writer?.isBusy == true }
  /// When the next try of storage is due.
  var retryDue: Int64? { retry.due }

  /// Hands the staged groups of journal records to the writer thread, which writes them after
  /// the ones it has (without one, writes them here).
  func startWrite() {
    guard let writer else {
      service.flush()
      return
    }
    while let work = service.nextWrite() { writer.start(work) }
  }

  /// Takes finished writes from the writer thread and (unless stopping) starts the next one.
  /// True when a write that succeeded ended a segment (a snapshot is due).
  func collectWrites(startNext: Bool = true) -> Bool {
    guard let writer else { return false }
    var endedSegment = false
    for (work, error) in writer.takeCompletions() {
      service.finished(work, error: error)
      if error == nil, work.endedSegment { endedSegment = true }
    }
    if let tried = writer.takeResumed() { storageTried(tried, now: monotonicMilliseconds()) }
    if startNext { startWrite() }
    return endedSegment
  }

  /// Waits for the writes in flight (shutdown).
  func waitUntilIdle() {
    writer?.waitUntilIdle()
  }

  /// After a failed write (the register was rebuilt from the journal and refuses changes):
  /// tries storage again when a try is due (`StorageRetry`) and no write is outstanding, on
  /// the writer's thread.
  func tendStorage(now: Int64) {
    guard service.storageFailure != nil else { return }
    guard retry.since != nil else {
      retry.failed(at: now)
      return
    }
    guard let due = retry.due, due <= now else { return }
    guard let writer else {
      retry.trying()
      storageTried(
        service.retryStorage() ? nil : SystemError("retry", code: 5, reason: ""), now: now)
      return
    }
    guard !writer.isBusy, !writer.isResuming else { return }
    retry.trying()
    writer.resume()
  }

  /// A try of storage came back: with no error (and the register read back if it had not
  /// been) the register takes changes again; otherwise the next try is scheduled.
  private func storageTried(_ error: SystemError?, now: Int64) {
    if error == nil, service.storageWorksAgain() {
      let (milliseconds, tries, last) = retry.recovered(at: now)
      Log.info(
        "storage works again after \(milliseconds) ms (\(tries) failed tries"
          + (last.map { ", the last: \($0)" } ?? "") + "); taking changes")
      onStorageWorksAgain()
    } else {
      retry.failed(at: now, error)
    }
  }
}
