import Foundation
import RegisterEngine
import RegisterServer

/// Journal storage in memory: counts the appends (one per group commit), records what it was
/// asked to truncate to, and can be told to fail an append the way a full disk does.
public final class MemoryJournalStorage: JournalStorage {
  public var bytes: [UInt8] = []
  public private(set) var appendCalls = 0
  public private(set) var truncations: [Int] = []
  /// The 1-based number of the append call that fails; every later call fails too, and so
  /// does `restoreDurable`, until it is set to nil (the disk has room again).
  public var failingAppend: Int?
  /// The length of the appends that succeeded.
  public private(set) var durableLength = 0
  /// How many times `restoreDurable` was called.
  public private(set) var restoreCalls = 0

  public var length: Int { bytes.count }

  public init() {}

  public func appendDurably(_ new: [UInt8]) throws(SystemError) {
    appendCalls += 1
    if let failingAppend, appendCalls >= failingAppend {
      // A full disk takes part of the write, then refuses the rest.
      bytes.append(contentsOf: new.prefix(new.count / 2))
      throw SystemError("write", path: "memory journal", code: ENOSPC)
    }
    bytes.append(contentsOf: new)
    durableLength = bytes.count
  }

  public func restoreDurable() throws(SystemError) {
    restoreCalls += 1
    bytes.removeSubrange(durableLength...)
    if failingAppend != nil {
      throw SystemError("write", path: "memory journal", code: ENOSPC)
    }
  }

  public func truncate(to length: Int) throws(SystemError) {
    truncations.append(length)
    guard length <= bytes.count else { throw SystemError("ftruncate", code: EINVAL) }
    bytes.removeSubrange(length...)
    durableLength = min(durableLength, length)
  }

  /// Files that followed from durable groups, kept in memory.
  public private(set) var files: [FileEffect] = []

  public func write(_ effect: FileEffect) throws(SystemError) {
    files.append(effect)
  }
}

extension RegisterService {
  /// After a failed write this service rebuilds its register as the daemon does, from what is
  /// durable: `base` (the register the service started from, as a snapshot would be) and the
  /// records `storage` holds after it, through the last durable one.
  public func rebuilds(from storage: MemoryJournalStorage, after base: Register = Register()) {
    rebuildFromDurable = { [storage, base] sequence in
      var register = base
      try register.replay(
        JournalScanner.scan(storage.bytes).records.lazy.filter {
          $0.sequence > base.lastSequence && $0.sequence <= sequence
        })
      return register
    }
  }
}
