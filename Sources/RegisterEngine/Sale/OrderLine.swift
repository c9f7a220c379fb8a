/// A chosen product option and what it added to the unit price.
public struct ChosenOption: Sendable, Equatable {
  public var group: String
  public var choice: String
  public var priceDelta: Money

  public init(group: String, choice: String, priceDelta: Money) {
    self.group = group
    self.choice = choice
    self.priceDelta = priceDelta
  }
}

/// One scanned line of an order. It carries every price fact it was sold at, so receipts and
/// replays never look at the (possibly edited) catalog again.
public struct OrderLine: Sendable, Equatable {
  /// The line's number within its order; never reused, so it stays a stable reference.
  public var line: Int
  public var sku: String
  public var name: String
  public var quantity: Int64
  /// The unit price charged when the line was added: sale price (if any) plus option deltas.
  public var unitPrice: Money
  /// The regular unit price: regular price plus option deltas.
  public var regularPrice: Money
  public var taxClass: String
  public var taxRate: Percent
  public var options: [ChosenOption]
  public var override: PriceOverride?
  public var discount: Discount?
  public var voided: Bool
  /// The line sells gift cards (one per unit, loaded with the unit price): not merchandise,
  /// so not in the subtotal, not discounted and not taxed.
  public var giftCard: Bool
  /// For a gift-card line that loads value onto a card already issued (a reload),
  /// that card's number; nil for a line that sells new cards. A reload line is one unit.
  public var reloads: String?

  public init(
    line: Int, sku: String, name: String, quantity: Int64, unitPrice: Money,
    regularPrice: Money, taxClass: String, taxRate: Percent, options: [ChosenOption] = [],
    override: PriceOverride? = nil, discount: Discount? = nil, voided: Bool = false,
    giftCard: Bool = false, reloads: String? = nil
  ) {
    self.line = line
    self.sku = sku
    self.name = name
    self.quantity = quantity
    self.unitPrice = unitPrice
    self.regularPrice = regularPrice
    self.taxClass = taxClass
    self.taxRate = taxRate
    self.options = options
    self.override = override
    self.discount = discount
    self.voided = voided
    self.giftCard = giftCard
    self.reloads = reloads
  }

  /// The unit price that counts: the override when there is one.
  public var chargedUnitPrice: Money { override?.unitPrice ?? unitPrice }

  /// True when a sale price (not an override) brought the price below the regular price.
  public var isOnSale: Bool { override == nil && unitPrice < regularPrice }
}
