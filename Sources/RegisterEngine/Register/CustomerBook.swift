/// The store's customers and the number the next one gets.
public struct CustomerBook: Sendable, Equatable {
  /// Customers in the order they were added.
  public internal(set) var customers: [Customer]
  public internal(set) var nextCustomerNumber: Int

  init() {
    customers = []
    nextCustomerNumber = 1
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
}
