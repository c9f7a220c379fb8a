import Testing

@testable import RegisterEngine
@testable import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A connection's queued output: a large reply is sent from its own storage, not copied into
/// the connection's buffer on the event loop, and everything queued before and after it
/// reaches the client whole and in order, however the socket takes it.
@Suite struct ConnectionOutputTests {
  @Test func aLargeReplyIsSentFromItsOwnStorageInItsPlace() throws {
    var fds: [Int32] = [0, 0]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
    let connection = Connection(id: 1, fd: fds[0], peerUID: nil)

    let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
    let pieces = ReplyPieces(
      head: Array(#"{"id":2,"ok":true,"result":"#.utf8), shared: Array("[1,2]".utf8),
      tail: Array("}".utf8))
    var expected: [UInt8] = []
    connection.enqueue(line: "first")
    expected += Array("first\n".utf8)
    connection.enqueue(reply: ReplyPieces(head: large))
    expected += large + [10]
    let inPlace = connection.queuesInPlace(large)
    #expect(inPlace, "the large reply was copied")
    connection.enqueue(line: "after")
    connection.enqueue(reply: pieces)
    expected += Array("after\n".utf8) + Array(#"{"id":2,"ok":true,"result":[1,2]}"#.utf8) + [10]
    #expect(connection.pendingOutput == expected.count)

    // Written as the socket takes it, the reader draining it between flushes; a second large
    // reply queued halfway goes after everything before it.
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var rounds = 0
    var addedSecond = false
    while received.count < expected.count + (addedSecond ? 0 : 1) && rounds < 10_000 {
      rounds += 1
      connection.flush()
      let got = read(fds[1], &buffer, buffer.count)
      if got > 0 { received += buffer[0..<got] }
      if !addedSecond && received.count > 100_000 {
        addedSecond = true
        let second = Array(repeating: UInt8(ascii: "z"), count: 70_000)
        connection.enqueue(reply: ReplyPieces(head: second))
        connection.enqueue(line: "last")
        expected += second + [10] + Array("last\n".utf8)
      }
    }
    #expect(!connection.broken)
    #expect(received.count == expected.count)
    let same = received == expected
    #expect(same, "the bytes or their order differ")
    #expect(connection.pendingOutput == 0)

    // Afterwards small replies go into the connection's own buffer again.
    connection.enqueue(line: "again")
    connection.flush()
    let got = read(fds[1], &buffer, buffer.count)
    #expect(got == 6 && Array(buffer[0..<6]) == Array("again\n".utf8))
  }

  /// Replies a client does not read are queued in pieces of at most `largeReply` bytes, not in
  /// one buffer that doubles each time it fills: what they take stays close to their size.
  @Test func unreadRepliesTakeAboutTheirSize() {
    let connection = Connection(id: 1, fd: -1, peerUID: nil)
    let reply = ReplyPieces(head: [UInt8](repeating: UInt8(ascii: "r"), count: 8_000))
    for _ in 0..<70 { connection.enqueue(reply: reply) }
    #expect(connection.pendingOutput == 70 * 8_001)
    // In one buffer, 560 kB would take 1 MiB.
    #expect(
      connection.queuedCapacity < connection.pendingOutput + 2 * Connection.largeReply,
      "\(connection.queuedCapacity) bytes for \(connection.pendingOutput)")
  }

  /// Every connection keeps the daemon-wide count of unread replies up to date: a reply counts
  /// from when it is made (held by the service until durable), then as queued output, and
  /// stops counting when it is written or its connection closes.
  @Test func unreadRepliesAreCountedForAllConnectionsTogether() {
    let bytes = ClientBytes()
    let lane = Connection(id: 1, fd: -1, peerUID: nil, clientBytes: bytes)
    let display = Connection(id: 2, fd: -1, peerUID: nil, clientBytes: bytes)
    lane.receive(Array((#"{"op":"hello"}"# + "\n" + #"{"op":"order"}"# + "\n").utf8)[...], now: 0)
    #expect(lane.takeLine() != nil)
    lane.madeReply(bytes: 100)
    #expect(lane.unreadReplies == 100)
    #expect(bytes.unreadReplies == 100)
    // Queued: the same reply, with its newline.
    lane.enqueue(reply: ReplyPieces(head: [UInt8](repeating: 0x61, count: 100)))
    #expect(lane.unreadReplies == 101)
    #expect(bytes.unreadReplies == 101)
    display.enqueue(line: "event")
    #expect(bytes.unreadReplies == 107)
    #expect(lane.takeLine() != nil)
    lane.madeReply(bytes: 50)
    #expect(bytes.unreadReplies == 157)
    lane.closed()
    #expect(lane.unreadReplies == 0)
    #expect(bytes.unreadReplies == 6)
    display.closed()
    #expect(bytes.unreadReplies == 0)
    // Let go of: the replies (157 bytes at their peak) and the lane's line being handled.
    #expect(bytes.hasFreed(atLeast: 157))
    #expect(bytes.takeFreed() == 157 + #"{"op":"order"}"#.utf8.count + Connection.lineOverhead)
    #expect(!bytes.hasFreed(atLeast: 1))
  }
}
