import Foundation
import Testing

@testable import RegisterEngine

/// An event is declared once, as a case of `Event` (Event.swift). Its type — the `EventType`
/// case, the name journaled and sent to subscribers (the case's name in snake case:
/// `operatorPINSet` is `operator_pin_set`) and the event's `eventType` — is derived from that
/// case into EventType+Derived.swift, which this test writes: CI fails when the committed file
/// is not what `Event` gives. After adding or renaming a case, write it again with
/// `REGISTER_WRITE_DERIVED=1 swift test --filter EventDeclarationTests`.
@Suite struct EventDeclarationTests {
  static let sources: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/Sources/RegisterEngine/Register/"
  }()

  /// The names of `Event`'s cases, in declaration order.
  static func eventCases(_ source: String) -> [String] {
    var cases: [String] = []
    var inside = false
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("public enum Event:") {
        inside = true
        continue
      }
      guard inside else { continue }
      if line == "}" { break }
      for prefix in ["  case ", "  indirect case "] where line.hasPrefix(prefix) {
        let name = line.dropFirst(prefix.count).prefix { $0.isLetter || $0.isNumber }
        cases.append(String(name))
      }
    }
    return cases
  }

  /// A case's name on the wire: its words in lower case joined by `_` (a run of capitals is
  /// one word: `operatorPINSet` is `operator_pin_set`).
  static func wireName(_ caseName: String) -> String {
    let letters = Array(caseName)
    var out = ""
    for (index, letter) in letters.enumerated() {
      if letter.isUppercase, index > 0 {
        let previous = letters[index - 1]
        let next = index + 1 < letters.count ? letters[index + 1] : nil
        if previous.isLowercase || previous.isNumber
          || (previous.isUppercase && next?.isLowercase == true)
        {
          out.append("_")
        }
      }
      out.append(contentsOf: letter.lowercased())
    }
    return out
  }

  /// EventType+Derived.swift as `Event`'s cases give it.
  static func derivedFile(cases: [String]) -> String {
    var out = """
      // Derived from the cases of `Event` (Event.swift) by EventDeclarationTests, which fails
      // when this file is not what they give; do not edit it. To write it again:
      // REGISTER_WRITE_DERIVED=1 swift test --filter EventDeclarationTests

      /// Every type of journal record and live event: one per case of `Event`, named on the
      /// wire by the case's name in snake case. What else each type has (its topic groups, the
      /// shape of its data) is declared in EventType.swift.
      public enum EventType: String, CaseIterable, Sendable {

      """
    for name in cases { out += "  case \(name) = \"\(wireName(name))\"\n" }
    out += """
      }

      extension Event {
        /// The event's type.
        public var eventType: EventType {
          switch self {

      """
    for name in cases { out += "    case .\(name): .\(name)\n" }
    out += """
          }
        }
      }

      """
    return out
  }

  @Test func theDerivedFileIsWhatEventsCasesGive() throws {
    let events = try String(contentsOfFile: Self.sources + "Event.swift", encoding: .utf8)
    let cases = Self.eventCases(events)
    #expect(cases.count == EventType.allCases.count)
    let expected = Self.derivedFile(cases: cases)
    let path = Self.sources + "EventType+Derived.swift"
    if ProcessInfo.processInfo.environment["REGISTER_WRITE_DERIVED"] == "1" {
      try expected.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let committed = try String(contentsOfFile: path, encoding: .utf8)
    #expect(
      committed == expected,
      "EventType+Derived.swift is stale: REGISTER_WRITE_DERIVED=1 swift test --filter EventDeclarationTests"
    )
  }

  @Test func everyTypeIsNamedAfterItsCase() {
    #expect(Self.wireName("operatorPINSet") == "operator_pin_set")
    #expect(Self.wireName("floatSet") == "float_set")
    #expect(Self.wireName("storeConfigured") == "store_configured")
    for type in EventType.allCases {
      #expect(Self.wireName("\(type)") == type.rawValue)
      #expect(EventType.named(type.rawValue) == type)
    }
  }
}
