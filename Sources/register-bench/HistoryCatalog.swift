import RegisterEngine

/// The catalog of a generated history: a general store's products (clothing, home goods,
/// books, groceries, gift cards) with SKUs, prices, some sale prices, three tax classes and
/// tracked stock for most of them.
enum HistoryCatalog {
  /// A department: its SKU prefix, the tax class its products take, price range in cents,
  /// and the words product names are built from.
  struct Department {
    var name: String
    var prefix: String
    var taxClass: String?
    var cents: ClosedRange<Int>
    var kinds: [String]
    var variants: [String]
  }

  static let departments: [Department] = [
    Department(
      name: "Tops", prefix: "TOP", taxClass: nil, cents: 999...7999,
      kinds: ["Cotton Tee", "Oxford Shirt", "Flannel Shirt", "Polo", "Henley", "Linen Shirt"],
      variants: ["White S", "White M", "Black L", "Navy M", "Grey XL", "Red S", "Olive L"]),
    Department(
      name: "Bottoms", prefix: "BTM", taxClass: nil, cents: 2499...8999,
      kinds: ["Slim Jeans", "Chino Pants", "Cargo Shorts", "Corduroy Trousers", "Joggers"],
      variants: ["30x30", "32x32", "34x32", "36x34", "Khaki 32", "Indigo 34"]),
    Department(
      name: "Knitwear", prefix: "KNT", taxClass: nil, cents: 3999...12999,
      kinds: ["Merino Sweater", "Cashmere Scarf", "Cable Cardigan", "Wool Beanie"],
      variants: ["Oatmeal", "Charcoal", "Forest", "Camel", "Burgundy"]),
    Department(
      name: "Home", prefix: "HOM", taxClass: nil, cents: 499...14999,
      kinds: ["Ceramic Mug", "Linen Napkins", "Scented Candle", "Throw Blanket", "Vase", "Tray"],
      variants: ["Small", "Large", "Set of 2", "Set of 4", "Sage", "Terracotta", "Ivory"]),
    Department(
      name: "Books", prefix: "BOK", taxClass: "reduced", cents: 799...3999,
      kinds: ["Field Guide", "Cookbook", "Travel Atlas", "Poetry Collection", "Novel", "Journal"],
      variants: ["Paperback", "Hardcover", "Pocket Edition", "Illustrated"]),
    Department(
      name: "Pantry", prefix: "PAN", taxClass: "reduced", cents: 199...1999,
      kinds: ["Olive Oil", "Coffee Beans", "Loose Tea", "Dark Chocolate", "Honey", "Granola"],
      variants: ["250 g", "500 g", "1 kg", "Organic", "Single Origin"]),
    Department(
      name: "Gifts", prefix: "GFT", taxClass: "exempt", cents: 1000...10000,
      kinds: ["Gift Card", "Donation Card"],
      variants: ["Birthday", "Thank You", "Holiday", "Plain"]),
  ]

  /// The catalog file's text: the store and `count` products, one a line (as
  /// Data/products.json is laid out). Deterministic for a given random state.
  static func text(products count: Int, random: inout HistoryRandom) -> String {
    var lines: [String] = []
    lines.reserveCapacity(count)
    for index in 0..<count {
      lines.append("    " + product(index, random: &random))
    }
    return """
      {
        "store": {
          "name": "Maple Street General Store",
          "address": ["48 Maple Street", "Burlington, VT 05401"],
          "phone": "(802) 555-0188",
          "currency": "USD",
          "tax": {
            "classes": {"standard": "6", "reduced": "1", "exempt": "0"},
            "default_class": "standard",
            "rounding": "per_total",
            "prices_include_tax": false
          },
          "receipt_footer": "Thank you! Returns within 30 days with this receipt.",
          "discount_approval_limit": "20"
        },
        "products": [
      \(lines.joined(separator: ",\n"))
        ]
      }

      """
  }

  /// One product as a catalog file line.
  static func product(_ index: Int, random: inout HistoryRandom) -> String {
    let department = departments[index % departments.count]
    let kind = random.pick(department.kinds)
    let variant = random.pick(department.variants)
    let sku = "\(department.prefix)-\(pad(index + 1, 5))"
    // Prices end in .99, .49 or .00, as shelf prices do.
    var cents = random.between(department.cents) / 100 * 100
    cents += random.pick([99, 49, 0])
    if department.name == "Gifts" { cents = random.pick([1000, 2500, 5000, 10000]) }
    var fields = [
      #""sku": "\#(sku)""#,
      #""name": "\#(kind), \#(variant)""#,
      #""description": "\#(kind) from our \#(department.name.lowercased()) range.""#,
      #""category": "\#(department.name)""#,
      #""price": "\#(decimal(cents))""#,
    ]
    if department.name != "Gifts", random.chance(15) {
      // A sale price 10–30 % below the shelf price.
      let sale = cents * (100 - random.pick([10, 15, 20, 25, 30])) / 100
      fields.append(#""sale_price": "\#(decimal(sale))""#)
    }
    // Gift cards and some pantry goods are not counted; everything else is.
    if department.name != "Gifts", random.chance(90) {
      fields.append(#""stock": \#(random.between(20...400))"#)
    }
    if let taxClass = department.taxClass {
      fields.append(#""tax_class": "\#(taxClass)""#)
    }
    return "{" + fields.joined(separator: ", ") + "}"
  }

  /// Cents as a decimal amount ("12.34").
  static func decimal(_ cents: Int) -> String {
    "\(cents / 100).\(pad(cents % 100, 2))"
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}
