import RegisterEngine

/// The lines read handed to the service, each client its share of a pass (one busy client
/// cannot starve the others), and a line with a PIN to hash handed to the PIN checkers.
extension Server {
  /// True when lines of the connection can be handed to the service now.
  func canTakeLines(_ connection: Connection) -> Bool {
    !connection.broken && connection.hasWaitingLine && hasReplyRoom(connection)
      && connection.outstanding < Self.maximumOutstanding && !isCheckingPIN(connection)
      && (computingFor.isEmpty || computingFor[connection.id] == nil)
      && !subscriptions.isCatchingUp(connection)
  }

  /// Hands the service the lines waiting on connections, after the lines whose PINs were
  /// hashed meanwhile (`pinsChecked`: the PIN checkers' wake-up was readable this pass; each
  /// finished line is put in the list before its byte is written, so a byte found means its
  /// line is there to take, and a byte left over from a line already taken only means an
  /// empty take on a later pass).
  func handleQueuedLines(pinsChecked: Bool) {
    // Lines whose PINs were hashed meanwhile go first: their connections waited for them.
    if pinsChecked, let pinChecks {
      for line in pinChecks.takeFinished() {
        let bytes = service.submit(line)
        // The line it waited for was the last it took. Free for its next lines, and to be
        // read from again.
        if let connection = connectionsByID[line.connection] {
          connection.madeReply(bytes: bytes)
          touch(connection)
        }
      }
    }
    // Connections whose lines were not waiting their turn come first, then the turns.
    fresh.removeAll(keepingCapacity: true)
    for connection in mayHaveLines {
      connection.mayHaveLines = false
      if !connection.isClosed && !connection.hasTurn && canTakeLines(connection) {
        fresh.append(connection)
      }
    }
    mayHaveLines.removeAll(keepingCapacity: true)
    // The clients that sent least first: a lane with one request is not kept waiting behind
    // clients that arrived with a pile of them at the same moment.
    if fresh.count > 1 { fresh.sort { $0.input.unframedCount < $1.input.unframedCount } }
    let waitingTurns = turns.count - turnsHead
    let contenders = fresh.count + waitingTurns
    guard contenders > 0 else { return }
    let share = max(1, Self.linesPerPass / contenders)
    let deadline = monotonicMilliseconds() + Self.passBudget
    var next = 0
    while next < fresh.count && monotonicMilliseconds() < deadline {
      serve(fresh[next], share: share, until: deadline)
      next += 1
    }
    if next < fresh.count {
      // Out of time: they wait their turn like the others (a request that arrives meanwhile
      // comes first).
      for connection in fresh[next...] {
        connection.hasTurn = true
        turns.append(connection)
      }
    } else {
      // The turns waiting when the pass began, oldest first (one served goes to the back).
      var served = 0
      while served < waitingTurns && monotonicMilliseconds() < deadline {
        let connection = turns[turnsHead]
        turnsHead += 1
        served += 1
        connection.hasTurn = false
        guard !connection.isClosed, canTakeLines(connection) else { continue }
        serve(connection, share: share, until: deadline)
      }
    }
    if turnsHead == turns.count {
      turns.removeAll(keepingCapacity: true)
      turnsHead = 0
    } else if turnsHead > 256 && turnsHead * 2 > turns.count {
      turns.removeSubrange(0..<turnsHead)
      turnsHead = 0
    }
  }

  /// Hands the service up to `share` of the connection's lines (fewer at its bounds, or once
  /// `deadline` passes); one with lines left waits for its next turn.
  private func serve(_ connection: Connection, share: Int, until deadline: Int64) {
    // Looked at again next pass: its bounds change with what was taken.
    touch(connection)
    // One line at a time, its reply counted before the next is taken: a client that does not
    // read is handed no line once it is at its bound, whatever the size of its replies.
    var taken = 0
    while taken < share && connection.outstanding < Self.maximumOutstanding
      && hasReplyRoom(connection), let line = connection.takeLine()
    {
      taken += 1
      // A line with a PIN to hash stops this connection's lines here: the rest wait for it.
      if handOffPINCheck(line, of: connection) { return }
      connection.madeReply(
        bytes: service.submit(IncomingLine(connection: connection.id, bytes: line)))
      if taken & 15 == 0 && monotonicMilliseconds() >= deadline { break }
    }
    if canTakeLines(connection) {
      connection.hasTurn = true
      turns.append(connection)
    }
  }

  /// True while a line of `connection` has its PIN hashed: its later lines wait (order), and it
  /// is not read from (the cap on PIN checks in flight).
  func isCheckingPIN(_ connection: Connection) -> Bool {
    pinChecks?.isBusy(connection.id) ?? false
  }

  /// Hands `line` to the PIN workers when it carries a PIN to hash; true when it did. The lines
  /// taken before it are submitted already, so its work is worked out against current state.
  private func handOffPINCheck(_ line: [UInt8]?, of connection: Connection) -> Bool {
    guard let pinChecks, let line, let work = service.pinWork(for: line) else { return false }
    pinChecks.start(IncomingLine(connection: connection.id, bytes: line), work: work)
    return true
  }

}
