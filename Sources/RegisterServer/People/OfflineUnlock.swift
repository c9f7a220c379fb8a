import RegisterEngine

/// Why an offline unlock could not be journaled.
public struct OfflineUnlockError: Error, CustomStringConvertible {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}

/// The machine owner's way back when the last manager is locked out: with registerd stopped,
/// `register-cli operator unlock ID --data-dir DIR` journals `operator_unlocked` directly.
/// Nobody can approve an unlock through the daemon then, and waiting out `lockout_minutes`
/// may not do (a lane that must open now).
///
/// It holds the data-directory lock while it works, so it cannot interleave with a running
/// daemon (which holds the lock for its life: then this fails naming the daemon's pid). It
/// recovers the journal as registerd's start-up does (a torn tail is set aside), replays it,
/// and appends one record chained to the last — through the same `Journal` code the daemon
/// uses — with no operator (an offline unlock is the only `operator_unlocked` without one).
public enum OfflineUnlock {
  /// What the unlock did.
  public enum Outcome: Equatable, Sendable {
    /// Journaled as record `sequence`.
    case unlocked(sequence: Int64)
    /// The operator was not locked and had no wrong PINs counted: nothing was written.
    case notLocked
  }

  /// Unlocks operator `id` in the data directory `directory`, journaled at `now`.
  public static func unlock(operatorID id: String, directory: String, now: Timestamp)
    throws(OfflineUnlockError) -> Outcome
  {
    let path = JournalFiles.segmentDirectory(in: directory)
    guard FileIO.exists(path) || FileIO.exists(JournalFiles.legacyPath(in: directory)) else {
      throw OfflineUnlockError("there is no journal in \(directory) (use --data-dir DIR)")
    }
    let lock: DataDirectoryLock
    do {
      lock = try DataDirectoryLock.acquire(directory)
    } catch {
      throw OfflineUnlockError("cannot unlock \(id) offline: \(error)")
    }
    return try withExtendedLifetime(lock) { () throws(OfflineUnlockError) -> Outcome in
      let recovery: JournalFiles.Recovery
      do {
        recovery = try JournalFiles.recover(directory: directory, now: now)
      } catch {
        throw OfflineUnlockError("\(error)")
      }
      let register = recovery.register
      guard let person = register.operators.first(where: { $0.id == id }) else {
        let known = register.operators.map(\.id).joined(separator: ", ")
        throw OfflineUnlockError(
          "there is no operator \"\(id)\" in \(path)"
            + (known.isEmpty ? "" : " (operators: \(known))"))
      }
      guard person.locked || person.failedAttempts > 0 else { return .notLocked }
      let sequence = recovery.lastSequence + 1
      do {
        let journal = Journal(
          storage: try recovery.openStorage(), lastSum: recovery.lastSum,
          lastSequence: recovery.lastSequence)
        try journal.append([
          PendingRecord(
            sequence: sequence, at: now, event: .operatorUnlocked(id: id), operatorID: nil,
            key: nil, more: false)
        ])
      } catch {
        throw OfflineUnlockError("cannot write the journal \(path): \(error)")
      }
      return .unlocked(sequence: sequence)
    }
  }
}
