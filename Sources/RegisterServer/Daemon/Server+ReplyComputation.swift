import RegisterEngine

/// Large replies (`catalog_export`, `customer_history`) worked out off the loop, one after
/// another, each handed out in its place once done.
extension Server {
  /// Starts working out the next reply when its thread is free: the oldest waiting whose
  /// connection has room in its output (a client that does not read is not given a second
  /// large reply before it has read the first), and none while the clients together hold
  /// `unreadReplyLimit` of replies unread and one of them holds a large reply unread; with
  /// `ignoringOutput`, at shutdown, any. One whose connection has gone is dropped unworked:
  /// its place among the held replies is given back empty, for no one.
  func startComputingReplies(ignoringOutput: Bool = false) {
    guard let replyComputer else { return }
    let new = service.takeComputations()
    for computation in new { computingFor[computation.connection, default: 0] += 1 }
    waitingComputations.append(contentsOf: new)
    guard !replyComputer.isBusy, !waitingComputations.isEmpty else { return }
    let overLimit =
      !ignoringOutput && clientBytes.unreadReplies >= unreadReplyLimit && holdsLargeReply()
    var index = 0
    while index < waitingComputations.count {
      let computation = waitingComputations[index]
      guard let connection = connectionsByID[computation.connection], !connection.broken else {
        waitingComputations.remove(at: index)
        finishComputation(computation.ticket, for: computation.connection, bytes: [])
        continue
      }
      guard !overLimit && (ignoringOutput || connection.unreadReplies < Self.outputLimit) else {
        index += 1
        continue
      }
      waitingComputations.remove(at: index)
      replyComputer.start { (computation.ticket, computation.connection, computation.run()) }
      return
    }
  }

  /// True when a client holds more unread replies than its `outputLimit`: a large reply
  /// (an ordinary one is not handed out past that limit but for the last one taken). Asked
  /// only while a large reply waits and the clients are at `unreadReplyLimit`.
  private func holdsLargeReply() -> Bool {
    connections.contains { $0.pendingOutput > Self.outputLimit }
  }

  /// Takes the reply worked out meanwhile (`release` sends it, in its place) and starts the
  /// next.
  func collectComputedReplies() {
    takeComputedReplies()
    startComputingReplies()
  }

  private func takeComputedReplies() {
    guard let replyComputer else { return }
    for (ticket, connection, bytes) in replyComputer.takeCompletions() {
      finishComputation(ticket, for: connection, bytes: bytes)
    }
  }

  private func finishComputation(_ ticket: Int, for connection: Int, bytes: [UInt8]) {
    service.computed(ticket, bytes: bytes)
    if let count = computingFor[connection], count > 1 {
      computingFor[connection] = count - 1
    } else {
      computingFor[connection] = nil
      // Its lines can be taken again.
      if let connection = connectionsByID[connection] { touch(connection) }
    }
  }

  /// Works out every reply still owed (shutdown): none is left waiting.
  func finishComputingReplies() {
    guard let replyComputer else { return }
    while true {
      startComputingReplies(ignoringOutput: true)
      guard replyComputer.isBusy else { return }
      replyComputer.waitUntilIdle()
      takeComputedReplies()
    }
  }
}
