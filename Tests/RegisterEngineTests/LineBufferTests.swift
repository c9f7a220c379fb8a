import RegisterEngine
import RegisterTestSupport
import Testing

/// A client's bytes framed one line at a time: the same lines as framing everything at once,
/// however the bytes arrive and whenever lines are taken, while what waits is held as bytes.
@Suite struct LineBufferTests {
  private func text(_ line: [UInt8]?) -> String? {
    line.map { String(decoding: $0, as: UTF8.self) }
  }

  /// Every line `buffer` has now.
  private func drain(_ buffer: inout LineBuffer) -> [String?] {
    var lines: [String?] = []
    while let line = buffer.nextLine() { lines.append(text(line)) }
    return lines
  }

  @Test(arguments: 0..<100)
  func framesWhatTheFramerFramesHoweverTheBytesArrive(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var input: [UInt8] = []
    for _ in 0..<random.below(60) {
      switch random.below(8) {
      case 0: input += Array("\n".utf8)
      case 1: input += Array("  \t\r\n".utf8)
      case 2: input += Array(#"{"op":"hello"}\#r\#n"#.utf8)
      case 3:
        // Past the 64 KiB limit: reported once, as nil.
        input += [UInt8](repeating: UInt8(ascii: "x"), count: 70_000) + [10]
      default:
        input += Array((#"{"op":"add","sku":"S\#(random.below(1000))"}"# + "\n").utf8)
      }
    }
    // Sometimes the stream ends in the middle of a line.
    if random.below(2) == 0 { input += Array(#"{"op":"ord"#.utf8) }
    var framer = LineFramer()
    let expected = (framer.feed(input) + framer.finish()).map(text)

    var buffer = LineBuffer()
    var lines: [String?] = []
    var offset = 0
    while offset < input.count {
      let size = min(input.count - offset, 1 + random.below(random.below(2) == 0 ? 8 : 20_000))
      buffer.append(input[offset..<offset + size])
      offset += size
      // Lines taken at any moment, a few at a time.
      for _ in 0..<random.below(4) {
        guard let line = buffer.nextLine() else { break }
        lines.append(text(line))
      }
    }
    buffer.end()
    lines += drain(&buffer)
    #expect(lines == expected, "seed \(seed)")
    #expect(buffer.count == 0)
    #expect(!buffer.hasLine)
  }

  @Test func linesWaitingAreHeldAsTheirBytes() {
    var buffer = LineBuffer()
    let lines = String(repeating: "{}\n", count: 4000)
    #expect(buffer.append(Array(lines.utf8)[...]) == 4000)
    // 12,000 bytes, not 4,000 lines of their own.
    #expect(buffer.count == 12_000)
    #expect(buffer.unframedCount == 12_000)
    #expect(buffer.hasLine)
    #expect(text(buffer.nextLine() ?? nil) == "{}")
    #expect(buffer.count == 11_997)
  }

  @Test func anUnfinishedLineIsKeptByTheFramerNotAsWaitingBytes() {
    var buffer = LineBuffer()
    buffer.append(Array(#"{"op":"hel"#.utf8)[...])
    #expect(buffer.unframedCount == 0)
    #expect(buffer.count == 10)
    #expect(buffer.isInsideLine)
    #expect(!buffer.hasLine)
    #expect(buffer.nextLine() == nil)
    buffer.append(Array((#"lo"}"# + "\n{").utf8)[...])
    #expect(buffer.isInsideLine)
    #expect(text(buffer.nextLine() ?? nil) == #"{"op":"hello"}"#)
    // What follows the line is the framer's again.
    #expect(buffer.unframedCount == 0)
    #expect(buffer.count == 1)
    buffer.append(Array("}\n".utf8)[...])
    #expect(!buffer.isInsideLine)
    #expect(text(buffer.nextLine() ?? nil) == "{}")
  }

  @Test func aLineTooLongIsReportedOnceAndTheNextComes() {
    var buffer = LineBuffer()
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: LineFramer.maximumLineLength + 10)
    for start in stride(from: 0, to: long.count, by: 4096) {
      buffer.append(long[start..<min(long.count, start + 4096)])
      // Skipped as it comes: never held whole.
      #expect(buffer.count <= LineFramer.maximumLineLength + 1)
    }
    buffer.append(Array("\n{}\n".utf8)[...])
    #expect(buffer.nextLine() == .some(nil))
    #expect(text(buffer.nextLine() ?? nil) == "{}")
    #expect(buffer.nextLine() == nil)
  }

  @Test func theLastUnfinishedLineComesAfterTheOthers() {
    var buffer = LineBuffer()
    buffer.append(Array("a\nb\nc".utf8)[...])
    buffer.end()
    #expect(drain(&buffer) == ["a", "b", "c"])
    #expect(!buffer.hasLine)
  }
}
