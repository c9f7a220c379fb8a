import Foundation
import Testing

/// A program from outside the package that a test runs — groff, zsh, python3, strace,
/// PostgreSQL's — found on `PATH` (or in the few places a distribution keeps it off `PATH`).
///
/// A test that needs one says so with the trait `.requires(.groff)`: where the program is
/// missing the test is skipped with a message naming it and the package that has it, instead
/// of failing with `/usr/bin/env: 'groff': No such file or directory`. The list below is what
/// the full suite runs; README ("Development") names them and .ci/run installs them.
public struct ExternalProgram: Sendable, CustomStringConvertible {
  /// The command's name, as on `PATH`.
  public let name: String
  /// The Debian package that has it (what .ci/run installs).
  public let package: String
  /// Directories searched after `PATH`.
  public let otherDirectories: @Sendable () -> [String]

  public init(
    _ name: String, package: String,
    otherDirectories: @escaping @Sendable () -> [String] = { [] }
  ) {
    self.name = name
    self.package = package
    self.otherDirectories = otherDirectories
  }

  public var description: String { name }

  /// Where the program is: the first executable regular file named `name` in the directories
  /// of `searchPath` (a `PATH` value), then in `otherDirectories`; nil when there is none.
  public func path(searchPath: String?) -> String? {
    let directories =
      (searchPath ?? "").split(separator: ":", omittingEmptySubsequences: true).map(String.init)
      + otherDirectories()
    for directory in directories {
      let candidate = directory + "/" + name
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory),
        !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate)
      {
        return candidate
      }
    }
    return nil
  }

  /// Where the program is on this test process's `PATH`; nil when it is not installed.
  public var path: String? { path(searchPath: ProcessInfo.processInfo.environment["PATH"]) }

  /// True when the program is on this process's `PATH` (or in `otherDirectories`).
  public var isInstalled: Bool { path != nil }

  /// What a test that needs the program says when it is skipped.
  public var missingMessage: String {
    "needs \(name), which is not on PATH (Debian: apt-get install \(package); .ci/run installs it)"
  }

  /// The program, for `Process.executableURL`; throws `missingMessage` when it is not there.
  public func located() throws -> URL {
    guard let path else { throw Missing(description: missingMessage) }
    return URL(fileURLWithPath: path)
  }

  /// A program a test tried to run is not installed.
  public struct Missing: Error, CustomStringConvertible {
    public var description: String
  }
}

extension ExternalProgram {
  /// Renders the man pages (`groff -man -ww`).
  public static let groff = ExternalProgram("groff", package: "groff-base")
  /// Formats a page as a reader sees it (`man -l`).
  public static let man = ExternalProgram("man", package: "man-db")
  /// Loads and runs the bash completion.
  public static let bash = ExternalProgram("bash", package: "bash")
  /// Loads and runs the zsh completion.
  public static let zsh = ExternalProgram("zsh", package: "zsh")
  /// Reads the CSV export and the outbox's e-mail back with Python's own modules; makes a
  /// socket pair for the socket-activation tests.
  public static let python3 = ExternalProgram("python3", package: "python3")
  /// Gives register-cli a terminal of its own (util-linux's script(1)).
  public static let script = ExternalProgram("script", package: "bsdutils")
  /// Runs the lane screen in a terminal of a given size, types into it and reads the screen
  /// back (`send-keys`, `capture-pane`), as a person at the lane would.
  public static let tmux = ExternalProgram("tmux", package: "tmux")
  /// The reference SHA-256.
  public static let sha256sum = ExternalProgram("sha256sum", package: "coreutils")
  /// Mounts a small tmpfs for the full-disk test (and `umount` takes it away).
  public static let mount = ExternalProgram("mount", package: "mount")
  public static let umount = ExternalProgram("umount", package: "mount")
  /// Makes registerd's system calls fail on purpose (`-e inject=`).
  public static let strace = ExternalProgram("strace", package: "strace")
  /// Passes registerd a listening socket as systemd does.
  public static let systemdSocketActivate = ExternalProgram(
    "systemd-socket-activate", package: "systemd")
  /// Checks the units (`verify`) and what their sandbox allows (`security --offline`).
  public static let systemdAnalyze = ExternalProgram("systemd-analyze", package: "systemd")
  /// Makes a PostgreSQL cluster; Debian keeps it in /usr/lib/postgresql/VERSION/bin, off
  /// `PATH` (the newest version first).
  public static let initdb = ExternalProgram(
    "initdb", package: "postgresql", otherDirectories: postgresqlDirectories)
  /// Starts and stops a PostgreSQL server; next to initdb.
  public static let pgCtl = ExternalProgram(
    "pg_ctl", package: "postgresql", otherDirectories: postgresqlDirectories)
  /// PostgreSQL's client.
  public static let psql = ExternalProgram(
    "psql", package: "postgresql-client", otherDirectories: postgresqlDirectories)

  /// /usr/lib/postgresql/VERSION/bin, the newest version first.
  @Sendable static func postgresqlDirectories() -> [String] {
    let versions =
      (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
    return versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map {
      "/usr/lib/postgresql/\($0)/bin"
    }
  }
}

extension Tag {
  /// A test that runs a program from outside the package (`ExternalProgram`): it is skipped,
  /// with a message naming the Debian package, where the program is missing — except under
  /// `REGISTER_TESTS_NEED_ALL_PROGRAMS=1` (set by .ci/run), where it runs and fails.
  @Tag public static var outsideProgram: Self
}

extension Trait where Self == ConditionTrait {
  /// Runs the test only where every one of `programs` is installed; otherwise skips it with a
  /// message naming each one missing and its package. Where the environment says every
  /// program must be there (`REGISTER_TESTS_NEED_ALL_PROGRAMS=1`, as in CI), nothing is
  /// skipped: a missing program fails the test instead of hiding it.
  public static func requires(
    _ programs: ExternalProgram..., sourceLocation: SourceLocation = #_sourceLocation
  ) -> Self {
    requiring(
      programs,
      needAll: ProcessInfo.processInfo.environment["REGISTER_TESTS_NEED_ALL_PROGRAMS"] == "1",
      sourceLocation: sourceLocation)
  }

  /// `requires`, with whether every program must be there (`needAll`: nothing is skipped)
  /// given rather than read from the environment.
  public static func requiring(
    _ programs: [ExternalProgram], needAll: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Self {
    let missing = needAll ? [] : programs.filter { !$0.isInstalled }
    return .enabled(
      if: missing.isEmpty, Comment(rawValue: missing.map(\.missingMessage).joined(separator: "; ")),
      sourceLocation: sourceLocation)
  }
}
