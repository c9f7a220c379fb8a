#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Connections closed when they are finished, and the memory clients let go of given back.
extension Server {
  /// Closes the connections that are finished. Only a connection touched this pass can have
  /// become finished (everything that finishes one touches it).
  func closeFinished() {
    var closedAny = false
    for connection in touched where !connection.isClosed {
      // A PIN check in flight still owes the connection a reply.
      guard connection.isFinished && !isCheckingPIN(connection) else { continue }
      discard(connection)
      Log.debug("connection \(connection.id) closed")
      closedAny = true
    }
    if closedAny { connections.removeAll { $0.isClosed } }
  }

  /// Closes `connection` and forgets it (`connections` is pruned by the caller).
  func discard(_ connection: Connection) {
    poller.forget(connection.fd)
    close(connection.fd)
    connection.closed()
    connection.isClosed = true
    connectionsByID[connection.id] = nil
    connectionsByFD[connection.fd] = nil
    subscriptions.remove(connection)
    // A descriptor is free again: a paused listener can try once more.
    acceptor.resume()
  }

  /// Gives freed memory back to the system once clients have let go of `returnMemoryAfter`
  /// bytes (replies read, connections closed): malloc keeps it otherwise, and the daemon's
  /// resident size would stay where clients that never read took it.
  func returnFreedMemory() {
    guard clientBytes.hasFreed(atLeast: Self.returnMemoryAfter / 12),
      clientBytes.unreadReplies == 0 || clientBytes.hasFreed(atLeast: Self.returnMemoryAfter)
    else { return }
    _ = clientBytes.takeFreed()
    ProcessMemory.returnFree()
  }
}
