import Testing

@testable import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The worker threads' wake-up: a drain leaves the pipe empty however many bytes were
/// written (one read when it holds fewer than the read asks for, more when it holds more), so
/// the loop's poller stops reporting it until the next wake-up.
@Suite struct WakePipeTests {
  @Test(arguments: [1, 63, 64, 65, 200])
  func aDrainEmptiesThePipe(wakeUps: Int) throws {
    let pipe = try #require(WakePipe())
    let poller = EventPoller()
    poller.watch(pipe.readFD, for: Int16(POLLIN))
    var ready: [ReadyDescriptor] = []

    for _ in 0..<wakeUps { pipe.wake() }
    #expect(poller.wait(timeout: 1000, ready: &ready) == 1)
    pipe.drain()
    #expect(poller.wait(timeout: 0, ready: &ready) == 0)
    var byte: UInt8 = 0
    #expect(read(pipe.readFD, &byte, 1) == -1 && errno == EAGAIN)

    // And it wakes the loop again afterwards.
    pipe.wake()
    #expect(poller.wait(timeout: 1000, ready: &ready) == 1)
    pipe.drain()
    #expect(poller.wait(timeout: 0, ready: &ready) == 0)
  }
}
