// swift-tools-version: 6.0
import PackageDescription

/// Release builds leave out Swift's run-time exclusivity checks (a thread-local record of
/// every access to a class's stored property, a global or an escaping closure's captures, made
/// and searched on each access): on the daemon's request path they were about 7 % of its CPU
/// (docs/PERFORMANCE.md). The compile-time checks stay, and debug builds (so every
/// test, the end-to-end ones included) keep the run-time ones. `-Ounchecked` is not used:
/// arithmetic overflow must still trap (money is checked arithmetic).
let releaseSettings: [SwiftSetting] = [
  .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
  name: "registerd",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "RegisterEngine", targets: ["RegisterEngine"]),
    .executable(name: "registerd", targets: ["registerd"]),
    .executable(name: "register-cli", targets: ["register-cli"]),
  ],
  targets: [
    .target(
      name: "RegisterEngine",
      dependencies: ["CSHA256"],
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))] + releaseSettings
    ),
    // SHA-256's compression on the CPU's SHA extensions, for the engine's SHA256: computation
    // only (cpuid and the instructions), no I/O. Optimized in debug builds too, as the engine is.
    .target(
      name: "CSHA256",
      cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]
    ),
    // The platform: sockets, the poll loop, journal files, the system clock and random.
    // System headers Swift's Glibc module leaves out (epoll), for RegisterServer.
    .target(name: "CPlatform"),
    .target(
      name: "RegisterServer", dependencies: ["RegisterEngine", "CPlatform"],
      swiftSettings: releaseSettings),
    // The client: the line connection, and register-cli's command table, parsing and output.
    .target(
      name: "RegisterClient", dependencies: ["RegisterEngine", "RegisterServer", "CPlatform"],
      swiftSettings: releaseSettings),
    .executableTarget(
      name: "registerd", dependencies: ["RegisterEngine", "RegisterServer"],
      swiftSettings: releaseSettings),
    .executableTarget(
      name: "register-cli", dependencies: ["RegisterClient", "RegisterServer"],
      swiftSettings: releaseSettings),
    .executableTarget(
      name: "register-bench", dependencies: ["RegisterEngine", "RegisterServer", "RegisterClient"],
      swiftSettings: releaseSettings),
    // The test client and its in-process transport, shared by the test targets.
    .target(
      name: "RegisterTestSupport",
      dependencies: ["RegisterEngine", "RegisterServer", "RegisterClient"],
      path: "Tests/RegisterTestSupport"
    ),
    .testTarget(
      name: "RegisterEngineTests",
      dependencies: ["RegisterEngine", "CSHA256", "RegisterServer", "RegisterTestSupport"],
      exclude: ["Golden"]),
    .testTarget(
      name: "RegisterServerTests",
      dependencies: ["RegisterServer", "RegisterEngine", "RegisterTestSupport"]),
    .testTarget(name: "RegisterClientTests", dependencies: ["RegisterClient", "RegisterEngine"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "RegisterEngine", "RegisterServer", "RegisterClient", "RegisterTestSupport", "registerd",
        "register-cli", "register-bench",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
