import Testing

@testable import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The loop's poller reports what is watched and ready, level-triggered as `poll(2)` is,
/// whatever is underneath (epoll on Linux): nothing of what is not watched, hang-ups, and a
/// descriptor number reused by the next client.
@Suite struct EventPollerTests {
  private func pipePair() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    return (ends[0], ends[1])
  }

  /// The descriptors a wait reports, and what for.
  private func wait(_ poller: EventPoller, timeout: Int32) -> [Int32: Int16] {
    var ready: [ReadyDescriptor] = []
    let count = poller.wait(timeout: timeout, ready: &ready)
    #expect(count == Int32(ready.count))
    return Dictionary(ready.map { ($0.fd, $0.events) }, uniquingKeysWith: |)
  }

  @Test func itReportsWhatIsWatchedAndReadyAndNothingElse() throws {
    let poller = EventPoller()
    let a = try pipePair()
    let b = try pipePair()
    defer { for fd in [a.read, a.write, b.read, b.write] { close(fd) } }

    poller.watch(a.read, for: Int16(POLLIN))
    poller.watch(b.read, for: Int16(POLLIN))
    #expect(wait(poller, timeout: 0).isEmpty)
    #expect(write(a.write, "x", 1) == 1)
    var ready = wait(poller, timeout: 1000)
    #expect(ready.keys.sorted() == [a.read])
    #expect((ready[a.read] ?? 0) & Int16(POLLIN) != 0)

    // Still readable: level-triggered, as poll is.
    #expect(wait(poller, timeout: 0).keys.sorted() == [a.read])
    // Watching it for nothing: not reported.
    poller.watch(a.read, for: 0)
    #expect(wait(poller, timeout: 0).isEmpty)
    // Watched again: reported again.
    poller.watch(a.read, for: Int16(POLLIN))
    ready = wait(poller, timeout: 0)
    #expect(ready.keys.sorted() == [a.read] && (ready[a.read] ?? 0) & Int16(POLLIN) != 0)
    // Watching for the same thing again changes nothing.
    poller.watch(a.read, for: Int16(POLLIN))
    #expect(wait(poller, timeout: 0).keys.sorted() == [a.read])
  }

  @Test func writableIsReportedWhenAskedFor() throws {
    let poller = EventPoller()
    let ends = try pipePair()
    defer { for fd in [ends.read, ends.write] { close(fd) } }
    poller.watch(ends.write, for: 0)
    #expect(wait(poller, timeout: 0).isEmpty)
    poller.watch(ends.write, for: Int16(POLLOUT))
    let ready = wait(poller, timeout: 1000)
    #expect((ready[ends.write] ?? 0) & Int16(POLLOUT) != 0)
  }

  @Test func aHangUpIsReportedAsPollReportsIt() throws {
    let poller = EventPoller()
    let ends = try pipePair()
    defer { close(ends.read) }
    poller.watch(ends.read, for: Int16(POLLIN))
    #expect(wait(poller, timeout: 0).isEmpty)
    close(ends.write)
    let ready = wait(poller, timeout: 1000)
    #expect((ready[ends.read] ?? 0) & Int16(POLLHUP) != 0)
  }

  @Test func aDescriptorNumberReusedAfterForgetIsWatchedAfresh() throws {
    let poller = EventPoller()
    let first = try pipePair()
    poller.watch(first.read, for: Int16(POLLIN))
    #expect(wait(poller, timeout: 0).isEmpty)
    // The client goes and the next one gets the same descriptor number: `dup2` puts a new
    // pipe's read end at the old number in one step (tests run in parallel; a close and an
    // open could hand the number to another test).
    poller.forget(first.read)
    close(first.write)
    let second = try pipePair()
    #expect(dup2(second.read, first.read) == first.read)
    close(second.read)
    defer { for fd in [first.read, second.write] { close(fd) } }
    #expect(write(second.write, "y", 1) == 1)
    poller.watch(first.read, for: Int16(POLLIN))
    let ready = wait(poller, timeout: 1000)
    #expect((ready[first.read] ?? 0) & Int16(POLLIN) != 0)
  }

  @Test func aDescriptorThatIsNotOpenIsReportedInvalid() throws {
    let poller = EventPoller()
    // A number no process has open (far above any descriptor limit).
    poller.watch(2_000_000_000, for: Int16(POLLIN))
    let ready = wait(poller, timeout: 1000)
    #expect((ready[2_000_000_000] ?? 0) & Int16(POLLNVAL) != 0)
    // Given up: no longer reported.
    poller.forget(2_000_000_000)
    #expect(wait(poller, timeout: 0).isEmpty)
  }
}
