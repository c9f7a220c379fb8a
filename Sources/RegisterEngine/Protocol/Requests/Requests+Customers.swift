// Customers: adding, finding and attaching them, their history and their wishlists.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let customerOps: [any DecodableRequestBody.Type] = [
    CustomerAdd.self, CustomerFind.self, AttachCustomer.self, DetachCustomer.self,
    CustomerHistory.self, Wishlist.self, WishlistAdd.self, WishlistRemove.self,
    WishlistToOrder.self,
  ]

  /// `customer_add`: a new customer.
  public struct CustomerAdd: RequestBody, Mutation {
    public static let wireName = "customer_add"
    public static let access: OpAccess = .cashier
    public var name: String
    public var email: String?
    public var phone: String?
    /// A tax-exemption certificate number.
    public var taxExempt: String?

    public init(
      name: String, email: String? = nil, phone: String? = nil, taxExempt: String? = nil
    ) {
      self.name = name
      self.email = email
      self.phone = phone
      self.taxExempt = taxExempt
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      name = try fields.text("name", required: true, maxLength: 80) ?? ""
      email = try fields.optional("email", as: String.self)
      phone = try fields.optional("phone", as: String.self)
      // A certificate number is an identifier: kept as it is, whatever its digits look like
      // (a masked number would no longer be the certificate's).
      taxExempt = try fields.identifier("tax_exempt", required: false, maxLength: 40)
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideCustomerAdd(name: name, email: email, phone: phone, taxExempt: taxExempt)
    }

    public func encode(to object: inout JSONObject) {
      object["name"] = .string(name)
      if let email { object["email"] = .string(email) }
      if let taxExempt { object["tax_exempt"] = .string(taxExempt) }
      if let phone { object["phone"] = .string(phone) }
    }
  }

  /// `customer_find`: customers by name, e-mail or phone, at most `limit` of them (1–1000,
  /// default 100).
  public struct CustomerFind: RequestBody, Query {
    public static let wireName = "customer_find"
    public static let access: OpAccess = .open
    public var query: String
    public var limit: Int?
    public init(query: String, limit: Int? = nil) {
      self.query = query
      self.limit = limit
    }
    init(from fields: inout RequestFields) throws(RegisterError) {
      query = try fields.text("query", required: true, maxLength: 200) ?? ""
      // Out of its range (`IntegerRanges`) it is `bad_request`.
      limit = try fields.optional("limit", as: Int.self)
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      // `matches` (how many there are in all) only when some were left out, so a reply that
      // holds every match reads as it always has.
      let found = register.findCustomers(query, limit: limit ?? CustomerBook.defaultFindLimit)
      var reply = JSONObject()
      reply["customers"] = .array(found.customers.map { register.customerJSON($0) })
      if found.matches > found.customers.count { reply["matches"] = .int(found.matches) }
      return .value(.object(reply))
    }
    public func encode(to object: inout JSONObject) {
      object["query"] = .string(query)
      if let limit { object["limit"] = .int(Int64(limit)) }
    }
  }

  /// `attach_customer`: the customer the current order is for.
  public struct AttachCustomer: RequestBody, Mutation {
    public static let wireName = "attach_customer"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public init(customerID: String) { self.customerID = customerID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      customerID = try fields.required("customer_id")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideAttachCustomer(id: customerID)
    }
    public func encode(to object: inout JSONObject) {
      object["customer_id"] = .string(customerID)
    }
  }

  /// `detach_customer`: the customer taken off the open order.
  public struct DetachCustomer: RequestBody, Mutation {
    public static let wireName = "detach_customer"
    public static let access: OpAccess = .cashier
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideDetachCustomer()
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `customer_history`: a customer's receipts and totals.
  public struct CustomerHistory: RequestBody, Query {
    public static let wireName = "customer_history"
    public static let access: OpAccess = .open
    public var customerID: String
    public init(customerID: String) { self.customerID = customerID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      customerID = try fields.required("customer_id")
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      // Every receipt of the customer, read from the archive files: as `catalog_export`.
      let state = register
      let id = customerID
      return .computed { Result { () throws(RegisterError) in try state.customerHistory(id) } }
    }
    public func encode(to object: inout JSONObject) {
      object["customer_id"] = .string(customerID)
    }
  }

  /// `wishlist`: a customer's wishlist, with availability.
  public struct Wishlist: RequestBody, Query {
    public static let wireName = "wishlist"
    public static let access: OpAccess = .open
    public var customerID: String
    public init(customerID: String) { self.customerID = customerID }
    init(from fields: inout RequestFields) throws(RegisterError) {
      customerID = try fields.required("customer_id")
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(try register.wishlistJSON(customerID))
    }
    public func encode(to object: inout JSONObject) {
      object["customer_id"] = .string(customerID)
    }
  }

  /// `wishlist_add`: a product onto a customer's wishlist (in stock or not).
  public struct WishlistAdd: WishlistEntryRequest, Mutation {
    public static let wireName = "wishlist_add"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public var sku: String

    public init(customerID: String, sku: String) {
      self.customerID = customerID
      self.sku = sku
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideWishlistAdd(customerID: customerID, sku: sku)
    }
  }

  /// `wishlist_remove`: a product off a customer's wishlist.
  public struct WishlistRemove: WishlistEntryRequest, Mutation {
    public static let wireName = "wishlist_remove"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public var sku: String

    public init(customerID: String, sku: String) {
      self.customerID = customerID
      self.sku = sku
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideWishlistRemove(customerID: customerID, sku: sku)
    }
  }

  /// `wishlist_to_order`: one unit of a wishlist product onto the open order; it leaves the
  /// wishlist (and stays on it when it cannot be added).
  public struct WishlistToOrder: WishlistEntryRequest, Mutation {
    public static let wireName = "wishlist_to_order"
    public static let access: OpAccess = .cashier
    public var customerID: String
    public var sku: String

    public init(customerID: String, sku: String) {
      self.customerID = customerID
      self.sku = sku
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideWishlistToOrder(customerID: customerID, sku: sku)
    }
  }
}

/// A request about one product on one customer's wishlist: `{customer_id, sku}`, read and
/// written the same way for each such op.
public protocol WishlistEntryRequest: RequestBody {
  var customerID: String { get }
  var sku: String { get }
  init(customerID: String, sku: String)
}

extension WishlistEntryRequest {
  init(from fields: inout RequestFields) throws(RegisterError) {
    self.init(customerID: try fields.required("customer_id"), sku: try fields.required("sku"))
  }

  public func encode(to object: inout JSONObject) {
    object["customer_id"] = .string(customerID)
    object["sku"] = .string(sku)
  }
}

extension Requests.WishlistAdd: DecodableRequestBody {}
extension Requests.WishlistRemove: DecodableRequestBody {}
extension Requests.WishlistToOrder: DecodableRequestBody {}

// What each op of customers says on the wire.

extension Requests.CustomerAdd {
  public static let summary = "Adds a customer."
  public static let fields: [WireField] = [
    .required("name", .string(maxLength: 80), "their name"),
    .optional("email", .text, "their e-mail address"),
    .optional("phone", .text, "their phone number"),
    .optional("tax_exempt", .string(maxLength: 40), "a tax-exemption certificate's number"),
  ]
  public static let result = WireType.ref("customer")
}

extension Requests.CustomerFind {
  public static let summary = "Customers whose name, e-mail or phone matches the query."
  public static let fields: [WireField] = [
    .required("query", .string(maxLength: 200), "part of a name, an e-mail or a phone number"),
    .optional("limit", .integer(), "at most this many"),
  ]
  public static let result = WireType.object(
    [
      .required("customers", .array(.ref("customer")), "the matches"),
      .optional(
        "matches", .integer(), "how many matched in all, when more than `customers` holds"),
    ], open: false)
}

extension Requests.AttachCustomer {
  public static let summary = "Attaches a customer to the open order."
  public static let fields: [WireField] = [.required("customer_id", .text, "the customer")]
  public static let result = WireType.ref("order")
}

extension Requests.DetachCustomer {
  public static let summary = "Takes the customer off the open order."
  public static let fields: [WireField] = []
  public static let result = WireType.ref("order")
}

extension Requests.CustomerHistory {
  public static let summary = "A customer's receipts, what they spent and what was refunded."
  public static let fields: [WireField] = [.required("customer_id", .text, "the customer")]
  public static let result = WireType.ref("customer_history")
}

extension Requests.Wishlist {
  public static let summary = "A customer's wishlist, with what is available."
  public static let fields: [WireField] = [.required("customer_id", .text, "the customer")]
  public static let result = WireType.object(
    [.required("wishlist", .ref("wishlist"), "the wishlist")])
}

extension Requests {
  static let wishlistEntryFields: [WireField] = [
    .required("customer_id", .text, "the customer"), .required("sku", .text, "the product"),
  ]
}

extension Requests.WishlistAdd {
  public static let summary = "Puts a product on a customer's wishlist."
  public static let fields = Requests.wishlistEntryFields
  public static let result = WireType.object(
    [.required("wishlist", .ref("wishlist"), "the wishlist")])
}

extension Requests.WishlistRemove {
  public static let summary = "Takes a product off a customer's wishlist."
  public static let fields = Requests.wishlistEntryFields
  public static let result = WireType.object(
    [.required("wishlist", .ref("wishlist"), "the wishlist")])
}

extension Requests.WishlistToOrder {
  public static let summary = "Rings up one unit of a wishlist's product and takes it off the list."
  public static let fields = Requests.wishlistEntryFields
  public static let result = WireType.ref("order")
}
