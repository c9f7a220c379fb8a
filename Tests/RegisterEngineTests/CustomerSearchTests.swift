import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `customer_find` through the search index (`CustomerSearch`) finds exactly the customers the
/// rule finds when every customer is compared as `String`s, however the names, addresses,
/// phone numbers and queries are written: ASCII, accents composed or not, letters whose lower
/// case is longer or that are canonically another one, other scripts' digits, CR-LF.
@Suite struct CustomerSearchTests {
  /// The rule, as written before the index: each customer lower-cased and compared on the spot.
  static func reference(_ customers: [Customer], _ query: String) -> [String] {
    let needle = fold(query)
    let digits = query.filter(\.isNumber)
    return customers.filter { customer in
      customer.id.lowercased() == needle || customer.email.map(fold) == needle
        || (digits.count >= 3 && contains(customer.phoneDigits, digits))
        || contains(fold(customer.name), needle)
    }.map(\.id)
  }

  /// Folding as the rule says, worked out another way than `SearchFold`: lower case, then
  /// Foundation's canonical decomposition with the combining marks dropped, then the Latin
  /// letters that do not decompose spelled out.
  static func fold(_ text: String) -> String {
    let letters: [Unicode.Scalar: String] = [
      "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th",
      "ı": "i", "ĸ": "k", "ŀ": "l", "ŉ": "n", "ĳ": "ij", "ſ": "s", "ħ": "h", "ŧ": "t", "ŋ": "n",
    ]
    var out = ""
    for scalar in text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
      if (0x300...0x36F).contains(scalar.value) { continue }
      if scalar == "\u{B7}" { continue }  // ŀ's middle dot, once decomposed
      if let spelled = letters[scalar] { out += spelled } else { out.unicodeScalars.append(scalar) }
    }
    return out
  }

  /// `String.contains` as the engine has it (without Foundation, whose `contains` this test
  /// target would otherwise get): `needle`'s `Character`s appear in a row in `text`'s.
  static func contains(_ text: String, _ needle: String) -> Bool {
    let characters = Array(text)
    let wanted = Array(needle)
    guard wanted.count <= characters.count else { return false }
    return (0...(characters.count - wanted.count)).contains { start in
      characters[start..<start + wanted.count].elementsEqual(wanted)
    }
  }

  static let pieces = [
    "a", "b", "Dana", "dana", "DANA", " ", "-", "(", "é", "e\u{301}", "\u{212A}", "k", "K", "ß",
    "SS", "ss", "İ", "i", "Σ", "σ", "5", "55", "555", "123", "٣", "٤٥", "\u{1FEF}", "`", "\r\n",
    "\r",
    "\n", "C1", "c1", "@", ".", "x", "Zoë", "zoe\u{308}",
  ]

  static func text(_ random: inout SplitMix64, _ count: Int) -> String {
    (0..<count).map { _ in random.pick(pieces) }.joined()
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func theIndexFindsWhatTheRuleFinds(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var book = CustomerBook()
    var customers: [Customer] = []
    for number in 1...400 {
      let customer = Customer(
        id: random.below(6) == 0 ? Self.text(&random, 2) : "C\(number)",
        name: Self.text(&random, 1 + random.below(5)),
        email: random.below(3) == 0 ? nil : Self.text(&random, 1 + random.below(3)),
        phone: random.below(3) == 0
          ? nil : "(802) 555-" + Self.text(&random, random.below(3)) + "\(random.below(10_000))")
      customers.append(customer)
      book.apply(.customerAdded(customer))
    }
    // The same customers read back from a snapshot are searched alike.
    var restored = CustomerBook()
    restored.setCustomers(customers)
    var queries = Self.pieces + ["", "c17", "C17", "dana ", "802555", "(802) 555", "5551"]
    for _ in 0..<200 { queries.append(Self.text(&random, 1 + random.below(3))) }
    // Queries that are a customer's whole id, address or a part of a name.
    for _ in 0..<60 {
      let customer = random.pick(customers)
      queries.append(random.below(2) == 0 ? customer.id : customer.email ?? customer.name)
      queries.append(String(customer.name.dropFirst(random.below(3))))
    }
    var found = 0
    for query in queries {
      let expected = Self.reference(customers, query)
      found += expected.count
      #expect(book.find(query).map(\.id) == expected, "query \(query.debugDescription)")
      #expect(restored.find(query).map(\.id) == expected, "query \(query.debugDescription)")
    }
    #expect(found > 0, "the queries find customers")
  }

  /// The cases the byte comparison could get wrong, one by one.
  @Test func canonicalEquivalenceAndCaseStillMatch() {
    let customers = [
      Customer(id: "C1", name: "José Kim", email: "JOSE@example.com", phone: "(802) 555-0101"),
      Customer(id: "C2", name: "Jose\u{301} Lee", email: nil, phone: "٠٨٠٢٥٥٥٠١٠٢"),
      Customer(id: "C3", name: "Ann `Grave`", email: "ann@example.com", phone: nil),
      Customer(id: "C4", name: "Bob\r\nSmith", email: nil, phone: nil),
      Customer(id: "C5", name: "Pat Doe", email: "pat@example.com", phone: "(802) 444-0199"),
    ]
    var book = CustomerBook()
    book.setCustomers(customers)
    func ids(_ query: String) -> [String] { book.find(query).map(\.id) }
    #expect(ids("josé") == ["C1", "C2"])
    #expect(ids("jose\u{301}") == ["C1", "C2"])
    #expect(ids("\u{212A}im") == ["C1"])  // KELVIN SIGN lower-cases to "k"
    #expect(ids("jose@example.com") == ["C1"])
    #expect(ids("c3") == ["C3"])
    #expect(ids("555-01") == ["C1"])
    #expect(ids("٥٥٥٠١٠٢") == ["C2"])
    #expect(ids("\u{1FEF}") == ["C3"])  // GREEK VARIA is canonically a grave accent
    #expect(ids("\r") == [])
    #expect(ids("bob\r\nsmith") == ["C4"])
    // A query with a letter no ASCII text holds skips the all-ASCII customers' names, ids
    // and addresses, but not their phone numbers.
    // Accents are folded: "ö" is an "o" wherever it is.
    #expect(ids("ö4440199") == ["C5"])
    for query in [
      "josé", "jose", "\u{212A}im", "\u{1FEF}", "\r", "bob", "٠٨٠", "ö4440199", "é", "ö", "pat dö",
    ] {
      #expect(ids(query) == Self.reference(customers, query), "query \(query.debugDescription)")
    }
  }
}

/// `customer_find` returns at most `limit` customers (100 unless the request says, up to
/// 1000), the first ones added, and says how many match in all when it left some out.
@Suite struct CustomerFindLimitTests {
  /// A lane with `count` customers named "Dana 1", "Dana 2", … and one named "Lee".
  static func lane(customers count: Int) throws -> JournalLane {
    let lane = try JournalLane()
    for number in 1...count {
      _ = try lane.ok(Requests.CustomerAdd(name: "Dana \(number)"))
    }
    _ = try lane.ok(Requests.CustomerAdd(name: "Lee"))
    return lane
  }

  static func ids(_ reply: JSONValue) -> [String] {
    (reply["customers"]?.arrayValue ?? []).compactMap { $0["customer_id"]?.stringValue }
  }

  @Test func aQueryMatchingMoreThanTheLimitReturnsTheFirstOnesAndTheCount() throws {
    let lane = try Self.lane(customers: 150)
    let found = try lane.ok(Requests.CustomerFind(query: "dana"))
    #expect(Self.ids(found) == (1...100).map { "C\($0)" })
    #expect(found["matches"] == .int(150))
    let more = try lane.ok(Requests.CustomerFind(query: "dana", limit: 120))
    #expect(Self.ids(more) == (1...120).map { "C\($0)" })
    #expect(more["matches"] == .int(150))
    let one = try lane.ok(Requests.CustomerFind(query: "dana", limit: 1))
    #expect(Self.ids(one) == ["C1"])
    #expect(one["matches"] == .int(150))
  }

  @Test func aReplyHoldingEveryMatchHasNoCount() throws {
    let lane = try Self.lane(customers: 150)
    let all = try lane.ok(Requests.CustomerFind(query: "dana", limit: 1000))
    #expect(Self.ids(all) == (1...150).map { "C\($0)" })
    #expect(all["matches"] == nil)
    let exact = try lane.ok(Requests.CustomerFind(query: "dana", limit: 150))
    #expect(Self.ids(exact).count == 150 && exact["matches"] == nil)
    // As before the limit: the reply is the customers alone.
    let lee = try lane.ok(Requests.CustomerFind(query: "lee"))
    #expect(Self.ids(lee) == ["C151"])
    #expect(lee.objectValue?.keys.sorted() == ["customers"])
    let none = try lane.ok(Requests.CustomerFind(query: "zzz"))
    #expect(none == .object(["customers": .array([])]))
  }

  @Test(arguments: [
    #""limit":0"#, #""limit":1001"#, #""limit":-1"#, #""limit":"10""#, #""limit":2.5"#,
    #""limit":null"#, #""limit":99999999999999999999"#,
  ])
  func aLimitOutOfRangeIsABadRequest(_ member: String) throws {
    let lane = try JournalLane()
    _ = try lane.ok(Requests.CustomerAdd(name: "Dana"))
    let reply = try lane.send(#"{"op":"customer_find","query":"dana",\#(member)}"#)
    #expect(reply.errorCode == "bad_request", "\(member): \(reply.serialized)")
    #expect(
      reply["error"]?["message"]?.stringValue?.contains("limit") == true, "\(reply.serialized)")
  }
}
