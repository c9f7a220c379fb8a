/// The store's customers, their wishlists and the number the next customer gets.
///
/// Customers are found by id and by e-mail address through indexes kept beside the list, not
/// by scanning it: a sale to a customer, an attach and each `customer_add`'s check for a taken
/// address would otherwise cost a pass over up to `Register.maximumCustomers` customers. The
/// list and the indexes are chunked (`ChunkedArray`, `ChunkedDictionary`, `CustomerSearch`'s
/// pages), so a `customer_add` copies a chunk of each while a copy of the register is held (a
/// snapshot being written, a reply worked out off the loop), not the whole book.
public struct CustomerBook: Sendable, Equatable {
  /// The most products one customer's wishlist holds: a long list is a catalog, and every
  /// entry is state the register keeps for years.
  public static let maximumWishlist = 100

  /// Customers in the order they were added.
  public private(set) var customers: ChunkedArray<Customer>
  /// The position in `customers` of each id (the first, should a journal repeat one).
  private var positions = ChunkedDictionary<String, Int>()
  /// The first customer with each e-mail address, by the address in lower case.
  private var emails = ChunkedDictionary<String, String>()
  /// What `find` compares with, for each customer in `customers` (same positions).
  private var search = CustomerSearch()
  public internal(set) var nextCustomerNumber: Int
  /// Each customer's wishlist: SKUs in the order they were put on it (customers without one
  /// are absent).
  public internal(set) var wishlists: ChunkedDictionary<String, [String]>

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
      index(customers.count - 1)
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
    positions[id].map { customers[$0] }
  }

  /// The first customer with this e-mail address, compared in lower case (addresses are
  /// ASCII).
  func customer(withEmail email: String) -> Customer? {
    emails[email.lowercased()].flatMap { customer($0) }
  }

  /// Sets the customers (a snapshot's) and indexes them.
  mutating func setCustomers(_ list: [Customer]) {
    customers = ChunkedArray(list)
    positions.removeAll()
    emails.removeAll()
    search.removeAll()
    for position in list.indices { index(position) }
  }

  /// How many customers one `customer_find` returns when the request does not say (at most
  /// `IntegerRanges.maximumPage`): a query that matches most of the book (`a`) would otherwise
  /// have the event loop write every customer into one reply, holding every lane for a sixth
  /// of a second with the book full.
  public static let defaultFindLimit = 100

  /// Every customer a `customer_find` query matches, in the order they were added
  /// (`CustomerSearch`).
  func find(_ query: String) -> [Customer] {
    find(query, limit: customers.count).customers
  }

  /// The first `limit` customers `query` matches, in the order they were added, and how many
  /// it matches in all.
  func find(_ query: String, limit: Int) -> (customers: [Customer], matches: Int) {
    let positions = search.find(query)
    return (positions.prefix(max(0, limit)).map { customers[$0] }, positions.count)
  }

  /// Indexes the customer at `position`, the one after those indexed so far (an id or address
  /// already indexed keeps its first).
  private mutating func index(_ position: Int) {
    let customer = customers[position]
    search.append(customer)
    if positions[customer.id] == nil { positions[customer.id] = position }
    if let email = customer.email?.lowercased(), emails[email] == nil {
      emails[email] = customer.id
    }
  }

  /// How many pages of the search this book and `other` share, of how many (see
  /// `ChunkedCollectionTests`).
  func sharedSearchPages(with other: CustomerBook) -> (shared: Int, pages: Int) {
    (search.sharedPages(with: other.search), other.search.pageCount)
  }

  /// The indexes are derived from the list: two books are equal when their customers,
  /// wishlists and next number are.
  public static func == (lhs: CustomerBook, rhs: CustomerBook) -> Bool {
    lhs.customers == rhs.customers && lhs.nextCustomerNumber == rhs.nextCustomerNumber
      && lhs.wishlists == rhs.wishlists
  }

  /// The SKUs on a customer's wishlist, oldest first.
  func wishlist(_ customerID: String) -> [String] {
    wishlists[customerID] ?? []
  }
}
