#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The drain (the first SIGTERM or SIGINT): no new clients, and each connected one served up
/// to what it had sent when the signal came.
extension Server {
  /// Stops accepting and lets the connected clients finish: each is read up to what the
  /// kernel holds for it now (what it sent before the signal), every one of those lines is
  /// answered and made durable, then it is closed; `Drain.grace` bounds the wait.
  func startDrain(_ signalName: String) {
    // Clients that connected before the signal but were not accepted yet wait in the
    // listener's backlog: take them too (closing the listener would reset them).
    acceptClients()
    drain.start(now: monotonicMilliseconds(), connections: connections.count)
    notifier?.stopping(status: "draining \(connections.count) connection(s)")
    // Closed, not only left unpolled: new clients are refused at once (under socket
    // activation the service manager's copy stays open, and they wait for the next start).
    acceptor.closeListener(forgetting: poller)
    // Whether each connection is read from changes with the drain.
    touchAll()
    var held = 0
    for connection in connections where !connection.readClosed && !connection.broken {
      var count: Int32 = 0
      if ioctl(connection.fd, UInt(FIONREAD), &count) == 0, count > 0 {
        connection.drainAllowance = Int(count)
        held += Int(count)
      } else {
        finishDrainInput(connection)
      }
    }
    Log.info(
      "received \(signalName): draining \(connections.count) connection(s) "
        + "(\(held) bytes of requests still to read), new connections refused"
    )
  }

  /// The connection has been read up to what it had sent when the drain began: no more of its
  /// input is read. A client that had also closed its side gets its unfinished last line
  /// answered, as usual at end of stream.
  func finishDrainInput(_ connection: Connection) {
    connection.drainAllowance = 0
    var byte: UInt8 = 0
    let peeked = retryingOnInterrupt {
      recv(connection.fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
    }
    if peeked == 0 {
      connection.receiveEnd()
    } else {
      connection.drainInputDone = true
    }
  }
}
