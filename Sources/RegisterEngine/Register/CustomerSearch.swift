/// What `customer_find` compares a query with, worked out once per customer when the customer
/// is added (or read from a snapshot) rather than on every search: a search used to lower-case
/// every customer's id, address and name and filter the digits of every phone number, which
/// with `Register.maximumCustomers` customers held the event loop, and every lane with it, for
/// a quarter of a second or more.
///
/// A customer matches a query when its id or e-mail address equals the query in lower case,
/// when the query has at least three digits and they appear in that order in the phone number's
/// digits, or when the name in lower case contains the query in lower case. Equality and
/// containment are `String`'s (by `Character`: canonically equivalent text matches). Where the
/// query and a customer's fields are all printable ASCII, a `Character` is a byte and the same
/// comparisons are made on bytes kept side by side in one buffer (no per-customer strings to
/// retain and release on the way); anything else is compared as `String`s.
///
/// The customers are kept in pages of 256: adding one to a copy of the search (the register
/// is copied for a snapshot, or for a reply worked out off the loop) copies the last page, not
/// the fields of every customer.
struct CustomerSearch: Sendable {
  /// The customers, 256 to a page, in the order they were added.
  fileprivate var pages: [Page] = []

  /// Up to `Page.capacity` customers' fields.
  fileprivate struct Page: Sendable {
    static var capacity: Int { 256 }
    /// Each customer's fields as compared, in the order the customers were added.
    var keys: [Key] = []
    /// The fields' bytes of the page's customers, one after another.
    var bytes: [UInt8] = []
    /// Where each customer's fields lie in `bytes` (same positions as `keys`).
    var spans: [Span] = []
  }

  /// A customer's fields in lower case, and the phone number's digits.
  fileprivate struct Key: Sendable {
    let id: String
    let email: String?
    let name: String
    let phoneDigits: String

    func matches(_ query: Query) -> Bool {
      id == query.text || email == query.text
        || (query.hasEnoughDigits && phoneDigits.contains(query.digits))
        || name.contains(query.text)
    }
  }

  /// The id, e-mail, name and phone digits in `bytes`, each ending where the next starts (the
  /// e-mail is empty when there is none: `hasEmail` tells the two apart). `ascii`: every field
  /// is printable ASCII, and comparing bytes is comparing `Character`s; otherwise the customer
  /// is compared by its `Key` (its bytes can still rule it out: `Query.run`).
  fileprivate struct Span: Sendable {
    var idStart = 0
    var emailStart = 0
    var nameStart = 0
    var digitsStart = 0
    var end = 0
    var hasEmail = false
    var ascii = false
  }

  /// A query, prepared once for a search.
  fileprivate struct Query {
    let text: String
    let digits: String
    let hasEnoughDigits: Bool
    /// `text` and `digits` as bytes, when they are printable ASCII.
    let textBytes: [UInt8]?
    let digitBytes: [UInt8]?
    /// For a query that is not all printable ASCII: its longest run of ASCII letters, digits
    /// and spaces that are `Character`s of their own. A lower-cased text equal to or holding the
    /// query holds those `Character`s in a row, and no other `Character` is canonically one of
    /// them, so its UTF-8 holds the run's bytes: a customer whose id, e-mail and name bytes do
    /// not is no match by id, e-mail or name.
    let run: [UInt8]?
    /// `text` holds a `Character` that is no printable ASCII character, not even canonically
    /// (an `é`, a `ß`, a CR): a customer whose fields are all printable ASCII does not hold it,
    /// and can match only by its phone number. (The Kelvin sign and Greek varia are canonically
    /// ASCII letters and marks, so they do not count.)
    let foreign: Bool

    /// The printable ASCII characters, to compare a query's other characters with.
    private static let printable: [Character] = (0x20...0x7E).map {
      Character(Unicode.Scalar(UInt8($0)))
    }

    init(_ query: String) {
      text = SearchFold.fold(query)
      digits = query.filter(\.isNumber)
      hasEnoughDigits = digits.count >= 3
      textBytes = printableASCII(text)
      digitBytes = printableASCII(digits)
      var longest: [UInt8] = []
      var current: [UInt8] = []
      for character in text {
        if character.utf8.count == 1, let byte = character.utf8.first,
          byte == 0x20 || (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte)
        {
          current.append(byte)
          if current.count > longest.count { longest = current }
        } else {
          current = []
        }
      }
      run = longest.isEmpty ? nil : longest
      foreign =
        textBytes == nil
        && text.contains { character in
          !(character.utf8.count == 1 && character.utf8.first.map(isPrintableASCII) == true)
            && !Self.printable.contains(character)
        }
    }
  }

  /// Adds the next customer.
  mutating func append(_ customer: Customer) {
    let key = Key(
      id: customer.id.lowercased(), email: customer.email.map(SearchFold.fold),
      name: SearchFold.fold(customer.name), phoneDigits: customer.phoneDigits)
    if pages.last.map({ $0.keys.count == Page.capacity }) ?? true { pages.append(Page()) }
    pages[pages.count - 1].append(key)
  }

  /// Forgets every customer.
  mutating func removeAll() {
    pages = []
  }

  /// How many pages this search and `other` share (the same storage, not a copy).
  func sharedPages(with other: CustomerSearch) -> Int {
    zip(pages, other.pages).count { $0.bytes.sharesStorage(with: $1.bytes) }
  }

  /// How many pages hold the customers.
  var pageCount: Int { pages.count }

  /// The positions of the customers `query` matches, in order.
  func find(_ query: String) -> [Int] {
    let prepared = Query(query)
    var found: [Int] = []
    for (number, page) in pages.enumerated() {
      page.find(prepared, first: number * Page.capacity, into: &found)
    }
    return found
  }
}

extension CustomerSearch.Page {
  mutating func append(_ key: CustomerSearch.Key) {
    keys.append(key)
    let email = key.email.map { Array($0.utf8) }
    var span = CustomerSearch.Span()
    span.hasEmail = email != nil
    span.idStart = bytes.count
    bytes.append(contentsOf: key.id.utf8)
    span.emailStart = bytes.count
    bytes.append(contentsOf: email ?? [])
    span.nameStart = bytes.count
    bytes.append(contentsOf: key.name.utf8)
    span.digitsStart = bytes.count
    bytes.append(contentsOf: key.phoneDigits.utf8)
    span.end = bytes.count
    span.ascii = bytes[span.idStart..<span.end].allSatisfy(isPrintableASCII)
    spans.append(span)
  }

  /// Appends to `found` the positions (counted from `first`) of this page's customers that
  /// `prepared` matches, in order.
  func find(_ prepared: CustomerSearch.Query, first: Int, into found: inout [Int]) {
    bytes.withUnsafeBufferPointer { bytes in
      spans.withUnsafeBufferPointer { spans in
        guard let text = prepared.textBytes, let digits = prepared.digitBytes else {
          // Compared as `String`s, but only where the bytes leave a match possible.
          for (position, span) in spans.enumerated() {
            if prepared.foreign && span.ascii {
              // Its id, e-mail and name cannot hold the query: only its phone can match.
              guard prepared.hasEnoughDigits else { continue }
              if let digits = prepared.digitBytes {
                if contains(bytes, span.digitsStart..<span.end, digits) {
                  found.append(first + position)
                }
              } else if keys[position].matches(prepared) {
                found.append(first + position)
              }
              continue
            }
            if let run = prepared.run, !prepared.hasEnoughDigits,
              !contains(bytes, span.idStart..<span.digitsStart, run)
            {
              continue
            }
            if keys[position].matches(prepared) { found.append(first + position) }
          }
          return
        }
        for (position, span) in spans.enumerated() {
          guard span.ascii else {
            if keys[position].matches(prepared) { found.append(first + position) }
            continue
          }
          if equal(bytes, span.idStart..<span.emailStart, text)
            || (span.hasEmail && equal(bytes, span.emailStart..<span.nameStart, text))
            || (prepared.hasEnoughDigits
              && contains(bytes, span.digitsStart..<span.end, digits))
            || contains(bytes, span.nameStart..<span.digitsStart, text)
          {
            found.append(first + position)
          }
        }
      }
    }
  }
}

/// The UTF-8 bytes of `text` when every one is printable ASCII (0x20-0x7E), else nil: in such
/// text each `Character` is one byte (no CR-LF pair, no combining mark).
private func printableASCII(_ text: String) -> [UInt8]? {
  let bytes = Array(text.utf8)
  return bytes.allSatisfy(isPrintableASCII) ? bytes : nil
}

private func isPrintableASCII(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }

/// Whether the bytes at `range` are `other`.
private func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ other: [UInt8])
  -> Bool
{
  range.count == other.count && bytes[range].elementsEqual(other)
}

/// Whether `needle` appears in the bytes at `range` (an empty needle appears in anything, as
/// with `String.contains`).
private func contains(
  _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ needle: [UInt8]
) -> Bool {
  guard let first = needle.first else { return true }
  guard needle.count <= range.count else { return false }
  var start = range.lowerBound
  let last = range.upperBound - needle.count
  while start <= last {
    if bytes[start] == first {
      var matched = 1
      while matched < needle.count, bytes[start + matched] == needle[matched] { matched += 1 }
      if matched == needle.count { return true }
    }
    start += 1
  }
  return false
}
