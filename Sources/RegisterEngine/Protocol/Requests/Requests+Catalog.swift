// The catalog: reading it and changing its products and stock.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let catalogOps: [any DecodableRequestBody.Type] = [
    Catalog.self, CatalogExport.self, ProductLookup.self,
    ProductAdd.self, ProductUpdate.self, ProductRemove.self,
    StockAdjust.self,
  ]

  /// `catalog`: the products for sale, in catalog order, a page at a time: at most `limit`
  /// (1–1000, default 1000), from the one after `afterSKU`.
  public struct Catalog: RequestBody, Query {
    public static let wireName = "catalog"
    public static let access: OpAccess = .open
    public var limit: Int?
    public var afterSKU: String?
    public init(limit: Int? = nil, afterSKU: String? = nil) {
      self.limit = limit
      self.afterSKU = afterSKU
    }
    init(from fields: inout RequestFields) throws(RegisterError) {
      // Out of its range (`IntegerRanges`) it is `bad_request`.
      limit = try fields.optional("limit", as: Int.self)
      afterSKU = try fields.optional("after_sku", as: String.self)
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(
        try register.catalogPage(limit: limit ?? Int(IntegerRanges.maximumPage), afterSKU: afterSKU)
      )
    }
    public func encode(to object: inout JSONObject) {
      if let limit { object["limit"] = .int(Int64(limit)) }
      if let afterSKU { object["after_sku"] = .string(afterSKU) }
    }
  }

  /// `catalog_export`: the live catalog as a catalog file document.
  public struct CatalogExport: RequestBody, Query {
    public static let wireName = "catalog_export"
    public static let access: OpAccess = .open
    public init() {}
    init(from fields: inout RequestFields) throws(RegisterError) {}
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      // Every product: worked out from a copy (sharing the register's storage) of the state
      // now, away from the loop when the daemon can.
      let state = register
      return .computed { .success(.object(["catalog": state.catalogDocument.json])) }
    }
    public func encode(to object: inout JSONObject) {}
  }

  /// `product`: one product, by SKU (or a barcode it carries), with its stock here and at the
  /// chain's other stores.
  public struct ProductLookup: RequestBody, Query {
    public static let wireName = "product"
    public static let access: OpAccess = .open
    public var sku: String
    public init(sku: String) { self.sku = sku }
    init(from fields: inout RequestFields) throws(RegisterError) {
      sku = try fields.required("sku")
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(try register.productLookup(sku))
    }
    public func encode(to object: inout JSONObject) { object["sku"] = .string(sku) }
  }

  /// `product_add`: a product as the catalog file writes it (free-form here: the catalog
  /// validates it, with its own errors).
  public struct ProductAdd: RequestBody, Mutation {
    public static let wireName = "product_add"
    public static let access: OpAccess = .manager(work: "changing the catalog")
    public var product: JSONValue
    public init(product: JSONValue) { self.product = product }
    init(from fields: inout RequestFields) throws(RegisterError) {
      guard let product = fields.raw("product") else {
        throw RegisterError(.badRequest, "product is required: a product as in the catalog file")
      }
      self.product = product
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideProductAdd(product)
    }
    public func encode(to object: inout JSONObject) { object["product"] = product }
  }

  /// `product_update`: fields of a product to change (`null` removes an optional one).
  public struct ProductUpdate: RequestBody, Mutation {
    public static let wireName = "product_update"
    public static let access: OpAccess = .manager(work: "changing the catalog")
    public var sku: String
    public var changes: JSONObject

    public init(sku: String, changes: JSONObject) {
      self.sku = sku
      self.changes = changes
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      sku = try fields.required("sku", as: String.self)
      guard case .object(let changes)? = fields.raw("changes"), !changes.isEmpty else {
        throw RegisterError(
          .badRequest,
          "changes is required: an object of fields to change, like {\"price\": \"12.00\"}")
      }
      self.changes = changes
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideProductUpdate(sku: sku, changes: changes)
    }

    public func encode(to object: inout JSONObject) {
      object["sku"] = .string(sku)
      object["changes"] = .object(changes)
    }
  }

  /// `product_remove`: a product leaves the catalog.
  public struct ProductRemove: RequestBody, Mutation {
    public static let wireName = "product_remove"
    public static let access: OpAccess = .manager(work: "changing the catalog")
    public var sku: String
    public init(sku: String) { self.sku = sku }
    init(from fields: inout RequestFields) throws(RegisterError) {
      sku = try fields.required("sku")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideProductRemove(sku: sku)
    }
    public func encode(to object: inout JSONObject) { object["sku"] = .string(sku) }
  }

  /// `stock_adjust`: stock counted in or out, with the reason.
  public struct StockAdjust: RequestBody, Mutation {
    public static let wireName = "stock_adjust"
    public static let access: OpAccess = .manager(work: "adjusting stock")
    public var sku: String
    public var delta: Int64
    public var reason: String

    public init(sku: String, delta: Int64, reason: String) {
      self.sku = sku
      self.delta = delta
      self.reason = reason
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      sku = try fields.required("sku", as: String.self)
      delta = try fields.required("delta", as: Int64.self)
      reason = try fields.text("reason", required: true) ?? ""
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideStockAdjust(sku: sku, delta: delta, reason: reason)
    }

    public func encode(to object: inout JSONObject) {
      object["sku"] = .string(sku)
      object["delta"] = .int(delta)
      object["reason"] = .string(reason)
    }
  }
}

// What each catalog op says on the wire.

extension Requests.Catalog {
  public static let summary = "A page of the catalog, in catalog order."
  public static let fields: [WireField] = [
    .optional("limit", .integer(), "at most this many products"),
    .optional("after_sku", .text, "the last SKU of the page before"),
  ]
  public static let result = WireType.ref("catalog_page")
}

extension Requests.CatalogExport {
  public static let summary = "The live catalog as a catalog file (store, products, stock)."
  public static let fields: [WireField] = []
  public static let result = WireType.object(
    [.required("catalog", .ref("catalog_file"), "a catalog file registerd can load")])
}

extension Requests.ProductLookup {
  public static let summary = "One product, with its stock here and at the chain's other stores."
  public static let fields: [WireField] = [.required("sku", .text, "the product's SKU")]
  public static let result = WireType.object([.required("product", .ref("product"), "the product")])
}

extension Requests.ProductAdd {
  public static let summary = "Adds a product to the catalog."
  public static let fields: [WireField] = [
    .required("product", .ref("catalog_product"), "the product as a catalog file has it")
  ]
  public static let result = WireType.object([.required("product", .ref("product"), "the product")])
}

extension Requests.ProductUpdate {
  public static let summary = "Changes fields of a product (`null` removes an optional one)."
  public static let fields: [WireField] = [
    .required("sku", .text, "the product's SKU"),
    .required("changes", .map(.any), "the catalog fields to change, with their new values"),
  ]
  public static let result = WireType.object([.required("product", .ref("product"), "the product")])
}

extension Requests.ProductRemove {
  public static let summary = "Takes a product out of the catalog."
  public static let fields: [WireField] = [.required("sku", .text, "the product's SKU")]
  public static let result = WireType.object([.required("removed", .text, "the SKU removed")])
}

extension Requests.StockAdjust {
  public static let summary = "Adds to or takes from a tracked product's stock."
  public static let fields: [WireField] = [
    .required("sku", .text, "the product's SKU"),
    .required("delta", .integer(), "units to add (negative: to take away)"),
    .required("reason", .string(maxLength: 200), "why (a delivery, a count, damage)"),
  ]
  public static let result = WireType.object([.required("product", .ref("product"), "the product")])
}
