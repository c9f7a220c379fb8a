#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading clients within their bounds: input held, lines read ahead, unread replies.
extension Server {
  /// True when the connection may be read from: it is open, below its input bound, has
  /// fewer than `readAhead` bytes of lines waiting, and may be handed lines as far as its
  /// unread replies go (a client at a bound is left in the kernel's buffers, which slows it
  /// down), and, while draining, still owes bytes it had sent before the drain began.
  func wantsInput(_ connection: Connection) -> Bool {
    !connection.readClosed && !connection.broken && connection.heldInput < Self.inputLimit
      && connection.input.unframedCount < Self.readAhead && hasReplyRoom(connection)
      && !isCheckingPIN(connection) && (!drain.isActive || connection.drainAllowance > 0)
  }

  /// True when the client may be handed another request as far as unread replies go: it
  /// holds less than `replyReserve`, or less than its `outputLimit` while all clients
  /// together hold less than `unreadReplyLimit`. A client held back here has replies unread
  /// (queued, or waiting to be durable): it is touched, and looked at again, when they are
  /// written or released.
  func hasReplyRoom(_ connection: Connection) -> Bool {
    let unread = connection.unreadReplies
    return unread < Self.replyReserve
      || (unread < Self.outputLimit && clientBytes.unreadReplies < unreadReplyLimit)
  }

  func read(_ connection: Connection, now: Int64) {
    touch(connection)
    // Read what is there now, up to 1 MiB a pass and never past the input bound; poll brings
    // us back for the rest.
    for _ in 0..<16 where wantsInput(connection) {
      // While draining, no byte past what the client had sent when the drain began.
      // No more than the read-ahead leaves room for.
      let room = Self.readAhead - connection.input.unframedCount
      let wanted = min(
        readBuffer.count, room, drain.isActive ? connection.drainAllowance : readBuffer.count)
      let count = readBuffer.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { recv(connection.fd, raw.baseAddress, wanted, 0) }
      }
      if count > 0 {
        connection.receive(readBuffer[0..<count], now: now)
        if drain.isActive {
          connection.drainAllowance -= count
          if connection.drainAllowance <= 0 {
            finishDrainInput(connection)
            return
          }
        }
        if count < wanted { return }
      } else if count == 0 {
        // End of stream: answer every line (an unfinished last one included), then close.
        connection.receiveEnd()
        return
      } else {
        if errno == EAGAIN || errno == EWOULDBLOCK { return }
        connection.readClosed = true
        connection.broken = true
        return
      }
    }
  }
}
