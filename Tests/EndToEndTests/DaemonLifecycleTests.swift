import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

@Suite("registerd start-up, socket and shutdown", .serialized)
struct DaemonLifecycleTests {
  @Test("the socket is created mode 0600 and removed on SIGTERM")
  func socketModeAndCleanShutdown() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socketPath)
    let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
    #expect(mode == 0o600)
    #expect(daemon.log.contains("listening on \(daemon.socketPath)"))
    #expect(daemon.stop() == 0)
    #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
  }

  @Test("--socket-mode sets another mode")
  func socketModeOption() throws {
    let daemon = try Daemon(arguments: ["--socket-mode", "660"])
    defer { daemon.cleanup() }
    let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socketPath)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o660)
  }

  @Test(
    "--socket-group gives the socket to a group; each connection is logged with its uid",
    .enabled(if: getuid() == 0, "giving a file to another group needs root"))
  func socketGroup() throws {
    let group = try #require(getgrnam("nogroup") ?? getgrnam("nobody"))
    let name = String(cString: group.pointee.gr_name)
    // Connections are logged at debug.
    let daemon = try Daemon(arguments: [
      "--socket-group", name, "--socket-mode", "660", "--log-level", "debug",
    ])
    defer { daemon.cleanup() }
    var info = stat()
    #expect(stat(daemon.socketPath, &info) == 0)
    #expect(info.st_gid == group.pointee.gr_gid)
    #expect(info.st_mode & 0o777 == 0o660)
    _ = try daemon.connect().send(#"{"op":"hello"}"#)
    #expect(daemon.log.contains("opened (uid \(getuid()))"))
  }

  @Test("SIGINT stops it cleanly too")
  func sigint() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    kill(daemon.process.processIdentifier, SIGINT)
    #expect(exitStatus(of: daemon.process, timeout: 30) == 0)
    #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
  }

  @Test("a second registerd on a live socket exits with a clear message")
  func secondDaemonRefused() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let second = Process()
    second.executableURL = Binaries.registerd
    second.arguments = [
      "--socket", daemon.socketPath, "--catalog", daemon.catalogPath, "--data-dir",
      daemon.directory.path("data2"),
    ]
    let errors = Pipe()
    second.standardError = errors
    second.standardOutput = FileHandle.nullDevice
    try second.run()
    let collected = collectOutput(of: second, from: [errors.fileHandleForReading])
    let message = collected.text()
    #expect(collected.status.map { $0 != 0 } == true)
    #expect(message.contains("already listening on \(daemon.socketPath)"))
    // The first one is untouched.
    #expect(try daemon.connect().send(#"{"op":"hello"}"#).isOK)
  }

  @Test("a second registerd on the same data directory exits, naming it and the holder's pid")
  func sameDataDirectoryRefused() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    #expect(try daemon.cli(["add", "TEE-BLK-L"]).status == 0)
    let second = Process()
    second.executableURL = Binaries.registerd
    second.arguments = [
      "--socket", daemon.directory.path("other.sock"), "--catalog", daemon.catalogPath,
      "--data-dir", daemon.dataDirectory,
    ]
    let errors = Pipe()
    second.standardError = errors
    second.standardOutput = FileHandle.nullDevice
    try second.run()
    let collected = collectOutput(of: second, from: [errors.fileHandleForReading])
    let message = collected.text()
    #expect(collected.status == 1)
    #expect(message.contains(daemon.dataDirectory))
    #expect(message.contains("pid \(daemon.process.processIdentifier)"))
    #expect(!FileManager.default.fileExists(atPath: daemon.directory.path("other.sock")))
    // The first keeps serving and its journal stays whole; offline readers still work meanwhile.
    #expect(try daemon.cli(["add", "SOCK-3PK"]).status == 0)
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(verify.stderr)")
    let replay = try runCLI(["replay", "--data-dir", daemon.dataDirectory])
    #expect(replay.status == 0, "\(replay.stderr)")
    // Once it stops, the directory is free again.
    daemon.stop()
    try daemon.start()
    let order = try daemon.connect().send(#"{"op":"order"}"#)
    #expect(order.result["lines"]?.arrayValue?.count == 2)
  }

  @Test("a stale socket file is replaced")
  func staleSocketReplaced() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("s.sock")
    let fd = try UnixSocket.listen(at: path, mode: 0o600)
    // The file stays, nobody answers. Shut down first: a process another test is spawning at
    // this moment may hold a copy of the descriptor until its exec, and a listener that was
    // only closed here would still accept through that copy.
    _ = shutdown(fd, Int32(SHUT_RDWR))
    close(fd)
    #expect(UnixSocket.probe(path) == .stale)
    let daemon = try Daemon(directory: directory)
    defer { daemon.cleanup() }
    #expect(daemon.log.contains("removing stale socket"))
    #expect(try daemon.connect().send(#"{"op":"hello"}"#).isOK)
  }

  @Test("a regular file at the socket path is never deleted")
  func regularFileKept() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = directory.path("s.sock")
    try "precious".write(toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: HarnessError.self) { _ = try Daemon(directory: directory) }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
  }

  static let badCatalogs: [(String, [String])] = [
    (
      #"{"store":{"name":"S","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[{"sku":"A1","name":"Thing","description":"","category":"C","price":12.5}]}"#,
      ["products.json", "product \"A1\"", "price", "decimal string"]
    ),
    (
      #"{"store":{"name":"S","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[{"sku":"A1","name":"Thing","description":"","category":"C","price":"5.00","sale_price":"6.00"}]}"#,
      ["product \"A1\"", "sale_price", "below the price"]
    ),
    (
      #"{"store":{"name":"S","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[{"sku":"A1","name":"Thing","description":"","category":"C","price":"5.00","tax_class":"food"}]}"#,
      ["product \"A1\"", "tax_class", "\"food\""]
    ),
    (
      #"{"store":{"name":"S","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[{"sku":"A1","name":"Thing","description":"","category":"C","price":"5.00","stock":-1}]}"#,
      ["product \"A1\"", "stock"]
    ),
    (#"{"store":{"name":"S"}"#, ["products.json", "not valid JSON"]),
    (
      #"{"store":{"name":"S","currency":"XYZ","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},"products":[]}"#,
      ["store.currency", "XYZ"]
    ),
  ]

  @Test(
    "a bad catalog stops start-up with the file, product and field named", arguments: badCatalogs)
  func badCatalog(catalog: String, mentions: [String]) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = directory.path("products.json")
    try catalog.write(toFile: path, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = Binaries.registerd
    process.arguments = [
      "--socket", directory.path("s.sock"), "--catalog", path, "--data-dir", directory.path("d"),
    ]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let collected = collectOutput(of: process, from: [errors.fileHandleForReading])
    let message = collected.text()
    #expect(collected.status == 1)
    for fragment in mentions {
      #expect(message.contains(fragment), "\(fragment) not in: \(message)")
    }
    #expect(!FileManager.default.fileExists(atPath: directory.path("s.sock")))
  }

  @Test("unknown options are a usage error with exit status 2")
  func usage() throws {
    let process = Process()
    process.executableURL = Binaries.registerd
    process.arguments = ["--frobnicate"]
    process.standardError = Pipe()
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    #expect(exitStatus(of: process, timeout: 60) == 2)
  }
}

@Suite("register-cli exit statuses and output modes", .serialized)
struct CLIBehaviourTests {
  @Test("0 done, 1 refused with the message on stderr, 2 usage, 3 unreachable")
  func exitStatuses() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let ok = try daemon.cli(["hello"])
    #expect(ok.status == 0)
    #expect(ok.stdout.contains("registerd"))
    let refused = try daemon.cli(["add", "NO-SUCH-SKU"])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("unknown_sku"))
    #expect(refused.stdout.isEmpty)
    let usage = try daemon.cli(["add"])
    #expect(usage.status == 2)
    #expect(usage.stderr.contains("add needs SKU"))
    let unknown = try daemon.cli(["frobnicate"])
    #expect(unknown.status == 2)
    let missing = try runCLI(["--socket", daemon.directory.path("nobody.sock"), "show"])
    #expect(missing.status == 3)
    #expect(missing.stderr.contains(daemon.directory.path("nobody.sock")))
    #expect(missing.stderr.contains("registerd"))
  }

  @Test("REGISTER_SOCKET sets the default socket path")
  func environmentSocket() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let result = try runCLI(["hello"], environment: ["REGISTER_SOCKET": daemon.socketPath])
    #expect(result.status == 0)
  }

  @Test("--json prints the reply line; the exit status still reports refusals")
  func jsonOutput() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let added = try daemon.cli(["--json", "add", "CAP-BSB", "2"])
    #expect(added.status == 0)
    let reply = try JSONParser.parse(added.stdout.trimmingCharacters(in: .newlines))
    #expect(reply.result["subtotal"] == "44.00")
    let refused = try daemon.cli(["--json", "remove", "7"])
    #expect(refused.status == 1)
    let error = try JSONParser.parse(refused.stdout.trimmingCharacters(in: .newlines))
    #expect(error.errorCode == "line_not_found")
  }

  @Test("with --keep-going a batch carries on after a refusal and exits 1")
  func batchFailure() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let result = try daemon.cli(
      ["batch", "--keep-going"], stdin: "add NOPE\nadd CAP-BSB\nshow\n")
    #expect(result.status == 1)
    #expect(result.stderr.contains("unknown_sku"))
    #expect(result.stdout.contains("Baseball Cap"))
  }
}

@Suite("registerd holds no descriptor it was started with")
struct InheritedDescriptorTests {
  /// A descriptor left open by whoever started registerd (here: the shell, which opens a FIFO
  /// for writing as descriptor 9 and then becomes registerd) must be closed at start-up: a
  /// reader of that FIFO, pipe or supervisor socket would otherwise wait for end of file as
  /// long as registerd runs. (Foundation's Process notices a child's exit that way, and test
  /// runs hung when a daemon started at the same moment inherited such a socket.)
  @Test func anInheritedWriteEndIsClosedAtStartUp() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let fifo = directory.path("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    #expect(reader >= 0)
    defer { close(reader) }
    let socket = directory.path("s.sock")
    try FileManager.default.copyItem(
      atPath: Binaries.repository.appendingPathComponent("Data/products.json").path,
      toPath: directory.path("products.json"))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", #"exec 9>"$0"; exec "$1" --socket "$2" --data-dir "$3" --catalog "$4""#, fifo,
      Binaries.registerd.path, socket, directory.path("data"), directory.path("products.json"),
    ]
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer {
      process.terminate()
      let deadline = Date().addingTimeInterval(10)
      _ = exitStatus(of: process, timeout: deadline.timeIntervalSinceNow)
    }
    _ = waitUntil(within: 20) {
      UnixSocket.probe(socket) == .live || exitStatus(of: process, timeout: 0) != nil
    }
    #expect(UnixSocket.probe(socket) == .live)
    // With the write end still held, a non-blocking read says "try again" (EAGAIN); once
    // every writer has closed it, it says end of file (0).
    var byte: UInt8 = 0
    var result = read(reader, &byte, 1)
    var entry = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
    // Readable once it has data or its end (every writer has closed it).
    if result < 0 && errno == EAGAIN && poll(&entry, 1, 5_000) > 0 {
      result = read(reader, &byte, 1)
    }
    #expect(result == 0, "registerd still holds the inherited descriptor 9")
  }
}

@Suite("the harness stops daemons a killed test run left behind")
struct LeftoverDaemonTests {
  @Test func aDaemonWhoseTestRunIsGoneIsStopped() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    // A registerd started outside the harness, as if by a run that was killed.
    let daemon = Process()
    daemon.executableURL = Binaries.registerd
    daemon.arguments = [
      "--socket", directory.path("s.sock"), "--data-dir", directory.path("data"), "--catalog",
      Binaries.repository.appendingPathComponent("Data/products.json").path,
    ]
    daemon.standardError = FileHandle.nullDevice
    daemon.standardOutput = FileHandle.nullDevice
    try daemon.run()
    defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
    // A test process that is gone: an id above the kernel's largest, which no process can
    // have. (Not a short-lived process waited for: Foundation's waitUntilExit can miss an
    // exit in a parallel run and then spins for ever — it hung a CI run for 30 minutes.)
    let maximum = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
    let gone = try #require(Int32(maximum.trimmingCharacters(in: .whitespacesAndNewlines))) + 1
    #expect(kill(gone, 0) == -1 && errno == ESRCH)
    let line = "\(gone) \(daemon.processIdentifier)\n"
    // Through the harness's lock: appended beside it, the line could be lost to a sweep that
    // another test's first daemon runs at the same moment (it did, once, in a parallel run).
    LeftoverDaemons.record(daemon.processIdentifier, startedBy: gone)
    #expect(LeftoverDaemons.isRegisterd(daemon.processIdentifier))

    LeftoverDaemons.sweepListed()
    #expect(exitStatus(of: daemon, timeout: 10) != nil, "the leftover daemon was stopped")
    let listed = try String(contentsOfFile: LeftoverDaemons.listPath, encoding: .utf8)
    #expect(!listed.contains(line), "its entry is gone")
    // This run's own daemons stay listed (the harness listed at least one before this test,
    // or lists this suite's first below).
    let own = try Daemon()
    defer { own.cleanup() }
    LeftoverDaemons.sweepListed()
    let after = try String(contentsOfFile: LeftoverDaemons.listPath, encoding: .utf8)
    #expect(after.contains("\(getpid()) \(own.process.processIdentifier)\n"))
    #expect(try own.connect().send(#"{"op":"hello"}"#).isOK)
  }
}

@Suite("the harness waits for a program's exit, not for end of file on its pipes")
struct CollectOutputTests {
  /// A shell that prints, leaves a process behind that holds its stdout and stderr (as a
  /// server started by another test at the same moment can), and exits.
  @Test func aPipeHeldByAnotherProcessDoesNotHoldTheTest() throws {
    let started = Date()
    let result = try runProgram(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "echo out; echo err >&2; sleep 30 & echo \"left $!\""])
    defer {
      if let pid = result.stdout.split(separator: " ").last.flatMap({ Int32($0.dropLast()) }) {
        kill(pid, SIGKILL)
      }
    }
    #expect(Date().timeIntervalSince(started) < 20, "returned once the shell exited")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("out\nleft "), "\(result.stdout)")
    #expect(result.stderr == "err\n")
  }

  @Test func aProgramThatDoesNotExitInTimeIsKilledAndSaysSo() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "echo before; exec sleep 60"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let started = Date()
    let collected = collectOutput(of: process, from: [output.fileHandleForReading], timeout: 1)
    #expect(Date().timeIntervalSince(started) < 15)
    #expect(collected.status == nil, "did not exit in time")
    #expect(exitStatus(of: process, timeout: 0) == SIGKILL, "and was killed")
    #expect(collected.text() == "before\n")
  }

  @Test func moreThanAPipeBufferIsReadWhileItRuns() throws {
    // 1 MiB on stdout: without reading while it runs, the program blocks on a full pipe.
    let result = try runProgram(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 1048576 /dev/zero; echo done >&2"])
    #expect(result.status == 0)
    #expect(result.stdoutBytes.count == 1_048_576)
    #expect(result.stderr == "done\n")
  }
}

@Suite("the tests never wait on Foundation's Process in ways that can hang")
struct NoHangingWaitsTests {
  /// `Process.waitUntilExit()` can miss a child's exit when many children start and stop at
  /// once (as in a parallel test run): it then spins in its run loop for ever, with the child
  /// a zombie. A CI run of this suite hung 30 minutes on one. Tests wait with `exitStatus` or
  /// `collectOutput` (which ask the kernel), and never read a pipe to end of file.
  @Test func noTestCallsTheWaitsThatCanHang() throws {
    let tests = Binaries.repository.appendingPathComponent("Tests").path
    let forbidden = ["waitUntilExit(", "readDataToEndOfFile(", "readToEnd("]
    var found: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: tests)
    while let name = enumerator?.nextObject() as? String {
      guard name.hasSuffix(".swift") else { continue }
      let text = try String(contentsOfFile: tests + "/" + name, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated()
      where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        && !line.contains("let forbidden")
      {
        for call in forbidden where line.contains(call) {
          found.append("\(name):\(number + 1): \(call)")
        }
      }
    }
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }

  /// Tests wait on what they wait for (a reply, an event, a log line, a file, an exit), not
  /// for time to pass. A sleep is left only where time passing is what is under test, or as
  /// the interval of a poll inside a helper that waits on a condition, and the comment just
  /// above it says why.
  @Test func everySleepSaysWhyTimeMustPass() throws {
    let tests = Binaries.repository.appendingPathComponent("Tests").path
    let sleeps = ["usleep(", "Thread.sleep", "nanosleep("]
    var unexplained: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: tests)
    while let name = enumerator?.nextObject() as? String {
      guard name.hasSuffix(".swift") else { continue }
      let text = try String(contentsOfFile: tests + "/" + name, encoding: .utf8)
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      for (number, line) in lines.enumerated()
      where sleeps.contains(where: line.contains) && !line.contains("let sleeps")
        && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
      {
        let above = number > 0 ? lines[number - 1].trimmingCharacters(in: .whitespaces) : ""
        if !above.hasPrefix("//") { unexplained.append("\(name):\(number + 1): \(line)") }
      }
    }
    #expect(unexplained.isEmpty, "\(unexplained.joined(separator: "\n"))")
  }
}

@Suite("SIGHUP reads the catalog file without stopping the lanes")
struct CatalogReloadEndToEndTests {
  /// The file is read and parsed on a thread of its own: a lane's request is answered while a
  /// large catalog is still being read, and the changes are imported once it has been.
  @Test func requestsAreAnsweredWhileALargeCatalogIsRead() throws {
    let daemon = try Daemon()
    defer { daemon.cleanup() }
    let client = try daemon.connect()
    #expect(try client.send(#"{"op":"hello"}"#).isOK)
    // 60,000 more products: seconds of parsing in a debug build.
    let bulk = (0..<60_000).map {
      #"{"sku":"BULK-\#($0)","name":"Bulk item \#($0)","description":"","category":"Bulk","price":"1.00"},"#
    }.joined(separator: "\n")
    let original = try String(contentsOfFile: daemon.catalogPath, encoding: .utf8)
    let marker = "\"products\": ["
    #expect(original.contains(marker))
    try original.replacingOccurrences(of: marker, with: marker + "\n" + bulk)
      .write(toFile: daemon.catalogPath, atomically: true, encoding: .utf8)
    // What the daemon logs from here on (start-up logged an import of its own).
    let logged = daemon.log.utf8.count
    func since() -> String {
      String(decoding: Array(daemon.log.utf8).dropFirst(logged), as: UTF8.self)
    }
    let imports = daemon.log.components(separatedBy: "imported the changes").count - 1
    kill(daemon.process.processIdentifier, SIGHUP)
    #expect(daemon.waitForLog("SIGHUP: reading the catalog file again"), "\(since())")
    // Answered while the file is being read: the import is not in the log yet.
    let order = try client.send(#"{"op":"order"}"#)
    #expect(order.isOK)
    #expect(
      !since().contains("imported the changes"),
      "the request waited for the catalog to be read: \(since())")
    #expect(
      daemon.waitForLog("imported the changes", count: imports + 1, within: 120), "\(since())")
    #expect(since().contains("imported the changes"), "\(since())")
    let product = try client.send(#"{"op":"product","sku":"BULK-59999"}"#)
    #expect(product.isOK, "\(product.serialized.prefix(200))")
  }
}
