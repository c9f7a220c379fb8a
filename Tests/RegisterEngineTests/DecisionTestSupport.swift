@testable import RegisterEngine

extension Decision {
  /// The accepted events, or the rejection thrown: for tests that only look at one outcome.
  func accepted() throws(RegisterError) -> [Event] {
    switch self {
    case .accepted(let events, _): return events
    case .rejected(let error, _): throw error
    }
  }
}
