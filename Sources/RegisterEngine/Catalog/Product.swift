/// One choice within an option group, and what it adds to (or takes off) the unit price.
public struct OptionChoice: Sendable, Equatable {
  public var name: String
  public var priceDelta: Money

  public init(name: String, priceDelta: Money) {
    self.name = name
    self.priceDelta = priceDelta
  }
}

/// A group of choices a product offers, such as a photo print's frame or size.
public struct OptionGroup: Sendable, Equatable {
  public var group: String
  public var required: Bool
  public var choices: [OptionChoice]

  public init(group: String, required: Bool, choices: [OptionChoice]) {
    self.group = group
    self.required = required
    self.choices = choices
  }

  public func choice(named name: String) -> OptionChoice? {
    choices.first { $0.name == name }
  }
}

/// How many units of a product another store of the chain has, so a cashier can send a
/// customer there when this lane has none.
public struct StoreStock: Sendable, Equatable {
  public var store: String
  public var units: Int64

  public init(store: String, units: Int64) {
    self.store = store
    self.units = units
  }
}

/// A product the register sells.
public struct Product: Sendable, Equatable {
  /// The most option groups a product may have, and choices a group may have: enough for any
  /// real product, and a bound on the work a hostile product can ask for.
  public static let maximumOptionGroups = 16
  public static let maximumOptionChoices = 64
  /// The most barcodes one product may carry (a product sold under several packagings or
  /// suppliers' codes has a few, never many).
  public static let maximumBarcodes = 16
  /// The most other stores a product may list its stock at.
  public static let maximumStores = 64

  public var sku: String
  public var name: String
  public var description: String
  public var category: String
  /// The regular shelf price.
  public var price: Money
  /// A sale price below the regular price, used instead of it while set.
  public var salePrice: Money?
  /// Units in stock; `nil` when the store does not track this product's stock.
  public var stock: Int64?
  /// The tax class; `nil` means the store's default class.
  public var taxClass: String?
  public var colors: [String]
  public var image: String?
  public var options: [OptionGroup]
  /// The barcodes a scanner reads off this product (EAN-13, UPC-A, EAN-8), as given.
  public var barcodes: [String]
  /// Selling it issues a gift card per unit, loaded with the unit price: a liability, not
  /// sales revenue (never taxed, discounted or counted in sales).
  public var giftCard: Bool
  /// A gift card whose amount the cashier gives on `add` (its `price` is 0), within
  /// `openAmountRange`.
  public var openAmount: Bool
  /// Units at the chain's other stores, in the order the catalog lists them (the seeds'
  /// `stores` dictionary). Informational: this lane sells only its own stock.
  public var stores: [StoreStock]

  public init(
    sku: String, name: String, description: String = "", category: String, price: Money,
    salePrice: Money? = nil, stock: Int64? = nil, taxClass: String? = nil,
    colors: [String] = [], image: String? = nil, options: [OptionGroup] = [],
    barcodes: [String] = [], giftCard: Bool = false, openAmount: Bool = false,
    stores: [StoreStock] = []
  ) {
    self.sku = sku
    self.name = name
    self.description = description
    self.category = category
    self.price = price
    self.salePrice = salePrice
    self.stock = stock
    self.taxClass = taxClass
    self.colors = colors
    self.image = image
    self.options = options
    self.barcodes = barcodes
    self.giftCard = giftCard
    self.openAmount = openAmount
    self.stores = stores
  }

  /// The amounts an open-amount gift card may be loaded with: 5 to 500 in the currency's major
  /// unit (5.00–500.00 dollars, 5–500 yen). Below, the card costs more to handle than it holds;
  /// above, a bearer card is too much cash to put in one number.
  public static func openAmountRange(_ currency: Currency) -> ClosedRange<Int64> {
    var unit: Int64 = 1
    for _ in 0..<currency.minorDigits { unit *= 10 }
    return 5 * unit...500 * unit
  }

  /// What one unit sells for before options: the sale price when there is one.
  public var unitPrice: Money { salePrice ?? price }

  /// The option group with this name.
  public func optionGroup(named name: String) -> OptionGroup? {
    options.first { $0.group == name }
  }
}
