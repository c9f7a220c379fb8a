import RegisterEngine

/// Writes snapshots (and the receipt archive files before them) on a thread of its own, so
/// neither the event loop nor the journal's writer waits for a state of many megabytes to be
/// encoded and synced. Says it is done with a byte on a pipe the loop polls.
package final class SnapshotWriter: @unchecked Sendable {
  private let dataDirectory: String
  private let task: BackgroundTask<Result<SnapshotFiles.Written, SystemError>>
  /// The loop polls this.
  var notifyFD: Int32 { task.notifyFD }
  var isBusy: Bool { task.isBusy }

  package init?(dataDirectory: String) {
    guard
      let task = BackgroundTask<Result<SnapshotFiles.Written, SystemError>>(
        label: "registerd.snapshots")
    else { return nil }
    self.task = task
    self.dataDirectory = dataDirectory
  }

  /// Starts writing the snapshot of `register` as of `head` (one at a time).
  func start(_ register: Register, head: JournalHead) {
    task.start { [dataDirectory] in
      Result { () throws(SystemError) in
        try SnapshotFiles.write(register, head: head, dataDirectory: dataDirectory)
      }
    }
  }

  /// Finished snapshots since the last call (call when `notifyFD` is readable).
  func takeCompletions() -> [Result<SnapshotFiles.Written, SystemError>] {
    task.takeCompletions()
  }

  func waitUntilIdle() {
    task.waitUntilIdle()
  }
}
