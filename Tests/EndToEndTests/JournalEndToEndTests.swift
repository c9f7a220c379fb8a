import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

let visa = #"{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv":"123"}"#

@Suite("No sale is ever lost: journal, recovery, replay", .serialized)
struct JournalEndToEndTests {

  @Test("an open order with lines and a partial card tender survives a clean stop and kill -9")
  func recovery() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    var client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"TEE-WHT-M"}"#).isOK)
    _ = try client.send(#"{"op":"tender","type":"cash","amount":"100"}"#)  // receipt 1
    #expect(try client.send(#"{"op":"add","sku":"OXF-BLU-15","qty":2}"#).isOK)
    #expect(try client.send(#"{"op":"add","sku":"GIFT-25"}"#).isOK)
    let partial = try client.send(
      #"{"op":"tender","type":"card","amount":"10.00","card":\#(visa)}"#)
    #expect(partial.result["paid"] == "10.00")
    let before = try client.send(#"{"op":"order"}"#).result
    let stockBefore = try client.send(#"{"op":"catalog"}"#).result

    #expect(daemon.stop() == 0)
    try daemon.start()
    client = try daemon.connect()
    #expect(try client.send(#"{"op":"order"}"#).result == before)
    #expect(try client.send(#"{"op":"catalog"}"#).result == stockBefore)
    #expect(daemon.log.contains("recovered"))

    daemon.kill9()
    try daemon.start()
    client = try daemon.connect()
    #expect(try client.send(#"{"op":"order"}"#).result == before)
    let paid = try client.send(#"{"op":"tender","type":"cash","amount":"200"}"#)
    #expect(paid.result["receipt"]?["number"] == .int(2))
    let text = try #require(paid.result["receipt"]?["text"]?.stringValue)
    #expect(text.contains("VISA ****4242                      10.00"))

    daemon.kill9()
    try daemon.start()
    client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB"}"#).isOK)
    let third = try client.send(#"{"op":"tender","type":"cash","amount":"50"}"#)
    #expect(third.result["receipt"]?["number"] == .int(3), "receipt numbers continue, no gap")
    #expect(
      try client.send(#"{"op":"receipt","number":2}"#).result["text"]?.stringValue?
        .contains("*** REPRINT ***") == true)
  }

  @Test("a torn tail is set aside at start-up and every complete record is kept")
  func tornTail() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    var client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"JNS-SLM-3232"}"#).isOK)
    let before = try client.send(#"{"op":"order"}"#).result
    daemon.stop()
    let path = try openSegmentPath(daemon.dataDirectory)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(#"{"seq":99,"at":"2026-11-22T14:03:05.000-05:00","type":"line_add"#.utf8))
    try handle.close()
    try daemon.start()
    #expect(daemon.log.contains("torn or unreadable tail"))
    let aside = try FileManager.default.contentsOfDirectory(atPath: daemon.dataDirectory)
      .filter { $0.hasPrefix("day000001-seq000000000001.ndjson.torn-") }
    #expect(aside.count == 1)
    client = try daemon.connect()
    #expect(try client.send(#"{"op":"order"}"#).result == before)
    // The journal is whole again and keeps working.
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB"}"#).isOK)
    daemon.stop()
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(verify.stderr)")
  }

  @Test("a changed amount in an old record: verify finds it and start-up refuses")
  func tampering() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"add","sku":"TEE-WHT-M"}"#).isOK)
    _ = try client.send(#"{"op":"tender","type":"cash","amount":"20"}"#)
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB"}"#).isOK)
    daemon.stop()
    let path = try openSegmentPath(daemon.dataDirectory)
    let verified = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verified.status == 0)
    #expect(verified.stdout.contains("intact"))

    var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(
      String.init)
    let index = try #require(lines.firstIndex { $0.contains(#""type":"tender_added""#) })
    lines[index] = lines[index].replacingOccurrences(
      of: #""amount":"20.00""#, with: #""amount":"2.00""#)
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    let sequence = index + 1

    let check = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(check.status == 1)
    #expect(check.stderr.contains("seq \(sequence)"), "\(check.stderr)")
    #expect(check.stderr.contains("checksum mismatch"))

    #expect(throws: HarnessError.self) { try daemon.start() }
    #expect(daemon.exitCode == 1)
    #expect(daemon.log.contains("record seq \(sequence)"))
    #expect(daemon.log.contains("truncate"))
  }

  @Test(
    "verify checks the chain the fast way and --events reads every event too; damage is named the same"
  )
  func verifyChainAndEvents() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    for _ in 0..<3 {
      #expect(try client.send(#"{"op":"add","sku":"TEE-WHT-M"}"#).isOK)
      #expect(try client.send(#"{"op":"tender","type":"cash","amount":"20"}"#).isOK)
    }
    daemon.stop()
    let data = daemon.dataDirectory
    let chain = try runCLI(["--json", "verify", "--data-dir", data])
    let events = try runCLI(["--json", "verify", "--data-dir", data, "--events"])
    #expect(chain.status == 0 && events.status == 0, "\(chain.stderr) \(events.stderr)")
    let fast = try JSONParser.parse(chain.stdout.trimmingCharacters(in: .newlines))
    let full = try JSONParser.parse(events.stdout.trimmingCharacters(in: .newlines))
    #expect(fast["events_read"] == .bool(false) && full["events_read"] == .bool(true))
    // Apart from that, the same report: records, bytes, last sum.
    func withoutEventsRead(_ value: JSONValue) -> JSONObject? {
      guard case .object(var object) = value else { return nil }
      object["events_read"] = nil
      return object
    }
    #expect(withoutEventsRead(fast) != nil)
    #expect(withoutEventsRead(fast) == withoutEventsRead(full))
    let text = try runCLI(["verify", "--data-dir", data, "--events"])
    #expect(text.stdout.contains("every record and its event read as registerd reads them"))

    // A record with a good checksum and link but an event this registerd does not know (as a
    // newer one might write): the chain is intact; reading the events is not.
    let path = try openSegmentPath(data)
    let bytes = try JournalFiles.readSegment(path)
    let last = try #require(JournalScanner.scan(bytes).records.last)
    let record = JournalRecord.encode(
      sequence: last.sequence + 1, at: last.at, type: "coupon_printed", data: .object([:]),
      operatorID: nil, key: nil, more: false, previous: last.sum)
    try Data(bytes + record.line).write(to: URL(fileURLWithPath: path))
    let stillIntact = try runCLI(["verify", "--data-dir", data])
    #expect(stillIntact.status == 0, "\(stillIntact.stderr)")
    #expect(stillIntact.stdout.contains("last seq \(last.sequence + 1)"))
    let unreadable = try runCLI(["verify", "--data-dir", data, "--events"])
    #expect(unreadable.status == 1)
    #expect(unreadable.stderr.contains("seq \(last.sequence + 1)"), "\(unreadable.stderr)")

    // A byte changed in the middle: both ways name the same first bad record.
    var lines = bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
    lines[3][lines[3].count / 2] ^= 0x01
    try Data(lines.map { $0 + [10] }.joined()).write(to: URL(fileURLWithPath: path))
    let damaged = try runCLI(["--json", "verify", "--data-dir", data])
    let damagedFull = try runCLI(["--json", "verify", "--data-dir", data, "--events"])
    #expect(damaged.status == 1 && damagedFull.status == 1)
    let bad = try JSONParser.parse(damaged.stdout.trimmingCharacters(in: .newlines))
    let badFull = try JSONParser.parse(damagedFull.stdout.trimmingCharacters(in: .newlines))
    #expect(bad["first_bad"]?["line"] == .int(4), "\(damaged.stdout)")
    #expect(bad["first_bad"] == badFull["first_bad"])
    #expect(bad["problem"] == badFull["problem"])
  }

  @Test("replay prints each receipt byte for byte as at sale time, then the Z report")
  func replayIsByteIdentical() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    var texts: [String] = []
    let sales = [
      [#"{"op":"add","sku":"OXF-BLU-15","qty":2}"#, #"{"op":"add","sku":"GIFT-25"}"#],
      [#"{"op":"add","sku":"PRINT-ART","options":{"size":"16x20","frame":"oak"}}"#],
      [#"{"op":"add","sku":"SOCK-3PK","qty":3}"#, #"{"op":"add","sku":"TOTE-CNV"}"#],
    ]
    for (index, lines) in sales.enumerated() {
      for line in lines { #expect(try client.send(line).isOK) }
      let reply =
        index == 1
        ? try client.send(#"{"op":"tender","type":"card","card":\#(visa)}"#)
        : try client.send(#"{"op":"tender","type":"cash","amount":"500"}"#)
      texts.append(try #require(reply.result["receipt"]?["text"]?.stringValue))
    }
    #expect(try client.send(#"{"op":"add","sku":"CAP-BSB"}"#).isOK)
    #expect(try client.send(#"{"op":"void","reason":"customer left"}"#).isOK)
    let closed = try client.send(#"{"op":"close_day","counted":{"cash":"120.00"}}"#)
    let zText = try #require(closed.result["text"]?.stringValue)
    #expect(zText.contains("Z REPORT - DAY 1"))
    #expect(zText.contains("Voided orders (1)"))
    daemon.stop()

    let replay = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--day", "1", "--json"])
    #expect(replay.status == 0, "\(replay.stderr)")
    let value = try JSONParser.parse(replay.stdout.trimmingCharacters(in: .newlines))
    let replayed = value["receipts"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
    #expect(replayed == texts)
    #expect(value["report"]?["text"]?.stringValue == zText)

    let plain = try runCLI(["replay", "--data-dir", daemon.dataDirectory])
    #expect(plain.stdout == texts.map { $0 + "\n" }.joined() + zText)
    let one = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "2"])
    #expect(one.stdout == texts[1])
    let missing = try runCLI(["replay", "--data-dir", daemon.dataDirectory, "--receipt", "9"])
    #expect(missing.status == 1)

    // The Z report reprinted by a restarted daemon is the same text, marked as a reprint.
    try daemon.start()
    let reprinted = try daemon.connect().send(#"{"op":"report","kind":"z","day":1}"#)
    #expect(
      reprinted.result["text"]?.stringValue
        == zText.replacingOccurrences(
          of: "Z REPORT - DAY 1\n", with: "Z REPORT - DAY 1\n            *** REPRINT ***\n"))
    #expect(reprinted.result["report"]?["reprint"] == .bool(true))
    #expect(closed.result["report"]?["reprint"] == nil)
    let x = try daemon.connect().send(#"{"op":"report","kind":"x"}"#)
    #expect(x.result["report"]?["day"] == .int(2))
    #expect(x.result["report"]?["sales_count"] == .int(0))
  }

  @Test("kill -9 under load from several clients loses no acknowledged change")
  func killUnderLoad() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let ledger = Ledger()
    for round in 0..<6 {
      let stop = Flag()
      let group = DispatchGroup()
      for worker in 0..<4 {
        group.enter()
        Thread.detachNewThread {
          defer { group.leave() }
          loadWorker(
            socket: daemon.socketPath, worker: worker, round: round, stop: stop, ledger: ledger)
        }
      }
      // Killed at a different point of the load each round: once the workers have had a
      // random number of changes acknowledged since the round began.
      let target = ledger.acknowledgedLines + Int.random(in: 3...12)
      #expect(
        waitUntil(within: 20, every: 0.005) { ledger.acknowledgedLines >= target },
        "round \(round): the load made no progress")
      daemon.kill9()
      stop.set()
      group.wait()
      try daemon.start()
      try checkLedger(ledger, daemon: daemon)
    }
    #expect(ledger.acknowledgedLines > 20, "the load produced acknowledged changes")
    #expect(ledger.acknowledgedReceipts > 2)
  }
}

/// Acknowledged facts: lines by (order, line) and receipts, all of which must survive.
final class Ledger: @unchecked Sendable {
  private let lock = NSLock()
  private(set) var lines: [String: (order: Int, line: Int, qty: Int)] = [:]
  private(set) var receipts: [Int: (order: Int, total: String)] = [:]

  var acknowledgedLines: Int { lock.withLock { lines.count } }
  var acknowledgedReceipts: Int { lock.withLock { receipts.count } }

  func line(order: Int, line: Int, qty: Int) {
    lock.withLock { lines["\(order)/\(line)"] = (order, line, qty) }
  }

  func receipt(_ number: Int, order: Int, total: String) {
    lock.withLock { receipts[number] = (order, total) }
  }

  func snapshot() -> ([(order: Int, line: Int, qty: Int)], [Int: (order: Int, total: String)]) {
    lock.withLock { (Array(lines.values), receipts) }
  }
}

final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
}

/// One client hammering the register: mostly adds, sometimes a tender that completes the sale.
/// Only replies that arrived count as acknowledged.
func loadWorker(socket: String, worker: Int, round: Int, stop: Flag, ledger: Ledger) {
  guard let client = try? Client(path: socket) else { return }
  var step = 0
  while !stop.isSet {
    step += 1
    let qty = 1 + (step + worker) % 5
    do {
      if step % 7 == worker % 7 {
        let reply = try client.send(#"{"op":"tender","type":"cash","amount":"100000"}"#)
        if let number = reply.result["receipt"]?["number"]?.int64Value,
          let order = reply.result["order_id"]?.int64Value,
          let total = reply.result["total"]?.stringValue
        {
          ledger.receipt(Int(number), order: Int(order), total: total)
        }
      } else {
        let reply = try client.send(#"{"op":"add","sku":"SOCK-3PK","qty":\#(qty)}"#)
        guard reply.isOK, let order = reply.result["order_id"]?.int64Value,
          let last = reply.result["lines"]?.arrayValue?.last?["line"]?.int64Value
        else { continue }
        // The line this request added is the last one in the reply (lines are only appended).
        ledger.line(order: Int(order), line: Int(last), qty: qty)
      }
    } catch {
      return
    }
  }
}

/// Every acknowledged line and receipt is present after the restart; nothing is half-applied.
func checkLedger(_ ledger: Ledger, daemon: Daemon) throws {
  let client = try daemon.connect()
  let (lines, receipts) = ledger.snapshot()
  var byOrder: [Int: JSONValue] = [:]
  var number = 1
  while true {
    let reply = try client.send(#"{"op":"receipt","number":\#(number)}"#)
    guard reply.isOK else {
      #expect(reply.errorCode == "receipt_not_found")
      break
    }
    let receipt = try #require(reply.result["receipt"])
    let order = try #require(receipt["order_id"]?.int64Value)
    byOrder[Int(order)] = receipt
    // A completed sale is fully paid.
    let total = try #require(receipt["total"]?.stringValue)
    let paid = try #require(receipt["paid"]?.stringValue)
    #expect(try Money.parse(paid, currency: .usd) >= Money.parse(total, currency: .usd))
    number += 1
  }
  let highest = number - 1
  for (receiptNumber, expected) in receipts {
    #expect(receiptNumber <= highest, "acknowledged receipt \(receiptNumber) is missing")
    #expect(byOrder[expected.order]?["number"] == .int(receiptNumber))
    #expect(byOrder[expected.order]?["total"]?.stringValue == expected.total)
  }
  let open = try client.send(#"{"op":"order"}"#).result
  let openID = Int(open["order_id"]?.int64Value ?? -1)
  #expect(open["tenders"] == .array([]), "an open order never holds a completing tender")
  for fact in lines {
    let container = fact.order == openID ? open : byOrder[fact.order]
    let found = container?["lines"]?.arrayValue?.first { $0["line"] == .int(fact.line) }
    #expect(
      found?["qty"] == .int(fact.qty), "acknowledged line \(fact.order)/\(fact.line) is missing")
  }
}
