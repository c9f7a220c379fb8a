import RegisterEngine

/// One client connection: its framing state, the complete lines waiting to be handled and the
/// bytes waiting to be written.
final class Connection {
  let id: Int
  let fd: Int32
  let peerUID: UInt32?
  var framer = LineFramer()
  /// Complete request lines not yet handled (`nil`: a line that was too long).
  var queue: [[UInt8]?] = []
  private var output: [UInt8] = []
  private var outputStart = 0
  /// The client will send nothing more (it shut down its side or disconnected).
  var readClosed = false
  /// The connection failed; close it without writing anything more.
  var broken = false
  /// Live events this connection listens to, once it has subscribed.
  var subscription: Subscription?

  init(id: Int, fd: Int32, peerUID: UInt32?) {
    self.id = id
    self.fd = fd
    self.peerUID = peerUID
  }

  /// Bytes queued for the client and not yet written.
  var pendingOutput: Int { output.count - outputStart }

  /// Queues one line (a newline is added).
  func enqueue(line: String) {
    output.append(contentsOf: line.utf8)
    output.append(UInt8(ascii: "\n"))
  }

  /// Writes as much queued output as the socket takes without blocking.
  func flush() {
    while pendingOutput > 0 && !broken {
      let sent = output.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return UnixSocket.send(fd, base + outputStart, pendingOutput)
      }
      if sent < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK { break }
        broken = true
        break
      }
      outputStart += sent
    }
    if outputStart == output.count {
      output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
      outputStart = 0
    } else if outputStart > 1 << 16 && outputStart * 2 > output.count {
      output.removeSubrange(0..<outputStart)
      outputStart = 0
    }
  }

  /// True when there is nothing left to do and the connection can be closed.
  var isFinished: Bool {
    broken || (readClosed && queue.isEmpty && pendingOutput == 0)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
