import RegisterEngine

/// The journal files under a data directory, and recovery at start-up.
public enum JournalFiles {
  public static let fileName = "journal.ndjson"

  public static func journalPath(in directory: String) -> String {
    directory + "/" + fileName
  }

  /// What recovery found and did.
  public struct Recovery {
    public var register: Register
    public var scan: JournalScan
    /// Where a torn tail was moved, if there was one.
    public var setAsidePath: String?
  }

  /// Reads the journal under `directory` (creating the directory when missing), sets a torn
  /// tail aside, and replays every complete record. Damage before the tail is an error that
  /// names the record and says how to repair.
  public static func recover(directory: String, now: Timestamp) throws(RecoveryError) -> Recovery {
    // The data directory and the journal must be the daemon's own: no symbolic link, nothing
    // others can write (checked before anything is created, read or written).
    if let reason = FileIO.unsafeDirectoryReason(directory, what: "the data directory") {
      throw RecoveryError("\(reason). Nothing was changed.")
    }
    do {
      try FileIO.makeDirectories(directory)
    } catch {
      throw RecoveryError("cannot create the data directory: \(error)")
    }
    if let reason = FileIO.unsafeDirectoryReason(directory, what: "the data directory") {
      throw RecoveryError("\(reason). Nothing was changed.")
    }
    let path = journalPath(in: directory)
    if let reason = FileIO.unsafeFileReason(path, what: "the journal") {
      throw RecoveryError(reason)
    }
    let bytes: [UInt8]
    if FileIO.exists(path) {
      do {
        bytes = try FileIO.read(path, followingSymlinks: false)
      } catch {
        throw RecoveryError("cannot read the journal: \(error)")
      }
    } else {
      bytes = []
    }
    let scan = JournalScanner.scan(bytes)
    if let damage = scan.damage {
      throw RecoveryError(
        """
        the journal \(path) is damaged: \(damage.description).
        Every record before it is intact (\(scan.records.count) records, up to seq \(scan.lastSequence)).
        Nothing was changed. To repair: restore the journal from a backup; or, to keep only the
        intact records, copy the file aside and cut it at byte \(damage.offset)
        (truncate -s \(damage.offset) \(path)) — the records after it will be lost.
        `register-cli verify --data-dir \(directory)` reports the same.
        """)
    }
    var setAside: String?
    if scan.tailLength > 0 {
      let tail = Array(bytes[scan.goodLength...])
      let aside = "\(path).torn-\(scan.lastSequence + 1)-\(now.epochMilliseconds)"
      do {
        try FileIO.writeAtomically(tail, to: aside, mode: 0o600)
        let storage = try FileJournalStorage(path: path)
        try storage.truncate(to: scan.goodLength)
        try FileIO.syncDirectory(directory)
      } catch {
        throw RecoveryError("cannot set the torn journal tail aside: \(error)")
      }
      setAside = aside
    }
    let register = try Register.replaying(scan.records)
    return Recovery(register: register, scan: scan, setAsidePath: setAside)
  }
}
