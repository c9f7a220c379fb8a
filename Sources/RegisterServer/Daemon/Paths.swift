#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where registerd's files are when no flag or variable names them.
///
/// Two layouts. Run from a source checkout (a `Data/products.json` in the current directory),
/// the repository's own: the catalog there, the data in `.registerd`, the socket in the user's
/// runtime directory. Installed (its catalog in the configuration directory), the system's:
/// configuration in `/etc/registerd`, state in `/var/lib/registerd`, the socket in
/// `/run/registerd` — or the directories the service manager gives (`CONFIGURATION_DIRECTORY`,
/// `STATE_DIRECTORY`, `RUNTIME_DIRECTORY`, set by systemd for `ConfigurationDirectory=` and the
/// like). Flags and `REGISTER_*` variables override either.
package enum Paths {
  package static let configurationDirectory = "/etc/registerd"
  package static let stateDirectory = "/var/lib/registerd"
  package static let runtimeDirectory = "/run/registerd"
  package static let socketName = "registerd.sock"
  package static let catalogName = "products.json"
  package static let storeName = "store.json"
  package static let repositoryCatalog = "Data/products.json"
  package static let repositoryDataDirectory = ".registerd"

  /// The first directory a systemd directory variable names (it lists several as "a:b"), or nil
  /// when it is unset or empty.
  package static func serviceDirectory(_ name: String, in environment: [String: String])
    -> String?
  {
    guard let value = environment[name],
      let first = value.split(separator: ":", omittingEmptySubsequences: true).first
    else { return nil }
    return String(first)
  }

  /// The configuration directory: the service manager's, else /etc/registerd.
  package static func configuration(in environment: [String: String]) -> String {
    serviceDirectory("CONFIGURATION_DIRECTORY", in: environment) ?? configurationDirectory
  }

  /// The socket a client connects to when none is named: `$REGISTER_SOCKET`, else the first of
  /// the places a daemon listens by default that has something there (the user's runtime
  /// directory, /tmp, an installed daemon's /run/registerd), else where a daemon run by this
  /// user would listen.
  package static func clientSocket(
    environment: [String: String], exists: (String) -> Bool = FileIO.exists
  ) -> String {
    if let path = environment["REGISTER_SOCKET"], !path.isEmpty { return path }
    var candidates: [String] = []
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
      candidates.append(runtime + "/" + socketName)
    }
    candidates.append(userSocket)
    candidates.append(runtimeDirectory + "/" + socketName)
    return candidates.first(where: exists) ?? defaultSocketPath(environment: environment)
  }

  /// The data directory offline commands (verify, replay, backup, …) read when none is named:
  /// `$REGISTER_DATA_DIR`, else `.registerd` here, else an installed daemon's state directory
  /// when it exists, else `.registerd`.
  package static func clientDataDirectory(
    environment: [String: String], exists: (String) -> Bool = FileIO.exists
  ) -> String {
    if let directory = environment["REGISTER_DATA_DIR"], !directory.isEmpty { return directory }
    if exists(repositoryDataDirectory) { return repositoryDataDirectory }
    let installed = serviceDirectory("STATE_DIRECTORY", in: environment) ?? stateDirectory
    return exists(installed) ? installed : repositoryDataDirectory
  }

  /// /tmp/registerd-UID.sock: where a daemon run by this user listens when it has no runtime
  /// directory.
  static var userSocket: String { "/tmp/registerd-\(getuid()).sock" }

  /// The real path of a directory the service manager named: with `DynamicUser=` systemd
  /// gives /var/lib/registerd as a link into /var/lib/private, and registerd refuses links for
  /// the files it writes. The service manager is trusted to name its own directories; any
  /// other link is still refused.
  static func resolved(_ path: String) -> String {
    guard let real = realpath(path, nil) else { return path }
    defer { free(real) }
    return String(cString: real)
  }
}
