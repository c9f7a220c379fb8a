import Foundation
import RegisterClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Waits until `condition` holds, looking again every `interval` seconds, and says whether it
/// held within `seconds`. For a state that nothing announces (a process's arguments, a socket's
/// queue, a reply to ask for again); where there is an event — a line on a connection, a write
/// to a file (`FileChanges`), a process's exit (`exitStatus`) — wait on that instead.
public func waitUntil(
  within seconds: Double, every interval: Double = 0.02, _ condition: () throws -> Bool
) rethrows -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while true {
    if try condition() { return true }
    guard Date() < deadline else { return false }
    // The poll's interval: nothing wakes this wait, so it looks again after a while.
    usleep(useconds_t(interval * 1_000_000))
  }
}

/// The bytes sent on the Unix stream socket `fd` that its peer has not read yet (nil where the
/// kernel does not say). Zero once the peer has taken everything sent: a daemon has read a
/// request written to it, though it may not have answered it yet.
public func unreadBytes(sentOn fd: Int32) -> Int? {
  #if canImport(Glibc)
    var count: Int32 = 0
    guard ioctl(fd, UInt(TIOCOUTQ), &count) == 0 else { return nil }
    return Int(count)
  #else
    return nil
  #endif
}

extension LineConnection {
  /// Waits until the peer has read every byte sent on this connection (a daemon has the
  /// requests in hand, answered or not); false when `seconds` pass first, or where the kernel
  /// does not say.
  public func waitUntilRead(within seconds: Double = 10) -> Bool {
    waitUntil(within: seconds, every: 0.002) { unreadBytes(sentOn: fd) == 0 }
  }
}
