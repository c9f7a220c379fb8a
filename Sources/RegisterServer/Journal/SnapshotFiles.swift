import Dispatch
import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Snapshots and the receipt archive under a data directory.
///
/// `DATA/snapshots/snapshot-dayNNNNNN-seqNNNNNNNNNNNN.json`: the register's state as of record
/// `seq` (`SnapshotFile`), written when a day is closed and when a segment fills up. Start-up
/// loads the newest good one and applies only the records after it.
///
/// `DATA/receipts/dayNNNNNN.ndjson`: the receipts of a closed day, one per line in number order,
/// written with the first snapshot after the close; from then on they are read from there
/// (`FileReceiptArchive`) instead of being kept in memory, and the snapshot holds only where
/// each one is.
///
/// Every file is written whole to a temporary name, fsynced, renamed into place and the
/// directory fsynced: a crash at any byte leaves the previous files as they were. An archive
/// file is written before the snapshot that refers to it.
public enum SnapshotFiles {
  public static let directoryName = "snapshots"
  public static let receiptsDirectoryName = "receipts"
  /// The newest snapshots always kept; older ones are kept one per `weekly` days.
  public static let newestKept = 3
  public static let weekly = 7

  public static func directory(in dataDirectory: String) -> String {
    dataDirectory + "/" + directoryName
  }

  public static func receiptsDirectory(in dataDirectory: String) -> String {
    dataDirectory + "/" + receiptsDirectoryName
  }

  /// One snapshot file.
  public struct Snapshot: Sendable, Equatable {
    public var path: String
    /// The business day of the state (the day after a close).
    public var day: Int
    /// The journal record it is the state as of.
    public var sequence: Int64

    public init(dataDirectory: String, day: Int, sequence: Int64) {
      self.day = day
      self.sequence = sequence
      path = SnapshotFiles.directory(in: dataDirectory) + "/" + Self.name(day, sequence)
    }

    static func name(_ day: Int, _ sequence: Int64) -> String {
      "snapshot-" + JournalFiles.Segment.stem(day: day, sequence: sequence) + ".json"
    }

    /// Reads a snapshot's file name (nil for anything else).
    public static func parse(_ name: String) -> (day: Int, sequence: Int64)? {
      guard name.hasPrefix("snapshot-"), name.hasSuffix(".json") else { return nil }
      let middle = String(name.dropFirst("snapshot-".count).dropLast(".json".count))
      // dayNNNNNN-seqNNNNNNNNNNNN: the same shape as a segment's name.
      guard let parsed = JournalFiles.Segment.parse(middle + ".ndjson") else { return nil }
      return (parsed.day, parsed.firstSequence)
    }
  }

  /// The snapshots under `dataDirectory`, oldest first.
  public static func list(in dataDirectory: String) -> [Snapshot] {
    let folder = directory(in: dataDirectory)
    // Listed only if it is the data directory's own folder: a planted link lists nothing
    // (start-up refuses one; a backup or an offline check then finds no snapshot to use).
    guard FileIO.exists(folder), let names = try? FileIO.listOwnDirectory(folder) else {
      return []
    }
    return names.compactMap { name in
      Snapshot.parse(name).map {
        Snapshot(dataDirectory: dataDirectory, day: $0.day, sequence: $0.sequence)
      }
    }.sorted { $0.sequence < $1.sequence }
  }

  /// What `write` did.
  public struct Written: Sendable {
    public var snapshot: Snapshot
    public var bytes: Int
    /// The days whose receipts went to archive files, to drop from the live register.
    public var archived: [ArchivedDay]
    /// Older snapshots removed.
    public var removed: Int
  }

  /// Archives the receipts of closed days still in memory, then writes the snapshot of
  /// `register` (whose last record is `head`), then removes snapshots no longer kept.
  public static func write(
    _ register: Register, head: JournalHead, dataDirectory: String
  ) throws(SystemError) -> Written {
    var register = register
    var archived: [ArchivedDay] = []
    let days = register.ledger.unarchivedDays(before: register.day.number)
    // Both directories are the daemon's own: `writeOwnFile` makes them when missing and
    // refuses a symbolic link planted in their place (and one open to others) rather than
    // write through it. The snapshot is then not written; the journal still has everything.
    for (day, dayReceipts) in days {
      let files = ReceiptArchive.files(day: day, receipts: dayReceipts)
      try FileIO.writeOwnFile(
        files.receipts, to: archivePath(day: day, in: dataDirectory), mode: 0o600)
      try FileIO.writeOwnFile(
        files.index, to: archivePath(day: day, index: true, in: dataDirectory), mode: 0o600)
      archived.append(contentsOf: files.runs)
    }
    register.archiveReceipts(archived, reader: nil)
    let snapshot = Snapshot(
      dataDirectory: dataDirectory, day: register.day.number, sequence: head.sequence)
    let bytes = SnapshotFile.encode(register, head: head)
    try FileIO.writeOwnFile(bytes, to: snapshot.path, mode: 0o600)
    let removed = prune(in: dataDirectory)
    return Written(snapshot: snapshot, bytes: bytes.count, archived: archived, removed: removed)
  }

  /// Day `day` as it was closed, from the day book of the oldest snapshot after it that reads
  /// back (nothing else of the snapshot is decoded), with that snapshot and its size; nil when
  /// no snapshot holds it.
  public static func closedDay(_ day: Int, in dataDirectory: String) -> (
    closed: ClosedDay, snapshot: Snapshot, bytes: Int
  )? {
    for snapshot in list(in: dataDirectory) where snapshot.day > day {
      guard let bytes = try? FileIO.read(snapshot.path, followingSymlinks: false),
        let book = try? SnapshotFile.closedDay(day, in: bytes), book.day == snapshot.day,
        let closed = book.closed
      else { continue }
      return (closed, snapshot, bytes.count)
    }
    return nil
  }

  /// The path of day `day`'s receipt archive file and its text (nil when it cannot be read:
  /// the day had no receipts, they were never archived, or the file is not there).
  public static func archivedReceipts(day: Int, in dataDirectory: String) -> (
    path: String, text: [UInt8]?
  ) {
    let path = archivePath(day: day, in: dataDirectory)
    return (path, try? FileIO.read(path, followingSymlinks: false))
  }

  static func archivePath(day: Int, index: Bool = false, in dataDirectory: String) -> String {
    receiptsDirectory(in: dataDirectory) + "/" + JournalFiles.Segment.dayName(day)
      + (index ? ".idx" : ".ndjson")
  }

  /// Removes snapshots no longer kept: all but the newest `newestKept`, and one per `weekly`
  /// days before them (the newest of its week), so `replay --day N` of any day starts from a
  /// snapshot at most a week before it. Returns how many were removed.
  @discardableResult
  public static func prune(in dataDirectory: String) -> Int {
    let all = list(in: dataDirectory)
    guard all.count > newestKept else { return 0 }
    // Removed in the directory as opened for real: never through a link put in its place.
    guard let folderFD = try? FileIO.openOwnDirectory(directory(in: dataDirectory), create: false)
    else { return 0 }
    defer { close(folderFD) }
    var keptWeeks: Set<Int> = []
    var removed = 0
    for snapshot in all.dropLast(newestKept).reversed() {
      let week = (snapshot.day - 1) / weekly
      if keptWeeks.insert(week).inserted { continue }
      if unlinkat(folderFD, FileIO.lastComponent(of: snapshot.path), 0) == 0 { removed += 1 }
    }
    return removed
  }

  /// The newest snapshot that reads back whole, with the problems of the newer ones skipped
  /// (`newest`: only snapshots with a state day up to it, e.g. to replay a given day;
  /// `sequence`: only snapshots of the state as of that record or an earlier one, e.g. to
  /// export what came after it).
  public static func loadNewest(
    in dataDirectory: String, upToDay newest: Int? = nil, upToSequence sequence: Int64? = nil
  ) -> (loaded: (snapshot: Snapshot, register: Register, head: JournalHead)?, skipped: [String]) {
    var skipped: [String] = []
    for snapshot in candidates(in: dataDirectory, upToDay: newest, upToSequence: sequence) {
      do {
        let bytes = try FileIO.read(snapshot.path, followingSymlinks: false)
        var (register, head) = try decodeChecked(bytes, snapshot: snapshot)
        register.archiveReceipts([], reader: FileReceiptArchive(dataDirectory: dataDirectory))
        return ((snapshot, register, head), skipped)
      } catch {
        skipped.append("\(snapshot.path): \(error)")
      }
    }
    return (nil, skipped)
  }

  /// The snapshots `loadNewest` tries, newest first: those with a state day up to `newest`
  /// and of the state as of record `sequence` or an earlier one, when given.
  static func candidates(
    in dataDirectory: String, upToDay newest: Int? = nil, upToSequence sequence: Int64? = nil
  ) -> [Snapshot] {
    list(in: dataDirectory).reversed().filter { snapshot in
      (newest.map { snapshot.day <= $0 } ?? true)
        && (sequence.map { snapshot.sequence <= $0 } ?? true)
    }
  }

  private static func decodeChecked(_ bytes: [UInt8], snapshot: Snapshot) throws -> (
    Register, JournalHead
  ) {
    // The catalog is parsed and decoded on another thread from the moment the parser has
    // passed it, while this one parses and decodes the rest; whatever happens, that thread is
    // waited for before returning.
    let ahead = CatalogAhead()
    defer { _ = ahead.wait() }
    let (register, head) = try SnapshotFile.decode(
      bytes,
      splittingCatalog: { text in
        ahead.start { () throws(JSONShapeError) in try Register.snapshotCatalog(text: text) }
      },
      decodeState: { state, texts throws(JSONShapeError) in
        try Register(snapshot: state, texts: texts, catalog: ahead.catalog)
      })
    guard head.sequence == snapshot.sequence, register.day.number == snapshot.day else {
      throw SnapshotFile.Problem(message: "its name does not match its contents")
    }
    return (register, head)
  }
}

/// Decodes a snapshot's state with its catalog (a store's products, twice: about half of a
/// year-end snapshot) on another thread while the parts that grow with the history are decoded
/// on this one: start-up on a year costs little more than on a day.
public func decodeConcurrently(_ state: JSONValue) throws(JSONShapeError) -> Register {
  let ahead = CatalogAhead()
  defer { _ = ahead.wait() }
  ahead.start { () throws(JSONShapeError) in try Register.snapshotCatalog(state) }
  return try Register(snapshot: state, catalog: ahead.catalog)
}

/// A snapshot's catalog decoded on another thread (from the state's tree, or from its own
/// text while the rest of the snapshot is still being parsed), and waited for once.
private final class CatalogAhead: @unchecked Sendable {
  private var result: Result<StoreCatalog, JSONShapeError>?
  private let done = DispatchSemaphore(value: 0)
  private var started = false
  private var waited = false

  func start(_ work: @escaping @Sendable () throws(JSONShapeError) -> StoreCatalog) {
    guard !started else { return }
    started = true
    DispatchQueue.global(qos: .userInitiated).async {
      self.result = Result { () throws(JSONShapeError) in try work() }
      self.done.signal()
    }
  }

  /// Waits for the catalog (nil when it was never started: no catalog in the text).
  func wait() -> Result<StoreCatalog, JSONShapeError>? {
    guard started else { return nil }
    if !waited {
      done.wait()
      waited = true
    }
    return result
  }

  /// The catalog, for `Register(snapshot:catalog:)`.
  func catalog() throws(JSONShapeError) -> StoreCatalog {
    guard let result = wait() else {
      throw JSONShapeError(path: "catalog", message: "is required")
    }
    return try result.get()
  }
}

/// Reads archived receipts from `DATA/receipts/dayNNNNNN.ndjson` (never through a link, at
/// the file's name or in place of the directory).
public final class FileReceiptArchive: ReceiptArchiveReader {
  public let dataDirectory: String

  public init(dataDirectory: String) {
    self.dataDirectory = dataDirectory
  }

  public func read(day: Int, index: Bool, offset: Int, length: Int) -> [UInt8]? {
    guard offset >= 0, length > 0, length <= 1 << 26 else { return nil }
    let path = SnapshotFiles.archivePath(day: day, index: index, in: dataDirectory)
    guard
      let folderFD = try? FileIO.openOwnDirectory(
        FileIO.parentDirectory(of: path), create: false)
    else { return nil }
    defer { close(folderFD) }
    let fd = retryingOnInterrupt {
      openat(folderFD, FileIO.lastComponent(of: path), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: length)
    var done = 0
    while done < length {
      let count = bytes.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt {
          pread(fd, buffer.baseAddress.map { $0 + done }, length - done, off_t(offset + done))
        }
      }
      guard count > 0 else { return nil }
      done += count
    }
    return bytes
  }
}
