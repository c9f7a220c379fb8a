extension Register {
  // Catalog edits, stock adjustments, the drawer, e-mailed and printed receipts.

  func decideProductAdd(_ json: JSONValue) throws(RegisterError) -> [Event] {
    let product = try validatedProduct(json)
    guard products[product.sku] == nil else {
      throw RegisterError(
        .productExists, "a product with SKU \"\(id: product.sku)\" exists; use product_update",
        data: .object(["sku": .string(product.sku)]))
    }
    guard products.count < Self.maximumProducts else {
      throw RegisterError(
        .catalogFull,
        "the catalog holds \(products.count) products, the most it may; remove products no longer sold first"
      )
    }
    if case .success(let barcode) = Barcode.parse(product.sku),
      let owner = products.product(barcode: barcode)
    {
      throw RegisterError(
        .invalidProduct,
        "the SKU \(id: product.sku) is a barcode of \"\(id: owner.sku)\"; a scan could mean either"
      )
    }
    try checkBarcodesFree(product)
    return [.productAdded(product)]
  }

  func decideProductUpdate(sku typed: String, changes: JSONObject) throws(RegisterError) -> [Event]
  {
    let sku = catalogSKU(typed)
    guard let existing = products[sku] else {
      throw RegisterError(.unknownSKU, "no product has SKU \"\(id: sku)\"")
    }
    guard case .object(var merged) = existing.json else { return [] }
    for (key, value) in changes.members {
      guard key != "sku" else {
        throw RegisterError(
          .invalidProduct, "the SKU of a product cannot change; add a new product")
      }
      merged[key] = value == .null ? nil : value
    }
    let product = try validatedProduct(.object(merged))
    try checkBarcodesFree(product)
    if let stock = product.stock, stock < reserved(sku: sku) {
      throw RegisterError(
        .outOfStock,
        "stock \(stock) would be less than the \(reserved(sku: sku)) units open or parked orders hold"
      )
    }
    return [.productUpdated(product)]
  }

  func decideProductRemove(sku typed: String) throws(RegisterError) -> [Event] {
    let sku = catalogSKU(typed)
    guard products[sku] != nil else {
      throw RegisterError(.unknownSKU, "no product has SKU \"\(id: sku)\"")
    }
    return [.productRemoved(sku: sku)]
  }

  func decideStockAdjust(sku typed: String, delta: Int64, reason: String) throws(RegisterError)
    -> [Event]
  {
    let sku = catalogSKU(typed)
    guard let product = products[sku] else {
      throw RegisterError(.unknownSKU, "no product has SKU \"\(id: sku)\"")
    }
    guard let stock = product.stock else {
      throw RegisterError(
        .invalidProduct,
        "\(id: sku) does not track stock; set its stock with product_update first",
        data: .object(["sku": .string(sku), "stock_tracked": .bool(false)]))
    }
    let limit = IntegerRanges.maximumStock
    // The decoder keeps delta within ±limit; checked here too, because a trap is never the
    // answer to a number a client chose.
    guard delta != 0, (-limit...limit).contains(delta) else {
      throw RegisterError(
        .invalidQuantity, "delta must be a whole number from -\(limit) to \(limit), not 0")
    }
    let (after, overflow) = stock.addingReportingOverflow(delta)
    guard !overflow, after <= limit else {
      throw RegisterError(
        .invalidQuantity, "\(id: sku) has \(stock) in stock; it cannot go above \(limit)")
    }
    guard after >= 0 else {
      throw RegisterError(.outOfStock, "\(id: sku) has \(stock) in stock; it cannot go below 0")
    }
    guard after >= reserved(sku: sku) else {
      throw RegisterError(
        .outOfStock,
        "open or parked orders hold \(reserved(sku: sku)) of \(id: sku); stock cannot go below that"
      )
    }
    return [.stockAdjusted(sku: sku, delta: delta, reason: reason)]
  }

  func decideSetFloat(_ amount: Money) throws(RegisterError) -> [Event] {
    try checkCashStep(amount, what: "a float")
    return [.floatSet(amount: amount)]
  }

  func decidePaidIn(_ amount: Money, reason: String) throws(RegisterError) -> [Event] {
    guard amount.minorUnits > 0 else {
      throw RegisterError(.invalidAmount, "a paid-in amount must be more than 0")
    }
    try checkCashStep(amount, what: "a paid-in")
    return [.paidIn(amount: amount, reason: reason)]
  }

  func decidePaidOut(_ amount: Money, reason: String) throws(RegisterError) -> [Event] {
    guard amount.minorUnits > 0 else {
      throw RegisterError(.invalidAmount, "a paid-out amount must be more than 0")
    }
    try checkCashStep(amount, what: "a paid-out")
    return [.paidOut(amount: amount, reason: reason)]
  }

  func decideNoSale(reason: String?) -> [Event] {
    return [.noSale(reason: reason)]
  }

  func decideEmailReceipt(receipt number: Int, to: String?, context: CommandContext)
    throws(RegisterError) -> [Event]
  {
    let customerID: String?
    if let sale = receipts[number] {
      customerID = sale.customer?.id
    } else if let refund = returns[number] {
      customerID = refund.customer?.id
    } else {
      throw RegisterError(.receiptNotFound, "there is no receipt \(number)")
    }
    let fallback = customerID.flatMap { customerBook.customer($0)?.email }
    guard let address = to ?? fallback else {
      throw RegisterError(
        .invalidEmail, "receipt \(number) has no customer with an e-mail address; give \"to\"")
    }
    try ContactValidation.validateEmail(address)
    let messageID = "receipt-\(number)-\(hexString(context.random(8)))@registerd"
    return [.receiptEmailed(receipt: number, to: address, messageID: messageID)]
  }

  func decidePrint(receipt wanted: Int?) throws(RegisterError) -> [Event] {
    guard let printer = store.printer else {
      throw RegisterError(
        .noPrinter,
        "the store has no receipt printer: set \"printer\" in the store settings or start registerd with --printer"
      )
    }
    guard let number = wanted ?? lastReceiptNumber else {
      throw RegisterError(.receiptNotFound, "no sale has been completed yet")
    }
    guard receipts[number] != nil || returns[number] != nil else {
      throw RegisterError(.receiptNotFound, "there is no receipt \(number)")
    }
    guard printQueue.pending.count < PrintQueue.maximumPending else {
      throw RegisterError(
        .printQueueFull,
        "\(printQueue.pending.count) jobs are waiting for the printer at \(printer); bring it back (power, paper, cable) and try again"
      )
    }
    return [
      .printQueued(
        PrintJob(id: printQueue.nextJob, document: .receipt(number, reprint: true), drawer: false)
      )
    ]
  }

  /// A product validated exactly as the catalog file's products are.
  func validatedProduct(_ json: JSONValue) throws(RegisterError) -> Product {
    do {
      return try Product(json: json, path: "product", store: store)
    } catch {
      throw RegisterError(.invalidProduct, error.describedMessage)
    }
  }

  /// A product's barcodes must not be another product's barcode or SKU: a scan must name one
  /// product.
  func checkBarcodesFree(_ product: Product) throws(RegisterError) {
    for text in product.barcodes {
      guard case .success(let barcode) = Barcode.parse(text) else { continue }
      if let owner = products.product(barcode: barcode), owner.sku != product.sku {
        throw RegisterError(
          .invalidProduct, "the barcode \(text) is already on \"\(id: owner.sku)\"")
      }
      if let other = products[text], other.sku != product.sku {
        throw RegisterError(
          .invalidProduct,
          "the barcode \(text) is the SKU of another product; a scan could mean either")
      }
    }
  }

  /// The catalog file as the register's state says it should be now.
  public var catalogDocument: Catalog {
    Catalog(store: store, products: Array(products.all), promotions: exportablePromotions)
  }

  /// The promotions as a catalog file may hold them with the live products: SKUs removed
  /// through the protocol since are left out of a list, and a promotion left with no SKU or
  /// category that a product still has is left out, so that the export reads back.
  var exportablePromotions: [Promotion] {
    let skus = Set(products.all.map(\.sku))
    let categories = Set(products.all.map(\.category))
    return catalog.promotions.compactMap { promotion in
      var kept = promotion
      switch promotion.scope {
      case .sku(let sku):
        return skus.contains(sku) ? promotion : nil
      case .skus(let list):
        let left = list.filter { skus.contains($0) }
        guard !left.isEmpty else { return nil }
        kept.scope = .skus(left)
        return kept
      case .category(let category):
        return categories.contains(category) ? promotion : nil
      }
    }
  }
}

extension Register {
  /// The catalog's SKU for `typed`: itself when a product has it, else the one SKU that differs
  /// from it only by case (`tee-wht-m` for `TEE-WHT-M`, as a cashier types it), else `typed`
  /// (which then names no product). Two SKUs that differ only by case are both exact-only.
  func catalogSKU(_ typed: String) -> String {
    if products[typed] != nil { return typed }
    // SKUs are ASCII: a look-alike (a Kelvin sign for a "K") folds to nothing.
    guard typed.utf8.allSatisfy({ $0 < 0x80 }) else { return typed }
    let folded = typed.lowercased()
    var match: String?
    for product in products.all where product.sku.lowercased() == folded {
      guard match == nil else { return typed }
      match = product.sku
    }
    return match ?? typed
  }
}
