/// Fresh idempotency keys for clients (register-cli sends one with every change).
public enum IdempotencyKey {
  /// A fresh key: 128 bits from `random`.
  public static func random(_ random: (Int) -> [UInt8]) -> String {
    make(random(16))
  }

  /// The key for `bytes`: their hex digits in groups of eight joined by `_`
  /// (`3fa9c2d1_8b0e4f21_…`). registerd refuses a key holding a run of 12 to 19 digits that
  /// passes the Luhn check (it looks like a card number, see `CardNumberMask`); plain hex has
  /// such a run about once in 400 keys, so one change in 400 would be refused. `_` is not a
  /// separator of card-number groups, so no run here is longer than eight digits.
  public static func make(_ bytes: [UInt8]) -> String {
    let hex = Array(hexString(bytes))
    return stride(from: 0, to: hex.count, by: 8).map { start in
      String(hex[start..<min(start + 8, hex.count)])
    }.joined(separator: "_")
  }
}
