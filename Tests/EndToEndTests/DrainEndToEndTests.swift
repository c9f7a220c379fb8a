import Foundation
import RegisterClient
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// Reads reply lines from `connection` until end of stream (or `timeout` seconds without one).
private func readUntilEnd(_ connection: LineConnection, timeout: Int = 15_000) -> [String] {
  connection.setReceiveTimeout(milliseconds: timeout)
  var lines: [String] = []
  while let line = try? connection.readLine() {
    lines.append(line)
  }
  return lines
}

/// The quantity of every line of the open order, added up.
private func orderQuantity(_ daemon: Daemon) throws -> Int64 {
  let order = try daemon.connect().send(#"{"op":"order"}"#)
  let lines = order.result["lines"]?.arrayValue ?? []
  return lines.reduce(0) { $0 + ($1["qty"]?.int64Value ?? 0) }
}

@Suite("SIGTERM drains: every request sent before it is answered and durable", .serialized)
struct DrainEndToEndTests {
  @Test(
    "clients pipelining 60 adds each, SIGTERM in flight: one reply per line, exit 0, restart shows exactly the acknowledged adds"
  )
  func drainAnswersEverything() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let clientCount = 4
    // (Each add is a new line and its reply carries the whole order, so the replies grow with
    // the order: 60 a client keeps the drain far inside its grace on a loaded CI machine.)
    let perClient = 60
    var connections: [LineConnection] = []
    for _ in 0..<clientCount { connections.append(try LineConnection(path: daemon.socketPath)) }
    // Every line is written (one write per client, all before the signal), nothing read yet.
    for (index, connection) in connections.enumerated() {
      let batch = (0..<perClient).map { #"{"id":"c\#(index)-\#($0)","op":"add","sku":"SOCK-3PK"}"# }
      try connection.send(bytes: Array((batch.joined(separator: "\n") + "\n").utf8))
    }
    kill(daemon.process.processIdentifier, SIGTERM)

    var acknowledged: Int64 = 0
    for (index, connection) in connections.enumerated() {
      let replies = readUntilEnd(connection)
      #expect(replies.count == perClient, "client \(index): \(replies.count) replies")
      let ids = replies.compactMap { try? JSONParser.parse($0)["id"]?.stringValue }
      #expect(ids == (0..<perClient).map { "c\(index)-\($0)" }, "each line answered once, in order")
      acknowledged += Int64(
        replies.filter { (try? JSONParser.parse($0))?.isOK == true }.count)
    }
    #expect(daemon.stop() == 0)
    // (The harness's own probe may be among the connections drained.)
    #expect(daemon.log.contains("received SIGTERM: draining "), "\(daemon.log)")
    #expect(daemon.log.contains("drain finished"))
    #expect(acknowledged == Int64(clientCount * perClient), "\(daemon.log)")
    try daemon.start()
    #expect(try orderQuantity(daemon) == acknowledged)
  }

  @Test("after SIGTERM nothing new is accepted, and bytes sent after the signal are not read")
  func drainRefusesNewWork() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let slow = try LineConnection(path: daemon.socketPath)
    // A partial line (no newline yet) keeps the connection in the drain.
    try slow.send(bytes: Array(#"{"id":"a","op":"add","sku":"CAP-BSB"}"#.utf8))
    #expect(slow.waitUntilRead(), "the daemon did not read the partial line")
    kill(daemon.process.processIdentifier, SIGTERM)
    // Logged once the listener is closed.
    #expect(daemon.waitForLog("received SIGTERM: draining"), "\(daemon.log)")
    #expect(throws: (any Error).self) { _ = try LineConnection(path: daemon.socketPath) }
    // Sent after the signal: the line is never completed, so nothing is answered or added.
    try? slow.send(bytes: Array("\n".utf8))
    let replies = readUntilEnd(slow)
    #expect(replies.isEmpty, "\(replies)")
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(try orderQuantity(daemon) == 0)
  }

  @Test(
    "a client that does not read its replies is dropped after the grace; a second SIGTERM stops at once; acknowledged changes survive"
  )
  func drainIsBounded() throws {
    for secondSignal in [false, true] {
      let daemon = try Daemon()
      defer { daemon.cleanup() }
      let reader = try daemon.connect()
      #expect(try reader.send(#"{"id":"ok","op":"add","sku":"SOCK-3PK"}"#).isOK)
      // Never reads: thousands of order queries whose replies fill every buffer.
      let greedy = try LineConnection(path: daemon.socketPath)
      let query = Array(String(repeating: #"{"op":"products"}"# + "\n", count: 2000).utf8)
      try? greedy.send(bytes: query)
      // Taken in, and answered into buffers that fill up.
      #expect(greedy.waitUntilRead(), "the daemon did not read the queries")
      let started = Date()
      kill(daemon.process.processIdentifier, SIGTERM)
      if secondSignal {
        #expect(daemon.waitForLog("received SIGTERM: draining"), "\(daemon.log)")
        kill(daemon.process.processIdentifier, SIGTERM)
      }
      let status = exitStatus(of: daemon.process, timeout: 20)
      let took = Date().timeIntervalSince(started)
      #expect(status == 0, "\(daemon.log)")
      if secondSignal {
        #expect(took < 3, "stopped \(took) s after the second signal")
        #expect(daemon.log.contains("again during the drain"))
      } else {
        #expect(took >= 4 && took < 12, "the grace: \(took) s")
        #expect(daemon.log.contains("grace of 5000 ms is over"), "\(daemon.log)")
      }
      try daemon.start()
      #expect(try orderQuantity(daemon) == 1, "the acknowledged add survived")
    }
  }
}
