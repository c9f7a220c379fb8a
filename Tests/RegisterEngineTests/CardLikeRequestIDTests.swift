import Testing

@testable import RegisterEngine

/// A request's `id` is echoed as it is, so one that holds something that looks like a card
/// number is refused, and the refusal echoes null: the number is never sent back.
@Suite struct CardLikeRequestIDTests {
  @Test(arguments: [
    #"{"op":"hello","id":"4111111111111111"}"#,
    #"{"op":"hello","id":4111111111111111}"#,
    #"{"op":"hello","id":"4111-1111-1111-1111"}"#,
    #"{"op":"hello","id":"lane 1 / 4111 1111 1111 1111"}"#,
    #"{"op":"hello","id":{"ref":"4111111111111111"}}"#,
    #"{"op":"hello","id":["a",4111111111111111]}"#,
    #"{"op":"hello","id":{"4111111111111111":1}}"#,
    #"{"id":"4111111111111111","op":"no_such_op"}"#,
    #"{"id":"4111111111111111"}"#,
    #"{"id":"4111111111111111","op":"add","sku":"TEE","bogus":1}"#,
    #"{"id":"5555555555554444","op":"paid_in","amount":"1.00","reason":"float"}"#,
    #"{"id":"4111111111111111","op":"operator_add","name":"N","role":"manager","pin":"1234"}"#,
  ])
  func anIDThatLooksLikeACardNumberIsRefusedAndNotEchoed(_ request: String) throws {
    let lane = try JournalLane()
    let before = lane.storage.bytes
    let reply = try lane.send(request)
    #expect(reply["ok"] == .bool(false))
    #expect(reply.errorCode == "bad_request")
    #expect(reply["id"] == .null)
    let text = reply.serialized
    #expect(!text.contains("4111111111111111") && !text.contains("5555555555554444"), "\(text)")
    #expect(!text.contains("4111-1111-1111-1111") && !text.contains("4111 1111"), "\(text)")
    #expect(reply["error"]?["message"]?.stringValue?.contains("id looks like a card") == true)
    #expect(lane.storage.bytes == before, "nothing journaled")
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
