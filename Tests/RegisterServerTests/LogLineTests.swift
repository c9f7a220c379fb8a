import Testing

@testable import RegisterServer

/// The log quotes paths and file names exactly: a snapshot or segment name whose digits pass
/// the Luhn check is not masked, so the repair a line advises names a file that exists.
@Suite struct LogLineTests {
  @Test(arguments: [
    "started from the snapshot /var/lib/registerd/snapshots/snapshot-day000024-seq000000000232.json",
    "journal/day000002-seq000000004873.ndjson.torn-4873-1764339785123",
    "operator 4242-4242-4242-4242 locked after 5 wrong PINs",
  ])
  func aLineQuotesPathsAndIdentifiersAsTheyAre(_ message: String) {
    #expect(Log.line(.info, message, journal: true) == "<\(LogLevel.info.rawValue)>\(message)\n")
  }
}
