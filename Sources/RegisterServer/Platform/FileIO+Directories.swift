import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Directories: the data directory's own folders opened and listed safely, paths taken
/// apart, temporary files a crash left behind removed.
extension FileIO {
  /// Opens `path`, a directory under the data directory that the daemon keeps its own files
  /// in (the journal, snapshots, the receipt archive, the outbox), making it (mode 700, its
  /// parent then fsynced) when `create` is true and it is missing. The caller closes the
  /// descriptor.
  ///
  /// It must be a real directory, not writable by group or others. A symbolic link is refused
  /// (`ELOOP`), never followed, whatever it points at: one planted there would have the
  /// daemon write its files — or read them back at start-up — wherever it leads. Anything
  /// else is refused with `ENOTDIR`, and a directory open to others (who could plant such a
  /// link in it) with `EACCES`. The descriptor is of the directory itself, so files made
  /// through it land there even if the path is replaced meanwhile.
  ///
  /// `checkingMode` false (a folder only read, never written): the mode is not checked, only
  /// that it is a directory and no link.
  public static func openOwnDirectory(
    _ path: String, create: Bool = true, checkingMode: Bool = true
  ) throws(SystemError) -> Int32 {
    let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
    var fd = retryingOnInterrupt { open(path, flags) }
    if fd < 0 && errno == ENOENT && create {
      if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
      try syncDirectory(parentDirectory(of: path))
      fd = retryingOnInterrupt { open(path, flags) }
    }
    guard fd >= 0 else {
      let failure = SystemError("open", path: path)
      // Linux says ENOTDIR for a link opened this way: say what is there instead.
      var info = stat()
      guard lstat(path, &info) == 0 else { throw failure }
      if info.st_mode & S_IFMT == S_IFLNK {
        throw SystemError(
          "open", path: path, code: ELOOP,
          reason:
            "is a symbolic link; registerd does not follow links for the files it writes or reads in its data directory"
        )
      }
      if info.st_mode & S_IFMT != S_IFDIR {
        throw SystemError("open", path: path, code: ENOTDIR, reason: "is not a directory")
      }
      throw failure
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let failure = SystemError("fstat", path: path)
      close(fd)
      throw failure
    }
    let mode = info.st_mode & 0o777
    if checkingMode && mode & 0o022 != 0 {
      close(fd)
      throw SystemError(
        "open", path: path, code: EACCES,
        reason:
          "is writable by group or others (mode \(String(mode, radix: 8))); chmod go-w \(path)")
    }
    return fd
  }

  /// The last component of a path (the whole of a bare name).
  static func lastComponent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// 64 random bits as hex, for temporary file names nobody can guess in advance.
  package static func temporarySuffix() -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in RegisterService.systemRandom(8) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Why `path` is not a safe directory for the daemon to write its files in, or nil when it
  /// is (or does not exist yet): it must be a real directory, not a symbolic link, and not
  /// writable by group or others — whoever can write in it could plant a link or a file that
  /// the daemon would then write through or read as its own. `what` names it in the message.
  public static func unsafeDirectoryReason(_ path: String, what: String) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      return "\(what) \(SystemError("cannot be examined:", path: path))"
    }
    let type = info.st_mode & S_IFMT
    if type == S_IFLNK {
      return
        "\(what) \(path) is a symbolic link; registerd does not follow links for the files it writes. Name the real directory instead, or replace the link with a directory"
    }
    if type != S_IFDIR {
      return "\(what) \(path) is not a directory"
    }
    let mode = info.st_mode & 0o777
    if mode & 0o022 != 0 {
      return
        "\(what) \(path) is writable by group or others (mode \(String(mode, radix: 8))); make it private to registerd's user: chmod go-w \(path)"
    }
    return nil
  }

  /// Why `path` is not a file the daemon may open for writing, or nil when it is a regular
  /// file (or does not exist yet). A symbolic link is refused, never followed.
  public static func unsafeFileReason(_ path: String, what: String) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      return "\(what) \(SystemError("cannot be examined:", path: path))"
    }
    let type = info.st_mode & S_IFMT
    if type == S_IFLNK {
      return
        "\(what) \(path) is a symbolic link; registerd does not write through links. Nothing was changed. Remove the link (and put the real file there if it is yours)"
    }
    if type != S_IFREG {
      return "\(what) \(path) is not a regular file; nothing was changed. Move it away"
    }
    return nil
  }

  /// The process's working directory, or nil when it cannot be found (removed, say).
  public static func currentDirectory() -> String? {
    guard let path = getcwd(nil, 0) else { return nil }
    defer { free(path) }
    return String(cString: path)
  }

  /// Creates a directory and its parents when missing.
  public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
    guard !path.isEmpty, !exists(path) else { return }
    let parent = parentDirectory(of: path)
    if parent != path { try makeDirectories(parent, mode: mode) }
    if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
  }

  /// The directory part of a path ("." for a bare name).
  public static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
  }

  /// The names in a directory (without "." and "..").
  public static func listDirectory(_ directory: String) throws(SystemError) -> [String] {
    guard let handle = opendir(directory) else { throw SystemError("opendir", path: directory) }
    defer { closedir(handle) }
    return names(in: handle)
  }

  /// The names in one of the data directory's own folders (the journal, snapshots, receipts),
  /// opened as `openOwnDirectory` opens it: a symbolic link planted in its place is refused,
  /// never listed through (its mode is not checked: listing writes nothing). `directoryFD`,
  /// when given, is an open descriptor of the folder to list instead (it stays open).
  public static func listOwnDirectory(_ directory: String, directoryFD: Int32? = nil)
    throws(SystemError) -> [String]
  {
    let fd: Int32
    if let directoryFD {
      fd = dup(directoryFD)
      guard fd >= 0 else { throw SystemError("dup", path: directory) }
    } else {
      fd = try openOwnDirectory(directory, create: false, checkingMode: false)
    }
    guard let handle = fdopendir(fd) else {
      let failure = SystemError("fdopendir", path: directory)
      close(fd)
      throw failure
    }
    defer { closedir(handle) }  // closes fd
    rewinddir(handle)  // a duplicate shares the position of the descriptor it copies
    return names(in: handle)
  }

  /// The names an open directory stream lists, without "." and "..".
  private static func names(in handle: OpaquePointer) -> [String] {
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Renames `path` to `target` (atomically replacing what is there).
  public static func move(_ path: String, to target: String) throws(SystemError) {
    guard rename(path, target) == 0 else { throw SystemError("rename", path: path) }
  }

  /// Removes temporary files a crashed `writeAtomically(_:to:)` of `path` left behind
  /// (`PATH.tmp-SUFFIX`); returns how many.
  @discardableResult
  public static func removeStaleTemporaries(of path: String) -> Int {
    let directory = parentDirectory(of: path)
    let prefix = String(path.split(separator: "/").last ?? "") + ".tmp-"
    var removed = 0
    for name in (try? listDirectory(directory)) ?? []
    where name.hasPrefix(prefix) && unlink(directory + "/" + name) == 0 {
      removed += 1
    }
    return removed
  }
  /// Removes every temporary file a crashed `writeAtomically(_:to:)` left in `directory`
  /// (`NAME.tmp-SUFFIX`: a half-written e-mail in the outbox, a torn tail being set aside);
  /// returns how many. Call it only while holding the directory (its lock), when no write can
  /// be under way.
  @discardableResult
  public static func removeStaleTemporaries(in directory: String) -> Int {
    var removed = 0
    for name in (try? listDirectory(directory)) ?? [] {
      // NAME.tmp-SUFFIX, with a NAME: ".tmp-x" alone is not ours.
      let bytes = Array(name.utf8)
      let marker = Array(".tmp-".utf8)
      guard bytes.count > marker.count,
        (1...(bytes.count - marker.count)).contains(where: {
          bytes[$0..<$0 + marker.count].elementsEqual(marker)
        })
      else { continue }
      var info = stat()
      let path = directory + "/" + name
      // Only regular files (a planted link is removed as a link, never followed).
      guard lstat(path, &info) == 0,
        info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFLNK
      else { continue }
      if unlink(path) == 0 { removed += 1 }
    }
    return removed
  }
}
