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
  let notifyFD: Int32
  private let signalFD: Int32
  private(set) var isBusy = false

  package init?(dataDirectory: String) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    self.dataDirectory = dataDirectory
    notifyFD = fds[0]
    signalFD = fds[1]
  }

  /// Starts writing the snapshot of `register` as of `head` (one at a time).
  func start(_ register: Register, head: JournalHead) {
    isBusy = true
    queue.async { [self] in
      let result = Result { () throws(SystemError) in
        try SnapshotFiles.write(register, head: head, dataDirectory: dataDirectory)
      }
      lock.withLock { completions.append(result) }
      var byte: UInt8 = 1
      _ = write(signalFD, &byte, 1)
    }
  }

  /// Finished snapshots since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [Result<SnapshotFiles.Written, SystemError>] {
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ read(notifyFD, $0.baseAddress, $0.count) }) > 0 {}
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
