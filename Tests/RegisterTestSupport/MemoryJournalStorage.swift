import Foundation
import RegisterEngine
import RegisterServer

/// Journal storage in memory: counts the appends (one per group commit), records what it was
/// asked to truncate to, and can be told to fail an append the way a full disk does.
public final class MemoryJournalStorage: JournalStorage {
  public var bytes: [UInt8] = []
  public private(set) var appendCalls = 0
  public private(set) var truncations: [Int] = []
  /// The 1-based number of the append call that fails; every later call fails too.
  public var failingAppend: Int?

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
  }

  public func truncate(to length: Int) throws(SystemError) {
    truncations.append(length)
    guard length <= bytes.count else { throw SystemError("ftruncate", code: EINVAL) }
    bytes.removeSubrange(length...)
  }

  /// Files that followed from durable groups, kept in memory.
  public private(set) var files: [FileEffect] = []

  public func write(_ effect: FileEffect) throws(SystemError) {
    files.append(effect)
  }
}
