import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// The daemon never writes through a symbolic link and refuses a data directory or outbox
/// that others could plant links in; it reads a catalog only when it is a regular file within
/// the limit.
@Suite("registerd refuses unsafe data directories, links and catalog files", .serialized)
struct FileSafetyEndToEndTests {
  /// Runs registerd on `directory`'s data directory until it exits (or is stopped after a
  /// few seconds); returns its exit status and what it printed to stderr.
  private func start(_ directory: TemporaryDirectory) throws -> (status: Int32, log: String) {
    let catalog = directory.path("products.json")
    if !FileManager.default.fileExists(atPath: catalog) {
      try FileManager.default.copyItem(
        atPath: Binaries.repository.appendingPathComponent("Data/products.json").path,
        toPath: catalog)
    }
    let process = Process()
    process.executableURL = Binaries.registerd
    process.arguments = [
      "--socket", directory.path("s.sock"), "--data-dir", directory.path("data"), "--catalog",
      catalog,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["REGISTERD_FIXED_TIME"] = fixedTime
    process.environment = environment
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Stopped once it listens; a daemon that refuses to start exits by itself.
    _ = waitUntil(within: 10) {
      exitStatus(of: process, timeout: 0) != nil
        || UnixSocket.probe(directory.path("s.sock")) == .live
    }
    if exitStatus(of: process, timeout: 0) == nil { process.terminate() }
    // A daemon stuck before it takes its signals (blocked at start-up, as a launching process
    // may pass them on) is killed: the test then fails instead of waiting on its stderr.
    if exitStatus(of: process, timeout: 5) == nil { kill(process.processIdentifier, SIGKILL) }
    let collected = collectOutput(of: process, from: [errors.fileHandleForReading], timeout: 30)
    return (collected.status ?? -1, collected.text())
  }

  @Test("a symbolic link at data/journal.ndjson: start refused, its target untouched")
  func journalSymlinkRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    try FileManager.default.createDirectory(
      atPath: directory.path("data"), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    let target = directory.path("precious.txt")
    try "do not touch\n".write(toFile: target, atomically: false, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: directory.path("data/journal.ndjson"), withDestinationPath: target)
    let (status, log) = try start(directory)
    #expect(status == 1)
    #expect(log.contains("the journal \(directory.path("data/journal.ndjson")) is a symbolic link"))
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "do not touch\n")
  }

  @Test("a symbolic link as the outbox: start refused")
  func outboxSymlinkRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    try FileManager.default.createDirectory(
      atPath: directory.path("data"), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    try FileManager.default.createDirectory(
      atPath: directory.path("elsewhere"), withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(
      atPath: directory.path("data/outbox"), withDestinationPath: directory.path("elsewhere"))
    let (status, log) = try start(directory)
    #expect(status == 1)
    #expect(log.contains("the e-mail outbox \(directory.path("data/outbox")) is a symbolic link"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path("elsewhere")).isEmpty)
  }

  @Test("a data directory that is a link, or writable by others, is refused; a private one starts")
  func dataDirectoryRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    try FileManager.default.createDirectory(
      atPath: directory.path("real"), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    try FileManager.default.createSymbolicLink(
      atPath: directory.path("data"), withDestinationPath: directory.path("real"))
    var (status, log) = try start(directory)
    #expect(status == 1)
    #expect(log.contains("the data directory \(directory.path("data")) is a symbolic link"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("real")).isEmpty)

    try FileManager.default.removeItem(atPath: directory.path("data"))
    try FileManager.default.createDirectory(
      atPath: directory.path("data"), withIntermediateDirectories: false)
    for mode in [0o777, 0o770, 0o702] {
      #expect(chmod(directory.path("data"), mode_t(mode)) == 0)
      (status, log) = try start(directory)
      #expect(status == 1, "mode \(String(mode, radix: 8))")
      #expect(log.contains("is writable by group or others"))
      #expect(log.contains("chmod go-w \(directory.path("data"))"))
      #expect(!FileManager.default.fileExists(atPath: directory.path("data/journal")))
    }
    #expect(chmod(directory.path("data"), 0o755) == 0)
    (status, log) = try start(directory)
    #expect(status == 0, "\(log)")
    #expect(
      FileManager.default.fileExists(
        atPath: directory.path("data/journal/day000001-seq000000000001.ndjson")))
  }

  /// What is put where the catalog is: a FIFO, a link to /dev/zero, or a sparse file one byte
  /// over the limit.
  enum PlantedCatalog: String, CaseIterable, Sendable {
    case fifo, device, huge
  }

  /// Puts `kind` where the catalog is; returns the reason the refusal must give.
  private func plantCatalog(_ kind: PlantedCatalog, at path: String) throws -> String {
    if FileManager.default.fileExists(atPath: path) || isLink(path) {
      try FileManager.default.removeItem(atPath: path)
    }
    switch kind {
    case .fifo:
      #expect(mkfifo(path, 0o600) == 0)
      return "\(path): is a FIFO (named pipe), not a regular file"
    case .device:
      try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
      return "\(path): is a character device, not a regular file"
    case .huge:
      #expect(FileManager.default.createFile(atPath: path, contents: nil))
      #expect(truncate(path, off_t(CatalogFile.maximumFileSize + 1)) == 0)
      return "more than the limit of 64 MiB"
    }
  }

  private func isLink(_ path: String) -> Bool {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
  }

  @Test(
    "a catalog that is a FIFO, a device or over the limit: start refused, saying why",
    arguments: PlantedCatalog.allCases)
  func unreadableCatalogAtStartUp(kind: PlantedCatalog) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let reason = try plantCatalog(kind, at: directory.path("products.json"))
    let (status, log) = try start(directory)
    #expect(status == 1, "\(log)")
    #expect(log.contains("cannot start: "), "\(log)")
    #expect(log.contains(reason), "\(log)")
  }

  @Test("SIGHUP with a catalog that is a FIFO, a device or over the limit: refused, the old kept")
  func unreadableCatalogOnHangup() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let original = try Data(contentsOf: URL(fileURLWithPath: daemon.catalogPath))
    func price() throws -> JSONValue? {
      try daemon.connect().send(#"{"op":"catalog"}"#).result["products"]?.arrayValue?
        .first { $0["sku"] == "TEE-WHT-M" }?["price"]
    }
    let before = try price()
    #expect(before != nil)
    for kind in PlantedCatalog.allCases {
      let reason = try plantCatalog(kind, at: daemon.catalogPath)
      kill(daemon.process.processIdentifier, SIGHUP)
      _ = daemon.waitForLog(reason, within: 5)
      #expect(
        daemon.log.contains(
          "SIGHUP: not reloading, keeping the current catalog: \(daemon.catalogPath): cannot read the catalog"
        ),
        "\(kind): \(daemon.log)")
      #expect(daemon.log.contains(reason), "\(kind): \(daemon.log)")
      // Other clients are still served, at once.
      let client = try daemon.connect()
      client.connection.setReceiveTimeout(milliseconds: 2000)
      let asked = Date()
      #expect(try client.send(#"{"op":"hello"}"#).isOK, "\(kind)")
      #expect(Date().timeIntervalSince(asked) < 2, "\(kind)")
      #expect(try price() == before, "\(kind): the catalog in use is kept")
    }
    // The file back as it was: the next SIGHUP reads it (and finds nothing changed).
    try FileManager.default.removeItem(atPath: daemon.catalogPath)
    try original.write(to: URL(fileURLWithPath: daemon.catalogPath))
    kill(daemon.process.processIdentifier, SIGHUP)
    _ = daemon.waitForLog("has no changes", within: 5)
    #expect(daemon.log.contains("SIGHUP: \(daemon.catalogPath) has no changes"), "\(daemon.log)")
  }

  /// Waits until the daemon's log holds `text`.

  @Test(
    "a link planted as snapshots/ or receipts/ while running: a close of day writes nothing through it",
    arguments: ["snapshots", "receipts"])
  func linkedSnapshotDirectoryWhileRunning(name: String) throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let elsewhere = daemon.directory.path("elsewhere")
    try FileManager.default.createDirectory(
      atPath: elsewhere, withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    let link = daemon.dataDirectory + "/" + name
    #expect(!FileManager.default.fileExists(atPath: link))
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)

    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    let printed = try daemon.cli(["receipt", "1"])
    #expect(printed.status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("could not write a snapshot"), "\(daemon.log)")
    #expect(daemon.log.contains("\(link): is a symbolic link"), "\(daemon.log)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    // Still serving, and still taking changes.
    #expect(try daemon.connect().send(#"{"op":"hello"}"#).isOK)
    #expect(try daemon.cli(["add", "CAP-BSB"]).status == 0)
    #expect(try daemon.cli(["receipt", "1"]).stdout == printed.stdout)

    // Nothing acknowledged is lost: with the link gone, a restart has the sale, the close and
    // the order after it (replayed from the journal).
    #expect(daemon.stop() == 0)
    try FileManager.default.removeItem(atPath: link)
    try daemon.start()
    #expect(try daemon.cli(["receipt", "1"]).stdout == printed.stdout)
    let hello = try daemon.connect().send(#"{"op":"order"}"#)
    #expect(hello.result["lines"]?.arrayValue?.count == 1, "the open order came back")
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
  }

  @Test(
    "a link as snapshots/ or receipts/ at start-up: start refused, not read through",
    arguments: ["snapshots", "receipts"])
  func linkedSnapshotDirectoryAtStartUp(name: String) throws {
    let directory = try TemporaryDirectory()
    let daemon = try Daemon(directory: directory)
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-WHT-M"]).status == 0)
    #expect(try daemon.cli(["tender", "cash", "50"]).status == 0)
    #expect(try daemon.cli(["close-day"]).status == 0)
    #expect(daemon.waitForLog("snapshot of record"), "\(daemon.log)")
    #expect(daemon.stop() == 0)
    // The directory moved out and a link to it left in its place.
    let path = daemon.dataDirectory + "/" + name
    let elsewhere = directory.path("elsewhere")
    try FileManager.default.moveItem(atPath: path, toPath: elsewhere)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
    let (status, log) = try start(directory)
    #expect(status == 1, "\(log)")
    let what = name == "snapshots" ? "the snapshot directory" : "the receipt archive directory"
    #expect(log.contains("cannot start: \(what) \(path) is a symbolic link"), "\(log)")
  }
}
