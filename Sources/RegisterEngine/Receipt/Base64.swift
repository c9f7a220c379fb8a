/// Base64 (RFC 4648, with padding): how bytes travel in JSON — a receipt's ESC/POS bytes in a
/// reply, an e-mail header's encoded words.
public enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// The bytes as base64 text.
  public static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let b0 = bytes[index]
      let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
      let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
      out.append(alphabet[Int(b0 >> 2)])
      out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      out.append(
        index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
      out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The bytes base64 `text` carries, or nil when it is not base64 (a wrong character or
  /// length, padding in the middle).
  public static func decode(_ text: String) -> [UInt8]? {
    let input = Array(text.utf8)
    guard input.count % 4 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(input.count / 4 * 3)
    var index = 0
    while index < input.count {
      var values: [UInt8] = []
      var padding = 0
      for offset in 0..<4 {
        let byte = input[index + offset]
        if byte == UInt8(ascii: "=") {
          // Padding only at the end of the last group, in its last one or two places.
          guard index + 4 == input.count, offset >= 2 else { return nil }
          padding += 1
          values.append(0)
          continue
        }
        guard padding == 0, let value = sextet(byte) else { return nil }
        values.append(value)
      }
      out.append(values[0] << 2 | values[1] >> 4)
      if padding < 2 { out.append(values[1] << 4 | values[2] >> 2) }
      if padding < 1 { out.append(values[2] << 6 | values[3]) }
      index += 4
    }
    return out
  }

  private static func sextet(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
    case UInt8(ascii: "+"): 62
    case UInt8(ascii: "/"): 63
    default: nil
    }
  }
}
