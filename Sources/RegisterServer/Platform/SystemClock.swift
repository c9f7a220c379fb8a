import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The machine's clock and local time zone (the TZ environment variable applies).
public struct SystemClock: RegisterClock {
  public init() {}

  public func now() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    let millis = Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    var seconds = time_t(spec.tv_sec)
    var parts = tm()
    localtime_r(&seconds, &parts)
    return Timestamp(epochMilliseconds: millis, utcOffsetSeconds: Int32(parts.tm_gmtoff))
  }
}
