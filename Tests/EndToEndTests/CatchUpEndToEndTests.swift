import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// A subscriber catching up from far back is read off the event loop: the other clients are
/// answered meanwhile, and the subscriber gets the whole catch-up, then what it asked for
/// after, in order.
@Suite("A long catch-up is read beside the lanes, not in their way")
struct CatchUpEndToEndTests {
  @Test("another client is answered while 60,000 records are read for a subscriber")
  func catchUpOffTheLoop() throws {
    let daemon = try Daemon(arguments: ["--max-subscriber-backlog", "268435456"])
    defer { daemon.cleanup() }
    let writer = try daemon.connect()
    try writer.journalPaidIns(60_000)
    let last = try #require(writer.send(#"{"op":"hello"}"#).result["journal_seq"]?.int64Value)

    // The subscriber asks for everything, and for a hello after it in the same write.
    let subscriber = try daemon.connect()
    try subscriber.sendRaw(
      Array(
        (#"{"id":"s","op":"subscribe","after":0}"# + "\n" + #"{"id":"h","op":"hello"}"# + "\n").utf8
      ))
    // Meanwhile another lane is answered at once: the loop is not reading the journal.
    let lane = try daemon.connect()
    var slowest = 0.0
    for _ in 0..<5 {
      let started = Date()
      #expect(try lane.send(#"{"op":"hello"}"#).isOK)
      slowest = max(slowest, Date().timeIntervalSince(started))
    }
    // A live change made now comes after the catch-up, not inside it.
    #expect(try lane.send(#"{"op":"paid_in","amount":"0.01","reason":"live"}"#).isOK)

    let subscribed = try subscriber.read()
    #expect(subscribed["id"] == "s" && subscribed.isOK, "\(subscribed)")
    var expected: Int64 = 1
    var hello: JSONValue?
    var live = false
    while hello == nil || !live {
      guard let text = try subscriber.connection.readLine() else {
        throw HarnessError("the subscriber was disconnected")
      }
      let line = try JSONParser.parse(text)
      if let sequence = line["seq"]?.int64Value {
        #expect(sequence == expected, "events in order, without a gap")
        expected = sequence + 1
        if sequence > last { live = true }
      } else {
        #expect(line["id"] == "h", "\(line)")
        #expect(expected > last, "the hello's reply comes after the whole catch-up")
        hello = line
      }
    }
    // The old loop read 100,000 records for over a second before it answered anyone; read
    // beside it, another lane waits for the loop only.
    #expect(slowest < 0.5, "the slowest hello beside the catch-up took \(slowest) s")
  }
}

extension Client {
  /// Journals `count` durable `paid_in`s, a thousand to a write, to give a lane a long journal.
  /// Sent and read as bytes: tens of thousands of replies held to the schema one by one take
  /// minutes.
  func journalPaidIns(_ count: Int) throws {
    let line = #"{"op":"paid_in","amount":"0.01","reason":"float"}"# + "\n"
    var left = count
    while left > 0 {
      let burst = min(left, 1000)
      try connection.send(bytes: Array(String(repeating: line, count: burst).utf8))
      for _ in 0..<burst {
        guard let reply = try connection.readLine(), reply.contains(#""ok":true"#) else {
          throw HarnessError("a paid_in was not acknowledged")
        }
      }
      left -= burst
    }
  }
}
