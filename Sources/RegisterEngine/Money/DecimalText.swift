/// Decimal text of an integer, with an optional decimal point, written without going through
/// `String` (amounts and counts are written for every reply).
enum DecimalText {
  /// Room enough for any `Int64` with a point and a sign.
  static let capacity = 48

  /// Writes `value` as decimal digits at the end of `buffer`, with a point before the last
  /// `fractionDigits` of them (at least one digit before the point), and returns where the
  /// text starts. `buffer` holds at least `capacity` bytes.
  static func write(
    _ value: Int64, fractionDigits: Int = 0, endingAt buffer: UnsafeMutableBufferPointer<UInt8>
  ) -> Int {
    var magnitude = value.magnitude
    let fraction = max(0, min(fractionDigits, 18))
    var position = buffer.count
    var written = 0
    repeat {
      if written == fraction && fraction > 0 {
        position -= 1
        buffer[position] = UInt8(ascii: ".")
      }
      position -= 1
      buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
      magnitude /= 10
      written += 1
    } while magnitude > 0 || written <= fraction
    if value < 0 {
      position -= 1
      buffer[position] = UInt8(ascii: "-")
    }
    return position
  }

  /// Appends `value` in decimal to `output`.
  static func append(_ value: Int64, to output: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      let start = write(value, endingAt: buffer)
      output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
    }
  }
}
