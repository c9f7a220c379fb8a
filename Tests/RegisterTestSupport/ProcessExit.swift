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
      // Nothing wakes a wait for Foundation's record: looked at again every millisecond.
      while process.isRunning && Date() < deadline { usleep(1000) }
      return process.isRunning ? nil : process.terminationStatus
    }
    if Date() >= deadline { return nil }
    // The poll's interval: `waitid` cannot wait with a timeout, so it asks again.
    usleep(2000)
  }
}

/// What a child process wrote to its pipes, and how it ended.
public struct CollectedOutput: Sendable {
  /// The exit status (`exitStatus`), or nil when it did not exit in time and was killed.
  public var status: Int32?
  /// What each pipe held, in the order they were given.
  public var data: [Data]

  /// What pipe `index` held, as text.
  public func text(_ index: Int = 0) -> String { String(decoding: data[index], as: UTF8.self) }
}

/// Reads the pipes `handles` (read ends) while `process` runs, until it exits — or, after
/// `timeout` seconds, kills it — and returns its status and what each pipe held.
///
/// End of file is not what it waits for. A pipe ends only when every process holding its
/// write end has closed it, and a process another test starts at that moment can inherit the
/// write end: Foundation closes a child's descriptors from a list it makes just before the
/// spawn, so a pipe made by another thread in between passes to the child, which may run for
/// the rest of the test run (a server, a supervisor). A test reading to end of file then waits
/// as long. Here the exit of `process` is waited for (asked of the kernel), and what it wrote
/// before it exited is then taken from the pipes without blocking.
public func collectOutput(
  of process: Process, from handles: [FileHandle], timeout: TimeInterval = 60
) -> CollectedOutput {
  let descriptors = handles.map(\.fileDescriptor)
  for descriptor in descriptors {
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
  }
  var data = Array(repeating: Data(), count: descriptors.count)
  var open = Array(repeating: true, count: descriptors.count)
  var buffer = [UInt8](repeating: 0, count: 65536)
  // Reads pipe `index` until it has nothing more for now (or has ended).
  func drain(_ index: Int) {
    while open[index] {
      let count = read(descriptors[index], &buffer, buffer.count)
      if count > 0 {
        data[index].append(contentsOf: buffer[0..<count])
      } else if count == 0 || errno != EINTR {
        if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { open[index] = false }
        return
      }
    }
  }
  let deadline = Date().addingTimeInterval(timeout)
  var status: Int32?
  while true {
    var entries = descriptors.indices.filter { open[$0] }.map {
      pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0)
    }
    // With every pipe ended there is only the exit to wait for, which nothing here wakes on:
    // looked at again every 10 ms.
    if entries.isEmpty { usleep(10_000) } else { _ = poll(&entries, nfds_t(entries.count), 10) }
    for index in descriptors.indices { drain(index) }
    if let exited = exitStatus(of: process, timeout: 0) {
      status = exited
      break
    }
    if Date() >= deadline {
      kill(process.processIdentifier, SIGKILL)
      _ = exitStatus(of: process, timeout: 10)
      break
    }
  }
  // What it wrote before it exited is in the pipes now.
  for index in descriptors.indices { drain(index) }
  return CollectedOutput(status: status, data: data)
}

/// What `handle` (a pipe or terminal's read end) holds now, read without waiting for more or
/// for end of file (see `collectOutput` for why end of file may never come).
public func readAvailable(_ handle: FileHandle) -> Data {
  let descriptor = handle.fileDescriptor
  _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
  var data = Data()
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = read(descriptor, &buffer, buffer.count)
    if count > 0 {
      data.append(contentsOf: buffer[0..<count])
    } else if count < 0 && errno == EINTR {
      continue
    } else {
      return data
    }
  }
}

/// Reads from `handle` (a pipe or terminal's read end) until the text read so far contains
/// `needle`, the pipe ends, or `seconds` pass, woken by the pipe (poll); returns the text read.
public func read(_ handle: FileHandle, until needle: String, seconds: Int32 = 20) -> String {
  var text = ""
  var entry = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
  let deadline = Date().addingTimeInterval(TimeInterval(seconds))
  while !text.contains(needle) && Date() < deadline {
    guard poll(&entry, 1, 200) > 0 else { continue }
    let chunk = handle.availableData
    if chunk.isEmpty { break }
    text += String(decoding: chunk, as: UTF8.self)
  }
  return text
}
