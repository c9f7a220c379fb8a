import Foundation
import RegisterEngine
import RegisterServer
import Testing

@Suite("Snapshots: written at a close of day, started from, receipts archived", .serialized)
struct SnapshotEndToEndTests {
  /// Waits until the daemon's log holds `text` (a snapshot is written on a thread of its own).

  @Test("close-day writes a snapshot and archives the day's receipts; a restart starts from it")
  func closeDaySnapshotAndRestart() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    let sale = try daemon.cli(["tender", "cash", "50"])
    #expect(sale.status == 0, "\(sale.stderr)")
    let printed = try daemon.cli(["receipt", "1"])
    #expect(printed.status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("snapshot of record"), "\(daemon.log)")
    #expect(daemon.log.contains("receipts of day(s) 1 archived"))
    let snapshots = SnapshotFiles.list(in: daemon.dataDirectory)
    #expect(snapshots.map(\.day) == [2])
    #expect(
      FileManager.default.fileExists(atPath: daemon.dataDirectory + "/receipts/day000001.ndjson"))
    // The receipt now comes from the archive file, the same as before.
    let reprint = try daemon.cli(["receipt", "1"])
    #expect(reprint.stdout == printed.stdout)
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)

    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(daemon.log.contains("started from the snapshot \(snapshots[0].path)"))
    #expect(try daemon.cli(["receipt", "1"]).stdout == printed.stdout)
    let order = try daemon.connect().send(#"{"op":"order"}"#)
    #expect(order.result["lines"]?.arrayValue?.count == 1, "the open order came back")
    #expect(daemon.stop() == 0)

    // Offline: the day replays from the journal (and its snapshot), verify passes.
    let replay = try runCLI(["--json", "replay", "--data-dir", daemon.dataDirectory, "--day", "1"])
    #expect(replay.status == 0, "\(replay.stderr)")
    let replayed = try JSONParser.parse(replay.stdout)
    #expect(replayed["receipts"]?.arrayValue?.count == 1)
    #expect(replayed["closed"] == .bool(true))
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(verify.stderr)")
    #expect(verify.stdout.contains("in 2 segments,"))
  }

  @Test("verify fails, as start-up does, when the journal does not reach the newest snapshot")
  func verifyAgreesWithStartUpOnASnapshotTheJournalDoesNotReach() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("snapshot of record"))
    #expect(daemon.stop() == 0)
    #expect(try runCLI(["verify", "--data-dir", daemon.dataDirectory]).status == 0)
    // The close cut off the end of its segment: the chain left is whole, but acknowledged
    // records are gone, and the snapshot after the close says so.
    let segment = try #require(try JournalFiles.segments(in: daemon.dataDirectory).last)
    let bytes = try JournalFiles.readSegment(segment.path)
    let lastLine = try #require(bytes.dropLast().lastIndex(of: UInt8(ascii: "\n")))
    #expect(chmod(segment.path, 0o600) == 0)
    try Data(bytes[...lastLine]).write(to: URL(fileURLWithPath: segment.path))
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 1)
    #expect(verify.stderr.contains("the journal ends at seq"), "\(verify.stderr)")
    #expect(verify.stderr.contains("registerd does not start on it"), "\(verify.stderr)")
    #expect(throws: HarnessError.self) { try daemon.start() }
    #expect(daemon.log.contains("the journal ends at seq"), "\(daemon.log)")
  }

  @Test("a snapshot cut short (a crash while writing it) is skipped at start-up")
  func damagedSnapshotIsSkipped() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("snapshot of record"))
    #expect(daemon.stop() == 0)
    let snapshot = try #require(SnapshotFiles.list(in: daemon.dataDirectory).first)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: snapshot.path))
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: snapshot.path))
    try daemon.start()
    #expect(daemon.log.contains("skipped a snapshot that cannot be used"))
    #expect(try daemon.cli(["receipt", "1"]).status == 0, "the receipt is still there")
  }
}

@Suite("kill -9 around a close of day and its snapshot", .serialized)
struct SnapshotCrashTests {
  @Test("killed at any moment after a close: every acknowledged sale and close comes back")
  func killDuringCloseAndSnapshot() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    var receipts: [String] = []
    var closedDays = 0
    for round in 0..<8 {
      var client = try daemon.connect()
      for _ in 0..<3 {
        #expect(try client.send(#"{"op":"add","sku":"TEE-WHT-M"}"#).isOK)
        let paid = try client.send(#"{"op":"tender","type":"cash","amount":"50"}"#)
        let text = try #require(paid.result["receipt"]?["text"]?.stringValue)
        receipts.append(text)
      }
      #expect(try client.send(#"{"op":"close_day"}"#).isOK)
      closedDays += 1
      // The snapshot (and the day's receipt archive) is being written on its own thread now:
      // kill at a different moment each round, from at once to after it is done. Nothing
      // marks those moments from outside: the time that passes is what varies.
      usleep(UInt32(round * round * 3_000))
      daemon.kill9()
      // A half-written temporary file as a crash would leave it.
      let folder = SnapshotFiles.directory(in: daemon.dataDirectory)
      if FileManager.default.fileExists(atPath: folder) {
        try Data("{\"form".utf8).write(
          to: URL(
            fileURLWithPath: folder
              + "/snapshot-day000099-seq000000000099.json.tmp-0123456789abcdef"))
      }
      try daemon.start()
      client = try daemon.connect()
      let hello = try client.send(#"{"op":"hello"}"#)
      #expect(hello.isOK)
      // Every acknowledged receipt is there, printed the same (bar the reprint mark).
      func unmarked(_ text: String?) -> [Substring] {
        (text ?? "").split(separator: "\n").filter { !$0.contains("REPRINT") }
      }
      for (index, text) in receipts.enumerated() {
        let reprint = try client.send(#"{"op":"receipt","number":\#(index + 1)}"#)
        #expect(
          unmarked((reprint.result["text"] ?? reprint.result["receipt"]?["text"])?.stringValue)
            == unmarked(text),
          "round \(round), receipt \(index + 1)")
      }
      let report = try client.send(#"{"op":"report","kind":"z","day":\#(closedDays)}"#)
      #expect(report.isOK, "day \(closedDays)'s close survived: \(report)")
      #expect(
        !((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains {
          $0.contains(".tmp-")
        }, "a crash's temporary files are removed at start")
    }
    #expect(daemon.stop() == 0)
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(verify.stderr)")
  }
}
