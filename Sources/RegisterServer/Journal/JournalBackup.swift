import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A backup or an archive that could not be made, and why (nothing half-made is left that
/// could pass for a whole one).
public struct BackupError: Error, CustomStringConvertible {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}

/// `register-cli backup`: a consistent copy of a data directory, taken while registerd runs and
/// without talking to it.
///
/// Sealed segments are never written again, so they are hard-linked (copied when the backup is
/// on another file system, or with `copy`); the open segment is copied up to the end of its last
/// complete request; snapshots are copied only when the copied journal reaches their record, and
/// the receipt archive files they refer to with them. Everything is written under
/// `DIR.tmp-RANDOM`, fsynced file by file and directory by directory, and only then renamed to
/// `DIR`: a crash at any point leaves no `DIR` that looks complete (at most the temporary
/// directory, which is never mistaken for a backup).
public enum JournalBackup {
  /// What a backup holds.
  public struct Summary: Sendable {
    public var directory: String
    public var segments: Int
    /// Sealed segments hard-linked rather than copied.
    public var linkedSegments: Int
    /// Records in the copied journal, and the first and last of them.
    public var records: Int64
    public var firstSequence: Int64
    public var lastSequence: Int64
    public var lastSum: String
    public var snapshots: Int
    public var receiptFiles: Int
    /// Bytes of every file in the backup (linked ones included).
    public var bytes: Int
  }

  /// Backs up `dataDirectory` to `target` (created 0700; refused when it exists and is not an
  /// empty directory). `copy`: copy sealed segments too instead of hard-linking them.
  /// `beforeRename` runs when everything is written, just before the rename (tests use it to
  /// stand for a crash in the middle).
  public static func backup(
    dataDirectory: String, to target: String, copy: Bool = false,
    beforeRename: (String) -> Void = { _ in }
  ) throws(BackupError) -> Summary {
    let target = trimmingSlashes(target)
    try checkTarget(target, dataDirectory: dataDirectory)
    let segments: [JournalFiles.Segment]
    do {
      segments = try JournalFiles.segments(in: dataDirectory)
    } catch {
      throw BackupError("cannot read the journal: \(error)")
    }
    guard let open = segments.last else {
      throw BackupError(
        "there is no journal in \(JournalFiles.segmentDirectory(in: dataDirectory)) (use --data-dir DIR)"
      )
    }
    let sealed = segments.dropLast()

    // The open segment first: where it ends decides which snapshots go with it. Only whole
    // requests are taken (the daemon may be writing its next group right now).
    let openBytes: [UInt8]
    do {
      openBytes = try JournalFiles.readSegment(open.path)
    } catch {
      throw BackupError("cannot read the open segment: \(error)")
    }
    let scan = JournalScanner.scan(openBytes, firstSequence: open.firstSequence, previousSum: nil)
    if let damage = scan.damage {
      throw BackupError(
        "the open segment \(open.path) is damaged: \(damage.description); run register-cli verify")
    }
    var last = JournalHead(sequence: open.firstSequence - 1, sum: JournalRecord.genesis)
    if let record = scan.records.last {
      last = JournalHead(sequence: record.sequence, sum: record.sum)
    } else if let previous = sealed.last {
      // Nothing complete in the open segment yet: the journal ends with the sealed one before.
      do {
        let bytes = try JournalFiles.readSegment(previous.path)
        let before = JournalScanner.scan(
          bytes, firstSequence: previous.firstSequence, previousSum: nil)
        if let record = before.records.last {
          last = JournalHead(sequence: record.sequence, sum: record.sum)
        }
      } catch {
        throw BackupError("cannot read the segment \(previous.path): \(error)")
      }
    }

    let temporary = target + ".tmp-" + FileIO.temporarySuffix()
    let journal = temporary + "/" + JournalFiles.segmentDirectoryName
    var summary = Summary(
      directory: target, segments: segments.count, linkedSegments: 0,
      records: last.sequence - (segments.first?.firstSequence ?? 1) + 1,
      firstSequence: segments.first?.firstSequence ?? 1, lastSequence: last.sequence,
      lastSum: last.sum, snapshots: 0, receiptFiles: 0, bytes: 0)
    do throws(SystemError) {
      try makeDirectory(temporary, parent: FileIO.parentDirectory(of: temporary))
      try makeDirectory(journal, parent: temporary)
      for segment in sealed {
        let destination = journal + "/" + segment.name
        // Only a read-only (sealed) file is shared: nothing can write it through either name.
        if !copy, isReadOnly(segment.path), try hardLink(segment.path, to: destination) {
          summary.linkedSegments += 1
        } else {
          try copyFile(segment.path, to: destination, mode: 0o400)
        }
        summary.bytes += fileSize(destination)
      }
      // Always a copy of its own: registerd started on the backup appends to it.
      try write(Array(openBytes[0..<scan.goodLength]), to: journal + "/" + open.name, mode: 0o600)
      summary.bytes += scan.goodLength
      // The record of what `archive` moved out: without it the backup's journal would start
      // with records missing. Read through the journal folder as opened for real.
      let manifest = JournalFiles.archiveManifestPath(in: dataDirectory)
      let journalSource = try FileIO.openOwnDirectory(
        FileIO.parentDirectory(of: manifest), create: false, checkingMode: false)
      defer { close(journalSource) }
      if try copyFile(
        ArchiveManifest.fileName, in: journalSource, path: manifest,
        to: journal + "/" + ArchiveManifest.fileName, mode: 0o600, missingOK: true)
      {
        summary.bytes += fileSize(journal + "/" + ArchiveManifest.fileName)
      }
      try FileIO.syncDirectory(journal)

      // Snapshots the copied journal reaches (never a newer one: start-up would stop on it),
      // read through the folder's own descriptor: never through a link planted in its place
      // (refused, as start-up refuses it) or in place of a file in it.
      let snapshotFolder = SnapshotFiles.directory(in: dataDirectory)
      let snapshotSource =
        FileIO.exists(snapshotFolder)
        ? try FileIO.openOwnDirectory(snapshotFolder, create: false, checkingMode: false) : -1
      defer { if snapshotSource >= 0 { close(snapshotSource) } }
      let snapshots = SnapshotFiles.list(in: dataDirectory).filter {
        $0.sequence <= last.sequence
      }
      if !snapshots.isEmpty {
        let folder = temporary + "/" + SnapshotFiles.directoryName
        try makeDirectory(folder, parent: temporary)
        for snapshot in snapshots {
          let name = String(snapshot.path.split(separator: "/").last ?? "")
          // registerd may remove an old snapshot meanwhile: then it is not needed.
          guard
            try copyFile(
              name, in: snapshotSource, path: snapshot.path, to: folder + "/" + name, mode: 0o600,
              missingOK: true)
          else { continue }
          summary.snapshots += 1
          summary.bytes += fileSize(folder + "/" + name)
        }
        try FileIO.syncDirectory(folder)
      }
      // The receipt archive files (written before any snapshot that refers to them, so every
      // one a copied snapshot needs is there by now).
      let receipts = SnapshotFiles.receiptsDirectory(in: dataDirectory)
      let receiptSource =
        FileIO.exists(receipts)
        ? try FileIO.openOwnDirectory(receipts, create: false, checkingMode: false) : -1
      defer { if receiptSource >= 0 { close(receiptSource) } }
      let names =
        receiptSource >= 0
        ? try FileIO.listOwnDirectory(receipts, directoryFD: receiptSource).sorted() : []
      let archiveFiles = names.filter { isReceiptArchiveName($0) }
      if !archiveFiles.isEmpty {
        let folder = temporary + "/" + SnapshotFiles.receiptsDirectoryName
        try makeDirectory(folder, parent: temporary)
        for name in archiveFiles {
          try copyFile(
            name, in: receiptSource, path: receipts + "/" + name, to: folder + "/" + name,
            mode: 0o600)
          summary.receiptFiles += 1
          summary.bytes += fileSize(folder + "/" + name)
        }
        try FileIO.syncDirectory(folder)
      }
      try FileIO.syncDirectory(temporary)
      beforeRename(temporary)
      // An empty directory at the target is replaced by the rename.
      try FileIO.move(temporary, to: target)
    } catch {
      removeTree(temporary)
      throw BackupError("the backup failed and was removed: \(error)")
    }
    do throws(SystemError) {
      try FileIO.syncDirectory(FileIO.parentDirectory(of: target))
    } catch {
      // Whole, but its name may not outlive a crash: a backup that failed is never left
      // looking like one that did not.
      removeTree(target)
      throw BackupError("the backup failed and was removed: \(error)")
    }
    return summary
  }

  // MARK: - Archive

  /// What `archive` moved.
  public struct ArchiveSummary: Sendable {
    public var directory: String
    /// The segments moved, in journal order.
    public var segments: [String]
    public var snapshots: [String]
    public var bytes: Int
    /// The first record still in the data directory.
    public var firstKeptSequence: Int64
    /// Segments already in the target, moved there before the archive manifest was kept,
    /// that it now records.
    public var recorded: [String] = []
  }

  /// Moves the sealed segments of days before `beforeDay` from `dataDirectory` into `target`
  /// (same names), and the snapshots that can no longer be used without them into
  /// `target/snapshots`. Refused, with nothing moved, when a segment start-up needs would be
  /// among them: the one holding the newest usable snapshot's record and every one after it.
  ///
  /// Each file is linked (or copied and fsynced) into `target` before it is removed from the
  /// data directory, so a crash leaves it in one place or both, never in neither; a file the
  /// archive already holds with the same bytes is not copied again. Before any segment is
  /// removed, the archive manifest (`ArchiveManifest`, `journal/archived.json`) records each
  /// one moved and the record it ends with, written atomically and made durable: start-up and
  /// `verify` take the journal's first segment as whole only when it follows a segment the
  /// manifest records. Segments the target already holds that link up with the first one
  /// left, moved there before the manifest was kept, are recorded too.
  public static func archive(
    dataDirectory: String, beforeDay: Int, to target: String
  ) throws(BackupError) -> ArchiveSummary {
    let target = trimmingSlashes(target)
    let segments: [JournalFiles.Segment]
    do {
      segments = try JournalFiles.segments(in: dataDirectory)
    } catch {
      throw BackupError("cannot read the journal: \(error)")
    }
    guard !segments.isEmpty else {
      throw BackupError(
        "there is no journal in \(JournalFiles.segmentDirectory(in: dataDirectory)) (use --data-dir DIR)"
      )
    }
    // Never the open segment (the last), whatever its day.
    let candidates = segments.dropLast().prefix { $0.day < beforeDay }
    let (newest, _) = SnapshotFiles.loadNewest(in: dataDirectory)
    if !candidates.isEmpty {
      guard let newest else {
        throw BackupError(
          "refused: there is no usable snapshot in \(SnapshotFiles.directory(in: dataDirectory)), so start-up reads the whole journal and every segment is needed; close a day (which writes a snapshot) first. Nothing was moved."
        )
      }
      let needed =
        segments.lastIndex { $0.firstSequence <= newest.snapshot.sequence } ?? segments.startIndex
      if candidates.endIndex > needed {
        let segment = segments[needed]
        throw BackupError(
          "refused: start-up needs \(segment.path) (day \(segment.day)) and every segment after it: it holds record \(newest.snapshot.sequence), which the newest snapshot \(newest.snapshot.path) is the state as of. "
            + "Use --before-day \(segment.day) or earlier. Nothing was moved.")
      }
    }
    let kept = segments[candidates.endIndex]
    // A snapshot of a record before the one preceding the first segment kept cannot be used
    // any more (start-up could not find its record); one of that very record still can.
    let stale = SnapshotFiles.list(in: dataDirectory).filter {
      $0.sequence < kept.firstSequence - 1
    }
    var summary = ArchiveSummary(
      directory: target, segments: [], snapshots: [], bytes: 0,
      firstKeptSequence: kept.firstSequence)
    let journalFolder = JournalFiles.segmentDirectory(in: dataDirectory)
    if realPath(target) != nil, realPath(target) == realPath(journalFolder) {
      throw BackupError("refused: \(target) is the journal directory itself. Nothing was moved.")
    }
    // What the manifest gains: segments the target holds from before it was kept, then those
    // moved now (which must link up, from the journal's start to the first segment kept).
    // A manifest that cannot be read is written anew from them.
    var manifest = (try? JournalFiles.archiveManifest(in: dataDirectory)) ?? ArchiveManifest()
    if let first = segments.first, first.firstSequence > 1,
      manifest.start(before: first.firstSequence) == nil
    {
      let adopted = earlierSegments(in: target, before: first)
      manifest.record(adopted)
      summary.recorded = adopted.map { target + "/" + $0.name }
    }
    let moved = try entries(
      Array(candidates), before: kept, start: start(of: segments, manifest: manifest),
      target: target)
    manifest.record(moved)
    guard !candidates.isEmpty || !stale.isEmpty || !summary.recorded.isEmpty else {
      return summary
    }
    do throws(SystemError) {
      try FileIO.makeDirectories(target)
      for segment in candidates {
        let destination = target + "/" + segment.name
        try place(segment.path, at: destination, mode: 0o400)
        summary.bytes += fileSize(destination)
        summary.segments.append(destination)
      }
      let snapshotFolder = target + "/" + SnapshotFiles.directoryName
      if !stale.isEmpty { try FileIO.makeDirectories(snapshotFolder) }
      var movedSnapshots: [SnapshotFiles.Snapshot] = []
      for snapshot in stale {
        let name = String(snapshot.path.split(separator: "/").last ?? "")
        guard try place(snapshot.path, at: snapshotFolder + "/" + name, mode: 0o600) else {
          continue
        }
        movedSnapshots.append(snapshot)
        summary.snapshots.append(snapshotFolder + "/" + name)
      }
      if !stale.isEmpty { try FileIO.syncDirectory(snapshotFolder) }
      try FileIO.syncDirectory(target)
      try FileIO.syncDirectory(FileIO.parentDirectory(of: target))
      // Everything is durable in the archive, and recorded as moved: now out of the data
      // directory. (A crash from here on leaves segments both moved and recorded, which
      // start-up and verify take as they are.)
      if !moved.isEmpty || !summary.recorded.isEmpty {
        let path = JournalFiles.archiveManifestPath(in: dataDirectory)
        FileIO.removeStaleTemporaries(of: path)
        try FileIO.writeOwnFile(manifest.encoded(), to: path, mode: 0o600)
      }
      for segment in candidates where unlink(segment.path) != 0 {
        throw SystemError("unlink", path: segment.path)
      }
      try FileIO.syncDirectory(journalFolder)
      for snapshot in movedSnapshots { unlink(snapshot.path) }
      if !movedSnapshots.isEmpty {
        try FileIO.syncDirectory(SnapshotFiles.directory(in: dataDirectory))
      }
    } catch {
      throw BackupError(
        "the archive stopped: \(error). Files already in \(target) are also still in the data directory (or were removed from it only once durable in the archive); run it again."
      )
    }
    return summary
  }

  /// Where the journal of `segments` starts, after the last record `manifest` records as moved
  /// just before the first of them (before record 1 when it starts there; nil when neither).
  private static func start(of segments: [JournalFiles.Segment], manifest: ArchiveManifest)
    -> JournalHead?
  {
    guard let first = segments.first, first.firstSequence > 1 else {
      return JournalHead(sequence: 0, sum: JournalRecord.genesis)
    }
    return manifest.start(before: first.firstSequence)
  }

  /// The manifest's entries for `segments` (those to move, in order, to `target`), read from
  /// their ends; refused, with nothing moved, unless they link up from `start` to `kept`:
  /// archiving never hides a segment missing from the journal.
  private static func entries(
    _ segments: [JournalFiles.Segment], before kept: JournalFiles.Segment, start: JournalHead?,
    target: String
  ) throws(BackupError) -> [ArchiveManifest.Entry] {
    guard !segments.isEmpty else { return [] }
    let refusal = BackupError(
      "refused: the segments to archive do not link up from the journal's start to \(kept.path) (a segment is missing or damaged); run register-cli verify. Nothing was moved."
    )
    guard let start, JournalFiles.linkUp(segments + [kept], through: segments.count, from: start)
    else { throw refusal }
    var entries: [ArchiveManifest.Entry] = []
    for segment in segments {
      guard let last = SegmentEnds.read(segment.path)?.last else { throw refusal }
      entries.append(
        ArchiveManifest.Entry(
          name: segment.name, directory: target, firstSequence: segment.firstSequence,
          last: JournalHead(sequence: last.sequence, sum: last.sum)))
    }
    return entries
  }

  /// Segments in `target` (an archive directory) that end right before `first`, the data
  /// directory's first segment, and each other, newest first and back as far as they link:
  /// moved there by an archive that did not yet keep a manifest.
  private static func earlierSegments(in target: String, before first: JournalFiles.Segment)
    -> [ArchiveManifest.Entry]
  {
    guard let archived = try? archivedSegments(in: target),
      let head = SegmentEnds.read(first.path, last: false)?.first
    else { return [] }
    var next = (sequence: first.firstSequence, previous: head.previous)
    var found: [ArchiveManifest.Entry] = []
    for segment in archived.reversed() where segment.firstSequence < next.sequence {
      guard let ends = SegmentEnds.read(segment.path), let last = ends.last,
        ends.first.sequence == segment.firstSequence, last.sequence + 1 == next.sequence,
        last.sum == next.previous, !last.more
      else { break }
      found.append(
        ArchiveManifest.Entry(
          name: segment.name, directory: target, firstSequence: segment.firstSequence,
          last: JournalHead(sequence: last.sequence, sum: last.sum)))
      next = (segment.firstSequence, ends.first.previous)
    }
    return found.reversed()
  }

  /// The segments of archive directories (as `archive` leaves them: `DIR/NAME`), paths set.
  public static func archivedSegments(in directory: String) throws(SystemError)
    -> [JournalFiles.Segment]
  {
    try FileIO.listDirectory(directory).compactMap { name -> JournalFiles.Segment? in
      guard let parsed = JournalFiles.Segment.parse(name) else { return nil }
      var segment = JournalFiles.Segment(
        directory: directory, day: parsed.day, firstSequence: parsed.firstSequence)
      segment.path = directory + "/" + name
      return segment
    }.sorted { $0.firstSequence < $1.firstSequence }
  }

  // MARK: - Files

  /// Refuses a target that is not an empty directory (or missing), or that lies inside the
  /// data directory.
  private static func checkTarget(_ target: String, dataDirectory: String) throws(BackupError) {
    guard !target.isEmpty else { throw BackupError("--to needs a directory") }
    var info = stat()
    if lstat(target, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw BackupError("refused: \(target) exists and is not a directory")
      }
      let names: [String]
      do {
        names = try FileIO.listDirectory(target)
      } catch {
        throw BackupError("cannot read \(target): \(error)")
      }
      guard names.isEmpty else {
        throw BackupError(
          "refused: \(target) exists and is not empty; back up to a new directory (a backup is never merged into another)"
        )
      }
    }
    let parent = FileIO.parentDirectory(of: target)
    do {
      try FileIO.makeDirectories(parent)
    } catch {
      throw BackupError("cannot create \(parent): \(error)")
    }
    if let data = realPath(dataDirectory), let location = realPath(parent),
      location == data || location.hasPrefix(data + "/")
    {
      throw BackupError("refused: \(target) is inside the data directory \(dataDirectory)")
    }
  }

  private static func trimmingSlashes(_ path: String) -> String {
    var path = path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    return path
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func makeDirectory(_ path: String, parent: String) throws(SystemError) {
    guard mkdir(path, 0o700) == 0 else { throw SystemError("mkdir", path: path) }
    try FileIO.syncDirectory(parent)
  }

  private static func isReadOnly(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
      && info.st_mode & 0o222 == 0
  }

  private static func fileSize(_ path: String) -> Int {
    var info = stat()
    return lstat(path, &info) == 0 ? Int(info.st_size) : 0
  }

  /// Hard-links `path` at `destination`; false when links cannot be made there (another file
  /// system), so the caller copies.
  private static func hardLink(_ path: String, to destination: String) throws(SystemError) -> Bool {
    if link(path, destination) == 0 { return true }
    switch errno {
    case EXDEV, EPERM, EMLINK, ENOTSUP: return false
    default: throw SystemError("link", path: destination)
    }
  }

  /// Puts `path` at `destination` for a move: linked, or copied and fsynced; a destination
  /// already holding the same bytes (an earlier run that stopped) is kept. False when `path`
  /// is gone (registerd removed an old snapshot meanwhile).
  @discardableResult
  private static func place(_ path: String, at destination: String, mode: mode_t)
    throws(SystemError) -> Bool
  {
    if FileIO.exists(destination) {
      let here = try? FileIO.read(path, followingSymlinks: false)
      guard let here else { return false }
      let there = try FileIO.read(destination, followingSymlinks: false)
      guard here == there else {
        throw SystemError("link", path: destination, code: EEXIST)
      }
      return true
    }
    guard FileIO.exists(path) else { return false }
    if try hardLink(path, to: destination) { return true }
    return try copyFile(path, to: destination, mode: mode, missingOK: true)
  }

  /// Copies `name` — opened relative to the folder `directoryFD` (`AT_FDCWD`: `name` is a
  /// path), never through a link — to the new file `destination`, and fsyncs it; false when
  /// it is gone and `missingOK`. `path` names the source in errors.
  @discardableResult
  private static func copyFile(
    _ name: String, in directoryFD: Int32 = AT_FDCWD, path: String? = nil,
    to destination: String, mode: mode_t, missingOK: Bool = false
  ) throws(SystemError) -> Bool {
    let path = path ?? name
    let source = retryingOnInterrupt {
      openat(directoryFD, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    }
    guard source >= 0 else {
      if missingOK && errno == ENOENT { return false }
      throw SystemError("open", path: path)
    }
    defer { close(source) }
    let fd = retryingOnInterrupt {
      open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    }
    guard fd >= 0 else { throw SystemError("open", path: destination) }
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = chunk.withUnsafeMutableBytes { buffer in
        retryingOnInterrupt { systemRead(source, buffer.baseAddress, buffer.count) }
      }
      if count < 0 { throw SystemError("read", path: path) }
      if count == 0 { break }
      try FileIO.writeAll(fd, Array(chunk[0..<count]), path: destination)
    }
    if retryingOnInterrupt({ fsync(fd) }) != 0 { throw SystemError("fsync", path: destination) }
    return true
  }

  /// Writes `bytes` to a new file `destination` and fsyncs it.
  private static func write(_ bytes: [UInt8], to destination: String, mode: mode_t)
    throws(SystemError)
  {
    let fd = retryingOnInterrupt {
      open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    }
    guard fd >= 0 else { throw SystemError("open", path: destination) }
    defer { close(fd) }
    try FileIO.writeAll(fd, bytes, path: destination)
    if retryingOnInterrupt({ fsync(fd) }) != 0 { throw SystemError("fsync", path: destination) }
  }

  /// `dayNNNNNN.ndjson` or its index `dayNNNNNN.idx` (not a temporary file left by a crash).
  private static func isReceiptArchiveName(_ name: String) -> Bool {
    guard name.hasPrefix("day") else { return false }
    for suffix in [".ndjson", ".idx"] where name.hasSuffix(suffix) {
      let digits = name.dropFirst(3).dropLast(suffix.count)
      return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
    return false
  }

  /// Removes a directory tree this process made (a backup that failed). Links are removed as
  /// links, never followed.
  private static func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
      for name in (try? FileIO.listDirectory(path)) ?? [] { removeTree(path + "/" + name) }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}
