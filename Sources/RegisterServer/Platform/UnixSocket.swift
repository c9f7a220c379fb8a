import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Unix-domain stream sockets: the address handling, connect, bind and the small blocking
/// client both programs and the tests use.
public enum UnixSocket {
  /// The longest socket path the platform accepts (sun_path minus its terminating NUL).
  public static var maximumPathLength: Int {
    MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
  }

  /// Fills a `sockaddr_un` for `path` and calls `body` with it.
  static func withAddress<T>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
  ) throws(SystemError) -> T {
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count <= maximumPathLength else {
      throw SystemError(
        "socket path too long (max \(maximumPathLength) bytes)", path: path, code: ENAMETOOLONG)
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
      raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }

  /// A new stream socket, close-on-exec.
  public static func makeSocket() throws(SystemError) -> Int32 {
    #if canImport(Glibc)
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      let fd = socket(AF_UNIX, SOCK_STREAM, 0)
      if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    #endif
    guard fd >= 0 else { throw SystemError("socket") }
    #if canImport(Darwin)
      var on: Int32 = 1
      setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    return fd
  }

  /// A socket connected to `path`.
  public static func connect(to path: String) throws(SystemError) -> Int32 {
    let fd = try makeSocket()
    let result = try withAddress(path) { address, length in
      retryingOnInterrupt { Glibc.connect(fd, address, length) }
    }
    guard result == 0 else {
      let failure = SystemError("connect", path: path)
      close(fd)
      throw failure
    }
    return fd
  }

  /// What is at `path`: nothing, a socket a server answers on, a dead socket, or not a socket.
  public enum PathState: Equatable {
    case absent
    case live
    case stale
    case notASocket
  }

  /// Probes `path` without changing it.
  public static func probe(_ path: String) -> PathState {
    var info = stat()
    guard lstat(path, &info) == 0 else { return .absent }
    guard (info.st_mode & S_IFMT) == S_IFSOCK else { return .notASocket }
    guard let fd = try? connect(to: path) else { return .stale }
    close(fd)
    return .live
  }

  /// A listening socket bound to `path` with file mode `mode` (set before anyone can connect).
  public static func listen(at path: String, mode: mode_t, backlog: Int32 = 128) throws(SystemError)
    -> Int32
  {
    let fd = try makeSocket()
    // The umask decides the mode bind gives the socket file; make it exactly `mode`.
    let previous = umask(~mode & 0o777)
    let bound = try withAddress(path) { address, length in bind(fd, address, length) }
    let bindErrno = errno
    umask(previous)
    guard bound == 0 else {
      close(fd)
      throw SystemError("bind", path: path, code: bindErrno)
    }
    chmod(path, mode)
    guard Glibc.listen(fd, backlog) == 0 else {
      let failure = SystemError("listen", path: path)
      close(fd)
      throw failure
    }
    return fd
  }

  /// Makes `fd` non-blocking.
  public static func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }

  /// Sends bytes without raising SIGPIPE; returns the count sent, or -1 with errno set.
  public static func send(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
      return retryingOnInterrupt { Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL)) }
    #else
      return retryingOnInterrupt { Darwin.send(fd, pointer, count, 0) }
    #endif
  }

  /// True when nothing is on its way through the connected socket `fd` in either direction:
  /// no byte the peer sent waits to be read, and every byte sent to it has been read by it
  /// (false also when the kernel cannot say).
  public static func isQuiet(_ fd: Int32) -> Bool {
    var unread: Int32 = 0
    guard ioctl(fd, UInt(FIONREAD), &unread) == 0, unread == 0 else { return false }
    var unsent: Int32 = 0
    #if canImport(Glibc)
      // For a Unix stream socket, what was sent and the peer has not read yet.
      guard ioctl(fd, UInt(TIOCOUTQ), &unsent) == 0 else { return false }
    #else
      var length = socklen_t(MemoryLayout<Int32>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_NWRITE, &unsent, &length) == 0 else { return false }
    #endif
    return unsent == 0
  }

  /// The uid of the process on the other end of a connected socket, when the platform says.
  public static func peerUID(_ fd: Int32) -> UInt32? {
    #if canImport(Glibc)
      // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides it behind _GNU_SOURCE).
      var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
      var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
      return credentials.1
    #else
      var uid = uid_t()
      var gid = gid_t()
      guard getpeereid(fd, &uid, &gid) == 0 else { return nil }
      return uid
    #endif
  }
}

#if canImport(Darwin)
  private typealias Glibc = Darwin
#endif

/// The default socket path for both programs: `$REGISTER_SOCKET`, else
/// `$XDG_RUNTIME_DIR/registerd.sock`, else `/tmp/registerd-<uid>.sock`.
public func defaultSocketPath(environment: [String: String]) -> String {
  if let path = environment["REGISTER_SOCKET"], !path.isEmpty { return path }
  if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, FileIO.exists(runtime) {
    return runtime + "/registerd.sock"
  }
  return "/tmp/registerd-\(getuid()).sock"
}
