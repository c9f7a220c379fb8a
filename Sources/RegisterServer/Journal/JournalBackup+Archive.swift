import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `register-cli archive`: sealed segments moved out of the data directory.
extension JournalBackup {
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
}
