import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// The daemon never writes through a symbolic link and refuses a data directory or outbox
/// that others could plant links in.
@Suite("registerd refuses unsafe data directories and links", .serialized)
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
    let deadline = Date().addingTimeInterval(10)
    while exitStatus(of: process, timeout: 0) == nil && Date() < deadline {
      if UnixSocket.probe(directory.path("s.sock")) == .live { process.terminate() }
      usleep(20_000)
    }
    if exitStatus(of: process, timeout: 0) == nil { process.terminate() }
    let status = exitStatus(of: process, timeout: 30) ?? -1
    let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (status, log)
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
}
