/// New clients: accepted up to the connection limit; at the limit, the connection idle
/// longest is closed to let one in, or, with none idle, the new client is refused.
extension Server {
  func acceptClients() {
    // Set once no connection could be closed to make room: nothing changes that before the
    // loop's next pass, so the clients still waiting are refused without looking again.
    var noneIdle = false
    while let fd = acceptor.next() {
      let now = monotonicMilliseconds()
      if connections.count >= maximumConnections {
        // Room is made by closing an idle connection, so that connections that send nothing
        // cannot keep a lane's terminal out; refused only when every one is busy.
        guard !noneIdle && closeIdlest(now: now) else {
          noneIdle = true
          if !acceptor.isRefusing {
            let subscribed = connections.filter { $0.subscription != nil }.count
            acceptor.startRefusing(
              "\(maximumConnections) clients are connected (the limit), none of them idle (\(subscribed) subscribed, \(connections.count - subscribed) with requests or replies in flight)"
            )
          }
          acceptor.refuse(fd)
          continue
        }
      } else {
        acceptor.stopMakingRoom()
      }
      acceptor.stopRefusing()
      let connection = Connection(
        id: nextConnectionID, fd: fd, peerUID: UnixSocket.peerUID(fd), clientBytes: clientBytes,
        now: now)
      nextConnectionID += 1
      Log.debug(
        "connection \(connection.id) opened (uid \(connection.peerUID.map(String.init) ?? "unknown"))"
      )
      connections.append(connection)
      connectionsByID[connection.id] = connection
      connectionsByFD[connection.fd] = connection
      touch(connection)
    }
  }

  /// True when `connection` may be closed to let a new client in, as far as the daemon's own
  /// state goes: it is idle between requests with nothing in flight — no line read and
  /// unanswered, none half sent, no reply unwritten, no PIN check or large reply being worked
  /// out — and has not subscribed (a display waiting for events is busy, not idle).
  private func isIdle(_ connection: Connection) -> Bool {
    !connection.isClosed && !connection.broken && !connection.readClosed
      && connection.subscription == nil && connection.holdsNothing && !connection.hasTurn
      && !isCheckingPIN(connection) && computingFor[connection.id] == nil
  }

  /// Closes the connection idle longest that may be closed (`isIdle`, and nothing in its
  /// socket either way: one with bytes waiting has just sent a request, or not read a reply
  /// yet), to let a new client in at the connection limit; false when there is none.
  private func closeIdlest(now: Int64) -> Bool {
    let candidates = connections.filter(isIdle).sorted {
      ($0.lastActive, $0.id) < ($1.lastActive, $1.id)
    }
    guard let connection = candidates.first(where: { UnixSocket.isQuiet($0.fd) }) else {
      return false
    }
    acceptor.noteClosedForRoom(limit: maximumConnections)
    Log.debug(
      "connection \(connection.id) closed to let a new client in (idle \(now - connection.lastActive) ms)"
    )
    discard(connection)
    if let index = connections.firstIndex(where: { $0 === connection }) {
      connections.remove(at: index)
    }
    return true
  }
}
