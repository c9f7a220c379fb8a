import Foundation
import RegisterTestSupport
import Testing

/// register-cli with no registerd to talk to says how to start one where it is run.
@Suite("register-cli when registerd does not answer")
struct UnreachableEndToEndTests {
  /// register-cli run in `directory` against a socket nobody listens on.
  func unreachable(in directory: String) throws -> CLIResult {
    try runProgram(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c", "cd \"$1\" && exec \"$2\" --socket \"$1/none.sock\" show", "sh", directory,
        Binaries.registerCLI.path,
      ])
  }

  @Test("outside a checkout it names how an installed registerd is started, not swift run")
  func outsideACheckout() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let result = try unreachable(in: directory.url.path)
    #expect(result.status == 3, "\(result.stderr)")
    #expect(result.stderr.contains("cannot reach registerd at \(directory.path("none.sock"))"))
    #expect(result.stderr.contains("`systemctl start registerd.socket`"), "\(result.stderr)")
    #expect(!result.stderr.contains("swift run"), "\(result.stderr)")
  }

  @Test("in the source checkout it says swift run registerd")
  func inTheCheckout() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    try FileManager.default.createDirectory(
      atPath: directory.path("Data"), withIntermediateDirectories: false)
    for file in ["Package.swift", "Data/products.json"] {
      try FileManager.default.copyItem(
        atPath: Binaries.repository.appendingPathComponent(file).path,
        toPath: directory.path(file))
    }
    let result = try unreachable(in: directory.url.path)
    #expect(result.status == 3, "\(result.stderr)")
    #expect(result.stderr.contains("Start it with `swift run registerd`"), "\(result.stderr)")
  }
}
