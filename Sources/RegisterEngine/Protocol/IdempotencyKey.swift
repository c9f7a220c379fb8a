/// Fresh idempotency keys for clients (register-cli sends one with every change).
public enum IdempotencyKey {
  /// A fresh key: 128 bits from `random`.
  public static func random(_ random: (Int) -> [UInt8]) -> String {
    make(random(16))
  }

  /// The key for `bytes`: their hex digits in groups of eight joined by `_`
  /// (`3fa9c2d1_8b0e4f21_…`). `_` is not a separator of card-number groups, so no run of
  /// digits here is longer than eight and the key is journaled as it is (see `kept(_:)`).
  public static func make(_ bytes: [UInt8]) -> String {
    let hex = Array(hexString(bytes))
    return stride(from: 0, to: hex.count, by: 8).map { start in
      String(hex[start..<min(start + 8, hex.count)])
    }.joined(separator: "_")
  }

  /// The form a client's key is kept in — looked up, journaled, held in snapshots. A key is
  /// opaque and never refused, whatever it holds; but one holding something that looks like a
  /// card number (`CardNumberMask`, a 19-digit nanosecond timestamp one time in ten) is never
  /// written down: it is kept as `sha256:` and the lowercase hex SHA-256 of its UTF-8 bytes.
  /// A retry with the same key finds it just the same. A key that itself begins `sha256:` is
  /// kept as its digest too, so a kept digest always means a digest.
  public static func kept(_ key: String) -> String {
    guard key.utf8.starts(with: digestPrefix.utf8) || CardNumberMask.containsCardNumber(key)
    else { return key }
    return digestPrefix + SHA256.hex(Array(key.utf8))
  }

  /// What a digest kept for a key begins with.
  public static let digestPrefix = "sha256:"
}
