import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a data directory's journal starts, and the check start-up makes of the sealed
/// segments it does not replay.
///
/// A journal starts at record 1, or — once `register-cli archive` has moved its first
/// segments out — right after the last record of the segments the archive manifest
/// (`journal/archived.json`, `ArchiveManifest`) records as moved. A first segment simply
/// missing is damage, as a missing segment anywhere else is.
extension JournalFiles {
  /// The archive manifest's path in data directory `directory`.
  public static func archiveManifestPath(in directory: String) -> String {
    segmentDirectory(in: directory) + "/" + ArchiveManifest.fileName
  }

  /// The archive manifest in `directory` (nil when there is none), never read through a link.
  public static func archiveManifest(in directory: String) throws(RecoveryError)
    -> ArchiveManifest?
  {
    let path = archiveManifestPath(in: directory)
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    do {
      return try ArchiveManifest.decode(
        try FileIO.read(path, followingSymlinks: false, limit: 64 << 20))
    } catch {
      throw RecoveryError(
        "the archive manifest \(path) cannot be used: \(error). It records which segments `register-cli archive` moved out of the journal; restore it from a backup, or run `register-cli archive` again with the --to directory they are in, which records them anew. Nothing was changed."
      )
    }
  }

  /// The chain point the journal of `segments` (those in `directory`, in order) starts after:
  /// before record 1 when its first segment starts there (or it has none), else the last
  /// record of the segment the archive manifest records as moved just before it. Nil when
  /// neither: records before the first segment are missing.
  public static func start(of segments: [Segment], in directory: String) throws(RecoveryError)
    -> JournalHead?
  {
    guard let first = segments.first, first.firstSequence > 1 else {
      return JournalHead(sequence: 0, sum: JournalRecord.genesis)
    }
    return try archiveManifest(in: directory)?.start(before: first.firstSequence)
  }

  /// The damage of a journal whose first segment, `first`, does not start at record 1 and
  /// that no archive manifest says was archived up to it.
  public static func missingStart(_ first: Segment, in directory: String) -> JournalDamage {
    let missing = "1-\(first.firstSequence - 1)"
    return JournalDamage(
      line: 1, sequence: nil, offset: 0,
      problem:
        "the journal starts at seq \(first.firstSequence), and records \(missing) are not in \(archiveManifestPath(in: directory)) as moved out by `register-cli archive`: the segment(s) holding them were removed",
      repair:
        "put back the segment(s) holding records \(missing), from a backup or from the directory `register-cli archive` moved them to; if a register-cli that did not yet record what it moved archived them, run `register-cli archive --data-dir \(directory) --before-day 1 --to THAT-DIRECTORY` once, which records them"
    )
  }

  /// Checks the segments start-up does not replay — those before segment `index`, which holds
  /// the record its snapshot is the state as of — from their ends only, without reading them
  /// whole: the first starts the journal (`start`; nil: records before it are missing), each
  /// one's first record is the one its name says and follows the last record of the one
  /// before (which does not end inside a request), and so does the first record of segment
  /// `index`. Nil when they do; otherwise the chain as far as it is intact, with the damage:
  /// found by reading the segments whole, so it is named as `verify` names it.
  static func unreadSegmentsDamage(
    _ segments: [Segment], through index: Int, start: JournalHead?, in directory: String
  ) -> ChainScan? {
    guard let start else {
      var chain = ChainScan(lastSequence: 0, lastSum: JournalRecord.genesis)
      chain.damage = (segments[0].path, missingStart(segments[0], in: directory))
      return chain
    }
    if linkUp(segments, through: index, from: start) { return nil }
    let chain = try? read(Array(segments[...index]), after: start.sequence, sum: start.sum) {
      _, _ throws(RecoveryError) in
    }
    guard let chain, chain.damage != nil else { return nil }
    return chain
  }

  /// Whether segments up to `index` link up from `start`, as far as their ends tell.
  static func linkUp(_ segments: [Segment], through index: Int, from start: JournalHead) -> Bool {
    var previous = start
    for position in 0...index {
      let segment = segments[position]
      guard segment.firstSequence == previous.sequence + 1,
        let ends = SegmentEnds.read(segment.path, last: position < index),
        ends.first.sequence == segment.firstSequence, ends.first.previous == previous.sum
      else { return false }
      guard position < index else { return true }
      guard let last = ends.last, !last.more, last.sequence >= ends.first.sequence else {
        return false
      }
      previous = JournalHead(sequence: last.sequence, sum: last.sum)
    }
    return true
  }
}
