/// Something kept in a `ReceiptBook`: it has a receipt number.
public protocol Numbered: Sendable, Equatable {
  var number: Int { get }
}

extension CompletedSale: Numbered {
  public var number: Int { receiptNumber }
}

/// Receipts in number order, stored so that copying the register (for a snapshot, or a reply
/// worked out off the loop) costs the same with a hundred receipts or a million: full chunks of 64 are
/// immutable objects shared between copies; only the last, open chunk is copied.
public struct ReceiptBook<Element: Numbered>: Sendable, Equatable {
  private final class Chunk: Sendable {
    let items: [Element]
    init(_ items: [Element]) { self.items = items }
  }

  private static var chunkSize: Int { 64 }
  private var sealed: [Chunk] = []
  private var open: [Element] = []

  public init() {}

  public var count: Int { sealed.count * Self.chunkSize + open.count }
  public var isEmpty: Bool { count == 0 }

  /// Adds an element; numbers must increase (they come from one sequence).
  mutating func append(_ element: Element) {
    open.append(element)
    if open.count == Self.chunkSize {
      sealed.append(Chunk(open))
      open.removeAll(keepingCapacity: true)
    }
  }

  /// The element with this receipt number.
  public subscript(number: Int) -> Element? {
    // Find the chunk whose numbers could hold it, then search inside.
    if let first = open.first, number >= first.number {
      return Self.search(open, number)
    }
    var low = 0
    var high = sealed.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let items = sealed[middle].items
      guard let first = items.first, let last = items.last else { return nil }
      if number < first.number {
        high = middle - 1
      } else if number > last.number {
        low = middle + 1
      } else {
        return Self.search(items, number)
      }
    }
    return nil
  }

  private static func search(_ items: [Element], _ number: Int) -> Element? {
    var low = 0
    var high = items.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let candidate = items[middle].number
      if candidate == number { return items[middle] }
      if candidate < number { low = middle + 1 } else { high = middle - 1 }
    }
    return nil
  }

  /// Drops every element numbered up to `number` (the oldest: numbers increase). Rebuilds
  /// the book: it is done once per archived day, not per request.
  mutating func removeThrough(_ number: Int) {
    let kept = values.filter { $0.number > number }
    sealed = []
    open = []
    for element in kept { append(element) }
  }

  /// Every element, in number order.
  public var values: [Element] { sealed.flatMap(\.items) + open }

  /// Every receipt number, in order.
  public var keys: [Int] { values.map(\.number) }

  /// The elements with numbers from `number` on, in order.
  public func suffix(from number: Int) -> [Element] {
    values.filter { $0.number >= number }
  }

  public static func == (lhs: ReceiptBook, rhs: ReceiptBook) -> Bool {
    lhs.values == rhs.values
  }
}
