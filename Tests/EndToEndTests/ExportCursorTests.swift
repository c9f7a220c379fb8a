import Foundation
import RegisterEngine
import RegisterServer
import Testing

@Suite("export from a cursor starts at the snapshot before it", .serialized)
struct ExportCursorTests {
  /// The rows of `export --format ndjson` with `arguments`, each with its record's sequence.
  func rows(_ data: String, _ arguments: [String] = []) throws -> [(seq: Int64, line: String)] {
    let result = try runCLI(["export", "--data-dir", data, "--format", "ndjson"] + arguments)
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    return try result.stdout.split(separator: "\n").map { line in
      let seq = try #require(try JSONParser.parse(String(line))["seq"]?.int64Value)
      return (seq, String(line))
    }
  }

  /// Three days of 300 records in `directory` (its snapshots and receipts as registerd leaves
  /// them); returns the data directory.
  func generate(in directory: TemporaryDirectory, seed: Int) throws -> String {
    let generated = try runBench(
      [
        "history", "--days", "3", "--records-per-day", "300", "--products", "200", "--to",
        directory.url.path, "--seed", String(seed),
      ], in: directory)
    #expect(generated.status == 0, "\(generated.stderr)")
    return directory.path("data")
  }

  @Test("the same rows as from the first record, at, between and before snapshots")
  func sameRowsAsFromTheStart() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let data = try generate(in: directory, seed: 11)
    let snapshots = SnapshotFiles.list(in: data).map(\.sequence)
    #expect(snapshots.count == 3, "\(snapshots)")
    let all = try rows(data)
    let last = try #require(all.last?.seq)
    #expect(all.count > 500, "\(all.count) rows")
    for cursor in [
      1, snapshots[0] - 1, snapshots[0], snapshots[0] + 7, snapshots[1] + 40, last - 3, last,
    ] {
      let from = try rows(data, ["--after", String(cursor)])
      let expected = all.filter { $0.seq > cursor }.map(\.line)
      #expect(from.map(\.line) == expected, "after \(cursor)")
    }
  }

  @Test(
    "with the oldest segments archived, a cursor past them still exports; one before is told where it can start"
  )
  func archivedSegments() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let data = try generate(in: directory, seed: 12)
    let all = try rows(data)
    let archived = try runCLI([
      "archive", "--before-day", "2", "--to", directory.path("archive"), "--data-dir", data,
    ])
    #expect(archived.status == 0, "\(archived.stderr)")
    let live = try #require(try JournalFiles.segments(in: data).first?.firstSequence)
    #expect(live > 1)
    // Nightly, from yesterday's cursor: the archived day is not needed.
    let cursor = live + 20
    let from = try rows(data, ["--after", String(cursor)])
    #expect(from.map(\.line) == all.filter { $0.seq > cursor }.map(\.line))
    // From before the archive: refused, with the cursor it can start from.
    for early in ["0", "5"] {
      let refused = try runCLI(["export", "--data-dir", data, "--after", early])
      #expect(refused.status != 0)
      #expect(refused.stdout.isEmpty)
      #expect(
        refused.stderr.contains("starts at seq \(live) (older segments were archived or removed)"),
        "\(refused.stderr)")
      #expect(
        refused.stderr.contains("export with --after \(live - 1) or later"), "\(refused.stderr)")
    }
  }
}
