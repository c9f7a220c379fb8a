import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the generated history's records go: the data directory's journal, written by the
/// real journal code (`Journal` encodes each record and chains its SHA-256; `FileJournalStorage`
/// appends, fsyncs and starts a new segment at each close of day), and the snapshots and
/// receipt archive the daemon writes at each close (`SnapshotFiles`), so registerd, `verify`
/// and `replay` read it like any other.
///
/// Records are appended in large groups (one write and one fsync each), never per request:
/// a year of history is about two million records.
final class HistoryStore {
  let dataDirectory: String
  private let journal: Journal

  /// Opens a new journal in `dataDirectory` (created when missing). A directory that already
  /// holds a journal is refused: a history is generated from the first record.
  init(dataDirectory: String) throws(HistoryError) {
    self.dataDirectory = dataDirectory
    if let reason = FileIO.unsafeDirectoryReason(dataDirectory, what: "the data directory") {
      throw HistoryError(reason)
    }
    let path = JournalFiles.segmentDirectory(in: dataDirectory)
    if FileIO.exists(path) || FileIO.exists(JournalFiles.legacyPath(in: dataDirectory)) {
      throw HistoryError("\(path) already exists; generate into an empty directory")
    }
    do {
      try FileIO.makeDirectories(dataDirectory)
      let first = JournalFiles.Segment(directory: dataDirectory, day: 1, firstSequence: 1)
      journal = Journal(
        storage: try FileJournalStorage(segment: first), lastSum: JournalRecord.genesis,
        lastSequence: 0)
    } catch {
      throw HistoryError("cannot create the journal in \(dataDirectory): \(error)")
    }
  }

  /// Ends the writing: the open segment is cut to its records, as registerd leaves it when it
  /// stops.
  func close() {
    journal.storage.close()
  }

  /// The chain's head: the last record written and its sum.
  var head: JournalHead { JournalHead(sequence: journal.lastSequence, sum: journal.lastSum) }

  /// Journal bytes written so far: the sizes of the segment files.
  var bytes: Int {
    let segments = (try? JournalFiles.segments(in: dataDirectory)) ?? []
    return segments.reduce(0) { total, segment in
      var info = stat()
      return total + (stat(segment.path, &info) == 0 ? Int(info.st_size) : 0)
    }
  }
  /// Snapshots written.
  private(set) var snapshots = 0

  /// Appends pending records (whole requests, in sequence order) durably: the one place the
  /// generator writes the journal, so a change of storage (day segments, snapshots) changes
  /// only this function. The generator calls it every ~1,000 records and after every
  /// `day_closed`, so a group never splits a request nor spans two business days.
  func append(_ records: [PendingRecord]) throws(HistoryError) {
    do {
      try journal.append(records)
    } catch {
      throw HistoryError("cannot write the journal in \(dataDirectory): \(error)")
    }
  }

  /// After a close of day (everything appended): the snapshot registerd writes then, with the
  /// closed day's receipts moved to the archive, which `register` then reads them from.
  func snapshot(_ register: inout Register) throws(HistoryError) {
    do {
      let written = try SnapshotFiles.write(register, head: head, dataDirectory: dataDirectory)
      register.archiveReceipts(
        written.archived, reader: FileReceiptArchive(dataDirectory: dataDirectory))
      snapshots += 1
    } catch {
      throw HistoryError("cannot write a snapshot in \(dataDirectory): \(error)")
    }
  }
}

/// Why the history could not be generated.
struct HistoryError: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }
}
