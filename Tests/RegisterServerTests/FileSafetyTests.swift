import Foundation
import RegisterServer
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// Files are written without following symbolic links, through unpredictable temporary names.
@Suite struct FileSafetyTests {
  private func temporaryDirectory() throws -> String {
    try makeTemporaryDirectory(prefix: "fs")
  }

  @Test func temporaryNamesAreUnpredictable() {
    let names = (0..<64).map { _ in FileIO.temporarySuffix() }
    #expect(Set(names).count == names.count)
    for name in names {
      #expect(name.count == 16)
      #expect(name.allSatisfy { "0123456789abcdef".contains($0) })
    }
    #expect(!names.contains(String(getpid())))
  }

  @Test func atomicWriteNeverFollowsALinkAtTheOldTemporaryNameOrTheTarget() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let victim = directory + "/victim"
    try "victim\n".write(toFile: victim, atomically: false, encoding: .utf8)
    let path = directory + "/file.json"
    // A link at the name the old code used (PATH.tmp-PID) and one at the file itself.
    try FileManager.default.createSymbolicLink(
      atPath: "\(path).tmp-\(getpid())", withDestinationPath: victim)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
    try FileIO.writeAtomically(Array("new\n".utf8), to: path, mode: 0o600)
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
    #expect(try FileIO.read(path, followingSymlinks: false) == Array("new\n".utf8))
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect(attributes[.type] as? FileAttributeType == .typeRegular)
  }

  @Test func theJournalIsNeverOpenedThroughALink() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let victim = directory + "/victim"
    try "victim\n".write(toFile: victim, atomically: false, encoding: .utf8)
    let segment = JournalFiles.Segment(directory: directory, day: 1, firstSequence: 1)
    try FileManager.default.createDirectory(
      atPath: JournalFiles.segmentDirectory(in: directory), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    let path = segment.path
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
    #expect(throws: SystemError.self) { try FileJournalStorage(segment: segment) }
    #expect(throws: SystemError.self) { try FileIO.read(path, followingSymlinks: false) }
    #expect(throws: RecoveryError.self) {
      try JournalFiles.recover(
        directory: directory,
        now: Timestamp(epochMilliseconds: 1_773_601_385_000, utcOffsetSeconds: -18_000))
    }
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
  }

  @Test func aFileEffectRefusesAnOutboxThatIsALinkOrOpenToOthers() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let elsewhere = directory + "/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/outbox", withDestinationPath: elsewhere)
    let effect = FileEffect(path: directory + "/outbox/r.eml", bytes: [0x41], mode: 0o600)
    let link = #expect(throws: SystemError.self) { try effect.perform() }
    #expect(link?.code == ELOOP && link?.path == directory + "/outbox")
    #expect(link?.reason.contains("is a symbolic link") == true)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

    try FileManager.default.removeItem(atPath: directory + "/outbox")
    try FileManager.default.createDirectory(
      atPath: directory + "/outbox", withIntermediateDirectories: false)
    #expect(chmod(directory + "/outbox", 0o777) == 0)
    let open = #expect(throws: SystemError.self) { try effect.perform() }
    #expect(open?.code == EACCES && open?.path == directory + "/outbox")
    #expect(chmod(directory + "/outbox", 0o700) == 0)
    try effect.perform()
    #expect(try FileIO.read(directory + "/outbox/r.eml") == [0x41])
  }

  @Test func ownFilesAreNeverWrittenThroughALinkInPlaceOfTheirDirectory() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let elsewhere = directory + "/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/snapshots", withDestinationPath: elsewhere)
    let link = #expect(throws: SystemError.self) {
      try FileIO.writeOwnFile([0x41], to: directory + "/snapshots/s.json")
    }
    #expect(link?.code == ELOOP)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    try "x".write(toFile: directory + "/plain", atomically: false, encoding: .utf8)
    let plain = #expect(throws: SystemError.self) {
      try FileIO.writeOwnFile([0x41], to: directory + "/plain/s.json")
    }
    #expect(plain?.code == ENOTDIR)
    // Missing: made, private, and the file written in it.
    try FileIO.writeOwnFile([0x42], to: directory + "/receipts/day000001.ndjson")
    #expect(try FileIO.read(directory + "/receipts/day000001.ndjson") == [0x42])
    let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/receipts")
    #expect(attributes[.posixPermissions] as? Int == 0o700)
  }

  /// Files named by someone else (the catalog, the journal key) are read only when they are
  /// regular files within a limit: anything else is refused by what it is, before a byte is
  /// read and without blocking (a FIFO with no writer would block the open).
  @Test func onlyARegularFileWithinTheLimitIsRead() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    #expect(mkfifo(directory + "/fifo", 0o600) == 0)
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/zero", withDestinationPath: "/dev/zero")
    let sparse = directory + "/sparse"
    #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
    #expect(truncate(sparse, 3 << 30) == 0)
    try "0123456789".write(toFile: directory + "/ten", atomically: false, encoding: .utf8)
    let refusals = [
      (directory + "/fifo", "is a FIFO (named pipe), not a regular file"),
      (directory + "/zero", "is a character device, not a regular file"),
      (directory, "is a directory, not a regular file"),
      (sparse, "is 3221225472 bytes, more than the limit of 64 MiB"),
      (directory + "/ten", "is 10 bytes, more than the limit of 9 bytes"),
    ]
    for (path, reason) in refusals {
      let limit = path.hasSuffix("/ten") ? 9 : CatalogFile.maximumFileSize
      let error = #expect(throws: SystemError.self) { try FileIO.read(path, limit: limit) }
      #expect(error?.path == path)
      #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }
    #expect(try FileIO.read(directory + "/ten", limit: 10) == Array("0123456789".utf8))
    let catalog = #expect(throws: CatalogError.self) { try CatalogFile.load(directory + "/fifo") }
    #expect(
      catalog?.description.contains("\(directory)/fifo: is a FIFO (named pipe), not a regular file")
        == true, "\(String(describing: catalog))")
  }

  @Test func staleTemporariesAreRemovedAndNothingElse() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let victim = directory + "/victim"
    try "victim\n".write(toFile: victim, atomically: false, encoding: .utf8)
    for name in ["receipt-1-5.eml.tmp-0123456789abcdef", "journal.ndjson.torn-3-1.tmp-77"] {
      try "half".write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
    }
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/x.eml.tmp-feed", withDestinationPath: victim)
    for name in ["receipt-1-5.eml", "journal.ndjson", ".tmp-hidden", "tmp-file"] {
      try "keep".write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
    }
    try FileManager.default.createDirectory(
      atPath: directory + "/dir.tmp-1", withIntermediateDirectories: false)
    #expect(FileIO.removeStaleTemporaries(in: directory) == 3)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
        ".tmp-hidden", "dir.tmp-1", "journal.ndjson", "receipt-1-5.eml", "tmp-file", "victim",
      ])
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
  }

  @Test(arguments: [
    (0o700, true), (0o755, true), (0o750, true), (0o775, false), (0o757, false), (0o722, false),
  ])
  func directoryModes(mode: Int, safe: Bool) throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    #expect(chmod(directory, mode_t(mode)) == 0)
    #expect((FileIO.unsafeDirectoryReason(directory, what: "it") == nil) == safe)
    #expect(FileIO.unsafeDirectoryReason(directory + "/missing", what: "it") == nil)
  }
}
