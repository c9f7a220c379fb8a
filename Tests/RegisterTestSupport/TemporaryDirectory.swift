import Foundation

/// A new, empty directory under the system's temporary directory for a test, named `PREFIX-`
/// and a random UUID; the test removes it.
public func makeTemporaryDirectory(prefix: String = "register-tests") throws -> String {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url.path
}
