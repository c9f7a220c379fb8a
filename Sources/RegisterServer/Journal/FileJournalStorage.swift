import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The journal's segment files: appends to the open segment, and starts a new one when a day
/// is closed or the open one has grown past `segmentLimit` (see `JournalFiles`).
///
/// The open segment is written ahead with zeros (`prepare`), 256 KiB at a time, and each
/// group is written over those zeros where the records end: the file's size does not change
/// with each group, so its fdatasync flushes the group's data alone, not the file system's
/// metadata as well (on ext4 about three times as fast as appending; PostgreSQL fills its WAL
/// segments with zeros for the same reason). Records never contain a zero byte (JSON escapes
/// control characters), so the zeros past the last record are known for what they are: every
/// reader drops them (`JournalFiles.readSegment`), and a segment is cut to its records when it
/// is sealed and when the daemon stops.
public final class FileJournalStorage: JournalStorage {
  /// The open segment.
  public private(set) var segment: JournalFiles.Segment
  public var path: String { segment.path }
  private var fd: Int32
  /// The length of the records written (where the next group goes).
  public private(set) var length: Int
  /// The length of the records known to be durable: the open segment is cut back to it after
  /// a failed append (`restoreDurable`).
  private var durableLength: Int
  /// The size past which a new segment is started after the next group.
  public let segmentLimit: Int
  /// The file's size: from `length` to here it holds zeros written ahead.
  private var preparedEnd: Int
  /// Below this length no zeros are written ahead again (writing them failed, e.g. the disk
  /// is nearly full): groups are appended as they come.
  private var nextPreparationAt = 0
  /// How much is written ahead at a time. The group whose fdatasync carries a chunk waits for
  /// it: in a C loop on this project's test machine a megabyte stalled that group 3–5 ms and
  /// 256 KiB about 1 ms, at the same mean cost per group; smaller chunks cost more on average
  /// (the file's size changes, and its metadata is journaled, that much more often).
  static let preparationChunk = 256 << 10
  /// Zero bytes written ahead past the records now.
  var prepared: Int { preparedEnd - length }

  /// Opens (creating if needed) the segment for appending after its records (zeros written
  /// ahead by an earlier run that stopped without cutting them are kept for use).
  public init(segment: JournalFiles.Segment, segmentLimit: Int = JournalFiles.defaultSegmentLimit)
    throws(SystemError)
  {
    self.segment = segment
    self.segmentLimit = segmentLimit
    let (fd, length, size) = try Self.openFile(segment)
    self.fd = fd
    self.length = length
    self.durableLength = length
    self.preparedEnd = size
  }

  /// Opens a segment's file for writing, creating it (and the segment directory) if needed.
  /// A segment without records has its directory entry made durable before anything is written
  /// to it: one just made, and one an earlier attempt made but could not make durable. Should
  /// that fail, a file made here is removed again (as far as it can be: every reader leaves a
  /// segment without records out, `JournalFiles.segments`). Returns the descriptor, the length
  /// of its records (the size less the zeros at its end) and its size.
  private static func openFile(_ segment: JournalFiles.Segment) throws(SystemError) -> (
    Int32, Int, Int
  ) {
    // The journal directory is opened as a real directory (a link planted in its place, also
    // while the daemon runs, is refused) and the segment made in it through that descriptor.
    let folder = FileIO.parentDirectory(of: segment.path)
    let name = FileIO.lastComponent(of: segment.path)
    let folderFD = try FileIO.openOwnDirectory(folder)
    defer { closeDescriptor(folderFD) }
    var before = stat()
    let existed = fstatat(folderFD, name, &before, AT_SYMLINK_NOFOLLOW) == 0
    // Never through a symbolic link: one planted at the segment's name would have the daemon
    // write to (or, recovering, truncate) whatever it points at.
    let fd = retryingOnInterrupt {
      openat(folderFD, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
    guard fd >= 0 else { throw SystemError("open", path: segment.path) }
    var info = stat()
    fstat(fd, &info)
    let size = Int(info.st_size)
    let length: Int
    do throws(SystemError) {
      length = try JournalFiles.recordsEnd(fd, size: size, path: segment.path)
      if length == 0 && retryingOnInterrupt({ fsync(folderFD) }) != 0 {
        throw SystemError("fsync", path: folder)
      }
    } catch {
      closeDescriptor(fd)
      if !existed { unlinkat(folderFD, name, 0) }
      throw error
    }
    return (fd, length, size)
  }

  deinit {
    cutPreparedSpace()
    closeDescriptor(fd)
  }

  /// Cuts the zeros written ahead (the daemon is stopping): the file ends with its last
  /// record. Appending after it writes ahead again.
  public func close() {
    cutPreparedSpace()
  }

  public func appendDurably(_ bytes: [UInt8]) throws(SystemError) {
    prepare(through: length + bytes.count)
    try FileIO.writeAll(fd, bytes, at: length, path: path)
    length += bytes.count
    if length > preparedEnd { preparedEnd = length }
    try FileIO.sync(fd, path: path)
    durableLength = length
  }

  /// Cuts the open segment back to its durable records (a failed append may have left bytes
  /// after them, whether or not they reached the disk), writes zeros ahead again and syncs:
  /// the disk has room and takes a sync, or this throws.
  public func restoreDurable() throws(SystemError) {
    guard ftruncate(fd, off_t(durableLength)) == 0 else {
      throw SystemError("ftruncate", path: path)
    }
    length = durableLength
    preparedEnd = durableLength
    nextPreparationAt = 0
    let zeros = [UInt8](repeating: 0, count: Self.preparationChunk)
    do {
      try FileIO.writeAll(fd, zeros, at: length, path: path)
      preparedEnd = length + zeros.count
      try FileIO.sync(fd, path: path)
    } catch {
      if ftruncate(fd, off_t(length)) == 0 { preparedEnd = length }
      throw error
    }
  }

  /// Writes zeros ahead of the records, at least through `end`, 256 KiB at a time (not
  /// synced by themselves: the next group's fdatasync makes them durable with it, and a crash
  /// before then leaves zeros or nothing past the records, which readers drop). Where they
  /// cannot be written (the disk is nearly full) whatever was written is cut again, and the
  /// groups are appended as they come.
  private func prepare(through end: Int) {
    guard end > preparedEnd, length >= nextPreparationAt else { return }
    let target = max(end, length + Self.preparationChunk)
    do {
      let zeros = [UInt8](repeating: 0, count: target - preparedEnd)
      try FileIO.writeAll(fd, zeros, at: preparedEnd, path: path)
      preparedEnd = target
    } catch {
      _ = ftruncate(fd, off_t(length))
      preparedEnd = length
      nextPreparationAt = length + Self.preparationChunk
    }
  }

  /// Cuts the zeros written ahead, so that the file ends with its last record.
  private func cutPreparedSpace() {
    guard preparedEnd > length else { return }
    if ftruncate(fd, off_t(length)) == 0 { preparedEnd = length }
  }

  public func truncate(to length: Int) throws(SystemError) {
    guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError("ftruncate", path: path) }
    self.length = length
    preparedEnd = length
    try FileIO.sync(fd, path: path)
    durableLength = length
  }

  public func write(_ effect: FileEffect) throws(SystemError) {
    try effect.perform()
  }

  public var segmentIsDue: Bool { length >= segmentLimit || dueDay != nil }

  /// The business day of the segment a close of day asked for and that could not be made:
  /// the next group goes on in the open segment, and the new one is tried again after it (and
  /// after every group until it is made), named for that group's next record.
  private var dueDay: Int?

  /// Creates the next segment and appends there from now on; the one ended is cut to its
  /// records and made read-only (it is sealed: nothing writes it again). Everything in it is
  /// already durable, so a crash at any point leaves either the old segment open or the new
  /// one (without records) open. When any step fails, the old segment stays the open one and
  /// the new one is due (`segmentIsDue`); a file made for it half way holds no record.
  public func startSegment(day: Int?, firstSequence: Int64) throws(SystemError) {
    let directory = FileIO.parentDirectory(of: FileIO.parentDirectory(of: segment.path))
    let day = day ?? dueDay ?? segment.day
    let next = JournalFiles.Segment(directory: directory, day: day, firstSequence: firstSequence)
    guard next.path != segment.path else {
      dueDay = nil
      return
    }
    let newFD: Int32
    let newLength: Int
    let newSize: Int
    do throws(SystemError) {
      if preparedEnd > length {
        guard ftruncate(fd, off_t(length)) == 0 else {
          throw SystemError("ftruncate", path: path)
        }
        preparedEnd = length
        try FileIO.sync(fd, path: path)
      }
      (newFD, newLength, newSize) = try Self.openFile(next)
    } catch {
      dueDay = day
      throw error
    }
    dueDay = nil
    fchmod(fd, 0o400)
    closeDescriptor(fd)
    fd = newFD
    length = newLength
    durableLength = newLength
    preparedEnd = newSize
    nextPreparationAt = 0
    segment = next
  }
}

/// The C library's `close` (inside `FileJournalStorage` the name is its own method's).
private func closeDescriptor(_ fd: Int32) {
  _ = close(fd)
}

extension FileEffect {

  /// Writes it (temporary file, fsync, rename, fsync the directory). A directory it goes in
  /// that is a symbolic link or writable by others (an outbox replaced by a link while the
  /// daemon runs) is refused with `ELOOP` / `EACCES`, not written through
  /// (`FileIO.writeOwnFile`).
  public func perform() throws(SystemError) {
    try FileIO.writeOwnFile(bytes, to: path, mode: mode_t(mode))
  }
}
