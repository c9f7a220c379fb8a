extension JSONFields {
  /// A money member written as a decimal string ("12.50"); a JSON number is refused.
  mutating func money(
    _ key: String, currency: Currency, allowNegative: Bool = false
  ) throws(JSONShapeError) -> Money? {
    guard let value = raw(key) else { return nil }
    return try Money(
      json: value, path: pathOf(key), currency: currency, allowNegative: allowNegative)
  }

  /// A percentage member written as a decimal string ("7.5").
  mutating func percent(_ key: String) throws(JSONShapeError) -> Percent? {
    guard let value = raw(key) else { return nil }
    return try Percent(json: value, path: pathOf(key))
  }

  /// A string member that must be non-empty printable text of at most `maxLength` characters.
  /// Free text (names, reasons, notes, descriptions) is kept with card-number-like digits
  /// masked, so that it is never journaled, stored or printed.
  mutating func text(
    _ key: String, required: Bool, maxLength: Int = 200, allowEmpty: Bool = false
  ) throws(JSONShapeError) -> String? {
    guard let value = try optional(key, as: String.self) else {
      if required { throw JSONShapeError(path: pathOf(key), message: "is required") }
      return nil
    }
    try validateText(value, path: pathOf(key), maxLength: maxLength, allowEmpty: allowEmpty)
    return CardNumberMask.mask(value)
  }

  /// A string member that must be printable text of at most `maxLength` characters, as free
  /// text is, but that is an identifier someone chose: kept as it is, never masked.
  mutating func identifier(
    _ key: String, required: Bool, maxLength: Int
  ) throws(JSONShapeError) -> String? {
    guard let value = try optional(key, as: String.self) else {
      if required { throw JSONShapeError(path: pathOf(key), message: "is required") }
      return nil
    }
    try validateText(value, path: pathOf(key), maxLength: maxLength)
    return value
  }
}

/// Refuses text that is blank, too long, or carries control characters (which would break a
/// printed receipt or a terminal).
func validateText(
  _ value: String, path: String, maxLength: Int, allowEmpty: Bool = false
) throws(JSONShapeError) {
  // ASCII (nearly every name, SKU and reason): one byte is one character and one scalar, so
  // the checks below are byte tests — no grapheme breaking, no Unicode property lookups. (A
  // CR LF pair is one character; it is a control character either way, and a text long only
  // by counting it as two takes the general path.)
  // One pass over the bytes in place: is it ASCII, is it all white space, has it a control
  // character.
  var contiguous = value
  let ascii = contiguous.withUTF8 { bytes -> (blank: Bool, control: Bool)? in
    guard bytes.count <= maxLength else { return nil }
    var blank = true
    var control = false
    for byte in bytes {
      if byte >= 0x80 { return nil }
      if byte < 0x20 || byte == 0x7F { control = true }
      if byte != 0x20 && !(0x09...0x0D).contains(byte) { blank = false }
    }
    return (blank, control)
  }
  if let ascii {
    if !allowEmpty && ascii.blank {
      throw JSONShapeError(path: path, message: "must not be empty")
    }
    if ascii.control {
      throw JSONShapeError(path: path, message: "must not contain control characters")
    }
    return
  }
  if !allowEmpty && value.allSatisfy(\.isWhitespace) {
    throw JSONShapeError(path: path, message: "must not be empty")
  }
  // Counted in Unicode scalars, not characters: one character may hold any number of
  // combining marks ("e" and ten thousand accents is one character in 20 KB), so a count of
  // characters bounds nothing.
  if value.hasMoreScalars(than: maxLength) {
    throw JSONShapeError(
      path: path,
      message:
        "is longer than \(maxLength) characters (Unicode scalars: an accent sent as a mark of its own counts as one)"
    )
  }
  if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
    throw JSONShapeError(path: path, message: "must not contain control characters")
  }
}

extension Money {
  /// Reads a decimal-string amount; a JSON number is a type error (money is never a number).
  init(
    json: JSONValue, path: String, currency: Currency, allowNegative: Bool = false
  ) throws(JSONShapeError) {
    guard case .string(let text) = json else {
      throw JSONShapeError(
        path: path,
        message: "expected an amount as a decimal string like \"12.50\", got \(json.typeName)")
    }
    do {
      self = try Money.parse(text, currency: currency, allowNegative: allowNegative)
    } catch {
      throw JSONShapeError(path: path, message: "\(error)")
    }
  }

  /// The decimal string, as JSON.
  public var json: JSONValue { .string(decimalString) }
}

extension Percent {
  init(json: JSONValue, path: String) throws(JSONShapeError) {
    guard case .string(let text) = json else {
      throw JSONShapeError(
        path: path,
        message: "expected a percentage as a decimal string like \"7.5\", got \(json.typeName)")
    }
    do {
      self = try Percent.parse(text)
    } catch {
      let message: ErrorMessage =
        switch error {
        case .malformed: "\"\(text)\" is not a percentage; write a decimal number like \"7.5\""
        case .negative: "\"\(text)\" is negative; a percentage must be zero or more"
        case .tooManyDecimals: "\"\(text)\" has more than \(Percent.fractionDigits) decimal places"
        case .tooLarge: "\"\(text)\" is too large"
        }
      throw JSONShapeError(path: path, message: message)
    }
  }

  public var json: JSONValue { .string(decimalString) }
}

/// A byte a SKU may hold: an ASCII letter or digit, '-', '_' or '.'. (A SKU of these alone
/// has as many characters as bytes.)
private func isSKUByte(_ byte: UInt8) -> Bool {
  switch byte {
  case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
    true
  default:
    false
  }
}

/// Checks a SKU: 1 to 32 letters, digits, '-', '_' or '.'. A SKU is the store's identifier,
/// stored and printed as it is: never refused for what its digits look like (an EAN-13 is a
/// SKU many stores use, and one in ten of them passes a card number's Luhn check).
func validateSKU(_ sku: String, path: String) throws(JSONShapeError) {
  guard !sku.isEmpty, sku.utf8.count <= 32, sku.utf8.allSatisfy(isSKUByte) else {
    throw JSONShapeError(
      path: path,
      message: "\"\(sku)\" is not a valid SKU (1 to 32 letters, digits, '-', '_' or '.')")
  }
}

extension StoreSettings {
  /// Reads and validates the `store` section of a catalog file.
  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let name = try fields.text("name", required: true, maxLength: 80) ?? ""
    var address: [String] = []
    if let value = fields.raw("address") {
      switch value {
      case .string(let line): address = [line]
      case .array: address = try [String](json: value, path: fields.pathOf("address"))
      default:
        throw JSONShapeError(
          path: fields.pathOf("address"),
          message: "expected a string or an array of lines, got \(value.typeName)")
      }
    }
    for (index, line) in address.enumerated() {
      try validateText(line, path: indexPath(fields.pathOf("address"), index), maxLength: 80)
      address[index] = CardNumberMask.mask(line)
    }
    let phone = try fields.text("phone", required: false, maxLength: 40)
    let code = try fields.required("currency", as: String.self)
    guard let currency = Currency(code: code) else {
      throw JSONShapeError(
        path: fields.pathOf("currency"),
        message: "\"\(code)\" is not a supported currency (use an ISO 4217 code such as \"USD\")")
    }
    guard let taxValue = fields.raw("tax") else {
      throw JSONShapeError(path: fields.pathOf("tax"), message: "is required")
    }
    let tax = try TaxSettings(json: taxValue, path: fields.pathOf("tax"))
    let cashRounding = try fields.money("cash_rounding", currency: currency)
    if let cashRounding, cashRounding.minorUnits <= 0 {
      throw JSONShapeError(
        path: fields.pathOf("cash_rounding"), message: "must be greater than zero, like \"0.05\"")
    }
    let width = try fields.optional("receipt_width", as: Int.self) ?? 40
    guard Self.receiptWidths.contains(width) else {
      throw JSONShapeError(
        path: fields.pathOf("receipt_width"),
        message:
          "must be between \(Self.receiptWidths.lowerBound) and \(Self.receiptWidths.upperBound)")
    }
    let footer = try fields.text("receipt_footer", required: false, maxLength: 200)
    let approvalLimit = try fields.percent("discount_approval_limit")
    if let approvalLimit, approvalLimit > .hundred {
      throw JSONShapeError(
        path: fields.pathOf("discount_approval_limit"), message: "must be at most 100")
    }
    let autoSignOut = try fields.optional("auto_sign_out", as: Bool.self) ?? false
    let cashRefunds = try fields.optional("cash_refunds", as: Bool.self) ?? false
    let scanAddsToLine = try fields.optional("scan_adds_to_line", as: Bool.self) ?? false
    let iterations =
      try fields.optional("pin_hash_iterations", as: Int.self) ?? Self.defaultPINIterations
    guard (1000...10_000_000).contains(iterations) else {
      throw JSONShapeError(
        path: fields.pathOf("pin_hash_iterations"), message: "must be between 1000 and 10000000")
    }
    let lockout =
      try fields.optional("lockout_minutes", as: Int.self) ?? Self.defaultLockoutMinutes
    guard Self.lockoutMinutesRange.contains(lockout) else {
      throw JSONShapeError(
        path: fields.pathOf("lockout_minutes"),
        message:
          "must be between \(Self.lockoutMinutesRange.lowerBound) and \(Self.lockoutMinutesRange.upperBound)"
      )
    }
    let idle =
      try fields.optional("operator_idle_minutes", as: Int.self)
      ?? Self.defaultOperatorIdleMinutes
    guard Self.operatorIdleMinutesRange.contains(idle) else {
      throw JSONShapeError(
        path: fields.pathOf("operator_idle_minutes"),
        message:
          "must be between \(Self.operatorIdleMinutesRange.lowerBound) (never) and \(Self.operatorIdleMinutesRange.upperBound)"
      )
    }
    // The default, receipts@localhost, is for the store's own mail system to rewrite.
    let emailFrom = try fields.optional("email_from", as: String.self) ?? "receipts@localhost"
    if fields.has("email_from") {
      do {
        try ContactValidation.validateEmail(emailFrom)
      } catch {
        throw JSONShapeError(path: fields.pathOf("email_from"), message: "\(error.message)")
      }
    }
    let tenders = try fields.optional("tenders", as: [String].self) ?? []
    guard tenders.count <= Self.maximumTenders else {
      throw JSONShapeError(
        path: fields.pathOf("tenders"),
        message: "has \(tenders.count) tenders; at most \(Self.maximumTenders)")
    }
    for (index, tender) in tenders.enumerated() {
      if let problem = Self.tenderNameProblem(tender) {
        throw JSONShapeError(
          path: indexPath(fields.pathOf("tenders"), index), message: "\(problem)")
      }
      if tenders[..<index].contains(tender) {
        throw JSONShapeError(
          path: indexPath(fields.pathOf("tenders"), index), message: "\"\(tender)\" is listed twice"
        )
      }
    }
    let prefixes = try fields.optional("price_barcode_prefixes", as: [String].self) ?? []
    for (index, prefix) in prefixes.enumerated() {
      let prefixPath = indexPath(fields.pathOf("price_barcode_prefixes"), index)
      guard Barcode.priceEmbeddedPrefixes.contains(prefix) else {
        throw JSONShapeError(
          path: prefixPath,
          message: "\"\(prefix)\" is not a price-embedded prefix: two digits from 20 to 29")
      }
      if prefixes[..<index].contains(prefix) {
        throw JSONShapeError(path: prefixPath, message: "\"\(prefix)\" is listed twice")
      }
    }
    let codePageName = try fields.optional("printer_code_page", as: String.self) ?? "cp437"
    guard let codePage = CodePage(rawValue: codePageName) else {
      throw JSONShapeError(
        path: fields.pathOf("printer_code_page"),
        message: "must be \"cp437\" or \"cp858\", got \"\(codePageName)\"")
    }
    let barcodeName = try fields.optional("receipt_barcode", as: String.self) ?? "code128"
    guard let barcode = ReceiptBarcode(rawValue: barcodeName) else {
      throw JSONShapeError(
        path: fields.pathOf("receipt_barcode"),
        message: "must be \"code128\" or \"qr\", got \"\(barcodeName)\"")
    }
    let printerText = try fields.optional("printer", as: String.self)
    let printer = try printerText.map { text throws(JSONShapeError) in
      guard let address = DeviceAddress(text) else {
        throw JSONShapeError(
          path: fields.pathOf("printer"), message: "must be \(DeviceAddress.expected)")
      }
      return address
    }
    try fields.rejectUnknown()
    self.init(
      name: name, address: address, phone: phone, currency: currency, tax: tax,
      cashRounding: cashRounding, receiptWidth: width, receiptFooter: footer,
      discountApprovalLimit: approvalLimit, autoSignOut: autoSignOut, pinIterations: iterations,
      lockoutMinutes: lockout, emailFrom: emailFrom)
    self.tenders = tenders
    operatorIdleMinutes = idle
    self.cashRefunds = cashRefunds
    self.scanAddsToLine = scanAddsToLine
    self.priceBarcodePrefixes = prefixes
    printerCodePage = codePage
    receiptBarcode = barcode
    self.printer = printer
  }

  /// The `store` section as JSON, in the catalog file's shape.
  public var json: JSONValue {
    .object([
      "name": .string(name),
      "address": .array(address.map(JSONValue.string)),
      "phone": phone.map(JSONValue.string),
      "currency": .string(currency.code),
      "tax": tax.json,
      "cash_rounding": cashRounding?.json,
      "receipt_width": receiptWidth == 40 ? nil : .int(receiptWidth),
      "receipt_footer": receiptFooter.map(JSONValue.string),
      "discount_approval_limit": discountApprovalLimit?.json,
      "auto_sign_out": autoSignOut ? .bool(true) : nil,
      "cash_refunds": cashRefunds ? .bool(true) : nil,
      "scan_adds_to_line": scanAddsToLine ? .bool(true) : nil,
      "pin_hash_iterations": pinIterations == Self.defaultPINIterations ? nil : .int(pinIterations),
      "lockout_minutes": lockoutMinutes == Self.defaultLockoutMinutes ? nil : .int(lockoutMinutes),
      "operator_idle_minutes": operatorIdleMinutes == Self.defaultOperatorIdleMinutes
        ? nil : .int(operatorIdleMinutes),
      "email_from": emailFrom == "receipts@localhost" ? nil : .string(emailFrom),
      "tenders": tenders.isEmpty ? nil : .array(tenders.map(JSONValue.string)),
      "price_barcode_prefixes": priceBarcodePrefixes.isEmpty
        ? nil : .array(priceBarcodePrefixes.map(JSONValue.string)),
      "printer_code_page": printerCodePage == .cp437 ? nil : .string(printerCodePage.rawValue),
      "receipt_barcode": receiptBarcode == .code128 ? nil : .string(receiptBarcode.rawValue),
      "printer": printer.map { .string($0.description) },
    ])
  }
}

extension TaxSettings {
  init(json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    guard let classesValue = fields.raw("classes"), case .object(let object) = classesValue else {
      throw JSONShapeError(
        path: fields.pathOf("classes"),
        message: "is required: an object of class name to rate, like {\"standard\": \"7.5\"}")
    }
    guard !object.isEmpty else {
      throw JSONShapeError(path: fields.pathOf("classes"), message: "must name at least one class")
    }
    var classes: [(name: String, rate: Percent)] = []
    for (name, value) in object.members {
      let classPath = fields.pathOf("classes") + "." + name
      try validateSKU(name, path: classPath)
      let rate = try Percent(json: value, path: classPath)
      guard rate <= .hundred else {
        throw JSONShapeError(path: classPath, message: "a tax rate must be at most 100")
      }
      classes.append((name, rate))
    }
    let defaultClass = try fields.required("default_class", as: String.self)
    guard classes.contains(where: { $0.name == defaultClass }) else {
      throw JSONShapeError(
        path: fields.pathOf("default_class"),
        message: "\"\(defaultClass)\" is not one of the classes")
    }
    var rounding = TaxRounding.perTotal
    if let text = try fields.optional("rounding", as: String.self) {
      guard let parsed = TaxRounding(rawValue: text) else {
        throw JSONShapeError(
          path: fields.pathOf("rounding"),
          message: "must be \"per_total\" or \"per_line\", got \"\(text)\"")
      }
      rounding = parsed
    }
    let inclusive = try fields.optional("prices_include_tax", as: Bool.self) ?? false
    try fields.rejectUnknown()
    self.init(
      classes: classes, defaultClass: defaultClass, rounding: rounding, pricesIncludeTax: inclusive)
  }

  var json: JSONValue {
    var classObject = JSONObject()
    for entry in classes { classObject[entry.name] = entry.rate.json }
    return .object([
      "classes": .object(classObject),
      "default_class": .string(defaultClass),
      "rounding": .string(rounding.rawValue),
      "prices_include_tax": .bool(pricesIncludeTax),
    ])
  }
}

extension Product {
  /// Reads and validates one product against the store's currency and tax classes.
  public init(json: JSONValue, path: String, store: StoreSettings) throws(JSONShapeError) {
    try self.init(
      json: json, path: path, currency: store.currency,
      taxClasses: store.tax.classes.map(\.name))
  }

  /// Reads and validates one product; `taxClasses` nil skips the tax class check (the journal
  /// reads products before it knows which classes the store will list).
  init(
    json: JSONValue, path: String, currency: Currency, taxClasses: [String]?
  ) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let sku = try fields.required("sku", as: String.self)
    try validateSKU(sku, path: fields.pathOf("sku"))
    let name = try fields.text("name", required: true, maxLength: 80) ?? ""
    let description =
      try fields.text("description", required: true, maxLength: 1000, allowEmpty: true) ?? ""
    let category = try fields.text("category", required: true, maxLength: 80) ?? ""
    guard let price = try fields.money("price", currency: currency) else {
      throw JSONShapeError(path: fields.pathOf("price"), message: "is required")
    }
    let salePrice = try fields.money("sale_price", currency: currency)
    if let salePrice, salePrice >= price {
      throw JSONShapeError(
        path: fields.pathOf("sale_price"),
        message: "\(salePrice.decimalString) must be below the price \(price.decimalString)")
    }
    let stock = try fields.optional("stock", as: Int64.self)
    if let stock, !(0...1_000_000_000).contains(stock) {
      throw JSONShapeError(
        path: fields.pathOf("stock"), message: "must be between 0 and 1000000000")
    }
    let taxClass = try fields.optional("tax_class", as: String.self)
    if let taxClass, let taxClasses, !taxClasses.contains(taxClass) {
      let known = taxClasses.map { "\"\($0)\"" }.joined(separator: ", ")
      throw JSONShapeError(
        path: fields.pathOf("tax_class"), message: "\"\(taxClass)\" is not a tax class (\(known))")
    }
    var colors = try fields.optional("colors", as: [String].self) ?? []
    for (index, color) in colors.enumerated() {
      try validateText(color, path: indexPath(fields.pathOf("colors"), index), maxLength: 40)
      colors[index] = CardNumberMask.mask(color)
    }
    let image = try fields.text("image", required: false, maxLength: 500)
    var options: [OptionGroup] = []
    if let optionsValue = fields.raw("options") {
      guard case .array(let groups) = optionsValue else {
        throw JSONShapeError(
          path: fields.pathOf("options"), message: "expected an array, got \(optionsValue.typeName)"
        )
      }
      guard groups.count <= Product.maximumOptionGroups else {
        throw JSONShapeError(
          path: fields.pathOf("options"),
          message: "has \(groups.count) groups; at most \(Product.maximumOptionGroups)")
      }
      for (index, group) in groups.enumerated() {
        let groupPath = indexPath(fields.pathOf("options"), index)
        let parsed = try OptionGroup(json: group, path: groupPath, currency: currency)
        if options.contains(where: { $0.group == parsed.group }) {
          throw JSONShapeError(path: groupPath, message: "group \"\(parsed.group)\" appears twice")
        }
        options.append(parsed)
      }
    }
    // The cheapest combination of choices must not take the price below zero.
    var cheapest = (salePrice ?? price).minorUnits
    for group in options {
      let lowest = group.choices.map(\.priceDelta.minorUnits).min() ?? 0
      if group.required || lowest < 0 {
        let (sum, overflow) = cheapest.addingReportingOverflow(
          min(lowest, group.required ? lowest : 0))
        cheapest = overflow ? -1 : sum
      }
    }
    if cheapest < 0 {
      throw JSONShapeError(
        path: fields.pathOf("options"),
        message: "the cheapest choice of options makes the price negative")
    }
    let barcodes = try fields.optional("barcodes", as: [String].self) ?? []
    try Self.validateBarcodes(barcodes, path: fields.pathOf("barcodes"))
    let giftCard = try fields.optional("gift_card", as: Bool.self) ?? false
    let openAmount = try fields.optional("open_amount", as: Bool.self) ?? false
    if openAmount && !giftCard {
      throw JSONShapeError(
        path: fields.pathOf("open_amount"), message: "is only for gift cards (\"gift_card\": true)")
    }
    if giftCard {
      // A gift card is loaded with exactly what was paid for it: nothing may change the price.
      if salePrice != nil || !options.isEmpty {
        throw JSONShapeError(
          path: fields.pathOf(salePrice != nil ? "sale_price" : "options"),
          message: "a gift card has no sale price and no options")
      }
      if openAmount && price.minorUnits != 0 {
        throw JSONShapeError(
          path: fields.pathOf("price"),
          message: "an open-amount gift card's price is 0 (the cashier gives the amount)")
      }
      if !openAmount && price.minorUnits <= 0 {
        throw JSONShapeError(
          path: fields.pathOf("price"), message: "a gift card's price is its value: more than 0")
      }
    }
    let stores = try Self.storeStocks(fields.raw("stores"), path: fields.pathOf("stores"))
    try fields.rejectUnknown()
    self.init(
      sku: sku, name: name, description: description, category: category, price: price,
      salePrice: salePrice, stock: stock, taxClass: taxClass, colors: colors, image: image,
      options: options, barcodes: barcodes, giftCard: giftCard, openAmount: openAmount,
      stores: stores)
  }

  /// `stores`: an object of store name to units in stock there, like {"Riverside": 4}.
  static func storeStocks(_ value: JSONValue?, path: String) throws(JSONShapeError)
    -> [StoreStock]
  {
    guard let value else { return [] }
    guard case .object(let object) = value else {
      throw JSONShapeError(
        path: path,
        message:
          "expected an object of store name to units, like {\"Riverside\": 4}, got \(value.typeName)"
      )
    }
    guard object.count <= maximumStores else {
      throw JSONShapeError(
        path: path, message: "lists \(object.count) stores; at most \(maximumStores)")
    }
    var stores: [StoreStock] = []
    for (name, units) in object.members {
      let storePath = path + "." + name
      try validateText(name, path: storePath, maxLength: 80)
      let count = try Int64(json: units, path: storePath)
      guard (0...IntegerRanges.maximumStock).contains(count) else {
        throw JSONShapeError(
          path: storePath,
          message: "expected a whole number of units from 0 to \(IntegerRanges.maximumStock)")
      }
      stores.append(StoreStock(store: CardNumberMask.mask(name), units: count))
    }
    return stores
  }

  /// Each barcode must be an EAN-13, UPC-A or EAN-8 with its check digit right, and appear
  /// once (a UPC-A and the EAN-13 it is count as one).
  static func validateBarcodes(_ barcodes: [String], path: String) throws(JSONShapeError) {
    guard barcodes.count <= maximumBarcodes else {
      throw JSONShapeError(
        path: path, message: "has \(barcodes.count) barcodes; at most \(maximumBarcodes)")
    }
    var keys: Set<String> = []
    for (index, text) in barcodes.enumerated() {
      let itemPath = indexPath(path, index)
      switch Barcode.parse(text) {
      case .failure(.notABarcode):
        throw JSONShapeError(
          path: itemPath,
          message:
            "\"\(displayable(text))\" is not a barcode: 13 (EAN-13), 12 (UPC-A) or 8 (EAN-8) digits"
        )
      case .failure(.badCheckDigit(let kind, let expected)):
        throw JSONShapeError(
          path: itemPath,
          message: "\(text) is not a valid \(kind.rawValue): its check digit should be \(expected)")
      case .success(let barcode):
        guard keys.insert(barcode.key).inserted else {
          throw JSONShapeError(path: itemPath, message: "\(text) is listed twice")
        }
      }
    }
  }

  /// A short, safe rendering of a text that is not a barcode, for an error message.
  private static func displayable(_ text: String) -> String {
    let short = text.count > 24 ? String(text.prefix(24)) + "…" : text
    return String(short.unicodeScalars.map { $0.isASCII && $0.value >= 32 ? Character($0) : "?" })
  }

  /// The product in the catalog file's shape.
  public var json: JSONValue {
    .object([
      "sku": .string(sku),
      "name": .string(name),
      "description": .string(description),
      "category": .string(category),
      "price": price.json,
      "sale_price": salePrice?.json,
      "stock": stock.map { .int($0) },
      "tax_class": taxClass.map(JSONValue.string),
      "colors": colors.isEmpty ? nil : .array(colors.map(JSONValue.string)),
      "image": image.map(JSONValue.string),
      "options": options.isEmpty ? nil : .array(options.map(\.json)),
      "barcodes": barcodes.isEmpty ? nil : .array(barcodes.map(JSONValue.string)),
      "gift_card": giftCard ? .bool(true) : nil,
      "open_amount": openAmount ? .bool(true) : nil,
      "stores": stores.isEmpty ? nil : storesJSON,
    ])
  }

  /// `stores` in the catalog file's shape: store name to units.
  var storesJSON: JSONValue {
    var object = JSONObject(capacity: stores.count)
    for entry in stores { object[entry.store] = .int(entry.units) }
    return .object(object)
  }
}

extension OptionGroup {
  init(json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let group = try fields.text("group", required: true, maxLength: 40) ?? ""
    let required = try fields.optional("required", as: Bool.self) ?? false
    guard let choicesValue = fields.raw("choices"), case .array(let items) = choicesValue,
      !items.isEmpty
    else {
      throw JSONShapeError(
        path: fields.pathOf("choices"), message: "is required: a non-empty array of choices")
    }
    guard items.count <= Product.maximumOptionChoices else {
      throw JSONShapeError(
        path: fields.pathOf("choices"),
        message: "has \(items.count) choices; at most \(Product.maximumOptionChoices)")
    }
    var choices: [OptionChoice] = []
    for (index, item) in items.enumerated() {
      let choicePath = indexPath(fields.pathOf("choices"), index)
      var choiceFields = try JSONFields(item, path: choicePath)
      let name = try choiceFields.text("name", required: true, maxLength: 40) ?? ""
      let delta =
        try choiceFields.money("price_delta", currency: currency, allowNegative: true)
        ?? .zero(currency)
      try choiceFields.rejectUnknown()
      if choices.contains(where: { $0.name == name }) {
        throw JSONShapeError(path: choicePath, message: "choice \"\(name)\" appears twice")
      }
      choices.append(OptionChoice(name: name, priceDelta: delta))
    }
    try fields.rejectUnknown()
    self.init(group: group, required: required, choices: choices)
  }

  var json: JSONValue {
    .object([
      "group": .string(group),
      "required": .bool(required),
      "choices": .array(
        choices.map { .object(["name": .string($0.name), "price_delta": $0.priceDelta.json]) }),
    ])
  }
}

extension Catalog {
  /// Reads and validates a whole catalog document. Errors name the product and the field.
  ///
  /// With `store` (the settings from a lane's own store file) the document's `store` section
  /// may be left out, and is ignored when present: a chain ships one catalog to every lane and
  /// each lane keeps its own name, address, tax and limits. The products are checked against
  /// the settings in force (their tax classes, their currency).
  public init(json: JSONValue, store settings: StoreSettings? = nil) throws(JSONShapeError) {
    var fields = try JSONFields(json)
    let storeValue = fields.raw("store")
    let store: StoreSettings
    if let settings {
      store = settings
    } else if let storeValue {
      store = try StoreSettings(json: storeValue, path: "store")
    } else {
      throw JSONShapeError(
        path: "store", message: "is required (or give the store settings in a file of their own)")
    }
    guard let productsValue = fields.raw("products"), case .array(let items) = productsValue else {
      throw JSONShapeError(path: "products", message: "is required: an array of products")
    }
    guard items.count <= Register.maximumProducts else {
      throw JSONShapeError(
        path: "products",
        message:
          "has \(items.count) products, more than the \(Register.maximumProducts) a catalog may hold"
      )
    }
    var products: [Product] = []
    var seen: [String: Int] = [:]
    for (index, item) in items.enumerated() {
      let path = indexPath("products", index)
      let product: Product
      do {
        product = try Product(json: item, path: path, store: store)
      } catch {
        throw Self.naming(error, item: item, index: index)
      }
      if let first = seen[product.sku] {
        throw JSONShapeError(
          path: "product \"\(product.sku)\" (products[\(index)]): sku",
          message: "duplicate SKU, also used by products[\(first)]")
      }
      seen[product.sku] = index
      products.append(product)
    }
    try Self.checkBarcodesUnique(products)
    let promotions = try Self.promotions(fields.raw("promotions"), products: products, store: store)
    try fields.rejectUnknown()
    self.init(store: store, products: products, promotions: promotions)
  }

  /// Reads and checks the `promotions` section: each promotion's shape, ids unique, every SKU
  /// a product of the catalog and every category one a product has. Errors name the
  /// promotion and the field.
  static func promotions(
    _ value: JSONValue?, products: [Product], store: StoreSettings
  ) throws(JSONShapeError) -> [Promotion] {
    guard let value else { return [] }
    guard case .array(let items) = value else {
      throw JSONShapeError(
        path: "promotions", message: "must be an array of promotions, got \(value.typeName)")
    }
    guard items.count <= Promotion.maximumCount else {
      throw JSONShapeError(
        path: "promotions", message: "holds more than \(Promotion.maximumCount) promotions")
    }
    let skus = Set(products.map(\.sku))
    let categories = Set(products.map(\.category))
    var seen: [String: Int] = [:]
    var promotions: [Promotion] = []
    for (index, item) in items.enumerated() {
      let label: String
      if case .string(let id) = item["id"] ?? .null {
        label = "promotion \"\(id)\" (promotions[\(index)])"
      } else {
        label = "promotion promotions[\(index)]"
      }
      func named(_ field: String, _ message: ErrorMessage) -> JSONShapeError {
        JSONShapeError(path: "\(label): field \"\(field)\"", message: message)
      }
      let promotion: Promotion
      do {
        promotion = try Promotion(
          json: item, path: indexPath("promotions", index), currency: store.currency)
      } catch {
        let prefix = "promotions[\(index)]"
        var field = String(error.path.dropFirst(prefix.count))
        if field.hasPrefix(".") { field.removeFirst() }
        throw field.isEmpty
          ? JSONShapeError(path: label, message: error.errorMessage)
          : named(field, error.errorMessage)
      }
      if let first = seen[promotion.id] {
        throw named("id", "duplicate promotion id, also used by promotions[\(first)]")
      }
      seen[promotion.id] = index
      switch promotion.scope {
      case .sku(let sku):
        guard skus.contains(sku) else { throw named("sku", "no product has the SKU \"\(sku)\"") }
      case .skus(let list):
        for (position, sku) in list.enumerated() where !skus.contains(sku) {
          throw named("skus[\(position)]", "no product has the SKU \"\(sku)\"")
        }
      case .category(let category):
        guard categories.contains(category) else {
          throw named("category", "no product is in the category \"\(category)\"")
        }
      }
      promotions.append(promotion)
    }
    return promotions
  }

  /// No barcode may be on two products (a scan must name one product), nor be another
  /// product's SKU (a scan of it would be ambiguous).
  static func checkBarcodesUnique(_ products: [Product]) throws(JSONShapeError) {
    var owner: [String: Int] = [:]
    var skus: [String: Int] = [:]
    for (index, product) in products.enumerated() { skus[product.sku] = index }
    for (index, product) in products.enumerated() {
      for (position, text) in product.barcodes.enumerated() {
        guard case .success(let barcode) = Barcode.parse(text) else { continue }
        let path =
          "product \"\(product.sku)\" (products[\(index)]): field \"barcodes[\(position)]\""
        if let first = owner[barcode.key] {
          throw JSONShapeError(
            path: path,
            message: "\(text) is also a barcode of \"\(products[first].sku)\" (products[\(first)])")
        }
        if let other = skus[text], other != index {
          throw JSONShapeError(
            path: path,
            message: "\(text) is the SKU of products[\(other)]; a scan could mean either")
        }
        owner[barcode.key] = index
      }
    }
  }

  /// Rewrites "products[3].price" as "product \"SKU\" (products[3]): price" when the SKU is known.
  private static func naming(_ error: JSONShapeError, item: JSONValue, index: Int) -> JSONShapeError
  {
    let prefix = "products[\(index)]"
    var field = String(error.path.dropFirst(prefix.count))
    if field.hasPrefix(".") { field.removeFirst() }
    let label: String
    if case .string(let sku) = item["sku"] ?? .null {
      label = "product \"\(sku)\" (\(prefix))"
    } else {
      label = "product \(prefix)"
    }
    return JSONShapeError(
      path: field.isEmpty ? label : "\(label): field \"\(field)\"", message: error.errorMessage)
  }

  /// The catalog document, as the catalog file holds it.
  public var json: JSONValue {
    .object([
      "store": store.json, "products": .array(products.map(\.json)),
      "promotions": promotions.isEmpty ? nil : .array(promotions.map(\.json)),
    ])
  }
}
