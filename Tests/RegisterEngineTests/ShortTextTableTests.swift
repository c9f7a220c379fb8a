import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `ShortTextTable` finds a text from its bytes; it must agree with a dictionary for every text,
/// in it or not, and the parser's and the decoders' use of it must not change what they return.
struct ShortTextTableTests {
  /// Texts near `word`: each byte changed, cut short, grown, with another case.
  private func nearMisses(of word: String) -> [String] {
    let bytes = Array(word.utf8)
    var misses: [String] = [
      String(word.dropLast()), word + "_", "_" + word, word.uppercased(), word + word,
    ]
    for index in bytes.indices {
      var changed = bytes
      changed[index] = changed[index] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
      misses.append(String(decoding: changed, as: UTF8.self))
    }
    return misses
  }

  @Test func agreesWithADictionaryOnRandomTexts() {
    var random = SplitMix64(seed: 0x5EED_7AB1)
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz_0123456789".utf8)
    func text(length: Int) -> String {
      String(
        decoding: (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] },
        as: UTF8.self)
    }
    // Every length around the table's word boundaries (8, 16, 24 and 32), many of each.
    var reference: [String: Int] = [:]
    var entries: [(text: String, value: Int)] = []
    for index in 0..<3_000 {
      let word = text(length: 1 + index % 36)
      if reference[word] == nil, word.utf8.count <= 32 { reference[word] = index }
      entries.append((word, index))
    }
    let table = ShortTextTable(entries)
    for (word, value) in reference {
      #expect(table.value(of: word) == value, "\(word)")
      for miss in nearMisses(of: word) {
        #expect(table.value(of: miss) == reference[miss], "\(miss)")
      }
    }
    for _ in 0..<20_000 {
      let probe = text(length: Int(random.next() % 36))
      #expect(table.value(of: probe) == reference[probe], "\(probe)")
    }
    // Past 32 bytes nothing is found, even a text that was given.
    let long = String(repeating: "a", count: 33)
    #expect(ShortTextTable([(long, 1)]).value(of: long) == nil)
    #expect(table.value(of: "") == nil)
  }

  @Test func aTextListedTwiceKeepsItsFirstValue() {
    let table = ShortTextTable([("paid_in", 1), ("paid_out", 2), ("paid_in", 3)])
    #expect(table.value(of: "paid_in") == 1)
    #expect(table.value(of: "paid_out") == 2)
  }

  private enum Named: String, CaseIterable {
    case short = "paid_in"
    case long = "a_name_much_longer_than_thirty_two_bytes"
  }

  /// A case whose name is too long for the table is still found by `named`, the slow way.
  @Test func aNameTooLongForTheTableIsStillFound() {
    let table = ShortTextTable(cases: Named.self)
    #expect(table.named("paid_in") == .short)
    #expect(table.named("a_name_much_longer_than_thirty_two_bytes") == .long)
    #expect(table.value(of: "a_name_much_longer_than_thirty_two_bytes") == nil)
    #expect(table.named("a_name_much_longer_than_thirty_two_bytez") == nil)
    #expect(table.named("paid_out") == nil)
  }

  @Test func opsAndEventTypesAreFoundByTheirNamesOnly() {
    for op in Op.allCases {
      #expect(Op.named(op.rawValue) == op)
      for miss in nearMisses(of: op.rawValue) {
        #expect(Op.named(miss) == Op.allCases.first { $0.rawValue == miss }, "\(miss)")
      }
    }
    for type in EventType.allCases {
      #expect(EventType.named(type.rawValue) == type)
      for miss in nearMisses(of: type.rawValue) {
        #expect(EventType.named(miss) == EventType(rawValue: miss), "\(miss)")
      }
    }
  }

  /// The parser hands out a listed word as its literal: the same text, as a key and as a
  /// value, and a near miss as its own text.
  @Test func theParserGivesTheSameStringsWithTheTable() throws {
    for word in WireWords.all {
      for text in [word] + nearMisses(of: word) {
        // (No listed word or near miss has a quote or a backslash to escape.)
        let value = try JSONParser.parse("{\"\(text)\":\"\(text)\"}")
        guard case .object(let object) = value else {
          Issue.record("not an object")
          continue
        }
        #expect(object.members.count == 1)
        #expect(object.members.first?.key == text)
        #expect(object.members.first?.value == .string(text))
        // Through an escape the text is the same, and read the slow way.
        if let first = text.unicodeScalars.first, first.isASCII {
          let viaEscape =
            "\\u00" + String(first.value, radix: 16, uppercase: false).leftPadded(to: 2)
            + String(text.unicodeScalars.dropFirst())
          #expect(try JSONParser.parse("\"\(viaEscape)\"") == .string(text), "\(viaEscape)")
        }
      }
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: Swift.max(0, width - count)) + self
  }
}
