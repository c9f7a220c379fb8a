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
}
