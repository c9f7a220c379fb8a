import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Waiting for what a process writes to a file, woken by the kernel when the file changes
/// (inotify), not by sleeping and looking again.
enum FileChanges {
  /// Waits until `condition` holds, checking it at the start and after each change to the file
  /// or directory at `path` (written, or an entry made, renamed in or removed); false when
  /// `seconds` pass first. Where inotify is not available the file is looked at every 20 ms.
  static func wait(for path: String, within seconds: Double, until condition: () -> Bool)
    -> Bool
  {
    let deadline = Date().addingTimeInterval(seconds)
    #if canImport(Glibc)
      let watcher = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      defer { if watcher >= 0 { close(watcher) } }
      let watching =
        watcher >= 0
        && inotify_add_watch(
          watcher, path, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE))
          >= 0
    #else
      let watching = false
    #endif
    while true {
      // Checked after the watch is set up, so a write between the two is not missed.
      if condition() { return true }
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { return condition() }
      #if canImport(Glibc)
        if watching {
          var ready = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
          _ = poll(&ready, 1, Int32(min(left, 1) * 1000))
          var drained = [UInt8](repeating: 0, count: 4096)
          while read(watcher, &drained, drained.count) > 0 {}
          continue
        }
      #endif
      // Without inotify nothing wakes the wait: the file is looked at again every 20 ms.
      usleep(20_000)
    }
  }
}
