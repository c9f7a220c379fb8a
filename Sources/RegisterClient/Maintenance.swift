import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `backup` and `archive`: the store's care of a data directory, offline and safe while
/// registerd runs (see docs/OPERATIONS.md).
enum Maintenance {
  /// Set only by the tests: seconds to wait with the backup written but not yet renamed into
  /// place, so that a test can kill the process there (a crash in the middle of a backup).
  static let stallVariable = "REGISTER_TEST_BACKUP_STALL_SECONDS"

  static func backup(
    _ directory: String, to target: String, copy: Bool, json: Bool,
    environment: [String: String]
  ) -> ExitStatus {
    let stall = environment[stallVariable].flatMap { UInt32($0) } ?? 0
    let summary: JournalBackup.Summary
    do {
      summary = try JournalBackup.backup(dataDirectory: directory, to: target, copy: copy) {
        temporary in
        guard stall > 0 else { return }
        writeStandardError("register-cli: stalling in \(temporary) (\(stallVariable))\n")
        sleep(stall)
      }
    } catch {
      return CLI.fail(.refused, error.description)
    }
    if json {
      writeStandardOutput(
        JSONValue.object([
          "backup": .string(summary.directory), "segments": .int(summary.segments),
          "linked_segments": .int(summary.linkedSegments), "records": .int(summary.records),
          "first_seq": .int(summary.firstSequence), "last_seq": .int(summary.lastSequence),
          "last_sum": .string(summary.lastSum), "snapshots": .int(summary.snapshots),
          "receipt_files": .int(summary.receiptFiles), "bytes": .int(summary.bytes),
        ]).serialized + "\n")
    } else {
      writeStandardOutput(
        """
        backup \(summary.directory): \(Words.count(summary.segments, "segment")) (\(summary.linkedSegments) hard-linked), \(Words.count(summary.records, "record")) (seq \(summary.firstSequence)-\(summary.lastSequence)), last sum \(summary.lastSum)
        \(Words.count(summary.snapshots, "snapshot")), \(Words.count(summary.receiptFiles, "receipt archive file")), \(Words.count(summary.bytes, "byte"))
        check it with: register-cli verify --data-dir \(summary.directory)

        """)
    }
    return .done
  }

  static func archive(_ directory: String, beforeDay: Int, to target: String, json: Bool)
    -> ExitStatus
  {
    let summary: JournalBackup.ArchiveSummary
    do {
      summary = try JournalBackup.archive(
        dataDirectory: directory, beforeDay: beforeDay, to: target)
    } catch {
      return CLI.fail(.refused, error.description)
    }
    if json {
      writeStandardOutput(
        JSONValue.object([
          "archive": .string(summary.directory),
          "segments": .array(summary.segments.map(JSONValue.string)),
          "snapshots": .array(summary.snapshots.map(JSONValue.string)),
          "bytes": .int(summary.bytes), "first_kept_seq": .int(summary.firstKeptSequence),
          "recorded": .array(summary.recorded.map(JSONValue.string)),
        ]).serialized + "\n")
    } else if summary.segments.isEmpty && summary.snapshots.isEmpty {
      if !summary.recorded.isEmpty {
        writeStandardOutput(
          "recorded \(Words.count(summary.recorded.count, "segment")) already in \(summary.directory) as archived (\(JournalFiles.archiveManifestPath(in: directory)))\n"
        )
      }
      writeStandardOutput(
        "nothing to archive: no sealed segment of a day before \(beforeDay) in \(directory)\n")
    } else {
      writeStandardOutput(
        """
        moved \(Words.count(summary.segments.count, "segment")) and \(Words.count(summary.snapshots.count, "snapshot")) (\(Words.count(summary.bytes, "byte")) of segments) to \(summary.directory)
        the data directory's journal now starts at seq \(summary.firstKeptSequence)
        check the whole chain with: register-cli verify --data-dir \(directory) --archive \(summary.directory)

        """)
    }
    return .done
  }

  /// The archived segments of `archives`, then the live ones, in journal order; a segment in
  /// two places (an archive that stopped half-way) counts once when the copies are the same
  /// bytes, and is a problem when they are not.
  static func combined(live: [JournalFiles.Segment], archives: [String]) -> Result<
    [JournalFiles.Segment], BackupError
  > {
    var all = live
    for archive in archives {
      do {
        all += try JournalBackup.archivedSegments(in: archive)
      } catch {
        return .failure(BackupError("cannot read the archive \(archive): \(error)"))
      }
    }
    all.sort { $0.firstSequence < $1.firstSequence }
    var result: [JournalFiles.Segment] = []
    for segment in all {
      if let last = result.last, last.firstSequence == segment.firstSequence {
        let here = try? JournalFiles.readSegment(last.path)
        let there = try? JournalFiles.readSegment(segment.path)
        guard let here, here == there else {
          return .failure(
            BackupError(
              "\(last.path) and \(segment.path) are the same segment with different contents"))
        }
        continue
      }
      result.append(segment)
    }
    return .success(result)
  }

  /// The store's currency just before record `sequence`, from the newest snapshot at or before
  /// it (else the newest one; else the default), for reading a journal whose start was
  /// archived.
  static func currency(before sequence: Int64, in directory: String) -> Currency {
    let snapshots = SnapshotFiles.list(in: directory)
    let preferred =
      snapshots.filter { $0.sequence < sequence }.reversed()
      + snapshots.filter { $0.sequence >= sequence }
    for snapshot in preferred {
      guard let bytes = try? FileIO.read(snapshot.path, followingSymlinks: false),
        let (register, _) = try? SnapshotFile.decode(bytes)
      else { continue }
      return register.store.currency
    }
    return Register().store.currency
  }
}
