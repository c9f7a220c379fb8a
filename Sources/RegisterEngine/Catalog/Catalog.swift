/// The store settings and the products, as read from the catalog file.
public struct Catalog: Sendable, Equatable {
  public var store: StoreSettings
  public var products: [Product]
  /// The catalog file's `promotions` (see `Promotion`).
  public var promotions: [Promotion]

  public init(store: StoreSettings, products: [Product], promotions: [Promotion] = []) {
    self.store = store
    self.products = products
    self.promotions = promotions
  }
}

/// A catalog that could not be read or is not valid: which file, which product, which field.
public struct CatalogError: Error, Equatable, CustomStringConvertible {
  public var file: String
  public var message: String

  public init(file: String, message: String) {
    self.file = file
    self.message = message
  }

  public var description: String { "\(file): \(message)" }
}
