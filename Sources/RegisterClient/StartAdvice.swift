import RegisterServer

/// What register-cli tells a user whose registerd does not answer: how to start one where
/// they are. In a source checkout (its `Package.swift` and `Data/products.json` in the current
/// directory) that is `swift run registerd`; anywhere else registerd is an installed program,
/// started by systemd or by hand — and an installed register-cli has no checkout to point at.
package enum StartAdvice {
  /// The advice, with `exists` telling whether a path exists (relative to the current
  /// directory).
  package static func text(exists: (String) -> Bool = FileIO.exists) -> String {
    if exists("Package.swift") && exists(Paths.repositoryCatalog) {
      return "Start it with `swift run registerd` or pass --socket PATH"
    }
    return
      "Start it with `systemctl start registerd.socket` (installed with systemd) or `registerd`, or pass --socket PATH"
  }
}
