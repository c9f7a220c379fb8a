import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

/// A read whose work grows with the store (`catalog_export` of a large catalog) is worked out
/// on a thread of its own: the lanes are answered meanwhile, the client that asked gets its
/// replies in the order it asked, and a drain waits for it.
@Suite(.serialized) struct ComputedReplyEndToEndTests {
  /// A catalog file of `count` products (about 230 ms to export in a debug build).
  static func catalog(products count: Int) -> String {
    let products = (0..<count).map { index in
      #"{"sku":"P\#(index)","name":"Product \#(index)","description":"A product.","category":"C\#(index % 50)","price":"\#(index % 90 + 1).99","stock":5}"#
    }
    return #"""
      {"store":{"name":"Big Store","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},
      "products":[\#(products.joined(separator: ",\n"))]}
      """#
  }

  /// Asks for an export on `client` and reads it, watching process `pid`'s VmRSS meanwhile:
  /// the most one export takes (KiB), building it included. What it leaves behind is no
  /// measure: the daemon gives the memory back once the export is read.
  func peakOfOneExport(_ client: Client, pid: Int32) throws -> Int {
    try client.sendRaw(Array((#"{"op":"catalog_export"}"# + "\n").utf8))
    var peak = residentKiB(pid) ?? 0
    while !client.connection.waitForInput(milliseconds: 10) {
      peak = max(peak, residentKiB(pid) ?? 0)
    }
    peak = max(peak, residentKiB(pid) ?? 0)
    #expect(try client.read()["ok"] == true)
    return peak
  }

  /// Watches process `pid`'s VmRSS for 3 s and expects it to stay within 20 MiB of `start`
  /// (KiB), what one 40,000-product export takes, where holding ten would be some 45 MB more.
  func expectResidentStaysNear(_ start: Int, pid: Int32) {
    var peak = start
    for _ in 0..<30 {
      // What is under test is that it stays near over a while: time must pass.
      usleep(100_000)
      peak = max(peak, residentKiB(pid) ?? 0)
    }
    #expect(peak - start < 20 * 1024, "VmRSS grew from \(start) KiB to \(peak) KiB")
  }

  static let exportThenHello = Array(
    (#"{"id":1,"op":"catalog_export"}"# + "\n" + #"{"id":2,"op":"hello"}"# + "\n").utf8)

  @Test func aLaneIsAnsweredWhileALargeCatalogIsExported() throws {
    let daemon = try Daemon(catalog: Self.catalog(products: 40_000))
    defer { daemon.cleanup() }
    let exporter = try daemon.connect()
    let lane = try daemon.connect()
    #expect(try lane.send(#"{"op":"hello"}"#)["ok"] == true)
    try exporter.sendRaw(Self.exportThenHello)
    #expect(exporter.waitUntilRead(), "the daemon did not read the export request")
    // A sale on the lane, every change durable, while the export is worked out.
    #expect(try lane.send(#"{"op":"add","sku":"P7"}"#)["ok"] == true)
    #expect(try lane.send(#"{"op":"tender","type":"cash","amount":"20.00"}"#)["ok"] == true)
    #expect(try lane.send(#"{"op":"order"}"#)["ok"] == true)
    // Worked out on the event loop, the export would have held the lane's requests until it
    // was sent: its reply would be waiting here already.
    #expect(
      !exporter.connection.waitForInput(milliseconds: 0),
      "the lane's requests were answered before the export")
    let export = try exporter.read()
    #expect(export["id"] == .int(1))
    let products = export["result"]?["catalog"]?["products"]?.arrayValue
    #expect(products?.count == 40_000)
    // The export describes the catalog when it was asked for: before the sale's stock count.
    #expect(products?.first { $0["sku"] == "P7" }?["stock"] == .int(5))
    // The exporter's next reply comes after it, in the order it asked.
    #expect(try exporter.read()["id"] == .int(2))
    let now = try daemon.connect().send(#"{"op":"catalog_export"}"#)
    let sold = now["result"]?["catalog"]?["products"]?.arrayValue?.first { $0["sku"] == "P7" }
    #expect(sold?["stock"] == .int(4))
  }

  /// Ten exports asked for at once by a client that does not read: the next is worked out
  /// only once the client has read the one before down to the output bound, so the daemon
  /// holds about one export for it, not ten (about 45 MB); every one still comes, in order.
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
  func exportsForAClientThatDoesNotReadAreWorkedOutOneAtATime() throws {
    let daemon = try Daemon(catalog: Self.catalog(products: 40_000))
    defer { daemon.cleanup() }
    let pid = daemon.process.processIdentifier
    let exporter = try daemon.connect()
    let start = try peakOfOneExport(exporter, pid: pid)
    let requests = (1...10).map { #"{"id":\#($0),"op":"catalog_export"}"# + "\n" }
    try exporter.sendRaw(Array(requests.joined().utf8))
    expectResidentStaysNear(start, pid: pid)
    // A lane is served meanwhile.
    #expect(try daemon.connect().send(#"{"op":"hello"}"#)["ok"] == true)
    for id in 1...10 {
      let export = try exporter.read()
      #expect(export["id"] == .int(Int64(id)))
      #expect(export["result"]?["catalog"]?["products"]?.arrayValue?.count == 40_000)
    }
  }

  /// Ten clients that each ask for an export and none of which reads: each alone is within
  /// its own bound, so only the limit over all clients together (`--max-unread-replies`, here
  /// 4 MiB, less than one export) keeps the daemon from working out and holding all ten
  /// (about 45 MB). Lanes are served meanwhile, and every export comes once the clients
  /// before it have read theirs.
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
  func exportsForClientsThatDoNotReadAreBoundedAllTogether() throws {
    let daemon = try Daemon(
      catalog: Self.catalog(products: 40_000), arguments: ["--max-unread-replies", "4194304"])
    defer { daemon.cleanup() }
    let pid = daemon.process.processIdentifier
    let start = try peakOfOneExport(daemon.connect(), pid: pid)
    var exporters: [Client] = []
    for id in 1...10 {
      let exporter = try daemon.connect()
      try exporter.sendRaw(Array((#"{"id":\#(id),"op":"catalog_export"}"# + "\n").utf8))
      exporters.append(exporter)
      // Taken in this order, so worked out in it.
      #expect(exporter.waitUntilRead(), "the daemon did not read export \(id)")
    }
    expectResidentStaysNear(start, pid: pid)
    #expect(try daemon.connect().send(#"{"op":"hello"}"#)["ok"] == true)
    for (index, exporter) in exporters.enumerated() {
      let export = try exporter.read()
      #expect(export["id"] == .int(Int64(index + 1)))
      #expect(export["result"]?["catalog"]?["products"]?.arrayValue?.count == 40_000)
    }
  }

  /// The niceness of each thread of process `pid` (field 19 of /proc/PID/task/TID/stat).
  static func threadNiceness(_ pid: Int32) throws -> [(thread: Int, niceness: Int)] {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap { task in
      let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)
      // After the command name in parentheses: state is field 3, niceness field 19.
      guard let close = stat.lastIndex(of: ")"), let thread = Int(task) else { return nil }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      guard fields.count > 16, let niceness = Int(fields[16]) else { return nil }
      return (thread, niceness)
    }
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task")))
  func largeRepliesAreWorkedOutOnAThreadThatYieldsToTheLoop() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.connect().send(#"{"op":"catalog_export"}"#)["ok"] == true)
    let niceness = try Self.threadNiceness(daemon.process.processIdentifier)
    // One thread at 10; the event loop (the main thread: its id is the process's) below it.
    let pid = Int(daemon.process.processIdentifier)
    #expect(niceness.filter { $0.niceness == 10 }.count == 1, "\(niceness)")
    let loop = try #require(niceness.first { $0.thread == pid })
    #expect(loop.niceness < 10, "\(niceness)")
  }

  /// `customer_history` is worked out on the replies thread, which reads the archive files
  /// once a day's receipts have left memory: the same history before the archive, after it
  /// and after a restart, through register-cli.
  @Test func aCustomerHistoryReadFromTheArchiveIsTheSameThroughTheCLI() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["customer", "add", "Dana Li"]).status == 0)
    for sku in ["TEE-WHT-M", "CAP-BSB"] {
      #expect(try daemon.cli(["customer", "attach", "C1"]).status == 0)
      #expect(try daemon.cli(["add", sku]).status == 0)
      #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    }
    let before = try daemon.cli(["customer", "history", "C1", "--json"])
    #expect(before.status == 0, "\(before.stderr)")
    #expect(try JSONParser.parse(before.stdout)["result"]?["receipts"]?.arrayValue?.count == 2)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("receipts of day(s) 1 archived"), "\(daemon.log)")
    #expect(try daemon.cli(["customer", "history", "C1", "--json"]).stdout == before.stdout)
    let unknown = try daemon.cli(["customer", "history", "C9"])
    #expect(unknown.status != 0)
    #expect(unknown.stderr.contains("C9"), "\(unknown.stderr)")
    #expect(daemon.stop() == 0)
    try daemon.start()
    #expect(try daemon.cli(["customer", "history", "C1", "--json"]).stdout == before.stdout)
  }

  /// Exports asked for by a client that then hangs up are dropped, not worked out: another
  /// client's export waits for at most the one already started, not for all of them.
  @Test func exportsOfAClientThatHungUpAreNotWorkedOut() throws {
    let daemon = try Daemon(catalog: Self.catalog(products: 40_000))
    defer { daemon.cleanup() }
    let other = try daemon.connect()
    // How long until an export's reply begins to arrive (its reading and parsing not counted).
    func firstByte() throws -> TimeInterval {
      let asked = Date()
      try other.sendRaw(Array((#"{"op":"catalog_export"}"# + "\n").utf8))
      #expect(other.connection.waitForInput(milliseconds: 30_000))
      let waited = Date().timeIntervalSince(asked)
      #expect(try other.read()["ok"] == true)
      return waited
    }
    let one = try firstByte()
    do {
      let leaver = try daemon.connect()
      let requests = String(repeating: #"{"op":"catalog_export"}"# + "\n", count: 12)
      try leaver.sendRaw(Array(requests.utf8))
      #expect(leaver.waitUntilRead(), "the daemon did not read the twelve requests")
      leaver.connection.disconnect()
    }
    // No wait for the daemon to see the hang-up: it finds it when it writes the export under
    // way, before it starts any export asked for after it.
    let waited = try firstByte()
    // Worked out, the twelve would take about twelve times `one` before this one.
    #expect(waited < one * 5, "one export took \(one) s; behind the hung-up client's, \(waited) s")
    // A client that half-closes still gets its export.
    let halfClosed = try daemon.connect()
    try halfClosed.sendRaw(Array((#"{"id":"h","op":"catalog_export"}"# + "\n").utf8))
    #expect(shutdown(halfClosed.connection.fd, Int32(SHUT_WR)) == 0)
    let reply = try halfClosed.read()
    #expect(reply["id"] == "h")
    #expect(reply["result"]?["catalog"]?["products"]?.arrayValue?.count == 40_000)
  }

  @Test func aDrainWaitsForAnExportBeingWorkedOut() throws {
    let daemon = try Daemon(catalog: Self.catalog(products: 40_000))
    defer { daemon.cleanup() }
    let exporter = try daemon.connect()
    #expect(try exporter.send(#"{"op":"hello"}"#)["ok"] == true)
    try exporter.sendRaw(Self.exportThenHello)
    #expect(exporter.waitUntilRead(), "the daemon did not read the export request")
    kill(daemon.process.processIdentifier, SIGTERM)
    let export = try exporter.read()
    #expect(export["id"] == .int(1))
    #expect(export["result"]?["catalog"]?["products"]?.arrayValue?.count == 40_000)
    #expect(try exporter.read()["id"] == .int(2))
    #expect(daemon.stop() == 0)
  }
}
