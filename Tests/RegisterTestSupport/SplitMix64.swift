/// SplitMix64: a tiny deterministic random generator for tests. The same seed gives the same
/// numbers on every platform, so a failing seed printed by a test reproduces the failure.
public struct SplitMix64: RandomNumberGenerator {
  public private(set) var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// A number in `0..<bound` (bound > 0; the modulo bias is irrelevant at test sizes).
  public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  /// One of `items` (not empty).
  public mutating func pick<Element>(_ items: [Element]) -> Element { items[below(items.count)] }
}
