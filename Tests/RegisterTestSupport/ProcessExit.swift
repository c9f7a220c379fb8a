import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The exit status of `process` once it has exited (its exit code, or the signal that ended
/// it), waiting at most `timeout` seconds (nil: still running).
///
/// Asks the kernel (`waitid` with `WNOWAIT`, which leaves the child for Foundation to reap)
/// rather than `waitUntilExit()`: on Linux, Foundation's `Process` can miss a child's exit when
/// many children start and stop at once, as in a parallel test run, and the waiting test then
/// hangs for ever with the child a zombie.
public func exitStatus(of process: Process, timeout: TimeInterval) -> Int32? {
  let deadline = Date().addingTimeInterval(timeout)
  while true {
    var info = siginfo_t()
    let result = waitid(
      P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT)
    if result == 0 && info._sifields._sigchld.si_pid == process.processIdentifier {
      return info._sifields._sigchld.si_status
    }
    if result < 0 && errno == ECHILD {
      // Foundation reaped it already: its record of the status is there (or about to be).
      while process.isRunning && Date() < deadline { usleep(1000) }
      return process.isRunning ? nil : process.terminationStatus
    }
    if Date() >= deadline { return nil }
    usleep(2000)
  }
}
