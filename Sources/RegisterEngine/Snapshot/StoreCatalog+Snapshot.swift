extension StoreCatalog {
  /// The store settings and products in the catalog file's shape (which the journal also
  /// uses), with the live products' stock.
  var snapshotValue: JSONValue {
    .object([
      "store": store.json,
      "products": .array(products.all.map(\.json)),
      "catalog_base": .array(catalogBase.map(\.json)),
      "promotions": .array(promotions.map(\.json)),
    ])
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
    var seen: Set<String> = []
    for (index, product) in live.enumerated() where !seen.insert(product.sku).inserted {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("products"), index),
        message: "SKU \"\(product.sku)\" appears twice")
    }
    products = ProductList(live)
    catalogBase = try fields.array("catalog_base", decodeProduct)
    promotions = try fields.addedLater("promotions", absent: []) { fields throws(JSONShapeError) in
      try fields.array("promotions") { value, path throws(JSONShapeError) in
        try Promotion(json: value, path: path, currency: currency)
      }
    }
    try fields.rejectUnknown()
  }
}
