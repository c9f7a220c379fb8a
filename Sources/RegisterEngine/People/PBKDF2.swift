/// HMAC-SHA256 (RFC 2104) and PBKDF2-HMAC-SHA256 (RFC 8018), for PIN hashes.
public enum PBKDF2 {
  /// HMAC-SHA256 of `message` under `key`.
  public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var mac = HMAC(key: key)
    return mac.authenticate(message)
  }

  /// PBKDF2-HMAC-SHA256: `length` bytes derived from `password` and `salt` with `iterations`.
  public static func deriveKey(
    password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32
  ) -> [UInt8] {
    let mac = HMAC(key: password)
    var output: [UInt8] = []
    var block: UInt32 = 1
    while output.count < length {
      var first = mac
      var u = first.authenticate(
        salt + [
          UInt8(block >> 24), UInt8(block >> 16 & 0xFF), UInt8(block >> 8 & 0xFF),
          UInt8(block & 0xFF),
        ])
      var t = u
      if iterations > 1 {
        for _ in 1..<iterations {
          var next = mac
          u = next.authenticate(u)
          for index in 0..<t.count { t[index] ^= u[index] }
        }
      }
      output.append(contentsOf: t)
      block += 1
    }
    return Array(output.prefix(length))
  }

  /// Compares two byte strings in time that depends only on their length, not on where they
  /// first differ.
  public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
  }

  /// An HMAC-SHA256 keyed once: the inner and outer hash states after the padded key are kept,
  /// so each message costs only its own blocks (PBKDF2 runs this hundreds of thousands of times).
  struct HMAC {
    private var inner: SHA256
    private var outer: SHA256

    init(key: [UInt8]) {
      var block = key.count > SHA256.blockLength ? SHA256.hash(key) : key
      block += [UInt8](repeating: 0, count: SHA256.blockLength - block.count)
      inner = SHA256()
      outer = SHA256()
      inner.update(block.map { $0 ^ 0x36 })
      outer.update(block.map { $0 ^ 0x5C })
    }

    /// The MAC of `message` (consumes this keyed state; copy it first to reuse).
    mutating func authenticate(_ message: [UInt8]) -> [UInt8] {
      message.withUnsafeBytes { inner.update(buffer: $0) }
      let innerDigest = inner.finalize()
      innerDigest.withUnsafeBytes { outer.update(buffer: $0) }
      return outer.finalize()
    }
  }
}
