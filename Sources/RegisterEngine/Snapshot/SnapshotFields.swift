/// Reading and writing the pieces every part's snapshot codec shares: integers in a stated
/// range, nullable members, money in a given currency, timestamps and arrays.
///
/// A snapshot member is always written, `null` when a Swift optional is nil, so that the member
/// names of an encoded object are exactly the type's stored properties (the tests check this
/// with `Mirror`) and a missing member is always an error.
enum SnapshotRange {
  /// Identifiers and numbers that start at 1 (receipt, order, line, day numbers).
  static let positive: ClosedRange<Int64> = 1...IntegerRanges.maximumCounter
  /// Counts, versions and sequence numbers.
  static let count: ClosedRange<Int64> = 0...IntegerRanges.maximumCounter
  /// Sums of minor units: any value the register's checked arithmetic could have produced.
  static let amount: ClosedRange<Int64> = Int64.min...Int64.max
  /// Milliseconds since 1970 of 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, the years
  /// a timestamp can print.
  static let epochMilliseconds: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999
  /// A UTC offset of less than a day, as `Timestamp.parse` allows.
  static let utcOffsetSeconds: ClosedRange<Int64> = -86_399...86_399
}

extension JSONFields {
  /// A member that must be present (it may be `null`; the caller decides).
  mutating func member(_ key: String) throws(JSONShapeError) -> JSONValue {
    guard let value = raw(key) else {
      throw JSONShapeError(path: pathOf(key), message: "is required")
    }
    return value
  }

  /// A member that must be present, read by `decode` unless it is `null`.
  mutating func nullable<T>(
    _ key: String, _ decode: (JSONValue, String) throws(JSONShapeError) -> T
  ) throws(JSONShapeError) -> T? {
    let value = try member(key)
    if value == .null { return nil }
    return try decode(value, pathOf(key))
  }

  /// A member added after the first snapshot format: read by `read` when present; when absent
  /// (a snapshot an older registerd wrote), `absent`, the value the register had then. The
  /// snapshot's checksum already rules out a member lost to damage, so an older snapshot stays
  /// usable after an upgrade instead of sending start-up back to the whole journal.
  mutating func addedLater<T>(
    _ key: String, absent: T, _ read: (inout JSONFields) throws(JSONShapeError) -> T
  ) throws(JSONShapeError) -> T {
    has(key) ? try read(&self) : absent
  }

  /// A required member read by `decode` (paths built only if it fails: `withPathsOnFailure`).
  mutating func decoded<T>(
    _ key: String, _ decode: (JSONValue, String) throws(JSONShapeError) -> T
  ) throws(JSONShapeError) -> T {
    let value = try member(key)
    return try withPathsOnFailure(pathOf(key)) { path throws(JSONShapeError) in
      try decode(value, path)
    }
  }

  /// A required array member, each element read by `decode` (paths built only if it fails).
  mutating func array<T>(
    _ key: String, _ decode: (JSONValue, String) throws(JSONShapeError) -> T
  ) throws(JSONShapeError) -> [T] {
    let value = try member(key)
    return try withPathsOnFailure(pathOf(key)) { path throws(JSONShapeError) in
      try snapshotArray(value, path: path, decode)
    }
  }

  /// A required integer member within `range`.
  mutating func int64(_ key: String, in range: ClosedRange<Int64>) throws(JSONShapeError) -> Int64 {
    try snapshotInt64(try member(key), path: pathOf(key), in: range)
  }

  /// A required integer member within `range`, as an `Int`.
  mutating func int(_ key: String, in range: ClosedRange<Int64>) throws(JSONShapeError) -> Int {
    try snapshotInt(try member(key), path: pathOf(key), in: range)
  }

  /// A required integer member within `range`, or `null`.
  mutating func nullableInt(
    _ key: String, in range: ClosedRange<Int64>
  ) throws(JSONShapeError) -> Int? {
    try nullable(key) { value, path throws(JSONShapeError) in
      try snapshotInt(value, path: path, in: range)
    }
  }

  /// A required string member.
  mutating func string(_ key: String) throws(JSONShapeError) -> String {
    try String(json: try member(key), path: pathOf(key))
  }

  /// A required string member, or `null`.
  mutating func nullableString(_ key: String) throws(JSONShapeError) -> String? {
    try nullable(key) { value, path throws(JSONShapeError) in try String(json: value, path: path) }
  }

  /// A required `true` or `false` member.
  mutating func bool(_ key: String) throws(JSONShapeError) -> Bool {
    try Bool(json: try member(key), path: pathOf(key))
  }

  /// A required amount in `currency` (negative amounts allowed: cash rounding, option deltas).
  mutating func money(_ key: String, in currency: Currency) throws(JSONShapeError) -> Money {
    try Money(json: try member(key), path: pathOf(key), currency: currency, allowNegative: true)
  }

  /// A required percentage member.
  mutating func snapshotPercent(_ key: String) throws(JSONShapeError) -> Percent {
    try Percent(json: try member(key), path: pathOf(key))
  }

  /// A required timestamp member.
  mutating func timestamp(_ key: String) throws(JSONShapeError) -> Timestamp {
    try Timestamp(snapshot: try member(key), path: pathOf(key))
  }

  /// A required timestamp member, or `null`.
  mutating func nullableTimestamp(_ key: String) throws(JSONShapeError) -> Timestamp? {
    try nullable(key) { value, path throws(JSONShapeError) in
      try Timestamp(snapshot: value, path: path)
    }
  }

  /// A required currency code member.
  mutating func currency(_ key: String) throws(JSONShapeError) -> Currency {
    let code = try string(key)
    guard let currency = Currency(code: code) else {
      throw JSONShapeError(path: pathOf(key), message: "\"\(code)\" is not a supported currency")
    }
    return currency
  }
}

/// An integer within `range` (read without the field-name table of `IntegerRanges`: the
/// snapshot states each member's range where it reads it).
func snapshotInt64(
  _ value: JSONValue, path: String, in range: ClosedRange<Int64>
) throws(JSONShapeError) -> Int64 {
  let number = try Int64(json: value, path: path)
  guard range.contains(number) else {
    throw JSONShapeError(
      path: path,
      message:
        "must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(number)"
    )
  }
  return number
}

/// An integer within `range`, as an `Int`.
func snapshotInt(
  _ value: JSONValue, path: String, in range: ClosedRange<Int64>
) throws(JSONShapeError) -> Int {
  let number = try snapshotInt64(value, path: path, in: range)
  guard let narrow = Int(exactly: number) else {
    throw JSONShapeError(path: path, message: "integer out of range")
  }
  return narrow
}

/// An array, each element read by `decode` with its index in the path.
func snapshotArray<T>(
  _ value: JSONValue, path: String, _ decode: (JSONValue, String) throws(JSONShapeError) -> T
) throws(JSONShapeError) -> [T] {
  guard case .array(let items) = value else {
    throw JSONShapeError(path: path, message: "expected an array, got \(value.typeName)")
  }
  var result: [T] = []
  result.reserveCapacity(items.count)
  for (index, item) in items.enumerated() {
    result.append(try decode(item, indexPath(path, index)))
  }
  return result
}

/// Throws unless `numbers` strictly increase: a snapshot writes keyed collections in sorted
/// order, so a repeat or a step back is damage (two entries for one key).
func requireIncreasing(_ numbers: [Int], path: String) throws(JSONShapeError) {
  for index in numbers.indices.dropFirst() where numbers[index] <= numbers[index - 1] {
    throw JSONShapeError(
      path: indexPath(path, index),
      message: "\(numbers[index]) does not follow \(numbers[index - 1]): entries must increase")
  }
}

extension Optional {
  /// The value written by `encode`, or `null`.
  func snapshot(_ encode: (Wrapped) -> JSONValue) -> JSONValue {
    map(encode) ?? .null
  }
}

extension Timestamp {
  /// The instant and the UTC offset, as two integers.
  var snapshotValue: JSONValue {
    .object([
      "epoch_milliseconds": .int(epochMilliseconds),
      "utc_offset_seconds": .int(utcOffsetSeconds),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let millis = try fields.int64("epoch_milliseconds", in: SnapshotRange.epochMilliseconds)
    let offset = try fields.int64("utc_offset_seconds", in: SnapshotRange.utcOffsetSeconds)
    try fields.rejectUnknown()
    // In range of Int32 by `utcOffsetSeconds`.
    self.init(epochMilliseconds: millis, utcOffsetSeconds: Int32(truncatingIfNeeded: offset))
  }
}

extension Money {
  /// The amount as a decimal string (its currency is written by whatever holds it).
  var snapshotValue: JSONValue { .string(decimalString) }
}
