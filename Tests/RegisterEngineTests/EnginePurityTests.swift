import Foundation
import Testing

/// The engine is pure: no platform module, so no file, socket, clock or random access (the
/// compiler refuses any Glibc symbol without the import). These tests keep the import out;
/// the platform lives in RegisterServer.
@Suite struct EnginePurityTests {
  /// Sources/RegisterEngine, found from this file's path.
  static let engineSources: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/Sources/RegisterEngine"
  }()

  /// Modules that reach the operating system (or, for Dispatch, start threads of their own).
  static let platformModules = [
    "Glibc", "Musl", "Darwin", "Bionic", "Android", "WASILibc", "WinSDK", "ucrt", "CRT",
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch",
  ]

  /// Why `line` breaks the engine's purity, or nil: an import of a platform module (in any
  /// form: `@testable`, an access level, `import func Glibc.open`), a `canImport` test for
  /// one, or `@_silgen_name` (which binds a C symbol without any import).
  static func violation(in line: Substring) -> String? {
    let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0]
    var words = code.split(whereSeparator: { $0 == " " || $0 == "\t" })
    if code.contains("@_silgen_name") { return "@_silgen_name binds a C symbol" }
    for module in platformModules where code.contains("canImport(\(module))") {
      return "canImport(\(module))"
    }
    while let first = words.first, first.hasPrefix("@") || accessLevels.contains(first) {
      words.removeFirst()
    }
    guard words.first == "import", words.count >= 2 else { return nil }
    let path = words.count >= 3 && importKinds.contains(words[1]) ? words[2] : words[1]
    let module = path.split(separator: ".")[0]
    return platformModules.contains(String(module)) ? "import \(module)" : nil
  }

  private static let accessLevels: Set<Substring> = [
    "public", "package", "internal", "fileprivate", "private",
  ]
  private static let importKinds: Set<Substring> = [
    "typealias", "struct", "class", "enum", "protocol", "let", "var", "func",
  ]

  @Test func theEngineImportsNoPlatformModule() throws {
    let files = try FileManager.default.subpathsOfDirectory(atPath: Self.engineSources)
      .filter { $0.hasSuffix(".swift") }
    // Not vacuous: the engine's sources are there to be read.
    #expect(files.count > 50)
    var found: [String] = []
    for file in files {
      let text = try String(contentsOfFile: Self.engineSources + "/" + file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated()
      {
        if let violation = Self.violation(in: line) {
          found.append("Sources/RegisterEngine/\(file):\(number + 1): \(violation)")
        }
      }
    }
    #expect(found == [], "the engine must stay pure; move platform code to RegisterServer")
  }

  @Test(arguments: [
    "import Glibc",
    "  import Darwin",
    "import Foundation",
    "@preconcurrency import Dispatch",
    "public import Foundation",
    "@testable internal import Musl",
    "import func Glibc.open",
    "import struct Darwin.stat",
    "import FoundationEssentials",
    "#if canImport(Glibc)",
    "#elseif canImport(Darwin)",
    "@_silgen_name(\"open\") func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32",
  ])
  func aPlatformImportIsCaught(line: String) {
    #expect(Self.violation(in: Substring(line)) != nil)
  }

  @Test(arguments: [
    "import Synchronization",
    "import RegisterEngine",
    "// import Glibc is what the server does",
    "/// RegisterServer imports Foundation? No: Glibc.",
    "let imported = \"import\"",
    "import GlibcHelpers",
  ])
  func otherLinesPass(line: String) {
    #expect(Self.violation(in: Substring(line)) == nil)
  }
}
