import Foundation
import RegisterTestSupport
import Testing

/// The outside programs the tests run are found, and their absence skips a test, naming them.
@Suite("Outside programs the tests need")
struct ExternalProgramTests {
  /// A directory holding an executable `tool`, a plain file `data` and a directory `folder`.
  func toolbox() throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    let manager = FileManager.default
    #expect(
      manager.createFile(
        atPath: directory.path("tool"), contents: Data("#!/bin/sh\n".utf8),
        attributes: [.posixPermissions: 0o755]))
    #expect(
      manager.createFile(
        atPath: directory.path("data"), contents: Data(), attributes: [.posixPermissions: 0o644]))
    try manager.createDirectory(
      atPath: directory.path("folder"), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o755])
    return directory
  }

  @Test("found on PATH only as an executable file, in PATH's order, then in its other directories")
  func lookup() throws {
    let first = try toolbox()
    defer { first.cleanup() }
    let second = try toolbox()
    defer { second.cleanup() }
    let tool = ExternalProgram("tool", package: "tools")
    #expect(tool.path(searchPath: "/nonexistent:\(first.url.path)") == first.path("tool"))
    #expect(tool.path(searchPath: "\(second.url.path):\(first.url.path)") == second.path("tool"))
    #expect(tool.path(searchPath: "/nonexistent") == nil)
    #expect(tool.path(searchPath: "") == nil)
    #expect(tool.path(searchPath: nil) == nil)
    // A file that is not executable and a directory are not the program.
    for name in ["data", "folder"] {
      #expect(ExternalProgram(name, package: "x").path(searchPath: first.url.path) == nil)
    }
    let elsewhere = ExternalProgram("tool", package: "tools") { [second.url.path] }
    #expect(elsewhere.path(searchPath: "/nonexistent") == second.path("tool"))
    #expect(elsewhere.path(searchPath: first.url.path) == first.path("tool"))
  }

  @Test("a missing program skips the test with a message naming it and its package")
  func missingProgramSkips() async throws {
    let missing = ExternalProgram(
      "no-such-program-\(UUID().uuidString.prefix(8))", package: "nowhere")
    #expect(!missing.isInstalled)
    #expect(
      missing.missingMessage
        == "needs \(missing.name), which is not on PATH (Debian: apt-get install nowhere; .ci/run installs it)"
    )
    #expect(throws: ExternalProgram.Missing.self) { try missing.located() }
    let present = ExternalProgram("sh", package: "dash")
    #expect(present.isInstalled)
    #expect(try present.located().lastPathComponent == "sh")

    let skipped: ConditionTrait = .requiring([present, missing], needAll: false)
    #expect(try await skipped.evaluate() == false)
    #expect(skipped.comments.map(\.rawValue) == [missing.missingMessage])
    let runs: ConditionTrait = .requiring([present], needAll: false)
    #expect(try await runs.evaluate() == true)
    // Where every program must be there (CI), a missing one is not skipped: the test runs and
    // fails on it, so a machine without it cannot pass by skipping.
    let needed: ConditionTrait = .requiring([present, missing], needAll: true)
    #expect(try await needed.evaluate() == true)
  }

  /// The base system's programs, which every machine that builds Swift has; anything else a
  /// test runs is an `ExternalProgram` (found on PATH, its test skipped when it is missing).
  static let baseSystem: Set<String> = ["sh", "true", "cp", "chown", "timeout", "runuser"]

  @Test("tests start outside programs only through ExternalProgram, never by a fixed path or env")
  func noProgramByFixedPath() throws {
    let tests = Binaries.repository.appendingPathComponent("Tests")
    let files =
      FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String }.filter {
        $0.hasSuffix(".swift")
      } ?? []
    #expect(files.count > 20)
    // A string literal that is a path into a bin directory: "/usr/bin/NAME", "/bin/NAME", …
    let pattern = try Regex(#""/(?:usr/(?:local/)?)?s?bin/([A-Za-z0-9_.+-]+)""#)
    var offenders: [String] = []
    for file in files where !#filePath.hasSuffix("/" + file) {
      let text = try String(
        contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
      for match in text.matches(of: pattern) {
        let name = match.output[1].substring.map(String.init) ?? ""
        if !Self.baseSystem.contains(name) { offenders.append("\(file): \(text[match.range])") }
      }
    }
    #expect(offenders.isEmpty, "use ExternalProgram (and .requires) for: \(offenders)")
  }
}
