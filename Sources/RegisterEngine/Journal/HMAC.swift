/// HMAC-SHA256 (RFC 2104, FIPS 198-1): a keyed checksum that only a holder of the key can make.
///
/// The journal's keyed chain uses it: with a journal key, each record also carries
/// `"mac": HMAC-SHA256(key, the record's bytes before ,"mac":")`, so that someone who can write
/// the data directory but cannot read the key cannot rewrite a record and make it check out,
/// even by recomputing every `sum` after it.
///
/// Keyed once: the inner and outer hash states after the padded key are kept, so each message
/// costs only its own blocks (PBKDF2 runs this hundreds of thousands of times per PIN).
public struct HMACSHA256: Sendable {
  private var inner: SHA256
  private var outer: SHA256

  /// A key longer than SHA-256's block is hashed first, as the standard says.
  public init(key: [UInt8]) {
    var block = key.count > SHA256.blockLength ? SHA256.hash(key) : key
    block += [UInt8](repeating: 0, count: SHA256.blockLength - block.count)
    inner = SHA256()
    outer = SHA256()
    inner.update(block.map { $0 ^ 0x36 })
    outer.update(block.map { $0 ^ 0x5C })
  }

  /// The 32-byte MAC of `message`.
  public func authenticate(_ message: some Collection<UInt8>) -> [UInt8] {
    var inner = self.inner
    var outer = self.outer
    let done: Void? = message.withContiguousStorageIfAvailable { buffer in
      inner.update(buffer: UnsafeRawBufferPointer(buffer))
    }
    if done == nil { inner.update(message) }
    let innerDigest = inner.finalize()
    innerDigest.withUnsafeBytes { outer.update(buffer: $0) }
    return outer.finalize()
  }

  /// The MAC as 64 lowercase hex digits.
  public func hex(_ message: some Collection<UInt8>) -> String {
    hexString(authenticate(message))
  }
}
