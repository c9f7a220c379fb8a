/// A moment as the register records it: milliseconds since the Unix epoch and the store's UTC
/// offset at that moment. Receipts print the local wall-clock time from these two integers, so
/// a receipt replayed years later, on any machine, prints the same time.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var epochMilliseconds: Int64
  public var utcOffsetSeconds: Int32

  public init(epochMilliseconds: Int64, utcOffsetSeconds: Int32 = 0) {
    self.epochMilliseconds = epochMilliseconds
    self.utcOffsetSeconds = utcOffsetSeconds
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.epochMilliseconds < rhs.epochMilliseconds
  }

  /// The local civil date and time of this moment.
  public var local: CivilTime {
    let localMillis = epochMilliseconds + Int64(utcOffsetSeconds) * 1000
    let (days, millisOfDay) = Self.floorDivide(localMillis, 86_400_000)
    let (year, month, day) = CivilTime.civilFromDays(days)
    let seconds = millisOfDay / 1000
    return CivilTime(
      year: year, month: month, day: day, hour: Int(seconds / 3600),
      minute: Int(seconds % 3600 / 60), second: Int(seconds % 60),
      millisecond: Int(millisOfDay % 1000))
  }

  static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    var quotient = value / divisor
    var remainder = value % divisor
    if remainder < 0 {
      quotient -= 1
      remainder += divisor
    }
    return (quotient, remainder)
  }

  /// ISO 8601 with milliseconds and offset: "2026-11-22T14:03:05.123-05:00".
  public var iso8601: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(29)
    appendISO8601(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `iso8601`'s text as UTF-8, digit by digit (the journal writes one per record; no
  /// string is built on the way), with one append to `bytes`.
  func appendISO8601(to bytes: inout [UInt8]) {
    let time = local
    let offset = Int(utcOffsetSeconds)
    // Room for the widest year and offset (a sign and 19 digits each) and the rest.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer in
      var at = 0
      func put(_ character: Unicode.Scalar) {
        buffer[at] = UInt8(ascii: character)
        at += 1
      }
      writePadded(Int(time.year), width: 4, to: buffer, at: &at)
      put("-")
      writePadded(time.month, width: 2, to: buffer, at: &at)
      put("-")
      writePadded(time.day, width: 2, to: buffer, at: &at)
      put("T")
      writePadded(time.hour, width: 2, to: buffer, at: &at)
      put(":")
      writePadded(time.minute, width: 2, to: buffer, at: &at)
      put(":")
      writePadded(time.second, width: 2, to: buffer, at: &at)
      put(".")
      writePadded(time.millisecond, width: 3, to: buffer, at: &at)
      put(offset < 0 ? "-" : "+")
      writePadded(abs(offset) / 3600, width: 2, to: buffer, at: &at)
      put(":")
      writePadded(abs(offset) % 3600 / 60, width: 2, to: buffer, at: &at)
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<at]))
    }
  }

  public var description: String { iso8601 }

  /// Parses the form `iso8601` writes (the offset may also be "Z").
  public static func parse(_ text: String) -> Timestamp? {
    // Read from the string's UTF-8 in place (a journal check parses one per record).
    var text = text
    return text.withUTF8 { parse(utf8: $0) }
  }

  private static func parse(utf8 chars: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    func number(_ start: Int, _ count: Int) -> Int? {
      guard start + count <= chars.count else { return nil }
      var value = 0
      for byte in chars[start..<start + count] {
        guard byte >= 48 && byte <= 57 else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }
    func byte(_ index: Int, _ expected: Unicode.Scalar) -> Bool {
      index < chars.count && chars[index] == UInt8(ascii: expected)
    }
    guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"),
      let day = number(8, 2), byte(10, "T"), let hour = number(11, 2), byte(13, ":"),
      let minute = number(14, 2), byte(16, ":"), let second = number(17, 2), byte(19, "."),
      let millis = number(20, 3), (1...12).contains(month), (1...31).contains(day),
      hour < 24, minute < 60, second < 60
    else { return nil }
    var offset = 0
    if byte(23, "Z") && chars.count == 24 {
      offset = 0
    } else {
      guard chars.count == 29, byte(23, "+") || byte(23, "-"), let oh = number(24, 2),
        byte(26, ":"), let om = number(27, 2), oh < 24, om < 60
      else { return nil }
      offset = (oh * 3600 + om * 60) * (byte(23, "-") ? -1 : 1)
    }
    let days = CivilTime.daysFromCivil(year: Int64(year), month: month, day: day)
    let localMillis =
      days * 86_400_000 + Int64(hour * 3600 + minute * 60 + second) * 1000 + Int64(millis)
    return Timestamp(
      epochMilliseconds: localMillis - Int64(offset) * 1000, utcOffsetSeconds: Int32(offset))
  }
}

/// A local calendar date and time of day.
public struct CivilTime: Hashable, Sendable {
  public var year: Int64
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int
  public var millisecond: Int

  /// "2026-11-22"
  public var dateString: String { "\(pad(Int(year), 4))-\(pad(month, 2))-\(pad(day, 2))" }
  /// "14:03:05"
  public var timeString: String { "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))" }
  /// "14:03"
  public var shortTimeString: String { "\(pad(hour, 2)):\(pad(minute, 2))" }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  static func daysFromCivil(year: Int64, month: Int, day: Int) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let m = Int64(month)
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01.
  static func civilFromDays(_ days: Int64) -> (Int64, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = Int(doy - (153 * mp + 2) / 5 + 1)
    let month = Int(mp < 10 ? mp + 3 : mp - 9)
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }
}

/// Writes what `pad(value, width)` returns, as UTF-8, at `position` in `buffer` (which has room
/// for it), and moves `position` past it.
func writePadded(
  _ value: Int, width: Int, to buffer: UnsafeMutableBufferPointer<UInt8>, at position: inout Int
) {
  if value < 0 {
    buffer[position] = UInt8(ascii: "-")
    position += 1
  }
  var magnitude = value.magnitude
  var digits = 0
  var rest = magnitude
  repeat {
    digits += 1
    rest /= 10
  } while rest > 0
  for _ in 0..<max(0, width - digits) {
    buffer[position] = UInt8(ascii: "0")
    position += 1
  }
  // The digits from the last one back.
  var index = position + digits
  position = index
  repeat {
    index -= 1
    buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
    magnitude /= 10
  } while magnitude > 0
}

func pad(_ value: Int, _ width: Int) -> String {
  let text = String(abs(value))
  let padded = text.count < width ? String(repeated: "0", count: width - text.count) + text : text
  return value < 0 ? "-" + padded : padded
}
