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
  /// Where the disk space reserved for the open segment ends (see `reserve`); 0: none.
  private var reservedEnd = 0
  /// Below this length no reservation is tried again (one failed, e.g. the disk is nearly
  /// full); `Int.max` where the file system cannot reserve at all.
  private var nextReservationAt = 0
  /// How much is reserved at a time.
  static let reservationChunk = 1 << 20
  /// Bytes reserved past the end of the open segment now.
  var reservation: Int { max(0, reservedEnd - length) }

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

  deinit {
    releaseReservation()
    close(fd)
  }

  public func appendDurably(_ bytes: [UInt8]) throws(SystemError) {
    reserve(through: length + bytes.count)
    try FileIO.writeAll(fd, bytes, path: path)
    length += bytes.count
    try FileIO.sync(fd, path: path)
  }

  /// Reserves disk blocks past the end of the open segment, a megabyte at a time, without
  /// changing its size (`fallocate` with `FALLOC_FL_KEEP_SIZE`): what every reader of the file
  /// sees is unchanged, and a crash leaves the same file as before. Appending into reserved
  /// blocks spares each group's fdatasync the allocation of new blocks (a journal commit of
  /// the file system's own), which on ext4 makes it about 1.5 times as fast. Where the file
  /// system cannot reserve, or the disk is too full for a whole chunk, the append goes on
  /// without (the reservation is only an optimisation).
  private func reserve(through end: Int) {
    #if os(Linux)
      guard end > reservedEnd, length >= nextReservationAt else { return }
      guard let fallocate = Self.fallocate else {
        nextReservationAt = .max
        return
      }
      let size = max(Self.reservationChunk, end - length)
      if fallocate(fd, Self.keepSize, off_t(length), off_t(size)) == 0 {
        reservedEnd = length + size
      } else if errno == EOPNOTSUPP || errno == ENOSYS {
        nextReservationAt = .max
      } else {
        nextReservationAt = length + Self.reservationChunk
      }
    #endif
  }

  #if os(Linux)
    /// `FALLOC_FL_KEEP_SIZE` (linux/falloc.h).
    private static let keepSize: Int32 = 0x01
    /// glibc's `fallocate(2)`, looked up by name: Swift's Glibc module leaves out what needs
    /// `_GNU_SOURCE`. Nil where the C library has none.
    private static let fallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else {
        return nil
      }
      return unsafeBitCast(
        symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
    }()
  #endif

  /// Gives back the blocks reserved past the end (a truncation to the size the file has
  /// already frees them on Linux file systems; nothing is written).
  private func releaseReservation() {
    guard reservedEnd > length else { return }
    _ = ftruncate(fd, off_t(length))
    reservedEnd = 0
  }

  public func truncate(to length: Int) throws(SystemError) {
    guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError("ftruncate", path: path) }
    self.length = length
    // The truncation gave back whatever was reserved past the new end.
    reservedEnd = 0
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
    releaseReservation()
    fchmod(fd, 0o400)
    close(fd)
    fd = newFD
    length = newLength
    reservedEnd = 0
    nextReservationAt = nextReservationAt == .max ? .max : 0
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
