import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// A journal someone rewrote with records registerd never writes, each correctly summed and
/// chained (`JournalKeyEndToEndTests.rewrite`): plain `verify` passes, as it checks only the
/// chain, but registerd refuses to start on it, and `verify --events` and `replay
/// --from-journal` refuse it too, each naming the record and what is wrong with it.
@Suite("A rewritten journal with records registerd never writes", .serialized)
struct HostileJournalEndToEndTests {
  /// A day with a sale whose line has a 10 % discount, and a second sale, then stopped.
  func lane() throws -> Daemon {
    let daemon = try Daemon()
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(
      try daemon.cli(["discount", "1", "--percent", "10", "--reason", "loyalty"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(daemon.stop() == 0)
    return daemon
  }

  /// What each reader says of the rewritten journal: start-up, `verify`, `verify --events`,
  /// `replay --from-journal`.
  func expectRefused(_ daemon: Daemon, saying words: [String]) throws {
    let plain = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(plain.status == 0, "the chain is consistent: \(plain.stderr)")
    let events = try runCLI(["verify", "--events", "--data-dir", daemon.dataDirectory])
    #expect(events.status == 1)
    let replay = try runCLI([
      "replay", "--data-dir", daemon.dataDirectory, "--day", "1", "--from-journal",
    ])
    #expect(replay.status == 1)
    #expect(throws: (any Error).self) { try daemon.start() }
    #expect(!daemon.isRunning)
    for (reader, text) in [
      ("verify --events", events.stdout + events.stderr), ("replay", replay.stderr),
      ("registerd", daemon.log),
    ] {
      for word in words { #expect(text.contains(word), "\(reader): \(text)") }
    }
  }

  @Test("a discount of 1000 %: refused by name, as decide refuses it")
  func discountPastAHundredPercent() throws {
    let daemon = try lane()
    defer { daemon.cleanup() }
    try JournalKeyEndToEndTests.rewrite(
      daemon.dataDirectory, target: "discount_set", macKey: nil
    ) { data in
      data["discount"] = .object(["percent": "1000", "reason": "loyalty"])
    }
    try expectRefused(
      daemon,
      saying: ["(discount_set)", "a discount percentage must be more than 0 and at most 100"])
  }

  @Test("a receipt number given twice: refused by name")
  func receiptNumberGivenTwice() throws {
    let daemon = try lane()
    defer { daemon.cleanup() }
    // The first sale renumbered 2: the second sale, untouched, is then receipt 2 again.
    var seen = 0
    try JournalKeyEndToEndTests.rewrite(
      daemon.dataDirectory, target: "sale_completed", macKey: nil
    ) { data in
      seen += 1
      data["receipt"] = 2
    }
    #expect(seen == 1)
    try expectRefused(
      daemon,
      saying: [
        "(sale_completed)", "receipt 2 was numbered already (the next receipt is 3)",
      ])
  }
}
