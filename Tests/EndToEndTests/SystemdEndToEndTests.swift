import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// `systemd-socket-activate` (tests that start it require `.systemdSocketActivate`).
let socketActivate = ExternalProgram.systemdSocketActivate.path ?? "systemd-socket-activate"

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifyListener: @unchecked Sendable {
  let path: String
  private let fd: Int32

  /// Bound to `path`, or to an abstract name when `path` starts with `@` (as systemd writes it).
  init(path: String) throws {
    self.path = path
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    let abstract = bytes.first == UInt8(ascii: "@")
    if abstract { bytes[0] = 0 }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    // An abstract name is exactly its bytes long (no terminating NUL).
    let length = abstract ? 2 + bytes.count : MemoryLayout<sockaddr_un>.size
    let bound = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(length))
      }
    }
    guard bound == 0 else { throw HarnessError("bind \(path): \(errno)") }
  }

  deinit { close(fd) }

  /// The next datagram, or nil when none arrives within `timeout` seconds.
  func receive(timeout: TimeInterval) -> String? {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard count >= 0 else { return nil }
    return String(decoding: buffer[0..<count], as: UTF8.self)
  }

  /// Datagrams until one contains `line` (as a whole line); nil if none does within `timeout`.
  func wait(for line: String, timeout: TimeInterval) -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      guard let message = receive(timeout: deadline.timeIntervalSinceNow) else { return nil }
      if message.split(separator: "\n").contains(Substring(line)) { return message }
    }
    return nil
  }

  /// Every datagram received within `seconds`.
  func collect(for seconds: TimeInterval) -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var messages: [String] = []
    while Date() < deadline, let message = receive(timeout: max(0, deadline.timeIntervalSinceNow)) {
      messages.append(message)
    }
    return messages
  }
}

/// registerd started by hand (under `systemd-socket-activate` or a shell), stderr to a file.
final class LaunchedDaemon: @unchecked Sendable {
  let directory: TemporaryDirectory
  let process = Process()
  let logPath: String

  /// Starts `executable arguments` (`{registerd}` in them is the built daemon) with the
  /// test environment plus `environment`; stderr goes to `logPath` (made first, so a test
  /// can name it in JOURNAL_STREAM).
  init(
    directory: TemporaryDirectory, executable: String, arguments: [String],
    environment: [String: String] = [:], logPath: String? = nil
  ) throws {
    self.directory = directory
    let catalog = directory.path("products.json")
    if !FileManager.default.fileExists(atPath: catalog) {
      try FileManager.default.copyItem(
        atPath: Binaries.repository.appendingPathComponent("Data/products.json").path,
        toPath: catalog)
    }
    self.logPath = logPath ?? directory.path("registerd-\(UUID().uuidString.prefix(6)).log")
    if !FileManager.default.fileExists(atPath: self.logPath) {
      _ = FileManager.default.createFile(atPath: self.logPath, contents: nil)
    }
    var env = ProcessInfo.processInfo.environment
    env["REGISTERD_FIXED_TIME"] = fixedTime
    env["TZ"] = "UTC"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments.map { $0 == "{registerd}" ? Binaries.registerd.path : $0 }
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: self.logPath))
    process.standardOutput = FileHandle.nullDevice
    try process.run()
  }

  /// The standard arguments for a daemon in `directory`.
  static func daemonArguments(_ directory: TemporaryDirectory) -> [String] {
    [
      "--socket", directory.path("bound.sock"), "--data-dir", directory.path("data"),
      "--catalog", directory.path("products.json"),
    ]
  }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
  var pid: Int32 { process.processIdentifier }

  /// A connection to `path`, retried until it is accepted (or 20 s pass).
  func connect(_ path: String) throws -> Client {
    var client: Client?
    var exited: Int32?
    _ = waitUntil(within: 20) {
      client = try? Client(path: path)
      exited = exitStatus(of: process, timeout: 0)
      return client != nil || exited != nil
    }
    if let client { return client }
    if let exited { throw HarnessError("registerd exited with \(exited): \(log)") }
    throw HarnessError("no connection to \(path): \(log)")
  }

  /// SIGTERM and the exit status (-1: it had to be killed).
  @discardableResult
  func stop() -> Int32 {
    if let status = exitStatus(of: process, timeout: 0) { return status }
    kill(pid, SIGTERM)
    if let status = exitStatus(of: process, timeout: 15) { return status }
    kill(pid, SIGKILL)
    _ = exitStatus(of: process, timeout: 30)
    return -1
  }
}

/// "DEVICE:INODE" of the file at `path`, as systemd puts it in JOURNAL_STREAM.
func journalStream(of path: String) -> String {
  var info = stat()
  _ = stat(path, &info)
  return "\(info.st_dev):\(info.st_ino)"
}

@Suite("registerd under systemd: socket activation and sd_notify", .serialized)
struct SystemdEndToEndTests {
  @Test(
    "under systemd-socket-activate registerd serves on the passed socket and neither binds nor removes a path",
    .tags(.outsideProgram), .requires(.systemdSocketActivate))
  func socketActivation() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let passed = directory.path("passed.sock")
    let daemon = try LaunchedDaemon(
      directory: directory, executable: socketActivate,
      arguments: ["-l", passed, "--", "{registerd}"] + LaunchedDaemon.daemonArguments(directory))
    defer { daemon.stop() }
    let client = try daemon.connect(passed)
    #expect(try client.send(#"{"id":1,"op":"hello"}"#).isOK)
    #expect(try client.send(#"{"id":2,"op":"add","sku":"CAP-BSB"}"#).isOK)
    #expect(!FileManager.default.fileExists(atPath: directory.path("bound.sock")), "no bind")
    #expect(daemon.log.contains("listening on \(passed) (the socket the service manager passed)"))
    #expect(daemon.stop() == 0)
    // The service manager owns the file; registerd leaves it.
    var info = stat()
    #expect(lstat(passed, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
    #expect(daemon.log.contains("the service manager keeps the socket"))
  }

  @Test("started normally (no LISTEN_FDS) registerd binds, and removes its socket when it stops")
  func normalStartStillBinds() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(daemon.log.contains("listening on \(daemon.socketPath)"))
    #expect(!daemon.log.contains("service manager"))
    #expect(try daemon.connect().send(#"{"op":"hello"}"#).isOK)
    #expect(daemon.stop() == 0)
    #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
  }

  @Test(
    "a passed descriptor that is not a listening Unix stream socket is refused, clearly",
    .tags(.outsideProgram), .requires(.python3))
  func badPassedDescriptor() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let plain = directory.path("plain.txt")
    try "not a socket".write(toFile: plain, atomically: true, encoding: .utf8)
    // The shell becomes registerd (exec keeps the pid) with descriptor 3 open on a file.
    let script = "export LISTEN_PID=$$ LISTEN_FDS=1; exec \"$0\" \"$@\" 3<\(plain)"
    let daemon = try LaunchedDaemon(
      directory: directory, executable: "/bin/sh",
      arguments: ["-c", script, "{registerd}"] + LaunchedDaemon.daemonArguments(directory))
    let status = exitStatus(of: daemon.process, timeout: 20)
    #expect(status == 1, "\(daemon.log)")
    #expect(
      daemon.log.contains(
        "error: cannot start: descriptor 3 from the service manager is not a socket"),
      "\(daemon.log)")

    // A Unix stream socket that is not listening (one end of a socket pair) is refused too.
    let other = try TemporaryDirectory()
    defer { other.cleanup() }
    let pair = try LaunchedDaemon(
      directory: other, executable: try ExternalProgram.python3.located().path,
      arguments: [
        "-c",
        "import os,socket,sys; a,b=socket.socketpair(); os.dup2(a.fileno(),3); os.set_inheritable(3,True); "
          + "os.environ['LISTEN_PID']=str(os.getpid()); os.environ['LISTEN_FDS']='1'; "
          + "os.execv(sys.argv[1], sys.argv[1:])",
        "{registerd}",
      ] + LaunchedDaemon.daemonArguments(other))
    #expect(exitStatus(of: pair.process, timeout: 20) == 1, "\(pair.log)")
    #expect(pair.log.contains("is not listening; use Accept=no"), "\(pair.log)")
  }

  @Test(
    "LISTEN_FDS meant for another process (LISTEN_PID) is ignored: the inherited fd is closed and registerd binds"
  )
  func listenPIDOfAnotherProcess() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let plain = directory.path("plain.txt")
    try "x".write(toFile: plain, atomically: true, encoding: .utf8)
    let script = "export LISTEN_PID=1 LISTEN_FDS=1; exec \"$0\" \"$@\" 3<\(plain)"
    let daemon = try LaunchedDaemon(
      directory: directory, executable: "/bin/sh",
      arguments: ["-c", script, "{registerd}"] + LaunchedDaemon.daemonArguments(directory))
    defer { daemon.stop() }
    let client = try daemon.connect(directory.path("bound.sock"))
    #expect(try client.send(#"{"op":"hello"}"#).isOK)
    let open =
      (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd")) ?? []
    let targets = open.compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/\($0)")
    }
    #expect(!targets.contains(plain), "the inherited descriptor was closed: \(targets)")
    #expect(daemon.stop() == 0)
  }

  @Test(
    "READY=1 (with MAINPID and STATUS) arrives once it answers; WATCHDOG=1 at half WATCHDOG_USEC; STOPPING=1 on SIGTERM"
  )
  func readyWatchdogStopping() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let listener = try NotifyListener(path: directory.path("notify.sock"))
    let daemon = try LaunchedDaemon(
      directory: directory, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(directory),
      environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"])
    defer { daemon.stop() }
    let ready = try #require(listener.wait(for: "READY=1", timeout: 20), "\(daemon.log)")
    // The moment READY=1 arrives, a client is answered (no retrying here).
    let client = try Client(path: directory.path("bound.sock"))
    #expect(try client.send(#"{"id":"first","op":"hello"}"#).isOK)
    #expect(ready.contains("MAINPID=\(daemon.pid)"))
    #expect(ready.contains("STATUS=serving "))
    // 200 ms watchdog: a ping every 100 ms.
    let pings = listener.collect(for: 1.0).filter { $0 == "WATCHDOG=1" }
    #expect(pings.count >= 5, "\(pings.count) pings in a second")
    kill(daemon.pid, SIGTERM)
    let stopping = listener.wait(for: "STOPPING=1", timeout: 10)
    #expect(stopping != nil)
    #expect(exitStatus(of: daemon.process, timeout: 15) == 0)
  }

  @Test("NOTIFY_SOCKET in the abstract namespace (@name) gets READY=1")
  func abstractNotifySocket() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let listener = try NotifyListener(path: "@registerd-test-\(UUID().uuidString.prefix(8))")
    let daemon = try LaunchedDaemon(
      directory: directory, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(directory),
      environment: ["NOTIFY_SOCKET": listener.path])
    defer { daemon.stop() }
    #expect(listener.wait(for: "READY=1", timeout: 20) != nil, "\(daemon.log)")
    #expect(daemon.stop() == 0)
  }

  @Test(
    "no watchdog pings when WATCHDOG_PID names another process; a bad NOTIFY_SOCKET is only a warning"
  )
  func watchdogForAnotherProcess() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let listener = try NotifyListener(path: directory.path("notify.sock"))
    let daemon = try LaunchedDaemon(
      directory: directory, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(directory),
      environment: [
        "NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "1",
      ])
    defer { daemon.stop() }
    #expect(listener.wait(for: "READY=1", timeout: 20) != nil, "\(daemon.log)")
    #expect(!listener.collect(for: 0.6).contains("WATCHDOG=1"))
    #expect(daemon.stop() == 0)

    let other = try TemporaryDirectory()
    defer { other.cleanup() }
    let relative = try LaunchedDaemon(
      directory: other, executable: Binaries.registerd.path,
      arguments: LaunchedDaemon.daemonArguments(other),
      environment: ["NOTIFY_SOCKET": "not/absolute"])
    defer { relative.stop() }
    #expect(try relative.connect(other.path("bound.sock")).send(#"{"op":"hello"}"#).isOK)
    #expect(relative.log.contains("NOTIFY_SOCKET=not/absolute is not a socket path"))
    #expect(relative.stop() == 0)
  }

  @Test(
    "READY=1 under socket activation, then the passed socket answers",
    .tags(.outsideProgram), .requires(.systemdSocketActivate))
  func readyUnderSocketActivation() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let listener = try NotifyListener(path: directory.path("notify.sock"))
    let passed = directory.path("passed.sock")
    let daemon = try LaunchedDaemon(
      directory: directory, executable: socketActivate,
      // systemd-socket-activate passes on only the variables -E names.
      arguments: ["-l", passed, "-E", "NOTIFY_SOCKET=\(listener.path)", "--", "{registerd}"]
        + LaunchedDaemon.daemonArguments(directory))
    defer { daemon.stop() }
    // systemd-socket-activate execs registerd when the first client connects.
    let client = try daemon.connect(passed)
    let ready = try #require(listener.wait(for: "READY=1", timeout: 20), "\(daemon.log)")
    #expect(ready.contains("STATUS=serving Lane & Thread Outfitters on \(passed)"))
    #expect(try client.send(#"{"op":"hello"}"#).isOK)
    #expect(daemon.stop() == 0)
  }

  @Test(
    "systemd-analyze verify passes on contrib/systemd's units (with @SBINDIR@ made the build directory), with nothing to say",
    .tags(.outsideProgram), .requires(.systemdAnalyze))
  func unitsVerify() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let source = Binaries.repository.appendingPathComponent("contrib/systemd")
    for name in ["registerd.service", "registerd.socket"] {
      let text = try String(
        contentsOf: source.appendingPathComponent(name), encoding: .utf8)
      if name.hasSuffix(".service") {
        // The install step substitutes exactly this token.
        #expect(text.contains("\nExecStart=@SBINDIR@/registerd\n"))
      }
      try text.replacingOccurrences(of: "@SBINDIR@", with: Binaries.directory.path)
        .write(toFile: directory.path(name), atomically: true, encoding: .utf8)
    }
    let process = Process()
    process.executableURL = try ExternalProgram.systemdAnalyze.located()
    // --man=no: the man pages Documentation= names are installed by `make install`, not here.
    process.arguments = [
      "verify", "--man=no", directory.path("registerd.socket"),
      directory.path("registerd.service"),
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let collected = collectOutput(of: process, from: [output.fileHandleForReading])
    let text = collected.text()
    let status = collected.status
    // Without a running system bus (containers, CI) systemd-analyze may say it cannot reach
    // it; that is about the host, not the units, and is the only thing left out.
    let said = text.split(separator: "\n").filter {
      !$0.localizedCaseInsensitiveContains("bus") || $0.contains("registerd")
    }
    #expect(status == 0, "\(text)")
    #expect(said.isEmpty, "\(said.joined(separator: "\n"))")
  }
}
