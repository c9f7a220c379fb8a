/// What a receipt prints about the store, as it was when the sale was made.
public struct ReceiptHeader: Sendable, Equatable {
  public var storeName: String
  public var address: [String]
  public var phone: String?
  public var footer: String?
  public var width: Int
  public var taxIncluded: Bool
  /// Tax was rounded on each line (rather than per class total).
  public var taxPerLine: Bool

  public init(store: StoreSettings) {
    storeName = store.name
    address = store.address
    phone = store.phone
    footer = store.receiptFooter
    width = store.receiptWidth
    taxIncluded = store.tax.pricesIncludeTax
    taxPerLine = store.tax.rounding == .perLine
  }
}

/// A completed sale: everything its receipt shows, fixed at the moment it was paid.
public struct CompletedSale: Sendable, Equatable {
  public var receiptNumber: Int
  public var day: Int
  public var at: Timestamp
  public var order: Order
  public var totals: OrderTotals
  /// The cash rounding adjustment (negative when rounded down).
  public var cashRounding: Money
  public var change: Money
  public var header: ReceiptHeader
  public var currency: Currency
  public var operatorName: String?
  public var customer: CustomerRef?
  /// The gift cards the sale issued (their numbers print on this receipt only).
  public var giftCards: [IssuedGiftCard] = []
  /// The promotions that applied, as defined when the sale was made (a category resolved to
  /// the SKUs of the sale's lines in it): a return re-evaluates them on what the customer keeps,
  /// whatever the catalog says later.
  public var promotions: [Promotion] = []

  /// What the customer paid in the end: total plus the cash rounding.
  public var amountDue: Money {
    Money(
      minorUnits: Checked.saturatingAdd(totals.total, cashRounding.minorUnits), currency: currency)
  }
}

/// The customer a receipt names.
public struct CustomerRef: Sendable, Equatable {
  public var id: String
  public var name: String

  public init(id: String, name: String) {
    self.id = id
    self.name = name
  }
}
