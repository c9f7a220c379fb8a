/// Text that equals other text only when their UTF-8 bytes are the same, and is hashed and
/// ordered by those bytes.
///
/// Swift's `String` compares and hashes by Unicode canonical equivalence: "café" written with
/// é (U+00E9) equals "cafe" followed by a combining acute accent (U+0301), and "K" equals the
/// Kelvin sign (U+212A). Text a client chooses as an identifier (an idempotency key, a JSON
/// member name) is the client's bytes: two different byte strings are two identifiers, or a
/// change sent under one would be answered with the other's reply and silently dropped. Such
/// text is kept as `ExactText`, or compared with `String.hasSameBytes(as:)`.
public struct ExactText: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The text, as the client sent it.
  public let text: String

  /// Wraps `text`; nothing about it is changed or normalized.
  public init(_ text: String) {
    self.text = text
  }

  public var description: String { text }

  public static func == (lhs: ExactText, rhs: ExactText) -> Bool {
    lhs.text.hasSameBytes(as: rhs.text)
  }

  public func hash(into hasher: inout Hasher) {
    var text = text
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// The order of the UTF-8 bytes, which is the order of the Unicode scalar values.
  public static func < (lhs: ExactText, rhs: ExactText) -> Bool {
    lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
  }
}

extension String {
  /// True when the two are the same UTF-8 bytes — not merely canonically equivalent, which is
  /// what `==` tells (see `ExactText`).
  @inlinable
  public func hasSameBytes(as other: String) -> Bool {
    // A native string's UTF-8 count is stored, so unequal lengths (most unequal member names)
    // cost two loads, here in the caller. Equal lengths compare the bytes in place.
    let count = utf8.count
    return count == other.utf8.count && hasSameBytes(as: other, count: count)
  }

  /// `hasSameBytes(as:)` for two texts of `count` bytes each: no copy, no retain.
  @usableFromInline
  func hasSameBytes(as other: String, count: Int) -> Bool {
    let same = utf8.withContiguousStorageIfAvailable { left in
      other.utf8.withContiguousStorageIfAvailable { right in
        var index = 0
        while index < count {
          if left[index] != right[index] { return false }
          index += 1
        }
        return true
      }
    }
    // Text that is not stored contiguously (bridged) is compared byte by byte through its view.
    return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
  }

  /// True when the text is longer than `limit` Unicode scalars: what limits on text a client
  /// sends count. A character (a grapheme cluster) may hold any number of combining marks —
  /// "e" and ten thousand accents are one character in 20 KB — so a limit in characters
  /// bounds nothing; one in scalars bounds the bytes too (at most four per scalar). A scalar
  /// is at least one byte, so text of at most `limit` bytes (nearly all: ASCII within the
  /// limit) is answered from its stored length, without decoding it.
  public func hasMoreScalars(than limit: Int) -> Bool {
    utf8.count > limit && unicodeScalars.count > limit
  }
}
