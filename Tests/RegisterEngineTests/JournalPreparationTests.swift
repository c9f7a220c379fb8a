import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine
@testable import RegisterServer

/// The open segment is written ahead with zeros (so each group's fdatasync flushes its data
/// alone, not the file's size), invisibly to every reader: they read exactly the records, a
/// sealed segment and a stopped daemon's segment end with their last record, and a crash that
/// leaves the zeros, or leaves some pages of an unfinished write among them, costs nothing
/// acknowledged and needs no repair.
@Suite struct JournalPreparationTests {
  private func size(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
  }

  @Test func theOpenSegmentIsWrittenAheadWithZerosThatNoReaderSees() throws {
    let directory = try makeTemporaryDirectory(prefix: "prepare")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = JournalFiles.Segment(directory: directory, day: 1, firstSequence: 1)
    var storage: FileJournalStorage? = try FileJournalStorage(segment: first)
    var written: [UInt8] = []
    for group in 0..<3 {
      let bytes = Array("{\"group\":\(group)}\n".utf8)
      try storage?.appendDurably(bytes)
      written += bytes
    }
    #expect(storage?.length == written.count)
    #expect(storage?.prepared == FileJournalStorage.preparationChunk - written.count)
    #expect(size(first.path) == written.count + (storage?.prepared ?? 0))
    let raw = try FileIO.read(first.path, followingSymlinks: false)
    #expect(raw.starts(with: written) && raw.dropFirst(written.count).allSatisfy { $0 == 0 })
    #expect(try JournalFiles.readSegment(first.path) == written)

    // A failed append cuts the file back, zeros and all; the next append writes ahead again.
    try storage?.truncate(to: written.count - 12)
    written.removeLast(12)
    #expect(storage?.prepared == 0)
    #expect(size(first.path) == written.count)
    try storage?.appendDurably(Array("{\"after\":1}\n".utf8))
    written += Array("{\"after\":1}\n".utf8)
    #expect((storage?.prepared ?? 0) > 0)
    #expect(try JournalFiles.readSegment(first.path) == written)

    // A daemon killed with the zeros in place: the next one finds where the records end and
    // writes there (not after the zeros).
    var killed: FileJournalStorage? = try FileJournalStorage(segment: first)
    #expect(killed?.length == written.count)
    try killed?.appendDurably(Array("{\"next\":2}\n".utf8))
    written += Array("{\"next\":2}\n".utf8)
    #expect(try JournalFiles.readSegment(first.path) == written)

    // Sealing cuts the zeros: the sealed file is exactly its records.
    try killed?.startSegment(day: 2, firstSequence: 5)
    #expect(try FileIO.read(first.path, followingSymlinks: false) == written)
    #expect(killed?.length == 0 && killed?.prepared == 0)

    // A daemon that stops cuts them too.
    storage = nil
    let second = try #require(killed?.segment)
    try killed?.appendDurably(Array("{\"day\":2}\n".utf8))
    #expect(size(second.path) > 10)
    killed = nil
    #expect(try FileIO.read(second.path, followingSymlinks: false) == Array("{\"day\":2}\n".utf8))
  }

  /// Records encoded as the journal writes them, chained from the genesis.
  private func records(_ count: Int) -> [[UInt8]] {
    var previous = JournalRecord.genesis
    return (1...count).map { sequence in
      let (line, sum) = JournalRecord.encode(
        sequence: Int64(sequence), at: testTime, type: "no_sale", data: .object([:]),
        operatorID: nil, key: nil, more: false, previous: previous)
      previous = sum
      return line
    }
  }

  /// A crash during a group's write may keep some of its pages and not others: the file then
  /// holds a piece of a record, zeros, and maybe whole records of the same unfinished write.
  /// None of it was acknowledged; the scan ends at the zeros, as a tail, not as damage.
  @Test func zerosLeftByAnUnfinishedWriteEndTheRecords() {
    let lines = records(4)
    var bytes = lines[0] + lines[1]
    let good = bytes.count
    // The unfinished write's first page kept, its second not, its third kept.
    bytes += lines[2].prefix(20)
    let secondPage = (bytes.count / 4096 + 1) * 4096
    bytes += [UInt8](repeating: 0, count: secondPage + 4096 - bytes.count) + lines[3]
    bytes += [UInt8](repeating: 0, count: 100)
    let scan = JournalScanner.scan(bytes)
    #expect(scan.damage == nil)
    #expect(scan.records.map(\.sequence) == [1, 2])
    #expect(scan.goodLength == good)
    #expect(scan.tailLength == bytes.count - good)
    #expect(scan.tailReason?.contains("zero bytes") == true)

    // Zeros straight after a record (the space written ahead, read raw): the same.
    let ahead = JournalScanner.scan(lines[0] + [UInt8](repeating: 0, count: 64))
    #expect(ahead.damage == nil && ahead.records.count == 1 && ahead.goodLength == lines[0].count)

    // A few zeros that are not a page the write never reached, with records after them, are
    // damage like any garbage.
    let garbage = JournalScanner.scan(
      lines[0] + [0, 0] + Array("junk\n".utf8) + lines[1] + lines[2])
    #expect(garbage.damage?.offset == lines[0].count)
  }

  /// In a sealed segment (complete when it was sealed) zeros are damage, not a tail.
  @Test func zerosInASealedSegmentAreDamage() throws {
    let directory = try makeTemporaryDirectory(prefix: "prepare-sealed")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let lines = records(4)
    let first = JournalFiles.Segment(directory: directory, day: 1, firstSequence: 1)
    let second = JournalFiles.Segment(directory: directory, day: 2, firstSequence: 3)
    try FileIO.makeDirectories(FileIO.parentDirectory(of: first.path))
    try Data(lines[0] + [UInt8](repeating: 0, count: 10) + lines[1]).write(
      to: URL(fileURLWithPath: first.path))
    try Data(lines[2] + lines[3]).write(to: URL(fileURLWithPath: second.path))
    let chain = try JournalFiles.read([first, second], after: 0, sum: JournalRecord.genesis) {
      _, _ in
    }
    #expect(chain.damage?.path == first.path)
    #expect(chain.damage?.damage.offset == lines[0].count)
  }
}
