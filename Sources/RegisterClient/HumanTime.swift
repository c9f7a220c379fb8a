import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Times in replies (ISO 8601, as the protocol sends them) shown for people at the lane: in
/// the local zone (`TZ`), short — `14:03` today, `Sun 22 Nov 14:03` this year, `Sun 22 Nov
/// 2025 14:03` before. `--json` keeps the ISO form; receipts keep the store's time as printed.
package enum HumanTime {
  static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
  static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// `iso` in the local zone, short, as of now; nil when it is not a timestamp.
  package static func display(_ iso: String) -> String? {
    guard let time = Timestamp.parse(iso) else { return nil }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nowMilliseconds = Int64(now.tv_sec) * 1000
    return short(
      inLocalZone(time.epochMilliseconds),
      now: inLocalZone(nowMilliseconds))
  }

  /// The moment with the UTC offset the local zone (`TZ`) has at it.
  package static func inLocalZone(_ epochMilliseconds: Int64) -> Timestamp {
    // localtime_r need not read TZ itself (POSIX); tzset makes it.
    tzset()
    var seconds = time_t(floorDivide(epochMilliseconds, 1000).0)
    var broken = tm()
    guard localtime_r(&seconds, &broken) != nil else {
      return Timestamp(epochMilliseconds: epochMilliseconds)
    }
    return Timestamp(
      epochMilliseconds: epochMilliseconds,
      utcOffsetSeconds: Int32(truncatingIfNeeded: broken.tm_gmtoff))
  }

  /// `time` as a person reads it, as of `now` (both in the zone to show them in).
  package static func short(_ time: Timestamp, now: Timestamp) -> String {
    let local = time.local
    let today = now.local
    if local.year == today.year && local.month == today.month && local.day == today.day {
      return local.shortTimeString
    }
    let localDays = floorDivide(
      time.epochMilliseconds + Int64(time.utcOffsetSeconds) * 1000, 86_400_000
    ).0
    // 1970-01-01 was a Thursday.
    let weekday = weekdays[Int(floorDivide(localDays + 4, 7).1)]
    let date = "\(weekday) \(local.day) \(months[local.month - 1])"
    let year = local.year == today.year ? "" : " \(local.year)"
    return "\(date)\(year) \(local.shortTimeString)"
  }

  /// Quotient and remainder rounded toward minus infinity (a time before 1970 stays right).
  static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let remainder = value % divisor
    return remainder < 0
      ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
  }
}
