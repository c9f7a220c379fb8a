import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Hashes PINs off the event loop. A PBKDF2 costs about 0.13 s at the default iteration count
/// (more if the store raises it); done on the loop it would stop every client. A line that
/// carries a PIN is handed here with its `PINWork`; when the keys are derived the loop submits
/// the line with them (`IncomingLine.prepared`), and `decide` compares instead of hashing.
///
/// Per connection at most one line is here at a time (`maximumPerConnection`): the loop takes
/// no later line from that connection, and stops reading from it, until this one is handed
/// in, so replies and journal records keep the connection's order and a burst of sign-ins on
/// one connection queues behind itself rather than in front of everyone else. Work is done
/// first in, first out by a few worker threads (one fewer than the processors, at least one, so
/// the loop keeps a processor). When a result is ready a byte on a pipe wakes the loop.
final class PINChecks: @unchecked Sendable {
  /// PIN checks one connection may have in flight. One keeps its order trivially; a
  /// connection at the cap is neither read from nor taken from.
  static let maximumPerConnection = 1

  private struct Job {
    var line: IncomingLine
    var work: PINWork
  }

  private let lock = Lock()
  private var waiting: [Job] = []
  private var running = 0
  private let workers: Int
  /// Connections with a line here (touched on the loop thread only).
  private var inFlight: [Int: Int] = [:]
  /// Lines whose PINs are hashed, in the order they finished.
  private let finished: Completions<IncomingLine>
  /// The loop polls this.
  var notifyFD: Int32 { finished.notifyFD }
  private let idle = DispatchGroup()

  init?() {
    guard let finished = Completions<IncomingLine>() else { return nil }
    self.finished = finished
    let processors = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    workers = max(1, min(4, processors - 1))
  }

  /// True when `connection` is at its cap: take no line from it and do not read from it.
  func isBusy(_ connection: Int) -> Bool {
    // Asked for every connection the loop looks at; almost always nothing is in flight.
    !inFlight.isEmpty && (inFlight[connection] ?? 0) >= Self.maximumPerConnection
  }

  /// Starts the PIN work of `line` (from the loop thread).
  func start(_ line: IncomingLine, work: PINWork) {
    inFlight[line.connection, default: 0] += 1
    idle.enter()
    let spawn = lock.withLock {
      waiting.append(Job(line: line, work: work))
      guard running < workers else { return false }
      running += 1
      return true
    }
    if spawn { DispatchQueue.global().async { [self] in drain() } }
  }

  private func drain() {
    while let job = lock.withLock({ () -> Job? in
      guard !waiting.isEmpty else {
        running -= 1
        return nil
      }
      return waiting.removeFirst()
    }) {
      var line = job.line
      line.prepared = job.work.perform()
      finished.post(line)
      idle.leave()
    }
  }

  /// Lines whose PINs are hashed, in the order they finished (call on the loop thread when
  /// `notifyFD` is readable); each connection is free again for its next line.
  func takeFinished() -> [IncomingLine] {
    let done = finished.take()
    for line in done {
      inFlight[line.connection, default: 1] -= 1
      if inFlight[line.connection] == 0 { inFlight[line.connection] = nil }
    }
    return done
  }

  /// Waits until every check started is done (at shutdown, so their replies still go out).
  func waitUntilIdle() {
    idle.wait()
  }
}
