/// A point in the journal's hash chain: a record's sequence number and its `sum`.
///
/// Printed on every Z report (the last record before the `day_closed` record), so that the paper
/// anchors the file: `register-cli verify --anchor SEQ:SUM` fails unless that record is still
/// in the journal with that sum, which a journal cut at a request boundary is not.
public struct JournalHead: Sendable, Equatable, JSONDecodable, JSONEncodable {
  public var sequence: Int64
  /// The record's SHA-256 `sum`, 64 lowercase hex digits.
  public var sum: String

  public init(sequence: Int64, sum: String) {
    self.sequence = sequence
    self.sum = sum
  }

  public init(json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    sequence = try fields.required("seq")
    sum = try fields.required("sum")
    try fields.rejectUnknown()
    guard sequence > 0, Self.isSum(sum) else {
      throw JSONShapeError(path: path, message: "is not a journal record's seq and sum")
    }
  }

  public var json: JSONValue { .object(["seq": .int(sequence), "sum": .string(sum)]) }

  /// `SEQ:SUM`, as `verify --anchor` takes it.
  public var anchor: String { "\(sequence):\(sum)" }

  /// Reads `SEQ:SUM` (a positive sequence number and 64 hex digits); nil when it is not that.
  public init?(anchor text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let sequence = Int64(parts[0]), sequence > 0 else { return nil }
    let sum = parts[1].lowercased()
    guard Self.isSum(sum) else { return nil }
    self.init(sequence: sequence, sum: sum)
  }

  /// True for 64 lowercase hex digits.
  static func isSum(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}
