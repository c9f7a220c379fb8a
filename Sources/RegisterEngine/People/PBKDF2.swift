/// PBKDF2-HMAC-SHA256 (RFC 8018), for PIN hashes.
public enum PBKDF2 {
  /// HMAC-SHA256 of `message` under `key` (`HMACSHA256`).
  public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    HMACSHA256(key: key).authenticate(message)
  }

  /// PBKDF2-HMAC-SHA256: `length` bytes derived from `password` and `salt` with `iterations`.
  public static func deriveKey(
    password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32
  ) -> [UInt8] {
    let mac = HMACSHA256(key: password)
    var output: [UInt8] = []
    var block: UInt32 = 1
    while output.count < length {
      var u = mac.authenticate(
        salt + [
          UInt8(block >> 24), UInt8(block >> 16 & 0xFF), UInt8(block >> 8 & 0xFF),
          UInt8(block & 0xFF),
        ])
      var t = u
      if iterations > 1 {
        for _ in 1..<iterations {
          u = mac.authenticate(u)
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
}
