import Foundation
import RegisterEngine
import RegisterServer
import RegisterTestSupport
import Testing

/// registerd started with no flags, as an installation starts it: from its configuration
/// directory, state directory and runtime directory (as systemd names them), with the store
/// settings in a file apart from the chain's catalog; and with nothing to serve at all.
@Suite struct InstalledLayoutEndToEndTests {
  /// Starts registerd with no arguments in `directory` with `environment` (REGISTER_* removed),
  /// its standard error going to `log`.
  private func start(
    in directory: String, environment: [String: String], log: String
  ) throws -> Process {
    var env = ProcessInfo.processInfo.environment
    for key in [
      "REGISTER_SOCKET", "REGISTER_DATA_DIR", "CONFIGURATION_DIRECTORY", "STATE_DIRECTORY",
      "RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR", "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID",
    ] {
      env[key] = nil
    }
    env["REGISTERD_FIXED_TIME"] = fixedTime
    for (key, value) in environment { env[key] = value }
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let process = Process()
    process.executableURL = Binaries.registerd
    process.arguments = []
    process.environment = env
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
  }

  private func waitForSocket(_ path: String, process: Process, log: String) throws {
    var exited: Int32?
    let listening = waitUntil(within: 20) {
      exited = exitStatus(of: process, timeout: 0)
      return exited != nil || UnixSocket.probe(path) == .live
    }
    if let exited { throw HarnessError("registerd exited with \(exited): \(read(log))") }
    guard listening else { throw HarnessError("registerd did not listen on \(path): \(read(log))") }
  }

  private func read(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  }

  private func stop(_ process: Process) -> Int32? {
    kill(process.processIdentifier, SIGTERM)
    if let status = exitStatus(of: process, timeout: 10) { return status }
    kill(process.processIdentifier, SIGKILL)
    return exitStatus(of: process, timeout: 10)
  }

  @Test func servesFromTheServiceManagersDirectoriesWithALaneStoreFile() throws {
    let temporary = try TemporaryDirectory()
    defer { temporary.cleanup() }
    let configuration = temporary.path("etc")
    let state = temporary.path("state-real")
    let runtime = temporary.path("run")
    for directory in [configuration, state, runtime] {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    // With DynamicUser= systemd names the state directory by a link into /var/lib/private.
    try FileManager.default.createSymbolicLink(
      atPath: temporary.path("state"), withDestinationPath: state)
    // The chain's catalog, its store section cut out; the lane's own store file beside it.
    let combined = try JSONParser.parse(
      Array(
        try Data(
          contentsOf: Binaries.repository.appendingPathComponent("Data/products.json"))))
    guard case .object(let members) = combined, let store = members["store"],
      let products = members["products"]
    else {
      throw HarnessError("Data/products.json has no store and products")
    }
    try JSONValue.object(["products": products]).serialized.write(
      toFile: configuration + "/products.json", atomically: true, encoding: .utf8)
    func writeStore(named name: String) throws {
      guard case .object(var settings) = store else { throw HarnessError("store is no object") }
      settings["name"] = .string(name)
      try JSONValue.object(["store": .object(settings)]).serialized.write(
        toFile: configuration + "/store.json", atomically: true, encoding: .utf8)
    }
    try writeStore(named: "Lane Seven")
    let log = temporary.path("registerd.log")
    let process = try start(
      in: temporary.url.path,
      environment: [
        "CONFIGURATION_DIRECTORY": configuration, "STATE_DIRECTORY": temporary.path("state"),
        "RUNTIME_DIRECTORY": runtime,
      ], log: log)
    defer { _ = stop(process) }
    let socket = runtime + "/registerd.sock"
    try waitForSocket(socket, process: process, log: log)

    let client = try Client(path: socket)
    let hello = try client.send("{\"id\":1,\"op\":\"hello\"}")
    #expect(hello["result"]?["store"] == .string("Lane Seven"))
    // The store's files are there, but an installed register serves nobody without a manager.
    #expect(hello["result"]?["setup_needed"] == .array([.string("a manager")]))
    let refused = try client.send("{\"id\":2,\"op\":\"add\",\"sku\":\"TEE-WHT-M\"}")
    #expect(refused["error"]?["code"] == .string("not_set_up"))
    let setup = try runCLI(
      ["--socket", socket, "setup", "--manager", "mo", "--manager-name", "Mo"], stdin: "4321\n")
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stdout.contains("register-cli sign-in mo"), "\(setup.stdout)")
    let signedIn = try client.send(#"{"id":2,"op":"sign_in","operator":"mo","pin":"4321"}"#)
    #expect(signedIn["ok"] == .bool(true))
    let added = try client.send("{\"id\":2,\"op\":\"add\",\"sku\":\"TEE-WHT-M\"}")
    #expect(added["ok"] == .bool(true))
    // The journal went to the real state directory, through the service manager's link.
    let segments = try FileManager.default.contentsOfDirectory(atPath: state + "/journal")
    #expect(segments.contains { $0.hasSuffix(".ndjson") })
    // Nothing was written in the working directory.
    #expect(!FileManager.default.fileExists(atPath: temporary.path(".registerd")))

    // SIGHUP reads the store file again.
    try writeStore(named: "Lane Seven Outlet")
    // Logged once the new settings are the register's (start-up may have logged it before).
    let updated = "store settings updated from \(configuration)/store.json"
    let before = read(log).components(separatedBy: updated).count
    kill(process.processIdentifier, SIGHUP)
    #expect(
      FileChanges.wait(for: log, within: 10) {
        read(log).components(separatedBy: updated).count > before
      }, "\(read(log))")
    let name = try client.send(#"{"id":3,"op":"hello"}"#)["result"]?["store"]
    #expect(name == .string("Lane Seven Outlet"))
    #expect(stop(process) == 0)
  }

  @Test func withNothingToServeItSaysWhereItLookedAndExits78() throws {
    try #require(
      !FileManager.default.fileExists(atPath: "/etc/registerd"),
      "this machine has an installed registerd's configuration directory, so registerd would serve as installed"
    )
    let temporary = try TemporaryDirectory()
    defer { temporary.cleanup() }
    let log = temporary.path("registerd.log")
    let process = try start(
      in: temporary.url.path, environment: ["REGISTER_SOCKET": temporary.path("s.sock")],
      log: log)
    let status = exitStatus(of: process, timeout: 20)
    #expect(status == 78)
    let message = read(log)
    #expect(message.contains("Data/products.json"))
    #expect(message.contains("/etc/registerd"))
    #expect(message.contains("--catalog FILE"))
    #expect(message.contains("register-cli setup"))
    // Not a usage error: no usage dump, and nothing created.
    #expect(!message.contains("usage:"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == ["registerd.log"])
  }

  /// A fresh install: the configuration directory with no store or catalog file, no operators.
  /// registerd starts (socket activation needs it to), answers only hello and setup, and says
  /// what to run; `register-cli setup` with the answers on standard input makes it serve, as a
  /// locked register (a manager, changes need a sign-in), and a restart keeps it set up.
  @Test func aFreshInstallServesNothingUntilSetUp() throws {
    let temporary = try TemporaryDirectory()
    defer { temporary.cleanup() }
    let configuration = temporary.path("etc")
    let runtime = temporary.path("run")
    for directory in [configuration, runtime, temporary.path("state")] {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    let environment = [
      "CONFIGURATION_DIRECTORY": configuration, "STATE_DIRECTORY": temporary.path("state"),
      "RUNTIME_DIRECTORY": runtime,
    ]
    let log = temporary.path("registerd.log")
    var process = try start(in: temporary.url.path, environment: environment, log: log)
    defer { _ = stop(process) }
    let socket = runtime + "/registerd.sock"
    try waitForSocket(socket, process: process, log: log)
    #expect(read(log).contains("is not set up"), "\(read(log))")
    #expect(read(log).contains("register-cli setup"))

    let hello = try runCLI(["--socket", socket, "hello"])
    #expect(hello.stdout.contains("not set up"), "\(hello.stdout)")
    #expect(hello.stdout.contains("register-cli setup"))
    for words in [["add", "TEE-WHT-M"], ["float", "100"], ["close-day"], ["report"]] {
      let refused = try runCLI(["--socket", socket] + words)
      #expect(refused.status == 1, "\(words)")
      #expect(refused.stderr.contains("not_set_up"), "\(words): \(refused.stderr)")
      #expect(refused.stderr.contains("register-cli setup"), "\(words): \(refused.stderr)")
    }
    // A wrong answer is refused and changes nothing: still not set up.
    let wrong = try runCLI(
      ["--socket", socket, "setup"], stdin: "Corner Shop\nabc\nmo\nMo Reyes\n4321\n")
    #expect(wrong.status == 1)
    #expect(wrong.stderr.contains("store.tax"), "\(wrong.stderr)")
    #expect(try runCLI(["--socket", socket, "hello"]).stdout.contains("not set up"))

    // The answers one per line: store name, tax rate, manager id, name, PIN.
    let setup = try runCLI(
      ["--socket", socket, "setup"], stdin: "Corner Shop\n8.25\nmo\nMo Reyes\n4321\n")
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stdout.contains("set up"), "\(setup.stdout)")
    #expect(
      try runCLI(["--socket", socket, "hello"]).stdout.contains("serving Corner Shop"))
    // Locked down: a change needs the manager signed in.
    let open = try runCLI(["--socket", socket, "float", "100"])
    #expect(open.stderr.contains("not_signed_in"), "\(open.stderr)")
    #expect(
      try runCLI(["--socket", socket, "sign-in", "mo"], stdin: "4321\n").status == 0)
    let product = try runCLI([
      "--socket", socket, "product", "add", "MUG", "--name", "Mug", "--price", "20.00",
      "--category", "Home",
    ])
    #expect(product.status == 0, "\(product.stderr)")
    let added = try runCLI(["--socket", socket, "--json", "add", "MUG"])
    #expect(added.stdout.contains(#""tax":"1.65""#), "8.25 % of 20.00: \(added.stdout)")
    #expect(
      try runCLI(["--socket", socket, "setup"]).stdout.contains("set up already"))

    // A restart keeps it set up: what setup gave is journaled.
    #expect(stop(process) == 0)
    process = try start(in: temporary.url.path, environment: environment, log: log)
    try waitForSocket(socket, process: process, log: log)
    let again = try runCLI(["--socket", socket, "--json", "hello"])
    #expect(again.stdout.contains(#""store":"Corner Shop""#), "\(again.stdout)")
    #expect(!again.stdout.contains("setup_needed"))
    #expect(read(log).contains("serving Corner Shop"))
    #expect(stop(process) == 0)
  }

  @Test func aStoreFileGivenByFlagAppliesAndABadOneStopsStartUp() throws {
    let temporary = try TemporaryDirectory()
    defer { temporary.cleanup() }
    try
      #"{"name": "Flag Lane", "address": [], "currency": "USD", "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"}}"#
      .write(toFile: temporary.path("store.json"), atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: ["--store", temporary.path("store.json")], directory: temporary)
    defer { daemon.stop() }
    let hello = try daemon.connect().send("{\"id\":1,\"op\":\"hello\"}")
    #expect(hello["result"]?["store"] == .string("Flag Lane"))
    #expect(daemon.stop() == 0)

    try "{\"name\": 5}".write(
      toFile: temporary.path("bad-store.json"), atomically: true, encoding: .utf8)
    let bad = try runProgram(
      Binaries.registerd,
      [
        "--socket", temporary.path("b.sock"), "--data-dir", temporary.path("data2"),
        "--catalog", daemon.catalogPath, "--store", temporary.path("bad-store.json"),
      ])
    #expect(bad.status == 1)
    #expect(bad.stderr.contains("bad-store.json"))
    #expect(!FileManager.default.fileExists(atPath: temporary.path("data2")))
  }

  @Test func checkValidatesTheFilesAndSaysWhatWouldBeServedWithoutWritingAnything() throws {
    let temporary = try TemporaryDirectory()
    defer { temporary.cleanup() }
    let catalog = Binaries.repository.appendingPathComponent("Data/products.json").path
    let store = Binaries.repository.appendingPathComponent("contrib/store.json").path
    func check(_ arguments: [String]) throws -> (status: Int32?, output: String) {
      let result = try runProgram(
        Binaries.registerd,
        ["--check", "--data-dir", temporary.path("data"), "--socket", temporary.path("s.sock")]
          + arguments)
      return (result.status, result.stdout + result.stderr)
    }
    let good = try check(["--catalog", catalog, "--store", store])
    #expect(good.status == 0)
    #expect(good.output.contains("Lane & Thread Outfitters, Lane 2"))
    #expect(good.output.contains("settings from \(store)"))
    #expect(good.output.contains(temporary.path("s.sock")))
    try "{\"products\": 1}".write(
      toFile: temporary.path("bad.json"), atomically: true, encoding: .utf8)
    let bad = try check(["--catalog", temporary.path("bad.json")])
    #expect(bad.status == 1)
    #expect(bad.output.contains("bad.json"))
    #expect(!bad.output.contains("cannot start"))
    // Only a check: no data directory, no socket.
    #expect(!FileManager.default.fileExists(atPath: temporary.path("data")))
    #expect(!FileManager.default.fileExists(atPath: temporary.path("s.sock")))
  }
}
