/// A failed system call: which one, on what, and errno's text.
///
/// The engine does no system calls; it declares this so that the journal's storage (which the
/// platform layer provides) can report a failure the engine then acts on: the register is
/// rebuilt from what is durable and takes no change until a write succeeds again.
/// RegisterServer makes these from `errno`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  public var operation: String
  public var path: String?
  public var code: Int32
  /// errno's text for `code` (`strerror`), read when the error was made.
  public var reason: String

  public init(_ operation: String, path: String? = nil, code: Int32, reason: String) {
    self.operation = operation
    self.path = path
    self.code = code
    self.reason = reason
  }

  public var description: String {
    if let path { return "\(operation) \(path): \(reason)" }
    return "\(operation): \(reason)"
  }
}
