import RegisterEngine

extension JournalFiles {
  /// The register as the durable records of the journal in `directory` leave it, through
  /// record `sequence`: the newest snapshot and the segments after it, read back after a failed
  /// write (`RegisterService.rebuildFromDurable`). Records after `sequence` (a failed group's,
  /// if its bytes could not be cut) are not applied, and nothing on disk is changed: the open
  /// segment is cut back by the writer when storage works again.
  public static func rebuild(
    _ directory: String, through sequence: Int64, key: HMACSHA256? = nil
  ) throws(RecoveryError) -> Register {
    let segments: [Segment]
    do {
      segments = try listing(in: directory).segments
    } catch {
      throw RecoveryError("cannot read the journal directory: \(error)")
    }
    let loaded = try load(
      directory, segments: segments, key: key, through: sequence,
      until: { $0.lastSequence >= sequence })
    if let (path, damage) = loaded.chain.damage, loaded.register.lastSequence < sequence {
      throw RecoveryError(
        damaged: path, damage, intactUpTo: loaded.register.lastSequence, in: directory)
    }
    guard loaded.register.lastSequence == sequence else {
      throw RecoveryError(
        "the journal read back ends at record \(loaded.register.lastSequence), not at record \(sequence), the last one written"
      )
    }
    return loaded.register
  }
}
