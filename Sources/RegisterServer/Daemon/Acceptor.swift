import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The listening socket: clients accepted, or answered `too_many_connections` and closed when
/// they cannot be served (a spare descriptor answers them when descriptors run out), the
/// listener paused after an accept error it cannot answer, and each episode of refusals, or of
/// idle connections closed to make room, logged once.
final class Acceptor {
  /// How long the listener rests after an accept error it cannot answer (descriptors or
  /// memory exhausted), unless a connection closes first.
  static let backOff: Int64 = 100

  /// The listening socket (-1 once a drain has closed it).
  private(set) var listenFD: Int32
  /// A descriptor held in reserve (on /dev/null): when accept runs out of descriptors it is
  /// closed to accept the waiting client, answer it `too_many_connections` and reopened.
  private var spareFD: Int32 = -1
  /// While set (monotonic milliseconds), the listener is not polled: accept failed for want
  /// of resources. A closing connection ends the pause early.
  private(set) var pausedUntil: Int64?
  /// Why new clients are being refused (logged once when it starts), and how many were.
  private var refusing: String?
  private var refusedCount = 0
  /// True while the connection limit is reached and idle connections are closed to let new
  /// ones in (logged once when it starts), and how many were.
  private var makingRoom = false
  private var closedForRoom = 0
  /// Where a refused client's request is read to (so that closing does not reset it).
  private lazy var scratch = [UInt8](repeating: 0, count: 65_536)

  init(listenFD: Int32) {
    self.listenFD = listenFD
  }

  /// True during an episode of refusals.
  var isRefusing: Bool { refusing != nil }

  /// Makes the listener non-blocking and takes the spare descriptor.
  func start() {
    UnixSocket.setNonBlocking(listenFD)
    spareFD = openSpare()
  }

  /// Ends a pause that is over.
  func endPause(now: Int64) {
    if let until = pausedUntil, until <= now { pausedUntil = nil }
  }

  /// Tells the poller whether to watch the listener (not while paused, nor while draining).
  func watch(with poller: EventPoller, draining: Bool) {
    if listenFD >= 0 {
      poller.watch(listenFD, for: pausedUntil == nil && !draining ? Int16(POLLIN) : 0)
    }
  }

  /// The next client waiting, accepted (close-on-exec, non-blocking); nil when none is left
  /// to accept now (an accept error is logged as the start of refusals, and may pause the
  /// listener).
  func next() -> Int32? {
    while true {
      let fd = retryingOnInterrupt { accept(listenFD, nil, nil) }
      if fd < 0 {
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK:
          return nil
        case ECONNABORTED:
          continue
        case EMFILE, ENFILE:
          // Out of descriptors: the client would wait in the backlog, and poll would report
          // the listener ready again at once. Use the spare descriptor to answer it.
          startRefusing("out of file descriptors (\(SystemError("accept", code: code)))")
          if answerWithSpare() { continue }
          pause()
          return nil
        default:
          startRefusing("accept failed: \(SystemError("accept", code: code))")
          pause()
          return nil
        }
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      UnixSocket.setNonBlocking(fd)
      return fd
    }
  }

  /// Answers a client that cannot be served `too_many_connections` and closes it.
  func refuse(_ fd: Int32) {
    UnixSocket.setNonBlocking(fd)
    let line =
      JSONValue.object([
        "id": .null, "ok": false,
        "error": RegisterError(
          .tooManyConnections, "registerd has too many clients connected; try again later"
        ).json,
      ]).serialized + "\n"
    let bytes = Array(line.utf8)
    _ = bytes.withUnsafeBytes { raw -> Int in
      guard let base = raw.baseAddress else { return 0 }
      return UnixSocket.send(fd, base, raw.count)
    }
    // Closing with the client's request unread would reset the connection, and the client
    // could lose the line above; read what it sent so far first.
    _ = scratch.withUnsafeMutableBytes { raw in
      retryingOnInterrupt { recv(fd, raw.baseAddress, raw.count, 0) }
    }
    close(fd)
    refusedCount += 1
  }

  /// Frees the spare descriptor to accept one waiting client and refuse it, then takes the
  /// spare back. False when that was not possible (the caller backs off).
  private func answerWithSpare() -> Bool {
    guard spareFD >= 0 else {
      spareFD = openSpare()
      return false
    }
    close(spareFD)
    spareFD = -1
    let fd = retryingOnInterrupt { accept(listenFD, nil, nil) }
    if fd >= 0 { refuse(fd) }
    spareFD = openSpare()
    return fd >= 0 && spareFD >= 0
  }

  private func openSpare() -> Int32 {
    retryingOnInterrupt { open("/dev/null", O_RDONLY | O_CLOEXEC) }
  }

  /// Stops polling the listener for a while (a closing connection resumes it sooner).
  private func pause() {
    pausedUntil = monotonicMilliseconds() + Self.backOff
  }

  /// A descriptor is free again: a paused listener can try once more.
  func resume() {
    pausedUntil = nil
  }

  /// Logs, once per episode, why new clients are refused.
  func startRefusing(_ reason: String) {
    guard refusing == nil else { return }
    refusing = reason
    Log.warning("refusing new connections: \(reason); they get too_many_connections")
  }

  /// Ends an episode of refusals (a client was accepted), saying how many were refused.
  func stopRefusing() {
    guard refusing != nil else { return }
    Log.info("accepting connections again (\(refusedCount) refused meanwhile)")
    refusing = nil
    refusedCount = 0
  }

  /// Counts an idle connection closed to let a new client in at `limit` connections, logging
  /// the start of the episode once.
  func noteClosedForRoom(limit: Int) {
    if !makingRoom {
      makingRoom = true
      Log.warning(
        "\(limit) clients are connected (the limit): closing the connections idle longest (not subscribed, nothing in flight) to let new ones in"
      )
    }
    closedForRoom += 1
  }

  /// Ends an episode at the connection limit (a client was let in without closing another),
  /// saying how many idle connections were closed.
  func stopMakingRoom() {
    guard makingRoom else { return }
    Log.info(
      "below the connection limit again (\(closedForRoom) idle connection(s) were closed to let new ones in)"
    )
    makingRoom = false
    closedForRoom = 0
  }

  /// Closes the listener and the spare descriptor (a drain: new clients are refused at once;
  /// under socket activation the service manager's copy stays open). With `poller`, it is
  /// told first.
  func closeListener(forgetting poller: EventPoller?) {
    if listenFD >= 0 {
      poller?.forget(listenFD)
      close(listenFD)
      listenFD = -1
    }
    if spareFD >= 0 {
      close(spareFD)
      spareFD = -1
    }
  }
}
