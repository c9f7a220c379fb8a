import RegisterEngine
import RegisterServer
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// registerd's defaults in a source checkout and when installed, and what overrides them.
@Suite struct InstalledPathsTests {
  /// Options parsed with only `files` existing.
  func parse(
    _ arguments: [String] = [], environment: [String: String] = [:], files: Set<String>
  ) throws(OptionsError) -> Options {
    try Options.parse(arguments, environment: environment, exists: { files.contains($0) })
  }

  @Test func aCheckoutKeepsTodaysDefaults() throws {
    let options = try parse(files: ["Data/products.json", "/etc/registerd/products.json"])
    #expect(options.catalogPath == "Data/products.json")
    #expect(options.storePath == nil)
    #expect(options.dataDirectory == ".registerd")
    #expect(options.socketPath == defaultSocketPath(environment: [:]))
    #expect(!options.installedLayout)
  }

  @Test func installedUsesEtcVarLibAndRun() throws {
    let options = try parse(
      files: ["/etc/registerd/products.json", "/etc/registerd/store.json"])
    #expect(options.installedLayout)
    #expect(options.catalogPath == "/etc/registerd/products.json")
    // Read when it exists, at start-up and on SIGHUP (`Options.currentStorePath`).
    #expect(options.storePath == nil)
    #expect(options.installedStoreFile == "/etc/registerd/store.json")
    #expect(options.dataDirectory == "/var/lib/registerd")
    #expect(options.socketPath == "/run/registerd/registerd.sock")
  }

  @Test func installedWithoutAStoreFileUsesTheCatalogsOwnSettings() throws {
    let options = try parse(files: ["/etc/registerd/products.json"])
    #expect(options.installedLayout)
    #expect(options.storePath == nil)
  }

  @Test func aFreshInstallIsTheConfigurationDirectoryWithNoFilesYet() throws {
    // `make install` makes /etc/registerd; the store's own files come with setup.
    let options = try parse(files: ["/etc/registerd"])
    #expect(options.installedLayout)
    #expect(options.catalogPath == "/etc/registerd/products.json")
    #expect(options.dataDirectory == "/var/lib/registerd")
    #expect(options.socketPath == "/run/registerd/registerd.sock")
  }

  @Test func theServiceManagersDirectoriesWin() throws {
    let environment = [
      "CONFIGURATION_DIRECTORY": "/srv/conf", "STATE_DIRECTORY": "/srv/state:/srv/other",
      "RUNTIME_DIRECTORY": "/srv/run",
    ]
    // Even from a checkout: systemd set these for the service.
    let options = try parse(
      environment: environment, files: ["Data/products.json", "/srv/conf/store.json"])
    #expect(options.catalogPath == "/srv/conf/products.json")
    #expect(options.installedStoreFile == "/srv/conf/store.json")
    #expect(options.dataDirectory == "/srv/state")
    #expect(options.socketPath == "/srv/run/registerd.sock")
  }

  @Test func flagsAndRegisterVariablesOverrideEverything() throws {
    let environment = [
      "CONFIGURATION_DIRECTORY": "/srv/conf", "STATE_DIRECTORY": "/srv/state",
      "RUNTIME_DIRECTORY": "/srv/run", "REGISTER_DATA_DIR": "/env/data",
      "REGISTER_SOCKET": "/env/s.sock",
    ]
    let fromEnvironment = try parse(environment: environment, files: ["/srv/conf/store.json"])
    #expect(fromEnvironment.dataDirectory == "/env/data")
    #expect(fromEnvironment.socketPath == "/env/s.sock")
    let fromFlags = try parse(
      [
        "--catalog", "/a/c.json", "--store", "/a/s.json", "--data-dir", "/a/d", "--socket",
        "/a/s.sock",
      ], environment: environment, files: ["/srv/conf/store.json"])
    #expect(fromFlags.catalogPath == "/a/c.json")
    #expect(fromFlags.storePath == "/a/s.json")
    #expect(fromFlags.dataDirectory == "/a/d")
    #expect(fromFlags.socketPath == "/a/s.sock")
  }

  @Test func anExplicitCatalogKeepsTheCheckoutsOtherDefaults() throws {
    let options = try parse(["--catalog", "shop.json"], files: ["/etc/registerd/store.json"])
    #expect(!options.installedLayout)
    #expect(options.storePath == nil)
    #expect(options.dataDirectory == ".registerd")
  }

  @Test func nothingToServeSaysWhereItLookedAndHowToGiveOne() {
    do {
      _ = try parse(files: [])
      Issue.record("parsed with no catalog anywhere")
    } catch {
      #expect(error.exitStatus == 78)
      #expect(!error.showsUsage)
      let message = error.message ?? ""
      #expect(message.contains("Data/products.json"))
      #expect(message.contains("/etc/registerd"))
      #expect(message.contains("--catalog FILE"))
      #expect(message.contains("register-cli setup"))
      // One line in the log: a line break would be written there as a literal `\n`.
      #expect(!message.contains("\n"), "\(message)")
    }
  }

  @Test func aUsageErrorStillShowsTheUsage() {
    do {
      _ = try parse(["--store"], files: ["Data/products.json"])
      Issue.record("--store without a value was accepted")
    } catch {
      #expect(error.exitStatus == 2)
      #expect(error.showsUsage)
    }
  }

  @Test func theClientFindsTheSocketThatExists() {
    let user = "/tmp/registerd-\(getuid()).sock"
    let installed = "/run/registerd/registerd.sock"
    let xdg = ["XDG_RUNTIME_DIR": "/run/user/7"]
    #expect(Paths.clientSocket(environment: xdg, exists: { $0 == installed }) == installed)
    #expect(Paths.clientSocket(environment: xdg, exists: { $0 == user }) == user)
    #expect(
      Paths.clientSocket(environment: xdg, exists: { _ in true }) == "/run/user/7/registerd.sock")
    // Nothing listening anywhere: where a daemon of this user would listen.
    #expect(
      Paths.clientSocket(environment: [:], exists: { _ in false })
        == defaultSocketPath(environment: [:]))
    #expect(
      Paths.clientSocket(environment: ["REGISTER_SOCKET": "/x.sock"], exists: { _ in true })
        == "/x.sock")
  }

  @Test func offlineCommandsFindTheInstalledStateDirectory() {
    #expect(
      Paths.clientDataDirectory(environment: [:], exists: { $0 == "/var/lib/registerd" })
        == "/var/lib/registerd")
    #expect(
      Paths.clientDataDirectory(environment: [:], exists: { _ in true }) == ".registerd")
    #expect(Paths.clientDataDirectory(environment: [:], exists: { _ in false }) == ".registerd")
    #expect(
      Paths.clientDataDirectory(environment: ["REGISTER_DATA_DIR": "/d"], exists: { _ in true })
        == "/d")
  }
}
