/// How tax is rounded: once per tax class on the class subtotal, or on every line.
public enum TaxRounding: String, Sendable, Equatable, CaseIterable {
  case perTotal = "per_total"
  case perLine = "per_line"
}

/// The store's tax rules: named classes with rates, the class used when a product names none,
/// how to round, and whether shelf prices already include tax.
public struct TaxSettings: Sendable, Equatable {
  /// Classes in the order the catalog file lists them.
  public var classes: [(name: String, rate: Percent)]
  public var defaultClass: String
  public var rounding: TaxRounding
  public var pricesIncludeTax: Bool

  public init(
    classes: [(name: String, rate: Percent)], defaultClass: String,
    rounding: TaxRounding = .perTotal, pricesIncludeTax: Bool = false
  ) {
    self.classes = classes
    self.defaultClass = defaultClass
    self.rounding = rounding
    self.pricesIncludeTax = pricesIncludeTax
  }

  /// The rate of a class, or `nil` when there is no such class.
  public func rate(of name: String) -> Percent? {
    classes.first { $0.name == name }?.rate
  }

  public static func == (lhs: TaxSettings, rhs: TaxSettings) -> Bool {
    lhs.classes.map(\.name) == rhs.classes.map(\.name)
      && lhs.classes.map(\.rate) == rhs.classes.map(\.rate)
      && lhs.defaultClass == rhs.defaultClass && lhs.rounding == rhs.rounding
      && lhs.pricesIncludeTax == rhs.pricesIncludeTax
  }
}

/// Everything about the store that is not a product: what receipts print, the currency, tax,
/// cash rounding and the policies later features read.
public struct StoreSettings: Sendable, Equatable {
  public var name: String
  public var address: [String]
  public var phone: String?
  public var currency: Currency
  public var tax: TaxSettings
  /// Cash settlements are rounded to a multiple of this (e.g. 0.05); `nil` means no rounding.
  public var cashRounding: Money?
  public var receiptWidth: Int
  public var receiptFooter: String?
  /// A discount above this percentage of the amount it applies to needs a manager.
  public var discountApprovalLimit: Percent?
  /// Sign the operator out after each completed sale.
  public var autoSignOut: Bool
  /// PBKDF2 iterations for new PIN hashes.
  public var pinIterations: Int
  /// How long a lock after too many wrong PINs lasts, in minutes (from the journaled time of
  /// the wrong PIN that locked).
  public var lockoutMinutes: Int
  /// After this many minutes without a change made by the operator signed in, they are signed
  /// out (PCI DSS 8.2.8 asks for 15); 0: never.
  public var operatorIdleMinutes = StoreSettings.defaultOperatorIdleMinutes
  /// A return may be refunded in cash whatever the sale was paid with (`cash_refunds`); off,
  /// a sale paid by card, gift card, store credit or a store tender is refunded to those
  /// first (or to store credit), and only a cash sale in cash.
  public var cashRefunds = false
  /// Scanning (or `scan` of a SKU) what the open order's last line already holds adds one to
  /// that line's quantity (`scan_adds_to_line`); off, each scan is a line of its own.
  public var scanAddsToLine = false
  /// The From address of e-mailed receipts.
  public var emailFrom: String
  /// The store's own tenders, by name (`check`, `voucher`): taken with `{"type": "other",
  /// "name": …}`, never giving change.
  public var tenders: [String] = []
  /// The EAN-13 prefixes (two digits, 20–29) whose codes carry a price: `PP IIIII VVVVV C`, the
  /// item in IIIII and the price in minor units in VVVVV (see `Barcode.priceEmbedded`). Empty:
  /// every code is looked up as it is.
  public var priceBarcodePrefixes: [String] = []
  /// The receipt printer's code page (`printer_code_page`): what characters outside ASCII
  /// print as (see `CodePage`).
  public var printerCodePage = CodePage.cp437
  /// What the receipt's code prints as (`receipt_barcode`): Code 128 or QR.
  public var receiptBarcode = ReceiptBarcode.code128
  /// The receipt printer (`printer`; registerd's `--printer` overrides it): receipts print
  /// there as sales and returns complete, and the cash drawer on its port opens. Nil: none.
  public var printer: DeviceAddress?

  public init(
    name: String, address: [String], phone: String? = nil, currency: Currency,
    tax: TaxSettings, cashRounding: Money? = nil, receiptWidth: Int = 40,
    receiptFooter: String? = nil, discountApprovalLimit: Percent? = nil, autoSignOut: Bool = false,
    pinIterations: Int = StoreSettings.defaultPINIterations,
    lockoutMinutes: Int = StoreSettings.defaultLockoutMinutes,
    emailFrom: String = "receipts@localhost"
  ) {
    self.name = name
    self.address = address
    self.phone = phone
    self.currency = currency
    self.tax = tax
    self.cashRounding = cashRounding
    self.receiptWidth = receiptWidth
    self.receiptFooter = receiptFooter
    self.discountApprovalLimit = discountApprovalLimit
    self.autoSignOut = autoSignOut
    self.pinIterations = pinIterations
    self.lockoutMinutes = lockoutMinutes
    self.emailFrom = emailFrom
  }

  /// The default PBKDF2 iteration count for PIN hashes.
  public static let defaultPINIterations = 120_000

  /// How long a PIN lock lasts unless the store says otherwise.
  public static let defaultLockoutMinutes = 15

  /// How long an operator may be idle before being signed out, unless the store says otherwise.
  public static let defaultOperatorIdleMinutes = 15

  /// The idle times a store may set (0: never signed out for being idle; at most a day).
  public static let operatorIdleMinutesRange = 0...1440

  /// The shortest and longest PIN locks a store may set (a minute to a day).
  public static let lockoutMinutesRange = 1...1440

  /// The most store tenders a store may name.
  public static let maximumTenders = 16

  /// Why `name` cannot name a store tender, or nil when it can: 1–24 characters of lowercase
  /// letters, digits, `_` and `-`, starting with a letter, and not a built-in tender type.
  public static func tenderNameProblem(_ name: String) -> String? {
    let scalars = Array(name.unicodeScalars)
    guard (1...24).contains(scalars.count), let first = scalars.first, ("a"..."z").contains(first),
      scalars.allSatisfy({
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
      })
    else {
      return
        "a store tender name is 1 to 24 lowercase letters, digits, _ or -, starting with a letter"
    }
    if TenderType(rawValue: name) != nil {
      return "\"\(name)\" is a built-in tender type, not a store tender name"
    }
    return nil
  }

  /// The narrowest and widest receipts we print.
  public static let receiptWidths = 32...80
}
