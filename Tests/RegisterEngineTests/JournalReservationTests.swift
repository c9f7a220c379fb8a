import Foundation
import Testing

@testable import RegisterEngine
@testable import RegisterServer

/// The open segment has disk space reserved past its end (so each group's fdatasync need not
/// allocate blocks), invisibly to every reader: the file holds exactly what was appended, and
/// a sealed segment gives the reserved space back.
@Suite struct JournalReservationTests {
  private func allocated(_ path: String) -> (size: Int, onDisk: Int) {
    var info = stat()
    guard stat(path, &info) == 0 else { return (-1, -1) }
    return (Int(info.st_size), Int(info.st_blocks) * 512)
  }

  @Test func theOpenSegmentHasSpaceReservedThatNoReaderSeesAndASealedOneGivesItBack() throws {
    let directory = try makeTemporaryDirectory(prefix: "reserve")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = JournalFiles.Segment(directory: directory, day: 1, firstSequence: 1)
    let storage = try FileJournalStorage(segment: first)
    var written: [UInt8] = []
    for group in 0..<3 {
      let bytes = Array("{\"group\":\(group)}\n".utf8)
      try storage.appendDurably(bytes)
      written += bytes
    }
    #expect(storage.length == written.count)
    #expect(try FileIO.read(first.path, followingSymlinks: false) == written)
    #if os(Linux)
      #expect(storage.reservation >= FileJournalStorage.reservationChunk - written.count)
      let open = allocated(first.path)
      #expect(open.size == written.count, "the reservation does not change the size")
      #expect(open.onDisk >= FileJournalStorage.reservationChunk, "the blocks are really reserved")
    #endif

    // A rollback cuts the file back: the reservation past the new end goes with it, and the
    // next append reserves again.
    try storage.truncate(to: written.count - 12)
    written.removeLast(12)
    #expect(storage.reservation == 0)
    try storage.appendDurably(Array("{\"after\":1}\n".utf8))
    written += Array("{\"after\":1}\n".utf8)
    #expect(try FileIO.read(first.path, followingSymlinks: false) == written)
    #if os(Linux)
      #expect(storage.reservation > 0)
    #endif

    // Sealing gives the space back; the sealed file is unchanged.
    try storage.startSegment(day: 2, firstSequence: 5)
    let sealed = allocated(first.path)
    #expect(sealed.size == written.count)
    #expect(sealed.onDisk <= 64 * 1024, "a sealed segment keeps no reserved space")
    #expect(try FileIO.read(first.path, followingSymlinks: false) == written)
    #expect(storage.length == 0 && storage.reservation == 0)
  }
}
