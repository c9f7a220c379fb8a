import RegisterEngine
import Testing

/// An amount in US dollars (the test stores' currency) from its decimal text, "20.00". A
/// negative amount can be written, for the requests that must be refused for one.
/// (RegisterEngineTests has its own: a public one in RegisterTestSupport would clash with its
/// files' private `usd(_ cents:)` helpers.)
func usd(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Money {
  do {
    return try Money.parse(text, currency: .usd, allowNegative: true)
  } catch {
    Issue.record("\(text) is no amount: \(error)", sourceLocation: sourceLocation)
    return .zero(.usd)
  }
}

/// A percentage from its decimal text, "12.5".
func percent(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Percent {
  do {
    return try Percent.parse(text)
  } catch {
    Issue.record("\(text) is no percentage: \(error)", sourceLocation: sourceLocation)
    return .zero
  }
}
