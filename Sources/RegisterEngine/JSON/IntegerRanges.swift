/// The valid range of every integer field, by field name: one table for requests, catalog files
/// and journal records alike.
///
/// `JSONFields` checks each integer it reads against this table, so a value that is a valid
/// JSON integer but out of range (`Int64.min` as a stock delta, `Int.max` as a line number) is
/// refused where it is read, with a message naming the field and its range, and never reaches
/// arithmetic that could trap. Fields not listed get `fallback`, which still leaves room to add
/// or subtract one without overflow.
public enum IntegerRanges {
  /// The largest identifier or counter (line, receipt, order, sequence numbers, versions).
  public static let maximumCounter: Int64 = 1_000_000_000_000_000
  /// The most units a product's stock may hold, and the largest single stock adjustment.
  public static let maximumStock: Int64 = 1_000_000_000
  /// The most entries one reply lists (a request's `limit`): `customer_find`'s customers,
  /// `catalog`'s products. A longer list is asked for page by page, so that no single reply
  /// holds the event loop, and every lane with it, while it is written.
  public static let maximumPage: Int64 = 1000

  /// The range of any integer field not named in `byField`.
  public static let fallback: ClosedRange<Int64> = -maximumCounter...maximumCounter

  /// Ranges by field name. Identifiers that are only looked up (line, receipt, order numbers,
  /// days, versions) keep the fallback, so that `0` or `-1` is "not found" rather than a
  /// malformed request.
  public static let byField: [String: ClosedRange<Int64>] = [
    "qty": 1...Register.maximumQuantity,
    "delta": -maximumStock...maximumStock,
    "stock": 0...maximumStock,
    "after": 0...maximumCounter,
    "seq": 1...maximumCounter,
    "limit": 1...maximumPage,
  ]

  /// The range of the field `key`.
  public static func range(of key: String) -> ClosedRange<Int64> {
    byField[key] ?? fallback
  }

  /// Fields whose out-of-range value is a bad quantity (`invalid_quantity`) rather than a
  /// malformed request.
  static let quantityFields: Set<String> = ["qty", "delta"]

  /// Refuses `value` when it is an integer outside the range of `key`.
  static func check(_ value: some Any, key: String, path: String) throws(JSONShapeError) {
    let number: Int64
    if let wide = value as? Int64 {
      number = wide
    } else if let narrow = value as? Int {
      number = Int64(narrow)
    } else {
      return
    }
    let range = range(of: key)
    guard range.contains(number) else {
      throw JSONShapeError(
        path: path,
        message:
          "must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(number)"
      )
    }
  }
}
