// swift-tools-version: 6.0
import PackageDescription

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
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
    ),
    // The platform: sockets, the poll loop, journal files, the system clock and random.
    // System headers Swift's Glibc module leaves out (epoll), for RegisterServer.
    .target(name: "CPlatform"),
    .target(name: "RegisterServer", dependencies: ["RegisterEngine", "CPlatform"]),
    // The client: the line connection, and register-cli's command table, parsing and output.
    .target(name: "RegisterClient", dependencies: ["RegisterEngine", "RegisterServer"]),
    .executableTarget(name: "registerd", dependencies: ["RegisterEngine", "RegisterServer"]),
    .executableTarget(name: "register-cli", dependencies: ["RegisterClient", "RegisterServer"]),
    .executableTarget(
      name: "register-bench", dependencies: ["RegisterEngine", "RegisterServer", "RegisterClient"]),
    // The test client and its in-process transport, shared by the test targets.
    .target(
      name: "RegisterTestSupport",
      dependencies: ["RegisterEngine", "RegisterServer", "RegisterClient"],
      path: "Tests/RegisterTestSupport"
    ),
    .testTarget(
      name: "RegisterEngineTests",
      dependencies: ["RegisterEngine", "RegisterServer", "RegisterTestSupport"],
      exclude: ["Golden"]),
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
