/// An arithmetic result that does not fit in 64 bits. Money never wraps around.
public struct ArithmeticOverflow: Error, Equatable, CustomStringConvertible {
  public init() {}
  public var description: String { "amount too large" }
}

/// Checked integer arithmetic for minor units: overflow is an error, never a wrap.
public enum Checked {
  public static func add(_ lhs: Int64, _ rhs: Int64) throws(ArithmeticOverflow) -> Int64 {
    let (value, overflow) = lhs.addingReportingOverflow(rhs)
    if overflow { throw ArithmeticOverflow() }
    return value
  }

  public static func subtract(_ lhs: Int64, _ rhs: Int64) throws(ArithmeticOverflow) -> Int64 {
    let (value, overflow) = lhs.subtractingReportingOverflow(rhs)
    if overflow { throw ArithmeticOverflow() }
    return value
  }

  public static func multiply(_ lhs: Int64, _ rhs: Int64) throws(ArithmeticOverflow) -> Int64 {
    let (value, overflow) = lhs.multipliedReportingOverflow(by: rhs)
    if overflow { throw ArithmeticOverflow() }
    return value
  }

  /// `lhs + rhs`, held at the nearest bound instead of wrapping. For `apply`, which cannot
  /// fail: `decide` has refused any change that would overflow, so only a journal that lies
  /// (yet passes its checksums) can get here, and its totals must not turn negative.
  public static func saturatingAdd(_ lhs: Int64, _ rhs: Int64) -> Int64 {
    let (value, overflow) = lhs.addingReportingOverflow(rhs)
    guard overflow else { return value }
    return rhs > 0 ? .max : .min
  }

  /// `lhs - rhs`, held at the nearest bound instead of wrapping (see `saturatingAdd`).
  public static func saturatingSubtract(_ lhs: Int64, _ rhs: Int64) -> Int64 {
    let (value, overflow) = lhs.subtractingReportingOverflow(rhs)
    guard overflow else { return value }
    return rhs < 0 ? .max : .min
  }

  /// `lhs × rhs`, held at the nearest bound instead of wrapping (see `saturatingAdd`).
  public static func saturatingMultiply(_ lhs: Int64, _ rhs: Int64) -> Int64 {
    let (value, overflow) = lhs.multipliedReportingOverflow(by: rhs)
    guard overflow else { return value }
    return (lhs < 0) == (rhs < 0) ? .max : .min
  }

  /// The sum of `values`, held at the nearest bound instead of wrapping (see `saturatingAdd`).
  public static func saturatingSum(_ values: some Sequence<Int64>) -> Int64 {
    values.reduce(0, saturatingAdd)
  }

  /// The sum of `values`, checked.
  public static func sum(_ values: some Sequence<Int64>) throws(ArithmeticOverflow) -> Int64 {
    var total: Int64 = 0
    for value in values { total = try add(total, value) }
    return total
  }

  /// `numerator / denominator` rounded half away from zero. A denominator that is not positive
  /// cannot come from a validated rate; it is reported like an overflow rather than trapping.
  public static func divideRoundingHalfAwayFromZero(
    _ numerator: Int128, _ denominator: Int128
  ) throws(ArithmeticOverflow) -> Int64 {
    guard denominator > 0 else { throw ArithmeticOverflow() }
    var quotient = numerator / denominator
    let remainder = numerator % denominator
    let twice = remainder.magnitude * 2
    if twice >= denominator.magnitude {
      quotient += numerator < 0 ? -1 : 1
    }
    guard let result = Int64(exactly: quotient) else { throw ArithmeticOverflow() }
    return result
  }

  /// `value` rounded to a multiple of `increment`, halves going up (towards +infinity).
  public static func roundHalfUp(_ value: Int64, toMultipleOf increment: Int64)
    throws(ArithmeticOverflow) -> Int64
  {
    guard increment > 0 else { throw ArithmeticOverflow() }
    let wide = Int128(value)
    let step = Int128(increment)
    var floor = wide / step
    if wide % step < 0 { floor -= 1 }
    let remainder = wide - floor * step
    let rounded = remainder * 2 >= step ? (floor + 1) * step : floor * step
    guard let result = Int64(exactly: rounded) else { throw ArithmeticOverflow() }
    return result
  }
}
