import RegisterClient
import RegisterEngine
import Testing

/// Replies read into `Reply`: successes, failures with a known code, and codes only a newer
/// registerd has.
@Suite struct ReplyTests {
  @Test func aSuccessKeepsItsIDAndResult() throws {
    let reply = try Reply(line: #"{"id":7,"ok":true,"result":{"status":"open"}}"#)
    #expect(reply == .success(id: 7, result: .object(["status": "open"])))
    #expect(reply.id == 7)
    #expect(reply.error == nil)
  }

  @Test func aFailureHasItsCodeMessageAndData() throws {
    let reply = try Reply(
      line:
        #"{"id":"a","ok":false,"error":{"code":"version_conflict","message":"m","data":{"version":3}}}"#
    )
    let error = try #require(reply.error)
    #expect(error.code == .versionConflict)
    #expect(error.codeName == "version_conflict")
    #expect(error.message == "m")
    #expect(error.data == .object(["version": 3]))
    #expect(reply.id == "a")
    #expect(reply.result == nil)
  }

  @Test func aCodeFromANewerDaemonIsKeptAsSent() throws {
    let reply = try Reply(
      line: #"{"id":null,"ok":false,"error":{"code":"drawer_jammed","message":"open it"}}"#)
    let error = try #require(reply.error)
    #expect(error.code == nil)
    #expect(error.codeName == "drawer_jammed")
    #expect(error.description == "drawer_jammed: open it")
  }

  @Test(arguments: ["", "not json", "[1]", #"{"id":1}"#, #"{"ok":"yes"}"#])
  func aLineThatIsNoReplyIsAnError(line: String) {
    #expect(throws: ReplyFormatError.self) { try Reply(line: line) }
  }
}
