import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension RegisterService {
  /// Random bytes from /dev/urandom (should it ever be unreadable, the clock and the process
  /// id are mixed in so that two calls still differ).
  public static let systemRandom: @Sendable (Int) -> [UInt8] = { count in
    var bytes = [UInt8](repeating: 0, count: count)
    var got = 0
    let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    if fd >= 0 {
      got = bytes.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { read(fd, raw.baseAddress, count) }
      }
      close(fd)
    }
    if got < count {
      var spec = timespec()
      clock_gettime(CLOCK_REALTIME, &spec)
      var mix =
        UInt64(truncatingIfNeeded: spec.tv_nsec) ^ UInt64(truncatingIfNeeded: spec.tv_sec) << 20
        ^ UInt64(truncatingIfNeeded: getpid()) << 44
      for index in bytes.indices {
        mix = mix &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[index] ^= UInt8(truncatingIfNeeded: mix >> 56)
      }
    }
    return bytes
  }

  /// A service over `register` that takes its random bytes from the system
  /// (`systemRandom`); with a `journal`, every change is made durable before its reply is
  /// released.
  public convenience init(register: Register, clock: any RegisterClock, journal: Journal? = nil) {
    self.init(register: register, clock: clock, random: Self.systemRandom, journal: journal)
  }
}
