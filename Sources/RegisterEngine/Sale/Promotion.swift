/// A promotion from the catalog file's `promotions`: which units it takes (a SKU, a list of
/// SKUs or a category) and what it does with them. The register applies the best combination
/// of promotions for the customer by itself (`PromotionEngine`); see docs/PRICING.md.
public struct Promotion: Sendable, Equatable {
  /// The most promotions a catalog may define, SKUs one may list, and units one application
  /// may take: enough for a store, and a bound on the work a catalog can ask for.
  public static let maximumCount = 200
  public static let maximumSKUs = 500
  public static let maximumUnits: Int64 = 100

  /// Which products a promotion takes units of.
  public enum Scope: Sendable, Equatable {
    case sku(String)
    case skus([String])
    case category(String)
  }

  /// What a promotion does with the units of one application.
  public enum Rule: Sendable, Equatable {
    /// `quantity` units of the SKU or category for `price` together ("3 for 30.00").
    case quantityPrice(quantity: Int64, price: Money)
    /// Of `buy + get` units, the `get` cheapest are `percentOff` off (100: free).
    case buyGet(buy: Int64, get: Int64, percentOff: Percent)
    /// Any `quantity` units of the listed SKUs or the category for `price` together.
    case mixMatch(quantity: Int64, price: Money)
    /// Every unit of the category `percent` off.
    case categoryPercent(percent: Percent)
  }

  public var id: String
  /// Printed on receipts.
  public var name: String
  public var rule: Rule
  public var scope: Scope
  /// The first and last day (inclusive, the store's local date) it applies; nil: unbounded.
  public var starts: PromotionDate?
  public var ends: PromotionDate?

  public init(
    id: String, name: String, rule: Rule, scope: Scope, starts: PromotionDate? = nil,
    ends: PromotionDate? = nil
  ) {
    self.id = id
    self.name = name
    self.rule = rule
    self.scope = scope
    self.starts = starts
    self.ends = ends
  }

  /// The kinds the catalog file names.
  public enum Kind: String, Sendable {
    case quantityPrice = "quantity_price"
    case buyGet = "buy_get"
    case mixMatch = "mix_match"
    case categoryPercent = "category_percent"
  }

  /// The `kind` the catalog file names it by.
  public var kind: String {
    switch rule {
    case .quantityPrice: Kind.quantityPrice.rawValue
    case .buyGet: Kind.buyGet.rawValue
    case .mixMatch: Kind.mixMatch.rawValue
    case .categoryPercent: Kind.categoryPercent.rawValue
    }
  }

  /// How many units one application takes.
  public var unitsPerApplication: Int {
    switch rule {
    case .quantityPrice(let quantity, _), .mixMatch(let quantity, _): Int(quantity)
    case .buyGet(let buy, let get, _): Int(buy + get)
    case .categoryPercent: 1
    }
  }

  /// True when a unit of `sku` in `category` may take part.
  public func covers(sku: String, category: String?) -> Bool {
    switch scope {
    case .sku(let only): sku == only
    case .skus(let list): list.contains(sku)
    case .category(let name): category == name
    }
  }

  /// True when the promotion applies on `day` (days since 1970-01-01, the store's local date).
  public func isActive(onDay day: Int64) -> Bool {
    if let starts, day < starts.days { return false }
    if let ends, day > ends.days { return false }
    return true
  }

  /// What one application saves on units at these prices (minor units, any order): never
  /// negative (an application that would cost more than the units is worth nothing).
  func saving(of prices: [Int64]) -> Int64 {
    let sum = prices.reduce(Int64(0)) { $0.addingReportingOverflow($1).partialValue }
    switch rule {
    case .quantityPrice(_, let price), .mixMatch(_, let price):
      return max(0, sum - price.minorUnits)
    case .buyGet(_, let get, let percent):
      let cheapest = prices.sorted().prefix(Int(get)).reduce(Int64(0), +)
      return (try? percent.of(cheapest)) ?? 0
    case .categoryPercent(let percent):
      return (try? percent.of(sum)) ?? 0
    }
  }
}

/// A calendar date as a promotion's bounds give it ("2026-12-01").
public struct PromotionDate: Sendable, Equatable, Comparable {
  /// Days since 1970-01-01.
  public var days: Int64

  public init(days: Int64) { self.days = days }

  /// Reads "YYYY-MM-DD" (a real date); nil otherwise.
  public static func parse(_ text: String) -> PromotionDate? {
    let bytes = Array(text.utf8)
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else {
      return nil
    }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      year >= 1970, (1...12).contains(month), day >= 1
    else { return nil }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard day <= lengths[month - 1] else { return nil }
    return PromotionDate(days: CivilTime.daysFromCivil(year: Int64(year), month: month, day: day))
  }

  /// The local date of a moment.
  public init(_ time: Timestamp) {
    let local = time.local
    days = CivilTime.daysFromCivil(year: local.year, month: local.month, day: local.day)
  }

  /// "2026-12-01"
  public var text: String {
    let (year, month, day) = CivilTime.civilFromDays(days)
    return "\(pad(Int(year), 4))-\(pad(month, 2))-\(pad(day, 2))"
  }

  public static func < (lhs: PromotionDate, rhs: PromotionDate) -> Bool { lhs.days < rhs.days }
}

/// A promotion as it applied to an order: what it saved in all and each line's share.
public struct AppliedPromotion: Sendable, Equatable {
  /// One line's part: how many of its units took part and its share of the saving.
  public struct Share: Sendable, Equatable {
    public var line: Int
    public var units: Int64
    public var saving: Int64

    public init(line: Int, units: Int64, saving: Int64) {
      self.line = line
      self.units = units
      self.saving = saving
    }
  }

  public var id: String
  public var name: String
  /// How many times it applied (groups of units; units for a percentage off).
  public var applications: Int64
  public var saving: Int64
  public var lines: [Share]

  public init(id: String, name: String, applications: Int64, saving: Int64, lines: [Share]) {
    self.id = id
    self.name = name
    self.applications = applications
    self.saving = saving
    self.lines = lines
  }
}

extension Promotion {
  /// Reads one promotion's shape: kind, fields, ranges, dates. Whether its SKUs and category
  /// exist is the catalog's check (`Catalog.init(json:store:)`); a journal record is read
  /// without it (the products may have changed since).
  public init(json: JSONValue, path: String, currency: Currency) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    let id = try fields.required("id", as: String.self)
    guard !id.isEmpty, id.count <= 32,
      id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
    else {
      throw JSONShapeError(
        path: fields.pathOf("id"),
        message: "\"\(id)\" is not a valid promotion id (1 to 32 letters, digits, '-', '_' or '.')")
    }
    let name = try fields.text("name", required: true, maxLength: 60) ?? ""
    let kind = try fields.required("kind", as: String.self)
    func units(_ key: String, atLeast minimum: Int64 = 1) throws(JSONShapeError) -> Int64 {
      let value = try fields.required(key, as: Int64.self)
      guard (minimum...Promotion.maximumUnits).contains(value) else {
        throw JSONShapeError(
          path: fields.pathOf(key),
          message: "must be from \(minimum) to \(Promotion.maximumUnits), got \(value)")
      }
      return value
    }
    func price() throws(JSONShapeError) -> Money {
      guard let price = try fields.money("price", currency: currency) else {
        throw JSONShapeError(path: fields.pathOf("price"), message: "is required")
      }
      return price
    }
    func percent(_ key: String, default fallback: Percent?) throws(JSONShapeError) -> Percent {
      guard let value = try fields.percent(key) ?? fallback else {
        throw JSONShapeError(path: fields.pathOf(key), message: "is required")
      }
      guard value > .zero, value <= .hundred else {
        throw JSONShapeError(
          path: fields.pathOf(key),
          message: "\(value.decimalString) must be more than 0 and at most 100")
      }
      return value
    }
    func skuList() throws(JSONShapeError) -> [String] {
      let list = try fields.required("skus", as: [String].self)
      guard !list.isEmpty, list.count <= Promotion.maximumSKUs else {
        throw JSONShapeError(
          path: fields.pathOf("skus"), message: "must list 1 to \(Promotion.maximumSKUs) SKUs")
      }
      var seen: Set<String> = []
      for (index, sku) in list.enumerated() {
        try validateSKU(sku, path: indexPath(fields.pathOf("skus"), index))
        guard seen.insert(sku).inserted else {
          throw JSONShapeError(
            path: indexPath(fields.pathOf("skus"), index), message: "\"\(id: sku)\" is listed twice"
          )
        }
      }
      return list
    }
    // Every kind takes "sku", "skus" or "category" (exactly one): a sale's record keeps a
    // category resolved to the SKUs it sold in it.
    func readScope() throws(JSONShapeError) -> Scope {
      let given = ["sku", "skus", "category"].filter { fields.has($0) }
      guard given.count == 1 else {
        throw JSONShapeError(
          path: fields.pathOf(given.count > 1 ? given[1] : "sku"),
          message: given.count > 1
            ? "give one of \"sku\", \"skus\" or \"category\", not several"
            : "is required (or \"skus\", or \"category\")")
      }
      if given[0] == "sku" {
        let sku = try fields.required("sku", as: String.self)
        try validateSKU(sku, path: fields.pathOf("sku"))
        return .sku(sku)
      }
      if given[0] == "skus" { return .skus(try skuList()) }
      return .category(try fields.text("category", required: true, maxLength: 80) ?? "")
    }
    guard let known = Kind(rawValue: kind) else {
      throw JSONShapeError(
        path: fields.pathOf("kind"),
        message:
          "\"\(kind)\" is not a promotion kind (quantity_price, buy_get, mix_match, category_percent)"
      )
    }
    let rule: Rule
    let scope: Scope
    switch known {
    case .quantityPrice:
      scope = try readScope()
      rule = .quantityPrice(quantity: try units("quantity"), price: try price())
    case .buyGet:
      scope = try readScope()
      let buy = try units("buy")
      let get = try units("get")
      guard buy + get <= Promotion.maximumUnits else {
        throw JSONShapeError(
          path: fields.pathOf("get"),
          message: "buy + get must be at most \(Promotion.maximumUnits), got \(buy + get)")
      }
      rule = .buyGet(buy: buy, get: get, percentOff: try percent("percent_off", default: .hundred))
    case .mixMatch:
      scope = try readScope()
      rule = .mixMatch(quantity: try units("quantity"), price: try price())
    case .categoryPercent:
      guard fields.has("category") || fields.has("skus") else {
        throw JSONShapeError(path: fields.pathOf("category"), message: "is required")
      }
      scope = try readScope()
      rule = .categoryPercent(percent: try percent("percent", default: nil))
    }
    func date(_ key: String) throws(JSONShapeError) -> PromotionDate? {
      guard let text = try fields.optional(key, as: String.self) else { return nil }
      guard let date = PromotionDate.parse(text) else {
        throw JSONShapeError(
          path: fields.pathOf(key), message: "\"\(text)\" is not a date; write it as YYYY-MM-DD")
      }
      return date
    }
    let starts = try date("starts")
    let ends = try date("ends")
    if let starts, let ends, ends < starts {
      throw JSONShapeError(
        path: fields.pathOf("ends"),
        message: "\(ends.text) is before the start \(starts.text)")
    }
    try fields.rejectUnknown()
    self.init(id: id, name: name, rule: rule, scope: scope, starts: starts, ends: ends)
  }

  /// The promotion in the catalog file's shape.
  public var json: JSONValue {
    var members = JSONObject()
    members.append("id", .string(id))
    members.append("name", .string(name))
    members.append("kind", .string(kind))
    switch scope {
    case .sku(let sku): members.append("sku", .string(sku))
    case .skus(let list): members.append("skus", .array(list.map(JSONValue.string)))
    case .category(let name): members.append("category", .string(name))
    }
    switch rule {
    case .quantityPrice(let quantity, let price), .mixMatch(let quantity, let price):
      members.append("quantity", .int(quantity))
      members.append("price", price.json)
    case .buyGet(let buy, let get, let percent):
      members.append("buy", .int(buy))
      members.append("get", .int(get))
      members.append("percent_off", percent.json)
    case .categoryPercent(let percent):
      members.append("percent", percent.json)
    }
    if let starts { members.append("starts", .string(starts.text)) }
    if let ends { members.append("ends", .string(ends.text)) }
    return .object(members)
  }
}
