import Testing

@testable import RegisterEngine

/// Reads whose work grows with the store (`catalog_export`, `customer_history`) are worked out
/// away from the event loop when the daemon asks for it (`computesRepliesAway`): the reply is
/// held as a `ReplyComputation`, the other connections are answered meanwhile, and the
/// connection that asked gets its replies in the order it asked.
@Suite struct ComputedReplyTests {
  static func lines(_ requests: [(Int, String)]) -> [IncomingLine] {
    requests.map { IncomingLine(connection: $0.0, bytes: Array($0.1.utf8)) }
  }

  static func ids(_ replies: [OutgoingReply]) throws -> [Int64] {
    try replies.map { try #require(JSONParser.parse($0.line)["id"]?.int64Value) }
  }

  /// Writes every staged group, as the daemon's writer does.
  static func writeAll(_ lane: JournalLane) {
    while var work = lane.service.nextWrite() {
      let error = lane.journal.write(&work)
      lane.service.finished(work, error: error)
    }
  }

  @Test func otherConnectionsAreAnsweredWhileAnExportIsWorkedOut() throws {
    let lane = try JournalLane()
    let service = lane.service
    service.computesRepliesAway = true
    let price = try #require(lane.register.products["TEE"]?.price)
    service.submit(
      Self.lines([
        (1, #"{"id":1,"op":"catalog_export"}"#),
        (2, #"{"id":2,"op":"paid_in","amount":"5.00","reason":"float"}"#),
        (1, #"{"id":3,"op":"hello"}"#),
        (3, #"{"id":4,"op":"order"}"#),
        (2, #"{"id":5,"op":"product_update","sku":"TEE","changes":{"price":"99.00"}}"#),
      ]))
    Self.writeAll(lane)
    // Every change is durable: the two other connections have all their replies; connection 1
    // has none, not even its `hello`, which came after the export.
    let first = service.takeReleasable().replies
    #expect(first.map(\.connection) == [2, 3, 2])
    #expect(try Self.ids(first) == [2, 4, 5])
    #expect(service.isComputingReplies)
    let computations = service.takeComputations()
    #expect(computations.map(\.connection) == [1])
    #expect(service.takeComputations().isEmpty, "each is handed out once")
    // Worked out later (on another thread in the daemon), it still describes the catalog as
    // it was when the export was asked for: before the price change.
    let bytes = computations[0].run()
    #expect(service.takeReleasable().replies.isEmpty, "nothing goes until it is handed back")
    service.computed(computations[0].ticket, bytes: bytes)
    #expect(!service.isComputingReplies)
    let second = service.takeReleasable().replies
    #expect(second.map(\.connection) == [1, 1])
    #expect(try Self.ids(second) == [1, 3])
    let export = try JSONParser.parse(second[0].line)
    let products = try #require(export["result"]?["catalog"]?["products"]?.arrayValue)
    let tee = try #require(products.first { $0["sku"] == "TEE" })
    #expect(tee["price"] == price.json)
    #expect(lane.register.products["TEE"]?.price != price)
  }

  @Test func aWorkedOutReplyIsTheReplyWorkedOutInline() throws {
    let requests = [
      #"{"id":"e","op":"catalog_export"}"#,
      #"{"id":"h","op":"customer_history","customer_id":"C1"}"#,
      #"{"id":"u","op":"customer_history","customer_id":"C9"}"#,
    ]
    let setUp = [
      #"{"op":"customer_add","name":"Dana Lee","email":"dana@example.com"}"#,
      #"{"op":"add","sku":"JEANS"}"#, #"{"op":"attach_customer","customer_id":"C1"}"#,
      #"{"op":"tender","type":"cash","amount":"100.00"}"#,
    ]
    var answers: [[String]] = []
    for away in [false, true] {
      let lane = try JournalLane()
      for line in setUp { try lane.ok(line) }
      lane.service.computesRepliesAway = away
      lane.service.submit(Self.lines(requests.map { (1, $0) }))
      for computation in lane.service.takeComputations() {
        lane.service.computed(computation.ticket, bytes: computation.run())
      }
      answers.append(lane.service.takeReleasable().replies.map(\.line))
    }
    #expect(answers[0].count == 3)
    #expect(answers[0] == answers[1])
    let history = try JSONParser.parse(answers[1][1])
    #expect(history["result"]?["receipts"]?.arrayValue?.count == 1)
    #expect(try JSONParser.parse(answers[1][2]).errorCode == "customer_not_found")
  }

  /// A storage failure drops the group an export's reply waits on: the export is answered
  /// again from the state rebuilt from the journal (in full, on the spot), and the bytes worked
  /// out from the state that was lost are dropped when they come.
  @Test func aFailedWriteAnswersAnExportAgainAndDropsTheBytesWorkedOutBefore() throws {
    let lane = try JournalLane()
    let service = lane.service
    service.computesRepliesAway = true
    lane.storage.failingAppend = lane.storage.appendCalls + 1
    service.submit(
      Self.lines([
        (1, #"{"id":1,"op":"product_update","sku":"TEE","changes":{"price":"99.00"}}"#)
      ]))
    var failing = try #require(service.nextWrite())
    service.submit(Self.lines([(2, #"{"id":2,"op":"catalog_export"}"#)]))
    let computations = service.takeComputations()
    #expect(computations.count == 1)
    let staleBytes = computations[0].run()
    #expect(String(decoding: staleBytes, as: UTF8.self).contains(#""price":"99.00""#))
    let error = lane.journal.write(&failing)
    #expect(error != nil)
    service.finished(failing, error: error)
    #expect(!service.isComputingReplies, "answered again, in full")
    service.computed(computations[0].ticket, bytes: staleBytes)
    let replies = service.takeReleasable().replies
    #expect(try Self.ids(replies) == [1, 2])
    #expect(try JSONParser.parse(replies[0].line).errorCode == "storage_failed")
    let export = try JSONParser.parse(replies[1].line)
    #expect(export["ok"] == true)
    #expect(!replies[1].line.contains(#""price":"99.00""#), "the lost change is not described")
    #expect(service.takeComputations().isEmpty)
  }
}
