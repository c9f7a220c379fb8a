#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The end of the loop: what is in flight finished, every reply owed sent, and every
/// descriptor closed.
extension Server {
  func shutdown() {
    // Finish the PIN checks in flight and the write in flight, so the replies they owe can
    // still go out.
    if let pinChecks {
      pinChecks.waitUntilIdle()
      service.submit(pinChecks.takeFinished())
    }
    // The same for the replies being worked out.
    finishComputingReplies()
    // A job the printer finished is journaled as printed; one still trying stays pending and
    // prints at the next start.
    printer?.stop()
    peripherals.collectPrints()
    journal.waitUntilIdle()
    collectWrites(startNext: false)
    snapshots?.waitUntilIdle()
    collectSnapshots()
    service.flush()
    release()
    for connection in connections {
      connection.flush()
      close(connection.fd)
      connection.closed()
    }
    connections.removeAll()
    connectionsByID.removeAll()
    connectionsByFD.removeAll()
    subscriptions.removeAll()
    acceptor.closeListener(forgetting: nil)
    if let socketPath {
      unlink(socketPath)
      Log.info("stopped; removed \(socketPath)")
    } else {
      Log.info("stopped; the service manager keeps the socket")
    }
  }
}
