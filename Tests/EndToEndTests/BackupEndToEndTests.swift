import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

@Suite("Backup and archive of a data directory while registerd runs", .serialized)
struct BackupEndToEndTests {
  /// The repository's catalog with enough tees for a long run of sales.
  static func bigStockCatalog() throws -> String {
    let text = try String(
      contentsOf: Binaries.repository.appendingPathComponent("Data/products.json"),
      encoding: .utf8)
    return text.replacingOccurrences(
      of:
        #""sku": "TEE-WHT-M", "name": "Classic Cotton Tee, White M", "description": "Heavyweight crew-neck tee in combed cotton.", "category": "Tops", "price": "14.99", "stock": 40"#,
      with:
        #""sku": "TEE-WHT-M", "name": "Classic Cotton Tee, White M", "description": "Heavyweight crew-neck tee in combed cotton.", "category": "Tops", "price": "14.99", "stock": 1000000"#
    )
  }

  /// Waits until the daemon's log holds `text` (snapshots are written on a thread of their own).

  /// Rings `days` days of `sales` sales each, closing each day (each close seals the day's
  /// segment and writes a snapshot), then one more sale on the open day.
  func ringClosedDays(_ daemon: Daemon, days: Int, sales: Int = 2) throws {
    for day in 1...days {
      for _ in 0..<sales {
        #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
        #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
      }
      #expect(try daemon.cli(["close-day"]).status == 0)
      #expect(daemon.waitForLog("snapshot of record", count: day), "\(daemon.log)")
    }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
  }

  func names(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
  }

  @Test(
    "a backup taken while sales are rung verifies, starts registerd, and is a prefix of the live journal"
  )
  func backupWhileRinging() throws {
    let daemon = try Daemon(catalog: try Self.bigStockCatalog())
    defer { daemon.cleanup() }
    // A closed day: a sealed segment, a snapshot and a receipt archive file to back up too.
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("snapshot of record"))

    let stop = Flag()
    let sold = Counter()
    let done = DispatchGroup()
    done.enter()
    Thread.detachNewThread {
      defer { done.leave() }
      guard let client = try? Client(path: daemon.socketPath) else { return }
      while !stop.isSet {
        guard (try? client.send(#"{"op":"add","sku":"TEE-WHT-M"}"#))?.isOK == true,
          (try? client.send(#"{"op":"tender","type":"cash","amount":"20.00"}"#))?.isOK == true
        else { return }
        sold.increment()
      }
    }
    defer {
      stop.set()
      done.wait()
    }
    func waitForSales(_ count: Int) {
      #expect(waitUntil(within: 20, every: 0.01) { sold.value >= count }, "\(count) sales")
    }
    waitForSales(5)
    var backups: [(path: String, lastSeq: Int64, lastSum: String)] = []
    let scratch = try TemporaryDirectory()
    defer { scratch.cleanup() }
    for round in 0..<3 {
      let target = scratch.path("backup\(round)")
      let before = sold.value
      let result = try runCLI([
        "--json", "backup", "--to", target, "--data-dir", daemon.dataDirectory,
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let summary = try JSONParser.parse(result.stdout)
      let lastSeq = try #require(summary["last_seq"]?.int64Value)
      let lastSum = try #require(summary["last_sum"]?.stringValue)
      #expect(summary["segments"] == .int(2))
      #expect(summary["linked_segments"] == .int(1), "the sealed segment is hard-linked")
      #expect(summary["snapshots"] == .int(1))
      #expect(summary["receipt_files"] == .int(2), "day 1's receipts and their index")
      backups.append((target, lastSeq, lastSum))
      waitForSales(before + 3)
    }
    #expect(sold.value > 10, "sales went on during the backups")
    stop.set()
    done.wait()
    #expect(daemon.stop() == 0)

    let live = try JournalFiles.readAll(in: daemon.dataDirectory)
    let liveScan = JournalScanner.scan(live)
    #expect(liveScan.isIntact)
    for backup in backups {
      // verify passes on it, and it is exactly a prefix of the live journal: the same records
      // with the same sums, cut at a request boundary.
      let verify = try runCLI(["verify", "--data-dir", backup.path])
      #expect(verify.status == 0, "\(verify.stderr)")
      #expect(verify.stdout.contains("last seq \(backup.lastSeq), last sum \(backup.lastSum)"))
      let copied = try JournalFiles.readAll(in: backup.path)
      #expect(copied.count <= live.count)
      #expect(
        Array(live.prefix(copied.count)) == copied, "the backup is a prefix of the live journal")
      let scan = JournalScanner.scan(copied)
      #expect(scan.isIntact)
      #expect(scan.records.last?.sequence == backup.lastSeq)
      let liveRecord = liveScan.records.first { $0.sequence == backup.lastSeq }
      #expect(liveRecord?.sum == backup.lastSum)
      #expect(scan.records.last?.more == false)
      // No snapshot the copied journal does not reach.
      for snapshot in SnapshotFiles.list(in: backup.path) {
        #expect(snapshot.sequence <= backup.lastSeq)
      }
    }

    // registerd starts from the last backup, as it was at that moment.
    let restoreDirectory = try TemporaryDirectory()
    let last = try #require(backups.last)
    try FileManager.default.moveItem(atPath: last.path, toPath: restoreDirectory.path("data"))
    let restored = try Daemon(
      catalog: try Self.bigStockCatalog(), directory: restoreDirectory)
    defer { restored.cleanup() }
    #expect(restored.log.contains("started from the snapshot"), "\(restored.log)")
    let hello = try restored.connect().send(#"{"op":"hello"}"#)
    #expect(hello.isOK)
    #expect(try restored.cli(["receipt", "1"]).status == 0, "day 1's receipt, from the archive")
    #expect(try restored.cli(["add", "TEE-WHT-M"]).status == 0, "it takes new sales")
    #expect(restored.stop() == 0)
    let grown = try runCLI(["verify", "--data-dir", restoreDirectory.path("data")])
    #expect(grown.status == 0, "\(grown.stderr)")
    // The live data directory was not touched by the restored daemon (shared, read-only
    // segments are never written).
    #expect(try JournalFiles.readAll(in: daemon.dataDirectory) == live)
  }

  @Test("backup and verify never read through a link planted in the data directory")
  func plantedLinksAreNotFollowed() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    try ringClosedDays(daemon, days: 2)
    let data = daemon.dataDirectory
    let scratch = try TemporaryDirectory()
    defer { scratch.cleanup() }
    let secret = scratch.path("secret.txt")
    try "not the register's\n".write(toFile: secret, atomically: true, encoding: .utf8)
    func backupFails(_ why: String) throws {
      let target = scratch.path("backup-\(UUID().uuidString.prefix(6))")
      let result = try runCLI(["backup", "--to", target, "--data-dir", data])
      #expect(result.status != 0, "\(why): \(result.stdout)")
      #expect(!FileManager.default.fileExists(atPath: target), "\(why)")
      #expect(!result.stdout.contains("not the register's"))
    }

    // A file of the receipt archive replaced by a link to a file elsewhere.
    let receipts = data + "/receipts"
    let archived = try #require(names(receipts).first)
    try FileManager.default.moveItem(
      atPath: receipts + "/" + archived, toPath: scratch.path("kept-receipts"))
    try FileManager.default.createSymbolicLink(
      atPath: receipts + "/" + archived, withDestinationPath: secret)
    try backupFails("a linked receipt file")
    try FileManager.default.removeItem(atPath: receipts + "/" + archived)
    try FileManager.default.moveItem(
      atPath: scratch.path("kept-receipts"), toPath: receipts + "/" + archived)

    // The snapshots folder replaced by a link to a copy of it elsewhere.
    try FileManager.default.moveItem(atPath: data + "/snapshots", toPath: scratch.path("snaps"))
    try FileManager.default.createSymbolicLink(
      atPath: data + "/snapshots", withDestinationPath: scratch.path("snaps"))
    try backupFails("a linked snapshots folder")
    try FileManager.default.removeItem(atPath: data + "/snapshots")
    try FileManager.default.moveItem(atPath: scratch.path("snaps"), toPath: data + "/snapshots")

    // An offline check of a data directory whose journal folder is a link: refused, saying so.
    let copy = scratch.path("copy")
    let made = try runCLI(["backup", "--to", copy, "--data-dir", data])
    #expect(made.status == 0, "\(made.stderr)")
    try FileManager.default.moveItem(atPath: copy + "/journal", toPath: scratch.path("journal"))
    try FileManager.default.createSymbolicLink(
      atPath: copy + "/journal", withDestinationPath: scratch.path("journal"))
    let verify = try runCLI(["verify", "--data-dir", copy])
    #expect(verify.status != 0)
    #expect(verify.stderr.contains("symbolic link"), "\(verify.stderr)")
  }

  @Test(
    "backup refuses a non-empty target; a crash mid-backup leaves no target; --copy links nothing")
  func backupRefusalsAndCrash() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("snapshot of record"))
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    let scratch = try TemporaryDirectory()
    defer { scratch.cleanup() }

    // An existing directory with something in it is never written into.
    let occupied = scratch.path("occupied")
    try FileManager.default.createDirectory(atPath: occupied, withIntermediateDirectories: true)
    try "mine".write(toFile: occupied + "/note", atomically: true, encoding: .utf8)
    let refused = try runCLI(["backup", "--to", occupied, "--data-dir", daemon.dataDirectory])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("exists and is not empty"), "\(refused.stderr)")
    #expect(names(occupied) == ["note"])
    #expect(names(scratch.url.path) == ["occupied"], "no temporary directory left behind")
    // A file, and a place inside the data directory, are refused too; no --to is a usage error.
    let file = try runCLI([
      "backup", "--to", occupied + "/note", "--data-dir", daemon.dataDirectory,
    ])
    #expect(file.status == 1)
    let inside = try runCLI([
      "backup", "--to", daemon.dataDirectory + "/copy", "--data-dir", daemon.dataDirectory,
    ])
    #expect(inside.status == 1)
    #expect(inside.stderr.contains("inside the data directory"), "\(inside.stderr)")
    #expect(!FileManager.default.fileExists(atPath: daemon.dataDirectory + "/copy"))
    #expect(try runCLI(["backup", "--data-dir", daemon.dataDirectory]).status == 2)
    let noJournal = try runCLI([
      "backup", "--to", scratch.path("x"), "--data-dir", scratch.path("none"),
    ])
    #expect(noJournal.status == 1)
    #expect(!FileManager.default.fileExists(atPath: scratch.path("x")))

    // An empty directory is fine (and --copy shares no file with the data directory).
    let empty = scratch.path("empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let copied = try runCLI([
      "--json", "backup", "--copy", "--to", empty, "--data-dir", daemon.dataDirectory,
    ])
    #expect(copied.status == 0, "\(copied.stderr)")
    #expect(try JSONParser.parse(copied.stdout)["linked_segments"] == .int(0))
    for segment in try JournalFiles.segments(in: empty) {
      let attributes = try FileManager.default.attributesOfItem(atPath: segment.path)
      #expect((attributes[.referenceCount] as? Int) == 1, "\(segment.name) is a copy")
    }
    #expect(try runCLI(["verify", "--data-dir", empty]).status == 0)

    // A crash after everything is written but before the rename: no target at all.
    let target = scratch.path("nightly")
    let process = Process()
    process.executableURL = Binaries.registerCLI
    process.arguments = ["backup", "--to", target, "--data-dir", daemon.dataDirectory]
    var environment = ProcessInfo.processInfo.environment
    environment["REGISTER_TEST_BACKUP_STALL_SECONDS"] = "60"
    process.environment = environment
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // It says so once the backup is written in its temporary directory, not yet renamed.
    let said = read(errors.fileHandleForReading, until: "stalling in")
    #expect(said.contains("stalling in"), "the backup did not get to its stall: \(said)")
    let temporary = names(scratch.url.path).first { $0.hasPrefix("nightly.tmp-") }
    #expect(
      temporary.map { names(scratch.path($0)).contains("receipts") } == true,
      "the backup got as far as its temporary directory")
    kill(process.processIdentifier, SIGKILL)
    #expect(exitStatus(of: process, timeout: 10) != 0)
    #expect(!FileManager.default.fileExists(atPath: target), "no backup that looks complete")
    #expect(names(scratch.url.path).contains { $0.hasPrefix("nightly.tmp-") })
    // The next night's run is not disturbed by the leftover.
    let again = try runCLI(["backup", "--to", target, "--data-dir", daemon.dataDirectory])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try runCLI(["verify", "--data-dir", target]).status == 0)
  }

  @Test(
    "archive moves old segments, refuses what start-up needs; verify --archive proves the chain")
  func archiveOldSegments() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    try ringClosedDays(daemon, days: 4)
    let data = daemon.dataDirectory
    let segmentsBefore = try JournalFiles.segments(in: data)
    #expect(segmentsBefore.map(\.day) == [1, 2, 3, 4, 5])
    let wholeChain = try runCLI(["--json", "verify", "--data-dir", data])
    let head = try JSONParser.parse(wholeChain.stdout)
    let archive = daemon.directory.path("archive")

    // Day 4's segment holds the newest snapshot's record (the close of day 4): refused whole.
    let needed = try runCLI(["archive", "--before-day", "5", "--to", archive, "--data-dir", data])
    #expect(needed.status == 1)
    #expect(needed.stderr.contains("start-up needs"), "\(needed.stderr)")
    #expect(needed.stderr.contains("--before-day 4"))
    #expect(try JournalFiles.segments(in: data) == segmentsBefore, "nothing was moved")
    #expect(!FileManager.default.fileExists(atPath: archive))
    #expect(try runCLI(["archive", "--to", archive, "--data-dir", data]).status == 2)
    #expect(
      try runCLI(["archive", "--before-day", "x", "--to", archive, "--data-dir", data]).status == 2)

    // While registerd runs: days 1-3 go, with the snapshots that needed them.
    let moved = try runCLI([
      "--json", "archive", "--before-day", "4", "--to", archive, "--data-dir", data,
    ])
    #expect(moved.status == 0, "\(moved.stderr)")
    #expect(
      names(archive).filter { $0.hasSuffix(".ndjson") } == segmentsBefore.prefix(3).map(\.name))
    #expect(try JournalFiles.segments(in: data).map(\.day) == [4, 5])
    let keptFirst = segmentsBefore[3].firstSequence
    #expect(SnapshotFiles.list(in: data).allSatisfy { $0.sequence >= keptFirst - 1 })
    #expect(!names(archive + "/snapshots").isEmpty, "the snapshots that cannot be used went too")
    let twice = try runCLI(["archive", "--before-day", "4", "--to", archive, "--data-dir", data])
    #expect(twice.status == 0)
    #expect(twice.stdout.contains("nothing to archive"))

    // The daemon still serves, and restarts from its snapshot without the old segments.
    #expect(try daemon.cli(["receipt", "1"]).status == 0)
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(try daemon.cli(["receipt", "1"]).status == 0, "a receipt of an archived day")
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(daemon.stop() == 0)

    // Plain verify checks the live part and says where it starts.
    let live = try runCLI(["--json", "verify", "--data-dir", data])
    #expect(live.status == 0, "\(live.stderr)")
    let liveReport = try JSONParser.parse(live.stdout)
    #expect(liveReport["first_seq"] == .int(keptFirst))
    let text = try runCLI(["verify", "--data-dir", data])
    #expect(text.stdout.contains("checked from seq \(keptFirst)"), "\(text.stdout)")
    // With the archive: the whole chain from record 1, through the same head as before.
    let whole = try runCLI(["--json", "verify", "--data-dir", data, "--archive", archive])
    #expect(whole.status == 0, "\(whole.stderr)")
    let wholeReport = try JSONParser.parse(whole.stdout)
    #expect(wholeReport["first_seq"] == .int(1))
    #expect(wholeReport["archived_segments"] == .int(3))
    let records = try #require(wholeReport["records"]?.int64Value)
    #expect(records == (wholeReport["last_seq"]?.int64Value ?? 0))
    #expect(records > (head["last_seq"]?.int64Value ?? .max), "the chain before, and after")
    // An anchor in archived history needs the archive.
    let closeHead = try #require(
      JournalScanner.scan(try FileIO.read(archive + "/" + segmentsBefore[0].name)).records.last)
    let anchor = "\(closeHead.sequence):\(closeHead.sum)"
    #expect(try runCLI(["verify", "--data-dir", data, "--anchor", anchor]).status == 1)
    #expect(
      try runCLI(["verify", "--data-dir", data, "--archive", archive, "--anchor", anchor]).status
        == 0)

    // An archive missing its first segment, or a segment in two places with other bytes, fails.
    let partial = daemon.directory.path("partial")
    try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
    for segment in segmentsBefore[1..<3] {
      try FileManager.default.copyItem(
        atPath: archive + "/" + segment.name, toPath: partial + "/" + segment.name)
    }
    let gap = try runCLI(["verify", "--data-dir", data, "--archive", partial])
    #expect(gap.status == 1)
    #expect(gap.stderr.contains("starts at seq"), "\(gap.stderr)")
    let forged = daemon.directory.path("forged")
    try FileManager.default.createDirectory(atPath: forged, withIntermediateDirectories: true)
    try Data("{}\n".utf8).write(to: URL(fileURLWithPath: forged + "/" + segmentsBefore[3].name))
    let clash = try runCLI([
      "verify", "--data-dir", data, "--archive", archive, "--archive", forged,
    ])
    #expect(clash.status == 1)
    #expect(clash.stderr.contains("different contents"), "\(clash.stderr)")
  }

  @Test(
    "a journal whose first segment was removed fails verify and start-up; one archive moved out passes, and so does its backup"
  )
  func aRemovedFirstSegmentIsNotAnArchivedOne() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    try ringClosedDays(daemon, days: 3, sales: 1)
    #expect(daemon.stop() == 0)
    let data = daemon.dataDirectory
    let segments = try JournalFiles.segments(in: data)
    let first = segments[0]
    let aside = daemon.directory.path("aside-" + first.name)
    try FileManager.default.moveItem(atPath: first.path, toPath: aside)
    let missing = "records 1-\(segments[1].firstSequence - 1) are not in"
    let removed = try runCLI(["verify", "--data-dir", data])
    #expect(removed.status == 1)
    #expect(removed.stderr.contains(missing), "\(removed.stderr)")
    #expect(throws: HarnessError.self) { try daemon.start() }
    #expect(daemon.log.contains(missing), "\(daemon.log)")

    // Put back, then moved out by archive: recorded, so verify and start-up take it.
    try FileManager.default.moveItem(atPath: aside, toPath: first.path)
    let archive = daemon.directory.path("archive")
    let moved = try runCLI(["archive", "--before-day", "2", "--to", archive, "--data-dir", data])
    #expect(moved.status == 0, "\(moved.stderr)")
    #expect(FileManager.default.fileExists(atPath: JournalFiles.archiveManifestPath(in: data)))
    let archived = try runCLI(["verify", "--data-dir", data])
    #expect(archived.status == 0, "\(archived.stderr)")
    #expect(archived.stdout.contains("follows the last one archived"), "\(archived.stdout)")
    #expect(try runCLI(["verify", "--data-dir", data, "--archive", archive]).status == 0)
    try daemon.start()
    #expect(try daemon.cli(["receipt", "1"]).status == 0)
    #expect(daemon.stop() == 0)

    // A backup of it carries the record of what was archived: it verifies and starts.
    let backupDirectory = try TemporaryDirectory()
    let backup = backupDirectory.path("data")
    let made = try runCLI(["backup", "--data-dir", data, "--to", backup])
    #expect(made.status == 0, "\(made.stderr)")
    #expect(try runCLI(["verify", "--data-dir", backup]).status == 0)
    let restored = try Daemon(directory: backupDirectory)
    defer { restored.cleanup() }
    #expect(try restored.cli(["receipt", "1"]).status == 0)

    // Archived by a register-cli that kept no such record: refused until archive, run again
    // with the same directory, records what is there.
    try FileManager.default.removeItem(atPath: JournalFiles.archiveManifestPath(in: data))
    let unrecorded = try runCLI(["verify", "--data-dir", data])
    #expect(unrecorded.status == 1)
    #expect(unrecorded.stderr.contains("--before-day 1 --to"), "\(unrecorded.stderr)")
    let recorded = try runCLI(["archive", "--before-day", "1", "--to", archive, "--data-dir", data])
    #expect(recorded.status == 0, "\(recorded.stderr)")
    #expect(recorded.stdout.contains("recorded 1 segment"), "\(recorded.stdout)")
    #expect(try runCLI(["verify", "--data-dir", data]).status == 0)
  }

  @Test("subscribe with an after inside archived history is history_archived")
  func subscribeIntoArchivedHistory() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    try ringClosedDays(daemon, days: 3, sales: 1)
    let archive = daemon.directory.path("archive")
    let moved = try runCLI([
      "archive", "--before-day", "3", "--to", archive, "--data-dir", daemon.dataDirectory,
    ])
    #expect(moved.status == 0, "\(moved.stderr)")
    let first = try #require(try JournalFiles.segments(in: daemon.dataDirectory).first)
    #expect(first.firstSequence > 1)

    for after in [0, 1, first.firstSequence - 2] {
      let client = try daemon.connect()
      let reply = try client.send(#"{"id":"s","op":"subscribe","after":\#(after)}"#)
      #expect(reply.errorCode == "history_archived", "\(reply)")
      #expect(reply["id"] == .string("s"))
      #expect(
        reply["error"]?["message"]?.stringValue?.contains("\(first.firstSequence - 1)") == true)
      // Not subscribed: a change made now sends this connection no event before its next reply.
      #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
      #expect(try client.send(#"{"op":"hello"}"#).isOK)
    }
    // From the first record kept on, the catch-up is whole.
    let client = try daemon.connect()
    let reply = try client.send(#"{"op":"subscribe","after":\#(first.firstSequence - 1)}"#)
    #expect(reply.isOK, "\(reply)")
    let event = try client.read()
    #expect(event["seq"]?.int64Value == first.firstSequence)
  }
}

/// A count shared between threads.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
