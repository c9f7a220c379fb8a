/// The store's customers, their wishlists and the number the next customer gets.
public struct CustomerBook: Sendable, Equatable {
  /// The most products one customer's wishlist holds: a long list is a catalog, and every
  /// entry is state the register keeps for years.
  public static let maximumWishlist = 100

  /// Customers in the order they were added.
  public internal(set) var customers: [Customer]
  public internal(set) var nextCustomerNumber: Int
  /// Each customer's wishlist: SKUs in the order they were put on it (customers without one
  /// are absent).
  public internal(set) var wishlists: [String: [String]]

  init() {
    customers = []
    nextCustomerNumber = 1
    wishlists = [:]
  }

  /// Folds an event the register admits into the customers.
  mutating func apply(_ event: Event) {
    switch event {
    case .customerAdded(let customer):
      customers.append(customer)
      if let number = Int(customer.id.dropFirst()), customer.id.hasPrefix("C"),
        number < IntegerRanges.maximumCounter
      {
        nextCustomerNumber = max(nextCustomerNumber, number + 1)
      }
    case .wishlistAdded(let customerID, let sku):
      // `decide` adds only to a known customer's list, once, within the bound; a journal that
      // says otherwise changes nothing.
      var list = wishlists[customerID] ?? []
      guard customer(customerID) != nil, !list.contains(sku), list.count < Self.maximumWishlist
      else { return }
      list.append(sku)
      wishlists[customerID] = list
    case .wishlistRemoved(let customerID, let sku, _):
      guard var list = wishlists[customerID], let index = list.firstIndex(of: sku) else { return }
      list.remove(at: index)
      wishlists[customerID] = list.isEmpty ? nil : list
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .saleCompleted, .lineVoided, .orderVoided, .orderParked,
      .orderResumed, .returnCompleted, .operatorAdded, .operatorRemoved, .operatorPINSet,
      .operatorUnlocked, .pinFailed, .pinAccepted, .signedIn, .signedOut, .customerAttached,
      .customerDetached,
      .productAdded, .productUpdated, .productRemoved, .stockAdjusted, .floatSet, .paidIn, .paidOut,
      .noSale, .receiptEmailed, .dayClosed, .printQueued, .printDone:
      return
    }
  }

  /// The customer with this id.
  func customer(_ id: String) -> Customer? {
    customers.first { $0.id == id }
  }

  /// The SKUs on a customer's wishlist, oldest first.
  func wishlist(_ customerID: String) -> [String] {
    wishlists[customerID] ?? []
  }
}
