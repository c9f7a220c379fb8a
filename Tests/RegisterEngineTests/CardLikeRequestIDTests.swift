import Testing

@testable import RegisterEngine

/// A request's `id` is the client's own identifier: echoed as it is, whatever its digits look
/// like (a nanosecond timestamp passes the Luhn check one time in ten), and never journaled.
@Suite struct CardLikeRequestIDTests {
  @Test(arguments: [
    #""1764339785123456789""#, #"1764339785123456789"#, #""4111-1111-1111-1111""#,
    #"{"ref":"4111111111111111"}"#, #"["a",4111111111111111]"#,
  ])
  func anIDIsEchoedAsItIs(_ id: String) throws {
    let lane = try JournalLane()
    let raw = lane.service.handle(line: #"{"op":"hello","id":\#(id)}"#)
    #expect(raw.hasPrefix(#"{"id":\#(id),"ok":true"#), "\(raw)")
  }

  @Test func aChangesIDIsNotJournaled() throws {
    let lane = try JournalLane()
    let reply = try lane.send(
      #"{"op":"paid_in","amount":"1.00","reason":"x","id":"1764339785123456789"}"#)
    #expect(reply["ok"] == .bool(true))
    #expect(reply["id"] == .string("1764339785123456789"))
    let journal = String(decoding: lane.storage.bytes, as: UTF8.self)
    #expect(journal.contains("paid_in"))
    #expect(!journal.contains("1764339785123456789"))
  }

  @Test(arguments: [
    #"7"#, #""req-42""#, #"4111111111111112"#, #""4111111111111112""#,
    #""2026-03-15T14:03:05.000Z""#, #"{"lane":1,"seq":99}"#, #"null"#, #"-12.5e3"#,
  ])
  func ordinaryIDsAreStillEchoed(_ id: String) throws {
    let lane = try JournalLane()
    let raw = lane.service.handle(line: #"{"op":"hello","id":\#(id)}"#)
    #expect(raw.hasPrefix(#"{"id":\#(id),"ok":true"#), "\(raw)")
  }
}
