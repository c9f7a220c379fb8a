import CSHA256
import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The journal's checksums and hash chain rest on this SHA-256: it must agree with FIPS 180-4
/// and with the system's `sha256sum` byte for byte.
@Suite struct SHA256Tests {
  /// Published test vectors (FIPS 180-4 examples, NIST CAVS), each message with its digest.
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
        + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ])
  func publishedVectors(message: String, digest: String) {
    let bytes = Array(message.utf8)
    #expect(SHA256.hex(bytes) == digest)
    #expect(hexString(SHA256.hash(bytes)) == digest)
    // The byte-at-a-time path must agree with the buffer path.
    var hasher = SHA256()
    hasher.update(bytes)
    #expect(hexString(hasher.finalize()) == digest)
    // The portable compression too, on a CPU whose SHA extensions the others use.
    var portable = SHA256(portable: true)
    bytes.withUnsafeBytes { portable.update(buffer: $0) }
    #expect(hexString(portable.finalize()) == digest)
  }

  @Test func oneMillionA() {
    let digest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(SHA256.hex(bytes) == digest)
    // In uneven pieces through both entry points: 1 000 000 = 7 × 142 857 + 1.
    var hasher = SHA256()
    var offset = 0
    var useBuffer = false
    while offset < bytes.count {
      let end = min(offset + 142_857, bytes.count)
      if useBuffer {
        bytes[offset..<end].withUnsafeBytes { hasher.update(buffer: $0) }
      } else {
        hasher.update(bytes[offset..<end])
      }
      useBuffer.toggle()
      offset = end
    }
    #expect(hexString(hasher.finalize()) == digest)
  }

  /// On a CPU with the SHA extensions, hashing goes through them: the engine's answer is
  /// cpuid's, every hasher but a `portable` one takes it, and on Linux the kernel's flags for
  /// the CPU agree (so a detection that quietly said no would fail here).
  @Test func theSHAExtensionsAreUsedWhenTheCPUHasThem() throws {
    let cpuid = registerd_sha256_hardware() == 1
    #expect(SHA256.usesHardware == cpuid)
    #expect(SHA256().hardware == cpuid)
    #expect(!SHA256(portable: true).hardware)
    #if os(Linux) && arch(x86_64)
      let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
      let flagsLine = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }
      let flags = Set((flagsLine ?? "").split(separator: " ").map(String.init))
      #expect(flagsLine != nil)
      let kernelSays = ["sha_ni", "ssse3", "sse4_1"].allSatisfy(flags.contains)
      #expect(cpuid == kernelSays, "cpuid: \(cpuid), /proc/cpuinfo: \(kernelSays)")
    #endif
  }

  /// The SHA extensions and the portable compression agree on random messages of every length
  /// up to 300 bytes (one to five blocks, every padding case), each fed in random pieces.
  @Test func hardwareAndPortableAgreeOnShortMessages() {
    var random = SplitMix64(seed: 256)
    var failures: [String] = []
    for length in 0...300 {
      let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      let whole = SHA256.hash(bytes)
      var portableWhole = SHA256(portable: true)
      bytes.withUnsafeBytes { portableWhole.update(buffer: $0) }
      if portableWhole.finalize() != whole { failures.append("\(length) whole") }
      for round in 0..<4 {
        let hardware = digestInPieces(bytes, portable: false, maximumPiece: 80, random: &random)
        let portable = digestInPieces(bytes, portable: true, maximumPiece: 80, random: &random)
        if hardware != whole || portable != whole { failures.append("\(length) round \(round)") }
      }
    }
    #expect(failures.isEmpty, "lengths where the two paths disagreed: \(failures.prefix(10))")
  }

  /// Long messages (many blocks per call), in pieces from one byte to several kilobytes, at
  /// every alignment the pieces happen to start on.
  @Test(arguments: [100_000, 102_400, 1_048_576 + 37])
  func hardwareAndPortableAgreeOnLongMessages(length: Int) {
    var random = SplitMix64(seed: UInt64(length))
    let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    let whole = SHA256.hash(bytes)
    var portableWhole = SHA256(portable: true)
    bytes.withUnsafeBytes { portableWhole.update(buffer: $0) }
    #expect(portableWhole.finalize() == whole)
    for _ in 0..<3 {
      #expect(digestInPieces(bytes, portable: false, maximumPiece: 9000, random: &random) == whole)
      #expect(digestInPieces(bytes, portable: true, maximumPiece: 9000, random: &random) == whole)
    }
  }

  /// The C compression on its own: no blocks leave the words as they are, and five blocks
  /// from an odd address, then the padding block, give the portable hasher's digest.
  @Test(.enabled(if: SHA256.usesHardware)) func theCCompressionOnItsOwn() {
    let initial: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
      0x5be0_cd19,
    ]
    var words = initial
    let bytes = testMessage(length: 1 + 5 * SHA256.blockLength)
    bytes.withUnsafeBytes { registerd_sha256_blocks(&words, $0.baseAddress, 0) }
    #expect(words == initial)
    bytes.withUnsafeBytes { registerd_sha256_blocks(&words, $0.baseAddress.map { $0 + 1 }, 5) }
    // 320 bytes: 0x80, zeros, and the length in bits (2560 = 0x0A00) at the end of a block.
    var padding = [UInt8](repeating: 0, count: SHA256.blockLength)
    padding[0] = 0x80
    padding[62] = 0x0A
    padding.withUnsafeBytes { registerd_sha256_blocks(&words, $0.baseAddress, 1) }

    var portable = SHA256(portable: true)
    bytes[1...].withUnsafeBytes { portable.update(buffer: $0) }
    let expected = withUnsafeBytes(of: portable.finalizeWords()) { digest in
      (0..<8).map { digest.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
    }
    #expect(words == expected)
  }

  @Test func digestIs32Bytes() {
    #expect(SHA256.hash([]).count == SHA256.digestLength)
    #expect(SHA256.hash(Array(repeating: 7, count: 1000)).count == 32)
    #expect(SHA256.hex([1, 2, 3]).count == 64)
  }

  @Test func hexIsLowercaseAndZeroPadded() {
    #expect(hexString([0x00, 0x0f, 0xa0, 0xff, 0x5c]) == "000fa0ff5c")
    #expect(hexString([]) == "")
  }

  /// Every length from 0 to 200 bytes: every padding case (55, 56, 63, 64, 65, 119, 120 …),
  /// one to four blocks, against the system's `sha256sum`.
  @Test(.tags(.outsideProgram), .requires(.sha256sum), arguments: 0...200)
  func agreesWithSha256sum(length: Int) throws {
    let bytes = testMessage(length: length)
    let expected = try systemDigest(of: bytes)
    #expect(expected.count == 64)
    #expect(SHA256.hex(bytes) == expected, "length \(length)")
    var hasher = SHA256()
    hasher.update(bytes)
    #expect(hexString(hasher.finalize()) == expected, "update(_:) length \(length)")
  }

  /// The same bytes fed in two pieces, split at every point, give the same digest whichever
  /// entry point takes each piece.
  @Test(arguments: [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 200])
  func everySplitPointGivesTheSameDigest(length: Int) {
    let bytes = testMessage(length: length)
    let whole = SHA256.hex(bytes)
    for split in 0...length {
      let head = bytes[..<split]
      let tail = bytes[split...]
      var sequences = SHA256()
      sequences.update(head)
      sequences.update(tail)
      #expect(hexString(sequences.finalize()) == whole, "update(_:) split at \(split)")

      var buffers = SHA256()
      head.withUnsafeBytes { buffers.update(buffer: $0) }
      tail.withUnsafeBytes { buffers.update(buffer: $0) }
      #expect(hexString(buffers.finalize()) == whole, "update(buffer:) split at \(split)")

      var mixed = SHA256()
      mixed.update(head)
      tail.withUnsafeBytes { mixed.update(buffer: $0) }
      #expect(hexString(mixed.finalize()) == whole, "mixed split at \(split)")

      var mixedOther = SHA256()
      head.withUnsafeBytes { mixedOther.update(buffer: $0) }
      mixedOther.update(tail)
      #expect(hexString(mixedOther.finalize()) == whole, "mixed (buffer first) at \(split)")
    }
  }

  /// Three pieces through the buffer path: the pending partial block is topped up by a buffer
  /// that may be shorter than what is missing, then the rest goes block by block.
  @Test func everyPairOfSplitPointsThroughTheBufferPath() {
    let bytes = testMessage(length: 150)
    let whole = SHA256.hex(bytes)
    var failures: [String] = []
    for first in 0...bytes.count {
      for second in first...bytes.count {
        var hasher = SHA256()
        bytes[..<first].withUnsafeBytes { hasher.update(buffer: $0) }
        bytes[first..<second].withUnsafeBytes { hasher.update(buffer: $0) }
        bytes[second...].withUnsafeBytes { hasher.update(buffer: $0) }
        if hexString(hasher.finalize()) != whole { failures.append("\(first)/\(second)") }
      }
    }
    #expect(failures.isEmpty, "splits that changed the digest: \(failures.prefix(10))")
  }

  /// The journal check compares the digest with the 64 hex digits in the line as bytes: only
  /// the exact lowercase digits of this digest match.
  @Test func digestEqualsHexOnlyForItsExactLowercaseDigits() {
    let bytes = testMessage(length: 100)
    var hasher = SHA256()
    hasher.update(bytes)
    let words = hasher.finalizeWords()
    let hex = Array(SHA256.hex(bytes).utf8)
    func matches(_ candidate: [UInt8]) -> Bool {
      candidate.withUnsafeBytes { SHA256.digest(words, equalsHex: $0) }
    }
    #expect(matches(hex))
    #expect(!matches(Array(SHA256.hex(bytes).uppercased().utf8)))
    #expect(!matches(Array(hex.dropLast())))
    #expect(!matches(hex + [UInt8(ascii: "0")]))
    #expect(!matches([]))
    var failures: [Int] = []
    for position in hex.indices {
      var changed = hex
      // Another hex digit in one place: 0-9 and a-f each turn into a different digit.
      changed[position] = hex[position] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
      if matches(changed) { failures.append(position) }
    }
    #expect(failures.isEmpty, "a changed digit still matched at \(failures)")
  }

  /// `finalize()` and `finalizeWords()` agree, for every padding case.
  @Test(arguments: [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128])
  func finalizeWordsIsTheDigest(length: Int) {
    let bytes = testMessage(length: length)
    var hasher = SHA256()
    hasher.update(bytes)
    let words = hasher.finalizeWords()
    let hex = Array(SHA256.hex(bytes).utf8)
    #expect(hex.withUnsafeBytes { SHA256.digest(words, equalsHex: $0) }, "length \(length)")
  }

  @Test func emptyUpdatesChangeNothing() {
    let bytes = Array("abc".utf8)
    var hasher = SHA256()
    hasher.update([UInt8]())
    [UInt8]().withUnsafeBytes { hasher.update(buffer: $0) }
    hasher.update(bytes)
    [UInt8]().withUnsafeBytes { hasher.update(buffer: $0) }
    #expect(
      hexString(hasher.finalize())
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }
}

/// The digest of `bytes` fed in random pieces of 0 to `maximumPiece` bytes, through both entry
/// points (a buffer, or a contiguous slice), by a hasher that uses the SHA extensions where the
/// CPU has them or, if `portable`, never.
func digestInPieces(
  _ bytes: [UInt8], portable: Bool, maximumPiece: Int, random: inout SplitMix64
) -> [UInt8] {
  var hasher = portable ? SHA256(portable: true) : SHA256()
  var offset = 0
  while offset < bytes.count {
    let end = min(bytes.count, offset + random.below(maximumPiece + 1))
    if random.below(2) == 0 {
      bytes[offset..<end].withUnsafeBytes { hasher.update(buffer: $0) }
    } else {
      hasher.update(bytes[offset..<end])
    }
    offset = end
  }
  return hasher.finalize()
}

/// A message of `length` bytes that uses every byte value, not just ASCII.
func testMessage(length: Int) -> [UInt8] {
  (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
}

/// The digest `sha256sum` prints for `bytes`.
func systemDigest(of bytes: [UInt8]) throws -> String {
  let process = Process()
  process.executableURL = try ExternalProgram.sha256sum.located()
  let input = Pipe()
  let output = Pipe()
  process.standardInput = input
  process.standardOutput = output
  try process.run()
  input.fileHandleForWriting.write(Data(bytes))
  try input.fileHandleForWriting.close()
  let collected = collectOutput(of: process, from: [output.fileHandleForReading])
  let data = collected.data[0]
  #expect(collected.status == 0)
  let text = String(decoding: data, as: UTF8.self)
  return String(text.prefix(while: { $0 != " " }))
}
