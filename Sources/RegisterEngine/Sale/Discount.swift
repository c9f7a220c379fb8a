/// A discount's size: a percentage of what it applies to, or a fixed amount.
public enum DiscountValue: Sendable, Equatable {
  case percent(Percent)
  case amount(Money)

  /// Why this cannot be a discount (nil: it can): a percentage is more than 0 and at most 100,
  /// an amount more than 0. `decide` refuses such a request with it, and a journal record or a
  /// snapshot that holds such a discount is refused with it: the register never holds one.
  var problem: String? {
    switch self {
    case .percent(let percent):
      percent > .zero && percent <= .hundred
        ? nil : "a discount percentage must be more than 0 and at most 100"
    case .amount(let amount):
      amount.minorUnits > 0 ? nil : "a discount amount must be more than 0"
    }
  }
}

/// A discount on a line or on the whole order, with the reason the cashier gave.
public struct Discount: Sendable, Equatable {
  public var value: DiscountValue
  public var reason: String

  public init(value: DiscountValue, reason: String) {
    self.value = value
    self.reason = reason
  }

  /// What the discount takes off `base` (minor units), rounded half away from zero.
  func amount(of base: Int64) throws(ArithmeticOverflow) -> Int64 {
    switch value {
    case .percent(let percent): try percent.of(base)
    case .amount(let money): money.minorUnits
    }
  }

  /// "10%" or "5.00", for receipts.
  public var label: String {
    switch value {
    case .percent(let percent): "\(percent.decimalString)%"
    case .amount(let money): money.decimalString
    }
  }
}

/// A cashier's replacement for a line's unit price, with the reason.
public struct PriceOverride: Sendable, Equatable {
  public var unitPrice: Money
  public var reason: String

  public init(unitPrice: Money, reason: String) {
    self.unitPrice = unitPrice
    self.reason = reason
  }
}
