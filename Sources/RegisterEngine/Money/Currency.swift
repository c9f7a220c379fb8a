/// An ISO 4217 currency and how many minor digits it has (USD: 2, JPY: 0, KWD: 3).
public struct Currency: Hashable, Sendable, CustomStringConvertible {
  public let code: String
  public let minorDigits: Int

  /// The currencies the register knows, by code.
  public static let known: [String: Int] = [
    "USD": 2, "CAD": 2, "EUR": 2, "GBP": 2, "AUD": 2, "NZD": 2, "CHF": 2, "MXN": 2,
    "SEK": 2, "NOK": 2, "DKK": 2, "INR": 2, "CNY": 2, "HKD": 2, "SGD": 2, "ZAR": 2,
    "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0, "KWD": 3, "BHD": 3, "JOD": 3, "OMR": 3, "TND": 3,
  ]

  /// US dollars.
  public static let usd = Currency(uncheckedCode: "USD", minorDigits: 2)

  /// The currency with this code, or `nil` when the register does not know it.
  public init?(code: String) {
    guard let digits = Self.known[code] else { return nil }
    self.code = code
    self.minorDigits = digits
  }

  init(uncheckedCode code: String, minorDigits: Int) {
    self.code = code
    self.minorDigits = minorDigits
  }

  /// 10 to the power of `minorDigits`: minor units per major unit.
  public var scale: Int64 {
    var result: Int64 = 1
    for _ in 0..<minorDigits { result *= 10 }
    return result
  }

  public var description: String { code }
}
