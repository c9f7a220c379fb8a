/// The bounds the loop holds clients to.
extension Server {
  /// A client whose unread replies pass this many bytes is not handed more of its requests
  /// (nor read from) until it catches up, so a client that never reads cannot grow the
  /// daemon's memory. Its replies are counted as they are made, one request at a time, so it
  /// holds at most one reply more.
  static let outputLimit = 1 << 20
  /// A client holding fewer unread reply bytes than this is handed its next request even
  /// while the clients together hold `unreadReplyLimit`: one that reads its replies is served
  /// whatever the others leave unread.
  static let replyReserve = 16 << 10
  /// Bytes of a client's complete lines read ahead of what is handed to the service: it is
  /// read from no further while this many wait (more than a pass takes would only be held,
  /// and a client at its reply bound would leave them held). An unfinished line is not
  /// counted: the framer keeps it, up to the line length limit.
  static let readAhead = 16 << 10
  /// Memory is given back to the system once this much of what clients held is let go of,
  /// or once a twelfth of it is and no client holds an unread reply (so that what the last
  /// of them let go of is not kept).
  static let returnMemoryAfter = 12 << 20
  /// A client is not read from while the daemon holds this many bytes of its request lines
  /// (read and not yet answered, counted with `Connection.lineOverhead` each) plus its
  /// unfinished line; reading resumes as they are answered. With `outputLimit` this bounds
  /// what one client can make the daemon hold.
  static let inputLimit = 1 << 20
  /// Lines taken in one pass, shared among the clients with lines waiting (each gets at least
  /// one), so that one busy client cannot starve the others.
  static let linesPerPass = 256
  /// How long (milliseconds) one pass hands lines to the service before it writes the
  /// replies and looks for new requests: the rest wait their turn in the next pass.
  static let passBudget: Int64 = 10
  /// Requests of one client being handled at once (their replies wait for the journal).
  static let maximumOutstanding = 256
  /// Descriptors kept for the daemon's own use when the connection limit is derived from the
  /// descriptor limit. It holds 19 once started: the standard streams, the spare descriptor,
  /// the lock, the open segment, the listener, eight pipe ends (signals, the journal writer,
  /// PIN checks, snapshots) and the three of libdispatch's thread pool (an eventfd, an epoll
  /// and a timerfd, made the first time a start-up loads a snapshot or reads the journal on
  /// a second thread). While serving it opens more: a socket to the customer display, one to
  /// the receipt printer per job, an e-mail in the outbox, and at a close of day the day's
  /// receipt archive, the next segment before the old one is closed, and a snapshot's
  /// temporary file and directory. Measured with every connection slot taken, a printer and
  /// a display connected, an e-mail and a close of day: 22 at the peak
  /// (`ConnectionEndToEndTests.filesWhileEverySlotIsTaken` fails with a reserve of 21). 32
  /// leaves ten for what that test does not do at the same moment (a catalog reloaded on
  /// SIGHUP, a print job and an e-mail at once).
  package static let reservedDescriptors = 32
  /// How long an incomplete line may wait when fewer than `reservedSlots` slots are free.
  static let pressureIdleTimeout: Int64 = 1000

  /// The connection limit the descriptor limit leaves room for (at most 1000).
  package static func defaultMaximumConnections() -> Int {
    guard let limit = descriptorLimit(), limit < 1_000_000 else { return 1000 }
    return max(1, min(1000, limit - reservedDescriptors))
  }

  /// When fewer slots than this are free, clients in the middle of a line get only
  /// `pressureIdleTimeout` to finish it, so slow clients cannot keep new ones out.
  var reservedSlots: Int { max(1, min(8, maximumConnections / 8)) }

  /// The idle timeout in force: shorter when the connection table is nearly full.
  var currentIdleTimeout: Int64 {
    maximumConnections - connections.count < reservedSlots
      ? min(idleTimeout, Self.pressureIdleTimeout) : idleTimeout
  }
}
