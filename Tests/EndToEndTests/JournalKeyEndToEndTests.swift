import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// The keyed chain: with `--journal-key`, every record carries an HMAC only the key can make.
/// Someone who can write the data directory (but not read the key) and rewrites a record —
/// recomputing every sum after it so plain `verify` passes — is caught by `verify
/// --journal-key`.
@Suite("The journal key: records MACed, a rewritten history caught", .serialized)
struct JournalKeyEndToEndTests {
  static func writeKey(_ path: String, mode: mode_t = 0o600, bytes: Int = 32) throws {
    let key = (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    try Data(key).write(to: URL(fileURLWithPath: path))
    #expect(chmod(path, mode) == 0)
  }

  /// Rewrites the journal as an attacker without the key would: the first record of type
  /// `target` has its data changed by `change` (by default a paid-in's amount made larger:
  /// still a record every reader takes), and every record from there on is encoded again with
  /// `macKey` (another key, or none).
  static func rewrite(
    _ dataDirectory: String, target: String, macKey: HMACSHA256?,
    change: (inout JSONObject) -> Void = { $0["amount"] = "999.00" }
  ) throws {
    let segments = try JournalFiles.segments(in: dataDirectory)
    var previous = JournalRecord.genesis
    var rewriting = false
    for segment in segments {
      let bytes = try JournalFiles.readSegment(segment.path)
      var out: [UInt8] = []
      for line in bytes.split(separator: UInt8(ascii: "\n")) {
        var record = try JournalRecord.decode(line: line)
        if !rewriting, record.type == target {
          rewriting = true
          var data = try #require(record.data.objectValue)
          change(&data)
          record.data = .object(data)
        }
        if rewriting {
          let encoded = JournalRecord.encode(
            sequence: record.sequence, at: record.at, type: record.type, data: record.data,
            operatorID: record.operatorID, approvedBy: record.approvedBy, key: record.key,
            more: record.more, previous: previous, macKey: macKey)
          out.append(contentsOf: encoded.line)
          previous = encoded.sum
        } else {
          out.append(contentsOf: line)
          out.append(UInt8(ascii: "\n"))
          previous = record.sum
        }
      }
      #expect(chmod(segment.path, 0o600) == 0)
      try Data(out).write(to: URL(fileURLWithPath: segment.path))
    }
  }

  @Test("every record carries a MAC; a forged history passes plain verify but not the key")
  func forgedHistoryIsCaught() throws {
    let directory = try TemporaryDirectory()
    let keyPath = directory.path("journal.key")
    try Self.writeKey(keyPath)
    let daemon = try Daemon(arguments: ["--journal-key", keyPath], directory: directory)
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(try daemon.cli(["paid-in", "5", "--reason", "float"]).status == 0)
    #expect(daemon.stop() == 0)
    let records = try journalRecords(daemon)
    #expect(!records.isEmpty)
    #expect(records.allSatisfy { $0["mac"]?.stringValue?.count == 64 }, "every record has a MAC")

    let good = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--journal-key", keyPath,
    ])
    #expect(good.status == 0, "\(good.stderr)")
    #expect(good.stdout.contains("every record's MAC checks out"))
    // Without the key a verifier learns nothing about MACs, and passes as before.
    #expect(try runCLI(["verify", "--data-dir", daemon.dataDirectory]).status == 0)

    // A forger who can write the journal but not read the key: a paid-in rewritten, the sums
    // recomputed, MACs made with a key of their own.
    try Self.rewrite(
      daemon.dataDirectory, target: "paid_in", macKey: HMACSHA256(key: Array("guess".utf8)))
    let plain = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(plain.status == 0, "the chain alone is consistent again: \(plain.stderr)")
    let keyed = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--journal-key", keyPath,
    ])
    #expect(keyed.status == 1)
    #expect(keyed.stderr.contains("MAC does not check out"), "\(keyed.stderr)")
    // Or with the MACs left out altogether.
    try Self.rewrite(daemon.dataDirectory, target: "paid_in", macKey: nil)
    let stripped = try runCLI([
      "--json", "verify", "--data-dir", daemon.dataDirectory, "--journal-key", keyPath,
    ])
    #expect(stripped.status == 1)
    #expect(
      stripped.stdout.contains("carries no MAC") || stripped.stdout.contains("does not check out"))
  }

  @Test(
    "registerd with the key refuses to start on a replayed record without its MAC, or with another key's, naming it",
    arguments: [false, true])
  func startUpChecksEveryReplayedRecordsMAC(forged: Bool) throws {
    let directory = try TemporaryDirectory()
    let keyPath = directory.path("journal.key")
    try Self.writeKey(keyPath)
    let daemon = try Daemon(arguments: ["--journal-key", keyPath], directory: directory)
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    // After the close (and its snapshot): records start-up replays, in the open segment.
    #expect(try daemon.cli(["paid-in", "5", "--reason", "float"]).status == 0)
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(daemon.stop() == 0, "the journal as written starts")
    let paidIn = try #require(try journalRecords(daemon).first { $0["type"] == "paid_in" })
    let sequence = try #require(paidIn["seq"]?.int64Value)
    // Rewritten by someone without the key: sums right, the MAC left out or made up.
    try Self.rewrite(
      daemon.dataDirectory, target: "paid_in",
      macKey: forged ? HMACSHA256(key: Array("guess".utf8)) : nil)
    #expect(try runCLI(["verify", "--data-dir", daemon.dataDirectory]).status == 0)
    #expect(throws: HarnessError.self) { try daemon.start() }
    let said = forged ? "MAC does not check out" : "carries no MAC"
    let refusal = try #require(
      daemon.log.split(separator: "\n").last { $0.contains("cannot start") })
    #expect(refusal.contains("record seq \(sequence)"), "\(refusal)")
    #expect(refusal.contains(said), "\(refusal)")
    #expect(refusal.contains("journal key given is the one"), "\(refusal)")
    #expect(!refusal.contains("truncate"), "\(refusal)")
    let verify = try runCLI([
      "verify", "--data-dir", daemon.dataDirectory, "--journal-key", keyPath,
    ])
    #expect(verify.status == 1)
    #expect(verify.stderr.contains("record seq \(sequence)"), "\(verify.stderr)")
    #expect(verify.stderr.contains(said), "\(verify.stderr)")
  }

  @Test("a key file open to others, inside the data directory, a link or too short: refused")
  func badKeyFilesAreRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let open = directory.path("open.key")
    try Self.writeKey(open, mode: 0o644)
    let short = directory.path("short.key")
    try Self.writeKey(short, bytes: 8)
    let target = directory.path("real.key")
    try Self.writeKey(target)
    let link = directory.path("link.key")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    try FileManager.default.createDirectory(
      atPath: directory.path("data"), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    let inside = directory.path("data/inside.key")
    try Self.writeKey(inside)
    for (path, message) in [
      (open, "chmod 600"), (short, "has 8 bytes"), (link, "not a regular file"),
      (inside, "inside the data directory"),
    ] {
      let process = Process()
      process.executableURL = Binaries.registerd
      process.arguments = [
        "--socket", directory.path("s.sock"), "--data-dir", directory.path("data"),
        "--catalog", Binaries.repository.appendingPathComponent("Data/products.json").path,
        "--journal-key", path,
      ]
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let collected = collectOutput(of: process, from: [errors.fileHandleForReading], timeout: 20)
      let output = collected.text()
      #expect(collected.status == 1, "\(path)")
      #expect(output.contains(message), "\(path): \(output)")
    }
    #expect(
      !FileManager.default.fileExists(atPath: directory.path("data/journal")),
      "nothing was written")
  }
}
