extension StoreCatalog {
  /// The store settings and products in the catalog file's shape (which the journal also
  /// uses), with the live products' stock. A product as last imported that the live catalog
  /// still has, changed only in its stock (nearly all of them: sales move stock, little
  /// else changes between imports), is written as `{"as_live": SKU, "stock": N}` — the live
  /// product with that stock (no `stock`: untracked) — instead of in full a second time.
  var snapshotValue: JSONValue {
    .object([
      "store": store.json,
      "products": .array(products.all.map(\.json)),
      "catalog_base": .array(catalogBase.map(baseEntry)),
      "promotions": .array(promotions.map(\.json)),
    ])
  }

  /// A product as last imported, as its snapshot entry: compact when the live product with
  /// its SKU differs from it in stock alone.
  private func baseEntry(_ base: Product) -> JSONValue {
    if var live = products[base.sku] {
      live.stock = base.stock
      if live == base {
        return .object(["as_live": .string(base.sku), "stock": base.stock.map(JSONValue.int)])
      }
    }
    return base.json
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    store = try fields.decoded("store") { value, path throws(JSONShapeError) in
      try StoreSettings(json: value, path: path)
    }
    let currency = store.currency
    let decodeProduct = { (value: JSONValue, path: String) throws(JSONShapeError) -> Product in
      guard case .object(var object) = value else {
        throw JSONShapeError(path: path, message: "expected an object, got \(value.typeName)")
      }
      // The live stock is read apart: returns may take it past what a catalog file may say
      // (`IntegerRanges.maximumStock`), and the register must still be read back. It is never
      // negative (`decide` refuses that), and stays far enough from Int64's limits that
      // arithmetic on it cannot trap.
      let stock = try object["stock"].map { value throws(JSONShapeError) in
        try snapshotInt64(value, path: joinPath(path, "stock"), in: SnapshotRange.count)
      }
      object["stock"] = nil
      // Tax classes are not checked: a product may name a class the store dropped since.
      var product = try Product(
        json: .object(object), path: path, currency: currency, taxClasses: nil)
      product.stock = stock
      return product
    }
    let live = try fields.array("products", decodeProduct)
    products = ProductList(live)
    if products.count != live.count {
      // A SKU twice: name the second.
      var seen: Set<String> = []
      for (index, product) in live.enumerated() where !seen.insert(product.sku).inserted {
        throw JSONShapeError(
          path: indexPath(fields.pathOf("products"), index),
          message: "SKU \"\(id: product.sku)\" appears twice")
      }
    }
    let list = products
    catalogBase = try fields.array("catalog_base") { value, path throws(JSONShapeError) in
      // A compact entry (format 2): the live product with this SKU, with this stock.
      guard case .object(let object) = value, object["as_live"] != nil else {
        return try decodeProduct(value, path)
      }
      var entry = try JSONFields(value, path: path)
      let sku = try entry.required("as_live", as: String.self)
      guard var product = list[sku] else {
        throw JSONShapeError(
          path: entry.pathOf("as_live"), message: "no live product has SKU \"\(id: sku)\"")
      }
      product.stock = try entry.raw("stock").map { value throws(JSONShapeError) in
        try snapshotInt64(value, path: entry.pathOf("stock"), in: SnapshotRange.count)
      }
      try entry.rejectUnknown()
      return product
    }
    promotions = try fields.addedLater("promotions", absent: []) { fields throws(JSONShapeError) in
      try fields.array("promotions") { value, path throws(JSONShapeError) in
        try Promotion(json: value, path: path, currency: currency)
      }
    }
    try fields.rejectUnknown()
  }
}
