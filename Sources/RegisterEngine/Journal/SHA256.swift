import CSHA256

/// SHA-256 (FIPS 180-4), written here because the register takes no third-party packages.
/// Used for the journal's record checksums and hash chain, and (through HMAC) for PIN hashes.
///
/// The padding, the length and the partial block are kept here; whole blocks are compressed
/// by the CPU's SHA extensions when it has them (x86-64 SHA-NI: the C target CSHA256, asked
/// once per process through cpuid), and otherwise by the portable Swift compression below,
/// which gives the same digest on any machine.
public struct SHA256: Sendable {
  public static let digestLength = 32
  public static let blockLength = 64

  /// The eight working words (FIPS 180-4 H0…H7), after the blocks compressed so far.
  typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

  /// Whether this CPU has the SHA extensions (and the SSSE3 and SSE4.1 they are used with),
  /// asked once: every hasher not made `portable` then compresses with them.
  static let usesHardware = registerd_sha256_hardware() == 1

  private var state: Words = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
    0x5be0_cd19
  )
  /// Bytes of a block not yet complete, in a fixed 64-byte buffer (no heap allocation per
  /// hasher: a journal check hashes one record per hasher).
  private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
    0, 0, 0, 0, 0, 0, 0, 0
  )
  private var pendingCount = 0
  private var length: UInt64 = 0
  /// Whether this hasher compresses with the SHA extensions: `usesHardware` (false for a
  /// portable one), read once when it is made rather than on every block.
  let hardware: Bool

  public init() {
    hardware = Self.usesHardware
  }

  /// A hasher that compresses in Swift even on a CPU with the SHA extensions, for tests that
  /// compare the two paths.
  init(portable: Bool) {
    hardware = !portable && Self.usesHardware
  }

  /// Feeds more bytes in.
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      update(buffer: UnsafeRawBufferPointer(buffer))
    }
    guard done == nil else { return }
    for byte in bytes {
      withUnsafeBytes(of: byte) { update(buffer: $0) }
    }
  }

  /// Feeds a contiguous buffer in (the fast path).
  public mutating func update(buffer: UnsafeRawBufferPointer) {
    guard var next = buffer.baseAddress else { return }
    var remaining = buffer.count
    // FIPS 180-4 defines the length modulo 2^64; no message in memory comes near it, and it
    // is a byte count, not money.
    length &+= UInt64(remaining)
    if pendingCount > 0 {
      let taken = min(remaining, Self.blockLength - pendingCount)
      let count = pendingCount
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress.unsafelyUnwrapped.advanced(by: count).copyMemory(
          from: next, byteCount: taken)
      }
      pendingCount += taken
      next += taken
      remaining -= taken
      guard pendingCount == Self.blockLength else { return }
      let block = pending
      withUnsafeBytes(of: block) {
        Self.compress(&state, $0.baseAddress.unsafelyUnwrapped, blocks: 1, hardware: hardware)
      }
      pendingCount = 0
    }
    // Every whole block of the buffer where it lies, in one call.
    let blocks = remaining / Self.blockLength
    if blocks > 0 {
      Self.compress(&state, next, blocks: blocks, hardware: hardware)
      next += blocks * Self.blockLength
      remaining -= blocks * Self.blockLength
    }
    if remaining > 0 {
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress.unsafelyUnwrapped.copyMemory(from: next, byteCount: remaining)
      }
      pendingCount = remaining
    }
  }

  /// The 32-byte digest of everything fed in.
  public mutating func finalize() -> [UInt8] {
    let words = finalizeWords()
    return [UInt8](unsafeUninitializedCapacity: Self.digestLength) { digest, count in
      withUnsafeBytes(of: words) { bytes in
        for index in 0..<8 {
          let word = bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
          UnsafeMutableRawBufferPointer(digest).storeBytes(
            of: word.bigEndian, toByteOffset: index * 4, as: UInt32.self)
        }
      }
      count = Self.digestLength
    }
  }

  /// Finishes the hash (padding and length) and returns the digest as eight words.
  mutating func finalizeWords() -> Words {
    let bitLength = length &* 8  // the length in bits, modulo 2^64 (FIPS 180-4)
    // The pending bytes and room for a second block (the copy in it is all overwritten): the
    // padding and the length end one or two blocks on.
    var tail = (pending, pending)
    let count = pendingCount
    // No room for the length after the 0x80 in this block: it goes at the end of the next.
    let blocks = count >= 56 ? 2 : 1
    let end = blocks * Self.blockLength
    withUnsafeMutableBytes(of: &tail) { bytes in
      bytes[count] = 0x80
      for index in count + 1..<end - 8 { bytes[index] = 0 }
      bytes.storeBytes(of: bitLength.bigEndian, toByteOffset: end - 8, as: UInt64.self)
      Self.compress(
        &state, UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped), blocks: blocks,
        hardware: hardware)
    }
    pendingCount = 0
    return state
  }

  /// The digest of `bytes`.
  public static func hash(_ bytes: [UInt8]) -> [UInt8] {
    var hasher = SHA256()
    bytes.withUnsafeBytes { hasher.update(buffer: $0) }
    return hasher.finalize()
  }

  /// The digest of `bytes` as 64 lowercase hex digits.
  public static func hex(_ bytes: [UInt8]) -> String {
    hexString(hash(bytes))
  }

  /// True when `hex` is exactly the 64 lowercase hex digits of the digest `words` (compared
  /// byte by byte, without building a string).
  static func digest(_ words: Words, equalsHex hex: UnsafeRawBufferPointer) -> Bool {
    guard hex.count == 2 * digestLength else { return false }
    return withUnsafeBytes(of: words) { bytes in
      var position = 0
      for index in 0..<8 {
        let word = bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
        var shift: UInt32 = 28
        while true {
          let nibble = UInt8(truncatingIfNeeded: word >> shift) & 0x0F
          // 0-9, a-f: a nibble is at most 15, so the checked + cannot overflow.
          let digit = nibble < 10 ? nibble + 0x30 : nibble + 0x57
          guard hex[position] == digit else { return false }
          position += 1
          if shift == 0 { break }
          shift -= 4
        }
      }
      return true
    }
  }

  /// `blocks` consecutive 64-byte blocks from `data` into `state`: with the SHA extensions in
  /// one C call (`registerd_sha256_blocks`, which takes the words as eight UInt32s in memory,
  /// as the tuple lies), or in Swift block by block.
  @inline(__always)
  private static func compress(
    _ state: inout Words, _ data: UnsafeRawPointer, blocks: Int, hardware: Bool
  ) {
    if hardware {
      withUnsafeMutablePointer(to: &state) { words in
        // A homogeneous tuple's memory is bound to its element type.
        let first = UnsafeMutableRawPointer(words).assumingMemoryBound(to: UInt32.self)
        registerd_sha256_blocks(first, data, blocks)
      }
    } else {
      portableCompress(&state, data, blocks: blocks)
    }
  }

  /// `blocks` blocks in Swift, one after the other: the path on a CPU without the SHA
  /// extensions (and for `SHA256(portable: true)`).
  private static func portableCompress(
    _ state: inout Words, _ data: UnsafeRawPointer, blocks: Int
  ) {
    for index in 0..<blocks {
      compress(&state, data + index * blockLength)
    }
  }

  /// One 64-byte block at `block` into `state`: the message schedule kept in sixteen rolling
  /// words and the 64 rounds written out (no array, no bounds check, no per-block allocation).
  ///
  /// Every addition in the compression (`&+`) is addition modulo 2^32, as FIPS 180-4 defines
  /// it, and the shifts are masking shifts of 32-bit words: wrapping here is the algorithm, not
  /// an overflow. No amount of money or count is computed in this file.
  @inline(__always)
  private static func compress(_ state: inout Words, _ block: UnsafeRawPointer) {
    @inline(__always) func load(_ index: Int) -> UInt32 {
      UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
    }
    var w0 = load(0)
    var w1 = load(1)
    var w2 = load(2)
    var w3 = load(3)
    var w4 = load(4)
    var w5 = load(5)
    var w6 = load(6)
    var w7 = load(7)
    var w8 = load(8)
    var w9 = load(9)
    var w10 = load(10)
    var w11 = load(11)
    var w12 = load(12)
    var w13 = load(13)
    var w14 = load(14)
    var w15 = load(15)
    var (a, b, c, d, e, f, g, h) = state
    round(a, b, c, &d, e, f, g, &h, 0x428a_2f98, w0)
    round(h, a, b, &c, d, e, f, &g, 0x7137_4491, w1)
    round(g, h, a, &b, c, d, e, &f, 0xb5c0_fbcf, w2)
    round(f, g, h, &a, b, c, d, &e, 0xe9b5_dba5, w3)
    round(e, f, g, &h, a, b, c, &d, 0x3956_c25b, w4)
    round(d, e, f, &g, h, a, b, &c, 0x59f1_11f1, w5)
    round(c, d, e, &f, g, h, a, &b, 0x923f_82a4, w6)
    round(b, c, d, &e, f, g, h, &a, 0xab1c_5ed5, w7)
    round(a, b, c, &d, e, f, g, &h, 0xd807_aa98, w8)
    round(h, a, b, &c, d, e, f, &g, 0x1283_5b01, w9)
    round(g, h, a, &b, c, d, e, &f, 0x2431_85be, w10)
    round(f, g, h, &a, b, c, d, &e, 0x550c_7dc3, w11)
    round(e, f, g, &h, a, b, c, &d, 0x72be_5d74, w12)
    round(d, e, f, &g, h, a, b, &c, 0x80de_b1fe, w13)
    round(c, d, e, &f, g, h, a, &b, 0x9bdc_06a7, w14)
    round(b, c, d, &e, f, g, h, &a, 0xc19b_f174, w15)
    w0 = schedule(w0, w1, w9, w14)
    round(a, b, c, &d, e, f, g, &h, 0xe49b_69c1, w0)
    w1 = schedule(w1, w2, w10, w15)
    round(h, a, b, &c, d, e, f, &g, 0xefbe_4786, w1)
    w2 = schedule(w2, w3, w11, w0)
    round(g, h, a, &b, c, d, e, &f, 0x0fc1_9dc6, w2)
    w3 = schedule(w3, w4, w12, w1)
    round(f, g, h, &a, b, c, d, &e, 0x240c_a1cc, w3)
    w4 = schedule(w4, w5, w13, w2)
    round(e, f, g, &h, a, b, c, &d, 0x2de9_2c6f, w4)
    w5 = schedule(w5, w6, w14, w3)
    round(d, e, f, &g, h, a, b, &c, 0x4a74_84aa, w5)
    w6 = schedule(w6, w7, w15, w4)
    round(c, d, e, &f, g, h, a, &b, 0x5cb0_a9dc, w6)
    w7 = schedule(w7, w8, w0, w5)
    round(b, c, d, &e, f, g, h, &a, 0x76f9_88da, w7)
    w8 = schedule(w8, w9, w1, w6)
    round(a, b, c, &d, e, f, g, &h, 0x983e_5152, w8)
    w9 = schedule(w9, w10, w2, w7)
    round(h, a, b, &c, d, e, f, &g, 0xa831_c66d, w9)
    w10 = schedule(w10, w11, w3, w8)
    round(g, h, a, &b, c, d, e, &f, 0xb003_27c8, w10)
    w11 = schedule(w11, w12, w4, w9)
    round(f, g, h, &a, b, c, d, &e, 0xbf59_7fc7, w11)
    w12 = schedule(w12, w13, w5, w10)
    round(e, f, g, &h, a, b, c, &d, 0xc6e0_0bf3, w12)
    w13 = schedule(w13, w14, w6, w11)
    round(d, e, f, &g, h, a, b, &c, 0xd5a7_9147, w13)
    w14 = schedule(w14, w15, w7, w12)
    round(c, d, e, &f, g, h, a, &b, 0x06ca_6351, w14)
    w15 = schedule(w15, w0, w8, w13)
    round(b, c, d, &e, f, g, h, &a, 0x1429_2967, w15)
    w0 = schedule(w0, w1, w9, w14)
    round(a, b, c, &d, e, f, g, &h, 0x27b7_0a85, w0)
    w1 = schedule(w1, w2, w10, w15)
    round(h, a, b, &c, d, e, f, &g, 0x2e1b_2138, w1)
    w2 = schedule(w2, w3, w11, w0)
    round(g, h, a, &b, c, d, e, &f, 0x4d2c_6dfc, w2)
    w3 = schedule(w3, w4, w12, w1)
    round(f, g, h, &a, b, c, d, &e, 0x5338_0d13, w3)
    w4 = schedule(w4, w5, w13, w2)
    round(e, f, g, &h, a, b, c, &d, 0x650a_7354, w4)
    w5 = schedule(w5, w6, w14, w3)
    round(d, e, f, &g, h, a, b, &c, 0x766a_0abb, w5)
    w6 = schedule(w6, w7, w15, w4)
    round(c, d, e, &f, g, h, a, &b, 0x81c2_c92e, w6)
    w7 = schedule(w7, w8, w0, w5)
    round(b, c, d, &e, f, g, h, &a, 0x9272_2c85, w7)
    w8 = schedule(w8, w9, w1, w6)
    round(a, b, c, &d, e, f, g, &h, 0xa2bf_e8a1, w8)
    w9 = schedule(w9, w10, w2, w7)
    round(h, a, b, &c, d, e, f, &g, 0xa81a_664b, w9)
    w10 = schedule(w10, w11, w3, w8)
    round(g, h, a, &b, c, d, e, &f, 0xc24b_8b70, w10)
    w11 = schedule(w11, w12, w4, w9)
    round(f, g, h, &a, b, c, d, &e, 0xc76c_51a3, w11)
    w12 = schedule(w12, w13, w5, w10)
    round(e, f, g, &h, a, b, c, &d, 0xd192_e819, w12)
    w13 = schedule(w13, w14, w6, w11)
    round(d, e, f, &g, h, a, b, &c, 0xd699_0624, w13)
    w14 = schedule(w14, w15, w7, w12)
    round(c, d, e, &f, g, h, a, &b, 0xf40e_3585, w14)
    w15 = schedule(w15, w0, w8, w13)
    round(b, c, d, &e, f, g, h, &a, 0x106a_a070, w15)
    w0 = schedule(w0, w1, w9, w14)
    round(a, b, c, &d, e, f, g, &h, 0x19a4_c116, w0)
    w1 = schedule(w1, w2, w10, w15)
    round(h, a, b, &c, d, e, f, &g, 0x1e37_6c08, w1)
    w2 = schedule(w2, w3, w11, w0)
    round(g, h, a, &b, c, d, e, &f, 0x2748_774c, w2)
    w3 = schedule(w3, w4, w12, w1)
    round(f, g, h, &a, b, c, d, &e, 0x34b0_bcb5, w3)
    w4 = schedule(w4, w5, w13, w2)
    round(e, f, g, &h, a, b, c, &d, 0x391c_0cb3, w4)
    w5 = schedule(w5, w6, w14, w3)
    round(d, e, f, &g, h, a, b, &c, 0x4ed8_aa4a, w5)
    w6 = schedule(w6, w7, w15, w4)
    round(c, d, e, &f, g, h, a, &b, 0x5b9c_ca4f, w6)
    w7 = schedule(w7, w8, w0, w5)
    round(b, c, d, &e, f, g, h, &a, 0x682e_6ff3, w7)
    w8 = schedule(w8, w9, w1, w6)
    round(a, b, c, &d, e, f, g, &h, 0x748f_82ee, w8)
    w9 = schedule(w9, w10, w2, w7)
    round(h, a, b, &c, d, e, f, &g, 0x78a5_636f, w9)
    w10 = schedule(w10, w11, w3, w8)
    round(g, h, a, &b, c, d, e, &f, 0x84c8_7814, w10)
    w11 = schedule(w11, w12, w4, w9)
    round(f, g, h, &a, b, c, d, &e, 0x8cc7_0208, w11)
    w12 = schedule(w12, w13, w5, w10)
    round(e, f, g, &h, a, b, c, &d, 0x90be_fffa, w12)
    w13 = schedule(w13, w14, w6, w11)
    round(d, e, f, &g, h, a, b, &c, 0xa450_6ceb, w13)
    w14 = schedule(w14, w15, w7, w12)
    round(c, d, e, &f, g, h, a, &b, 0xbef9_a3f7, w14)
    w15 = schedule(w15, w0, w8, w13)
    round(b, c, d, &e, f, g, h, &a, 0xc671_78f2, w15)

    state = (
      state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f,
      state.6 &+ g, state.7 &+ h
    )
  }

  /// Word `i` of the schedule from words i-16, i-15, i-7 and i-2.
  @inline(__always)
  private static func schedule(
    _ w16: UInt32, _ w15: UInt32, _ w7: UInt32, _ w2: UInt32
  ) -> UInt32 {
    let s0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 &>> 3)
    let s1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 &>> 10)
    return w16 &+ s0 &+ w7 &+ s1
  }

  /// One round; the caller rotates the roles of the eight working variables instead of
  /// moving their values.
  @inline(__always)
  private static func round(
    _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32,
    _ g: UInt32, _ h: inout UInt32, _ k: UInt32, _ w: UInt32
  ) {
    let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
    let choice = (e & f) ^ (~e & g)
    let temp1 = h &+ s1 &+ choice &+ k &+ w
    let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
    let majority = (a & b) ^ (a & c) ^ (b & c)
    d &+= temp1
    h = temp1 &+ s0 &+ majority
  }

  @inline(__always)
  private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value &>> count) | (value &<< (32 &- count))
  }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Lowercase hex of bytes.
public func hexString(_ bytes: [UInt8]) -> String {
  var out: [UInt8] = []
  out.reserveCapacity(bytes.count * 2)
  for byte in bytes {
    out.append(hexDigits[Int(byte >> 4)])
    out.append(hexDigits[Int(byte & 0x0F)])
  }
  return String(decoding: out, as: UTF8.self)
}

extension SHA256 {
  /// Appends the 64 lowercase hex digits of the digest `words` (the journal writes a record's
  /// sum straight into its line).
  static func appendHex(_ words: Words, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: words) { raw in
      for index in 0..<8 {
        let word = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
        var shift: UInt32 = 28
        while true {
          bytes.append(hexDigits[Int(truncatingIfNeeded: word >> shift) & 0x0F])
          if shift == 0 { break }
          shift -= 4
        }
      }
    }
  }
}
