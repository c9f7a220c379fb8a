import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes snapshots (and the receipt archive files before them) on a thread of its own, so
/// neither the event loop nor the journal's writer waits for a state of many megabytes to be
/// encoded and synced. Says it is done with a byte on a pipe the loop polls.
package final class SnapshotWriter: @unchecked Sendable {
  private let dataDirectory: String
  private let queue = DispatchQueue(label: "registerd.snapshots")
  private let lock = Lock()
  private var completions: [Result<SnapshotFiles.Written, SystemError>] = []
  private let wakePipe: WakePipe
  /// The loop polls this.
  var notifyFD: Int32 { wakePipe.readFD }
  private(set) var isBusy = false

  package init?(dataDirectory: String) {
    guard let wakePipe = WakePipe() else { return nil }
    self.wakePipe = wakePipe
    self.dataDirectory = dataDirectory
  }

  /// Starts writing the snapshot of `register` as of `head` (one at a time).
  func start(_ register: Register, head: JournalHead) {
    isBusy = true
    queue.async { [self] in
      let result = Result { () throws(SystemError) in
        try SnapshotFiles.write(register, head: head, dataDirectory: dataDirectory)
      }
      lock.withLock { completions.append(result) }
      wakePipe.wake()
    }
  }

  /// Finished snapshots since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [Result<SnapshotFiles.Written, SystemError>] {
    wakePipe.drain()
    let done = lock.withLock {
      let taken = completions
      completions = []
      return taken
    }
    if !done.isEmpty { isBusy = false }
    return done
  }

  func waitUntilIdle() {
    queue.sync {}
  }
}
