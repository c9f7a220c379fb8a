import Foundation
import RegisterEngine
import Testing

/// The journal's records as parsed JSON, in file order.
func journalRecords(_ daemon: Daemon) throws -> [JSONValue] {
  let text = try String(contentsOfFile: daemon.dataDirectory + "/journal.ndjson", encoding: .utf8)
  return try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
}

@Suite("Offline replay and verify: every receipt, and the Z report's journal head", .serialized)
struct ReplayAndAnchorTests {
  @Test("replay prints sale and return receipts, byte for byte as printed live, in number order")
  func replayIncludesReturns() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    var texts: [String] = []
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB","qty":2}"#).isOK)
    let first = try client.send(#"{"op":"tender","type":"cash","amount":"100"}"#)
    texts.append(try #require(first.result["receipt"]?["text"]?.stringValue))
    #expect(try client.send(#"{"op":"add","sku":"OXF-BLU-15"}"#).isOK)
    let second = try client.send(#"{"op":"tender","type":"card","card":\#(visa)}"#)
    texts.append(try #require(second.result["receipt"]?["text"]?.stringValue))
    // Receipt 3 is a return of receipt 1, printed at the register like any receipt.
    let refund = try daemon.cli(["return", "1", "1:1", "--reason", "wrong size"])
    #expect(refund.status == 0, "\(refund.stderr)")
    #expect(refund.stdout.contains("RETURN"))
    texts.append(refund.stdout)
    #expect(try client.send(#"{"op":"add","sku":"SOCK-3PK"}"#).isOK)
    let fourth = try client.send(#"{"op":"tender","type":"cash","amount":"50"}"#)
    texts.append(try #require(fourth.result["receipt"]?["text"]?.stringValue))
    let returnReply = try client.send(
      #"{"op":"return","receipt":2,"lines":[{"line":1,"qty":1}],"reason":"torn"}"#)
    texts.append(try #require(returnReply.result["text"]?.stringValue))

    // Before the close: the open day's receipts, then an X report.
    let open = try runCLI(["replay", "--data-dir", daemon.dataDirectory])
    #expect(open.status == 0, "\(open.stderr)")
    #expect(open.stdout.hasPrefix(texts.map { $0 + "\n" }.joined()))
    #expect(open.stdout.contains("X REPORT - DAY 1"))

    let closed = try client.send(#"{"op":"close_day"}"#)
    let zText = try #require(closed.result["text"]?.stringValue)
    daemon.stop()

    let plain = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1"])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stdout == texts.map { $0 + "\n" }.joined() + zText)

    let json = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1", "--json"])
    let value = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
    let receipts = value["receipts"]?.arrayValue ?? []
    #expect(receipts.compactMap { $0["number"]?.int64Value } == [1, 2, 3, 4, 5])
    #expect(receipts.compactMap { $0["text"]?.stringValue } == texts)
    #expect(receipts[2]["receipt"]?["kind"] == "return")

    // A return is found by number, like a sale; the live reprint of it says REPRINT, the
    // replay prints it as it was.
    let one = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "3"])
    #expect(one.status == 0, "\(one.stderr)")
    #expect(one.stdout == texts[2])
    let oneJSON = try runCLI([
      "replay", "--data-dir", daemon.dataDirectory, "--receipt", "5", "--json",
    ])
    let reply = try JSONParser.parse(oneJSON.stdout.trimmingCharacters(in: .newlines))
    #expect(reply["text"]?.stringValue == texts[4])
    #expect(reply["receipt"]?["original_receipt"] == .int(2))
    let missing = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "6"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("no receipt 6"))
  }

  @Test("the Z report prints the journal head; verify --anchor checks it; a cut journal fails")
  func journalHeadAnchors() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    // Several requests in one write, so they are staged in one group with the close: the head
    // must be the sum the record gets on disk, not one computed before it was chained.
    let client = try daemon.connect()
    let lines = [
      #"{"id":1,"op":"add","sku":"CAP-BSB"}"#,
      #"{"id":2,"op":"tender","type":"cash","amount":"50"}"#,
      #"{"id":3,"op":"add","sku":"TOTE-CNV"}"#, #"{"id":4,"op":"void","reason":"left"}"#,
      #"{"id":5,"op":"close_day","key":"k-close-1"}"#,
    ]
    try client.sendRaw(Array(lines.map { $0 + "\n" }.joined().utf8))
    var replies: [JSONValue] = []
    for _ in lines { replies.append(try client.read()) }
    #expect(replies.allSatisfy { $0.isOK }, "\(replies)")
    let report = try #require(replies.last?.result["report"])
    let head = try #require(report["journal_head"])
    let sequence = try #require(head["seq"]?.int64Value)
    let sum = try #require(head["sum"]?.stringValue)
    #expect(report["journal_seq"]?.int64Value == sequence + 1, "the record before the close")

    var records = try journalRecords(daemon)
    let anchored = try #require(records.first { $0["seq"]?.int64Value == sequence })
    #expect(anchored["sum"]?.stringValue == sum)
    let close = try #require(records.last)
    #expect(close["type"] == "day_closed")
    #expect(close["prev"]?.stringValue == sum)

    let text = try #require(replies.last?.result["text"]?.stringValue)
    #expect(text.contains("Journal head"))
    #expect(text.contains("seq \(sequence)\n"))
    #expect(text.contains("  sum \(sum.prefix(32))\n      \(sum.dropFirst(32))\n"))

    // Day 2: one sale, then its close; its head is the sale's last record.
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    let lengthBeforeSale = try Data(
      contentsOf: URL(fileURLWithPath: daemon.dataDirectory + "/journal.ndjson")
    ).count
    #expect(try daemon.cli(["tender", "cash", "20"]).status == 0)
    let second = try daemon.cli(["--json", "close-day"])
    #expect(second.status == 0, "\(second.stderr)")
    let secondReport = try JSONParser.parse(second.stdout.trimmingCharacters(in: .newlines))
    let secondHead = try #require(secondReport.result["report"]?["journal_head"])
    let anchor1 = "\(sequence):\(sum)"
    let anchor2 =
      "\(secondHead["seq"]?.int64Value ?? 0):\(secondHead["sum"]?.stringValue ?? "")"
    daemon.stop()

    // Replay reprints both Z reports byte for byte, head included.
    let replay = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1"])
    #expect(replay.stdout.hasSuffix(text))

    let good = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", anchor1, "--anchor", anchor2,
    ])
    #expect(good.status == 0, "\(good.stderr)")
    #expect(good.stdout.contains("anchor \(sequence): record present"))
    let upper = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", anchor1.uppercased(),
    ])
    #expect(upper.status == 0, "hex digits in either case: \(upper.stderr)")

    // A wrong sum fails, naming the record.
    let flipped = String(anchor1.dropLast()) + (anchor1.hasSuffix("0") ? "1" : "0")
    let wrong = try runCLI(["verify", "--data-dir", daemon.dataDirectory, "--anchor", flipped])
    #expect(wrong.status == 1)
    #expect(wrong.stderr.contains("record \(sequence) has sum \(sum)"), "\(wrong.stderr)")
    let wrongJSON = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", flipped, "--json",
    ])
    #expect(wrongJSON.status == 1)
    let verdict = try JSONParser.parse(
      String(wrongJSON.stdout.split(separator: "\n").first ?? ""))
    #expect(verdict["intact"] == .bool(false))
    #expect(verdict["anchors"]?.arrayValue?.first?["problem"] != nil)

    // Cut the journal at a request boundary: the day-2 sale and close are gone. The chain that
    // is left is intact, so plain verify passes — only the paper anchor can tell.
    let path = daemon.dataDirectory + "/journal.ndjson"
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    try bytes.prefix(lengthBeforeSale).write(to: URL(fileURLWithPath: path))
    records = try journalRecords(daemon)
    #expect(records.last?["more"] == nil, "cut after a request's last record")
    let plain = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(plain.status == 0, "\(plain.stderr)")
    let cut = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--anchor", anchor1, "--anchor", anchor2,
    ])
    #expect(cut.status == 1)
    #expect(cut.stderr.contains("no record \(secondHead["seq"]?.int64Value ?? 0)"), "\(cut.stderr)")
    #expect(cut.stderr.contains("cut off"))
  }

  @Test(
    "a malformed --anchor is a usage error",
    arguments: [
      "57", "57:", ":abc", "abc:def", "0:" + String(repeating: "a", count: 64),
      "-3:" + String(repeating: "a", count: 64), "5:" + String(repeating: "a", count: 63),
      "5:" + String(repeating: "g", count: 64), "5:" + String(repeating: "a", count: 64) + ":1",
      "99999999999999999999:" + String(repeating: "a", count: 64),
    ])
  func malformedAnchor(anchor: String) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let result = try runCLI(["verify", "--data-dir", directory.path("data"), "--anchor", anchor])
    #expect(result.status == 2)
    #expect(result.stderr.contains("--anchor takes SEQ:SUM"), "\(result.stderr)")
  }
}
