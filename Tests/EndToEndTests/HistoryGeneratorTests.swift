import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// Runs `register-bench` (the built binary) with `arguments`; its output goes through files,
/// so a long one cannot block it.
func runBench(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
  let process = Process()
  process.executableURL = Binaries.directory.appendingPathComponent("register-bench")
  process.arguments = arguments
  let name = UUID().uuidString.prefix(8)
  let outPath = directory.path("bench-\(name).out")
  let errPath = directory.path("bench-\(name).err")
  _ = FileManager.default.createFile(atPath: outPath, contents: nil)
  _ = FileManager.default.createFile(atPath: errPath, contents: nil)
  process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
  process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
  process.standardInput = FileHandle.nullDevice
  try process.run()
  guard let status = exitStatus(of: process, timeout: 120) else {
    process.terminate()
    throw HarnessError("register-bench \(arguments) did not exit within two minutes")
  }
  return CLIResult(
    status: status, stdout: try String(contentsOfFile: outPath, encoding: .utf8),
    stderr: try String(contentsOfFile: errPath, encoding: .utf8))
}

@Suite("register-bench history: a generated history is a journal registerd serves", .serialized)
struct HistoryGeneratorTests {
  /// Generates `days` × 300 records with 200 products into `directory`.
  func generate(
    into directory: String, days: Int = 2, seed: Int = 7, in temporary: TemporaryDirectory
  )
    throws -> CLIResult
  {
    try runBench(
      [
        "history", "--days", String(days), "--records-per-day", "300", "--products", "200",
        "--to", directory, "--seed", String(seed),
      ], in: temporary)
  }

  @Test("2 days × 300 records: an intact chain, two closed days, receipts and returns")
  func generatedHistory() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let generated = try generate(into: directory.url.path, in: directory)
    #expect(generated.status == 0, "\(generated.stderr)")
    // Every request it sent was accepted: a refusal means it fell out of step with the engine.
    #expect(generated.stdout.contains("refused requests    0\n"), "\(generated.stdout)")

    let journal = try JournalFiles.readAll(in: directory.path("data"))
    let scan = JournalScanner.scan(journal)
    #expect(scan.isIntact)
    #expect(scan.records.map(\.sequence) == Array(1...Int64(scan.records.count)))
    #expect(scan.records.filter { $0.type == "day_closed" }.count == 2)
    #expect(scan.records.last?.type == "day_closed")
    // As registerd leaves it: a segment per day (the third, made at the last close, holds no
    // record yet), a snapshot after each close, and the closed days' receipts in the archive.
    #expect(try JournalFiles.segments(in: directory.path("data")).map(\.day) == [1, 2])
    #expect(JournalFiles.openSegmentPath(in: directory.path("data"))?.contains("day000003") == true)
    #expect(SnapshotFiles.list(in: directory.path("data")).map(\.day) == [2, 3])
    for day in ["day000001", "day000002"] {
      #expect(FileManager.default.fileExists(atPath: directory.path("data/receipts/\(day).ndjson")))
    }
    // About 300 records a day (the close lands within a sale's length of the target).
    #expect((500...640).contains(scan.records.count), "\(scan.records.count) records")
    // Time moves forward, inside opening hours, one business day per calendar day.
    let times = scan.records.map(\.at.epochMilliseconds)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    let closes = scan.records.filter { $0.type == "day_closed" }.map(\.at)
    #expect(closes.map(\.local.timeString) == ["20:00:00", "20:00:00"])
    #expect(closes.map(\.local.dateString) == ["2026-01-05", "2026-01-06"])
    // Only masked card data is journaled.
    let text = String(decoding: journal, as: UTF8.self)
    #expect(!text.contains(#""number""#) && !text.contains(#""cvv""#))
    #expect(text.contains(#""last4""#))
    for type in [
      "tender_added", "line_voided", "order_voided", "order_parked", "order_resumed",
      "return_completed", "customer_added", "customer_attached", "paid_out", "float_set",
      "discount_set", "quantity_set", "line_removed", "stock_adjusted",
    ] {
      #expect(scan.records.contains { $0.type == type }, "no \(type) record")
    }

    let register = try Register.replaying(scan.records)
    #expect(register.closedDays.count == 2)
    #expect(register.day.number == 3)
    #expect(register.receipts.count > 50)
    #expect(register.returns.count > 0)
    #expect(register.order.isEmpty)
    #expect(register.products.count == 200)
    // Returns of earlier receipts refund what was sold, never more.
    for (receipt, lines) in register.returnedQuantities {
      let sold = try #require(register.receipts[receipt])
      for (line, quantity) in lines {
        let original = try #require(sold.order.lines.first { $0.line == line })
        #expect(quantity <= original.quantity)
      }
    }

    // `verify` agrees, and registerd serves it from its catalog without importing anything.
    #expect(try runCLI(["verify", "--data-dir", directory.path("data")]).status == 0)
    try FileManager.default.copyItem(
      atPath: directory.path("catalog.json"), toPath: directory.path("products.json"))
    let daemon = try Daemon(directory: directory)
    defer { daemon.stop() }
    let client = try daemon.connect()
    let hello = try client.send(#"{"op":"hello"}"#)
    #expect(hello.isOK)
    let report = try client.send(#"{"op":"report","kind":"z","day":2}"#)
    #expect(report.isOK, "\(report)")
    #expect(daemon.stop() == 0)
    let after = try JournalFiles.readAll(in: directory.path("data"))
    #expect(after == journal, "registerd wrote records at start-up")
  }

  @Test("one seed, one history: the same bytes again; another seed, another history")
  func deterministic() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    for (name, seed) in [("a", 5), ("b", 5), ("c", 6)] {
      let result = try generate(
        into: directory.path(name), days: 1, seed: seed, in: directory)
      #expect(result.status == 0, "\(result.stderr)")
    }
    func bytes(_ path: String) throws -> Data {
      try Data(contentsOf: URL(fileURLWithPath: directory.path(path)))
    }
    func journal(_ name: String) throws -> [UInt8] {
      try JournalFiles.readAll(in: directory.path(name + "/data"))
    }
    #expect(try journal("a") == journal("b"))
    #expect(try bytes("a/catalog.json") == bytes("b/catalog.json"))
    #expect(try journal("a") != journal("c"))
  }

  @Test("bad arguments and a directory that already holds a journal are refused")
  func badInput() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let target = directory.path("h")
    for arguments in [
      ["history"],
      ["history", "--days", "2", "--records-per-day", "300", "--products", "50"],
      ["history", "--days", "0", "--records-per-day", "300", "--products", "50", "--to", target],
      ["history", "--days", "2", "--records-per-day", "five", "--products", "50", "--to", target],
      ["history", "--days", "2", "--records-per-day", "300", "--products", "-1", "--to", target],
      ["history", "--days", "2", "--records-per-day", "300", "--products", "50", "--to"],
      [
        "history", "--days", "2", "--records-per-day", "300", "--products", "50", "--to", target,
        "--seed", "x",
      ],
      ["history", "--days", "2", "--weeks", "3"],
    ] {
      let result = try runBench(arguments, in: directory)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("usage: register-bench history"), "\(arguments)")
    }
    #expect(!FileManager.default.fileExists(atPath: target), "a refused run wrote nothing")

    #expect(try generate(into: target, days: 1, in: directory).status == 0)
    let journal = try JournalFiles.readAll(in: target + "/data")
    let catalog = try Data(contentsOf: URL(fileURLWithPath: target + "/catalog.json"))
    let again = try generate(into: target, days: 1, seed: 8, in: directory)
    #expect(again.status == 1)
    #expect(again.stderr.contains("already exists"), "\(again.stderr)")
    #expect(try JournalFiles.readAll(in: target + "/data") == journal)
    #expect(try Data(contentsOf: URL(fileURLWithPath: target + "/catalog.json")) == catalog)
  }
}
