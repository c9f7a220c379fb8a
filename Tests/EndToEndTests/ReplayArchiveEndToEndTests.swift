import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

@Suite(
  "replay --day N of a closed day: from its receipt archive, the same as from the journal",
  .serialized)
struct ReplayArchiveEndToEndTests {
  /// `replay --day N` with `extra`, as text and as JSON.
  func replay(_ data: String, day: Int, _ extra: [String] = []) throws -> (
    text: CLIResult, json: JSONValue, jsonResult: CLIResult
  ) {
    let text = try runCLI(["replay", "--data-dir", data, "--day", String(day)] + extra)
    let json = try runCLI(["--json", "replay", "--data-dir", data, "--day", String(day)] + extra)
    return (text, try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines)), json)
  }

  /// A generated history (`register-bench history`) in `directory`/data.
  func generate(days: Int, records: Int, products: Int, seed: Int, in directory: TemporaryDirectory)
    throws -> CLIResult
  {
    try runBench(
      [
        "history", "--days", String(days), "--records-per-day", String(records), "--products",
        String(products), "--to", directory.url.path, "--seed", String(seed),
      ], in: directory)
  }

  /// The reply without where it was replayed from.
  func withoutSource(_ value: JSONValue) -> JSONValue {
    guard case .object(var object) = value else { return value }
    object["replayed"] = nil
    return .object(object)
  }

  @Test("every closed day of a generated history: the archive's paper roll is the journal's")
  func archiveEqualsJournal() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let generated = try generate(days: 9, records: 240, products: 150, seed: 31, in: directory)
    #expect(generated.status == 0, "\(generated.stderr)")
    let data = directory.path("data")
    // Snapshots are pruned (the newest three and one a week are kept), so most days are
    // reported from a snapshot several days after them.
    #expect(SnapshotFiles.list(in: data).count < 9)
    var returnsSeen = 0
    for day in 1...9 {
      let archived = try replay(data, day: day)
      let journal = try replay(data, day: day, ["--from-journal"])
      #expect(archived.text.status == 0, "day \(day): \(archived.text.stderr)")
      #expect(journal.text.status == 0, "day \(day): \(journal.text.stderr)")
      #expect(archived.text.stderr.isEmpty, "day \(day): \(archived.text.stderr)")
      #expect(archived.json["replayed"]?["from"] == "archive", "day \(day)")
      #expect(journal.json["replayed"]?["from"] == "journal", "day \(day)")
      #expect(
        archived.json["replayed"]?["archive"]?.stringValue
          == data + "/receipts/day" + String(format: "%06d", day) + ".ndjson")
      #expect(archived.text.stdout == journal.text.stdout, "day \(day)")
      #expect(withoutSource(archived.json) == withoutSource(journal.json), "day \(day)")
      let receipts = archived.json["receipts"]?.arrayValue ?? []
      #expect(receipts.count > 10, "day \(day) has sales")
      #expect(archived.json["replayed"]?["receipts"] == .int(Int64(receipts.count)))
      returnsSeen += receipts.filter { $0["receipt"]?["kind"] == "return" }.count
      #expect(archived.text.stdout.contains("Z REPORT - DAY \(day)"))
    }
    #expect(returnsSeen > 0, "the history has returns, printed from the archive too")

    // The open day is not archived: replayed from the journal, as before.
    let open = try replay(data, day: 10)
    #expect(open.json["replayed"]?["from"] == "journal")
    #expect(open.json["closed"] == .bool(false))
  }

  @Test("an archive that does not hold the day's receipts is not printed from: the journal is")
  func damagedArchiveFallsBack() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let generated = try generate(days: 3, records: 200, products: 100, seed: 5, in: directory)
    #expect(generated.status == 0, "\(generated.stderr)")
    let data = directory.path("data")
    let path = data + "/receipts/day000002.ndjson"
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    let journal = try replay(data, day: 2, ["--from-journal"])
    #expect(journal.text.status == 0)
    let lines = original.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    #expect(lines.count > 3)

    func damaged(_ bytes: Data, _ why: String) throws {
      try bytes.write(to: URL(fileURLWithPath: path))
      let result = try replay(data, day: 2)
      #expect(result.text.status == 0, "\(why): \(result.text.stderr)")
      #expect(result.text.stdout == journal.text.stdout, "\(why)")
      #expect(result.text.stderr.contains("does not hold day 2's receipts"), "\(why)")
      #expect(result.json["replayed"]?["from"] == "journal", "\(why)")
    }
    // A receipt left out, the last one left out, one changed to another day's, the file cut
    // short in a line, a line that is not JSON.
    try damaged(
      Data(lines[0..<1].joined(separator: [10]) + [10] + lines[2...].joined(separator: [10])),
      "a receipt left out")
    try damaged(Data(lines.dropLast(2).joined(separator: [10]) + [10]), "the last receipt left out")
    let otherDay = String(decoding: lines[1], as: UTF8.self).replacingOccurrences(
      of: #""day":2,"#, with: #""day":1,"#)
    #expect(otherDay != String(decoding: lines[1], as: UTF8.self))
    try damaged(
      Data(
        lines[0..<1].joined(separator: [10]) + [10] + Array(otherDay.utf8) + [10]
          + lines[2...].joined(separator: [10])), "a receipt of another day")
    try damaged(original.prefix(original.count - 10), "cut short")
    try damaged(Data("{\"number\":".utf8) + original, "not JSON")

    // Put back, it is used again.
    try original.write(to: URL(fileURLWithPath: path))
    let restored = try replay(data, day: 2)
    #expect(restored.json["replayed"]?["from"] == "archive")
    #expect(restored.text.stderr.isEmpty)
    // Without it (removed by hand), the journal is used, without a word.
    try FileManager.default.removeItem(atPath: path)
    let missing = try replay(data, day: 2)
    #expect(missing.text.stdout == journal.text.stdout)
    #expect(missing.json["replayed"]?["from"] == "journal")
  }

  @Test("a closed day without a receipt: its Z report from the snapshot, no archive needed")
  func dayWithoutReceipts() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    let empty = try daemon.cli(["close-day"])
    #expect(empty.status == 0, "\(empty.stderr)")
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    // Each close writes its snapshot on a thread of its own; stopping waits for it.
    #expect(daemon.stop() == 0)
    let data = daemon.dataDirectory
    #expect(!FileManager.default.fileExists(atPath: data + "/receipts/day000002.ndjson"))
    for day in 1...3 {
      let archived = try replay(data, day: day)
      let journal = try replay(data, day: day, ["--from-journal"])
      #expect(
        archived.json["replayed"]?["from"] == "archive", "day \(day): \(archived.jsonResult.stderr)"
      )
      #expect(archived.text.stdout == journal.text.stdout, "day \(day)")
      #expect(withoutSource(archived.json) == withoutSource(journal.json), "day \(day)")
    }
    #expect(try replay(data, day: 2).json["receipts"]?.arrayValue?.isEmpty == true)
    #expect(try replay(data, day: 2).json["replayed"]?["archive"] == nil)
  }
}
