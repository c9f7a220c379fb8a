import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why the data directory could not be locked.
public struct DataDirectoryLockError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The directory that was to be locked.
  public var directory: String
  /// The process that holds the lock, when another one does and wrote its pid.
  public var holder: Int32?
  /// The system call that failed, when the lock could not be taken for another reason.
  public var failure: SystemError?

  public var description: String {
    if let failure { return "cannot lock the data directory \(directory): \(failure)" }
    let who = holder.map { "registerd (pid \($0))" } ?? "another registerd"
    return
      "the data directory \(directory) is in use by \(who); stop it first, or use another --data-dir"
  }
}

/// An exclusive lock on a data directory, held while this object lives (and released by the
/// kernel if the process dies), so that two daemons — or a daemon and an offline command that
/// writes — never append to one journal at once.
///
/// It is an `flock(2)` on the file `lock` in the directory. The holder writes its pid into the
/// file so that a refused second process can say who holds it. Readers (`verify`, `replay`) do
/// not take the lock: they only read complete records.
public final class DataDirectoryLock {
  /// The lock file's name inside the data directory.
  public static let fileName = "lock"

  /// The directory this lock holds.
  public let directory: String
  private let fd: Int32

  private init(directory: String, fd: Int32) {
    self.directory = directory
    self.fd = fd
  }

  deinit { close(fd) }

  /// Takes the lock on `directory` (which must exist), or says who holds it.
  public static func acquire(_ directory: String) throws(DataDirectoryLockError)
    -> DataDirectoryLock
  {
    let path = "\(directory)/\(fileName)"
    let fd = retryingOnInterrupt {
      open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
    guard fd >= 0 else {
      throw DataDirectoryLockError(
        directory: directory, holder: nil, failure: SystemError("open", path: path))
    }
    if retryingOnInterrupt({ flock(fd, LOCK_EX | LOCK_NB) }) != 0 {
      let code = errno
      let holder = code == EWOULDBLOCK ? readHolder(fd) : nil
      close(fd)
      throw DataDirectoryLockError(
        directory: directory, holder: holder,
        failure: code == EWOULDBLOCK ? nil : SystemError("flock", path: path, code: code))
    }
    // Ours now: record who holds it (best effort; the lock itself is the flock).
    let pid = Array("\(getpid())\n".utf8)
    if ftruncate(fd, 0) == 0 {
      _ = pid.withUnsafeBytes { raw in pwrite(fd, raw.baseAddress, raw.count, 0) }
    }
    return DataDirectoryLock(directory: directory, fd: fd)
  }

  /// The pid the current holder wrote, if it is a plausible one.
  private static func readHolder(_ fd: Int32) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = buffer.withUnsafeMutableBytes { raw in
      retryingOnInterrupt { pread(fd, raw.baseAddress, raw.count, 0) }
    }
    guard count > 0 else { return nil }
    let text = String(decoding: buffer[0..<count], as: UTF8.self)
    let digits = text.prefix { $0.isASCII && $0.isNumber }
    guard let pid = Int32(digits), pid > 0 else { return nil }
    return pid
  }
}
