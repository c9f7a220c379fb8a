/// The synchronous API: handle lines and write their changes on the calling thread, for tests,
/// tools and start-up (the daemon uses the staged API: `submit`, `nextWrite`, `finished`,
/// `takeReleasable`, with a writer thread doing the fsyncs).
extension RegisterService {
  /// Handles one batch of lines, writes its changes (one fsync), and returns one reply per line
  /// in the same order, plus the events that were committed.
  public func process(_ batch: [IncomingLine]) -> BatchResult {
    submit(batch)
    flush()
    groups.settleWithoutJournal()
    return takeReleasable()
  }

  /// Writes every staged group now, on this thread.
  public func flush() {
    while let work = nextWrite() {
      var work = work
      let error = journal?.write(&work)
      finished(work, error: error)
    }
  }

  /// Handles one batch of lines and returns one reply for each.
  public func handle(_ batch: [IncomingLine]) -> [OutgoingReply] {
    process(batch).replies
  }

  /// Handles a single line (a batch of one).
  public func handle(line: String, connection: Int = 0) -> String {
    handle([IncomingLine(connection: connection, bytes: Array(line.utf8))])[0].line
  }

  /// Journals and applies events that do not come from a client (start-up catalog changes),
  /// before any request is staged.
  public func commit(_ events: [Event]) throws(SystemError) {
    guard !events.isEmpty else { return }
    if let storageFailure {
      throw SystemError("append", code: 5, reason: "storage failed before: \(storageFailure)")
    }
    let pending = record(events, at: clock.now())
    do {
      try journal?.append(pending)
    } catch {
      // What is durable is the truth: the register is rebuilt from it.
      storageFailed(durableThrough: durableSequence, failure: error)
      throw error
    }
    // Written and fsynced: durable, so `subscribe` with an earlier `after` replays them.
    if let last = pending.last { groups.noteDurable(through: last.sequence) }
  }
}
