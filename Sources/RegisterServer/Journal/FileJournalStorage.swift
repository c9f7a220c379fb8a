import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The journal's segment files: appends to the open segment, and starts a new one when a day
/// is closed or the open one has grown past `segmentLimit` (see `JournalFiles`).
public final class FileJournalStorage: JournalStorage {
  /// The open segment.
  public private(set) var segment: JournalFiles.Segment
  public var path: String { segment.path }
  private var fd: Int32
  public private(set) var length: Int
  /// The size past which a new segment is started after the next group.
  public let segmentLimit: Int

  /// Opens (creating if needed) the segment for appending.
  public init(segment: JournalFiles.Segment, segmentLimit: Int = JournalFiles.defaultSegmentLimit)
    throws(SystemError)
  {
    self.segment = segment
    self.segmentLimit = segmentLimit
    let (fd, length) = try Self.openFile(segment)
    self.fd = fd
    self.length = length
  }

  /// Opens a segment's file for appending, creating it (and the segment directory) if needed;
  /// a new file's directory entry is made durable before anything is written to it.
  private static func openFile(_ segment: JournalFiles.Segment) throws(SystemError) -> (Int32, Int)
  {
    let folder = FileIO.parentDirectory(of: segment.path)
    if !FileIO.exists(folder) {
      try FileIO.makeDirectories(folder)
      try FileIO.syncDirectory(FileIO.parentDirectory(of: folder))
    }
    var before = stat()
    let existed = lstat(segment.path, &before) == 0
    // Never through a symbolic link: one planted at the segment's name would have the daemon
    // append to (or, recovering, truncate) whatever it points at.
    let fd = retryingOnInterrupt {
      open(
        segment.path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
    guard fd >= 0 else { throw SystemError("open", path: segment.path) }
    var info = stat()
    fstat(fd, &info)
    if !existed {
      do {
        try FileIO.syncDirectory(folder)
      } catch {
        close(fd)
        throw error
      }
    }
    return (fd, Int(info.st_size))
  }

  deinit { close(fd) }

  public func appendDurably(_ bytes: [UInt8]) throws(SystemError) {
    try FileIO.writeAll(fd, bytes, path: path)
    length += bytes.count
    try FileIO.sync(fd, path: path)
  }

  public func truncate(to length: Int) throws(SystemError) {
    guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError("ftruncate", path: path) }
    self.length = length
    try FileIO.sync(fd, path: path)
  }

  public func write(_ effect: FileEffect) throws(SystemError) {
    try effect.perform()
  }

  public var segmentIsFull: Bool { length >= segmentLimit }

  /// Creates the next segment and appends there from now on; the one ended is made read-only
  /// (it is sealed: nothing writes it again). Everything in it is already durable, so a crash
  /// at any point leaves either the old segment open or the new one (empty) open.
  public func startSegment(day: Int?, firstSequence: Int64) throws(SystemError) {
    let directory = FileIO.parentDirectory(of: FileIO.parentDirectory(of: segment.path))
    let next = JournalFiles.Segment(
      directory: directory, day: day ?? segment.day, firstSequence: firstSequence)
    guard next.path != segment.path else { return }
    let (newFD, newLength) = try Self.openFile(next)
    fchmod(fd, 0o400)
    close(fd)
    fd = newFD
    length = newLength
    segment = next
  }
}

extension FileEffect {

  /// Writes it (temporary file, fsync, rename, fsync the directory). A directory it goes in
  /// that is a symbolic link or writable by others (an outbox replaced by a link while the
  /// daemon runs) is refused with `ELOOP` / `EACCES`, not written through.
  public func perform() throws(SystemError) {
    let directory = FileIO.parentDirectory(of: path)
    try FileIO.makeDirectories(directory)
    var info = stat()
    guard lstat(directory, &info) == 0 else { throw SystemError("lstat", path: directory) }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK: throw SystemError("open", path: directory, code: ELOOP)
    default: throw SystemError("open", path: directory, code: ENOTDIR)
    }
    if info.st_mode & 0o022 != 0 { throw SystemError("open", path: directory, code: EACCES) }
    try FileIO.writeAtomically(bytes, to: path, mode: mode_t(mode))
  }
}
