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
    .executableTarget(name: "registerd", dependencies: ["RegisterEngine"]),
    .executableTarget(name: "register-cli", dependencies: ["RegisterEngine"]),
    .executableTarget(name: "register-bench", dependencies: ["RegisterEngine"]),
    .testTarget(name: "RegisterEngineTests", dependencies: ["RegisterEngine"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["RegisterEngine", "registerd", "register-cli"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
