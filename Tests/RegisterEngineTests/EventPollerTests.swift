import Testing

@testable import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The loop's poller behaves as `poll(2)` does on the list it is given, whatever is underneath
/// (epoll on Linux): readiness of what is listed, nothing of what is not, hang-ups, and a
/// descriptor number reused by the next client.
@Suite struct EventPollerTests {
  private func pipePair() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    return (ends[0], ends[1])
  }

  private func listed(_ fds: [Int32], events: Int16 = Int16(POLLIN)) -> [pollfd] {
    fds.map { pollfd(fd: $0, events: events, revents: 0) }
  }

  @Test func itReportsWhatIsListedAndReadyAndNothingElse() throws {
    let poller = EventPoller()
    let a = try pipePair()
    let b = try pipePair()
    defer { for fd in [a.read, a.write, b.read, b.write] { close(fd) } }

    var fds = listed([a.read, b.read])
    #expect(poller.wait(&fds, timeout: 0) == 0)
    #expect(write(a.write, "x", 1) == 1)
    #expect(poller.wait(&fds, timeout: 1000) == 1)
    #expect(fds[0].revents & Int16(POLLIN) != 0 && fds[1].revents == 0)

    // Still readable: level-triggered, as poll is.
    #expect(poller.wait(&fds, timeout: 0) == 1)
    // Not asked about (no events, or a negative descriptor): not reported.
    fds[0].events = 0
    #expect(poller.wait(&fds, timeout: 0) == 0)
    fds[0] = pollfd(fd: -1, events: Int16(POLLIN), revents: 0)
    #expect(poller.wait(&fds, timeout: 0) == 0 && fds[0].revents == 0)
    // Asked again: reported again.
    fds[0] = pollfd(fd: a.read, events: Int16(POLLIN), revents: 0)
    #expect(poller.wait(&fds, timeout: 0) == 1 && fds[0].revents & Int16(POLLIN) != 0)

  }

  @Test func aHangUpIsReportedAsPollReportsIt() throws {
    let poller = EventPoller()
    let ends = try pipePair()
    defer { close(ends.read) }
    var fds = listed([ends.read])
    #expect(poller.wait(&fds, timeout: 0) == 0)
    close(ends.write)
    #expect(poller.wait(&fds, timeout: 1000) == 1)
    #expect(fds[0].revents & Int16(POLLHUP) != 0)
  }

  @Test func aDescriptorNumberReusedAfterForgetIsWatchedAfresh() throws {
    let poller = EventPoller()
    let first = try pipePair()
    var fds = listed([first.read])
    #expect(poller.wait(&fds, timeout: 0) == 0)
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
    fds = listed([first.read])
    #expect(poller.wait(&fds, timeout: 1000) == 1)
    #expect(fds[0].revents & Int16(POLLIN) != 0)
  }

  @Test func aDescriptorThatIsNotOpenIsReportedInvalid() throws {
    let poller = EventPoller()
    // A number no process has open (far above any descriptor limit).
    var fds = listed([2_000_000_000])
    #expect(poller.wait(&fds, timeout: 1000) == 1)
    #expect(fds[0].revents & Int16(POLLNVAL) != 0)
  }
}
