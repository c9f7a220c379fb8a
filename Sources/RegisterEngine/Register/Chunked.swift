/// The register's large collections (products, customers and their indexes, gift cards) live
/// in these two containers, because the register is copied while the lane goes on changing
/// it: a snapshot is written from a copy on another thread, and a `catalog_export` or
/// `customer_history` is worked out from a copy off the event loop. A copy shares storage, and
/// the first change after it copies what it changes. With a plain `Array` or `Dictionary` that
/// is the whole collection, on the event loop (with 100,000 products, the first sale after
/// each copy copied all of them). Here a change copies one chunk or one bucket and the short
/// list that holds them, whatever the size.

/// An array kept in chunks of 256 elements. A change to one element of a copy copies that
/// element's chunk and the list of chunks; the other chunks stay shared.
public struct ChunkedArray<Element>: RandomAccessCollection, MutableCollection {
  static var chunkShift: Int { 8 }
  static var chunkSize: Int { 1 << chunkShift }
  private var chunks: [[Element]] = []
  public private(set) var count = 0

  public init() {}

  public init<Elements: Sequence>(_ elements: Elements) where Elements.Element == Element {
    for element in elements { append(element) }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { count }

  public subscript(position: Int) -> Element {
    get {
      precondition(position >= 0 && position < count, "ChunkedArray index out of range")
      return chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)]
    }
    _modify {
      precondition(position >= 0 && position < count, "ChunkedArray index out of range")
      yield &chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)]
    }
  }

  public mutating func append(_ element: Element) {
    if count & (Self.chunkSize - 1) == 0 {
      var chunk: [Element] = []
      chunk.reserveCapacity(Self.chunkSize)
      chunks.append(chunk)
    }
    chunks[chunks.count - 1].append(element)
    count += 1
  }

  public mutating func removeAll() {
    chunks = []
    count = 0
  }

  /// How many chunks this array and `other` share (the same storage, not a copy): what a test
  /// reads to see that a change copied one chunk, not all of them.
  func sharedChunks(with other: ChunkedArray) -> Int {
    zip(chunks, other.chunks).count { $0.sharesStorage(with: $1) }
  }

  /// How many chunks hold the elements.
  var chunkCount: Int { chunks.count }
}

extension ChunkedArray: Equatable where Element: Equatable {
  public static func == (lhs: ChunkedArray, rhs: ChunkedArray) -> Bool {
    lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }
}

extension ChunkedArray: Sendable where Element: Sendable {}

extension ChunkedArray: CustomStringConvertible {
  /// As an `Array` of the same elements writes itself.
  public var description: String { Array(self).description }
}

extension ChunkedArray: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

/// A dictionary kept in 256 buckets by the key's hash. A change to a copy copies one bucket
/// (a 256th of the entries) and the list of buckets; the other buckets stay shared.
/// Iteration goes bucket by bucket: like a `Dictionary`'s, its order means nothing.
public struct ChunkedDictionary<Key: Hashable, Value>: Sequence {
  static var bucketShift: Int { 8 }
  private var buckets: [[Key: Value]] = Array(repeating: [:], count: 1 << bucketShift)
  public private(set) var count = 0

  public init() {}

  /// From pairs whose keys are all different (a repeated key keeps the last value).
  public init<Pairs: Sequence>(_ pairs: Pairs) where Pairs.Element == (Key, Value) {
    for (key, value) in pairs { self[key] = value }
  }

  public var isEmpty: Bool { count == 0 }

  private static func bucket(of key: Key) -> Int {
    Int(truncatingIfNeeded: UInt(bitPattern: key.hashValue) >> (UInt.bitWidth - bucketShift))
  }

  public subscript(key: Key) -> Value? {
    get { buckets[Self.bucket(of: key)][key] }
    set {
      if let newValue {
        updateValue(newValue, forKey: key)
      } else {
        removeValue(forKey: key)
      }
    }
  }

  /// Sets the value for `key`, returning the one it replaced (nil: the key is new).
  @discardableResult
  public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
    let old = buckets[Self.bucket(of: key)].updateValue(value, forKey: key)
    if old == nil { count += 1 }
    return old
  }

  public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
    get { self[key] ?? defaultValue() }
    _modify {
      let bucket = Self.bucket(of: key)
      let before = buckets[bucket].count
      // Counted however the access ends (a caller's error ends it without returning here).
      defer { count += buckets[bucket].count - before }
      yield &buckets[bucket][key, default: defaultValue()]
    }
  }

  @discardableResult
  public mutating func removeValue(forKey key: Key) -> Value? {
    let removed = buckets[Self.bucket(of: key)].removeValue(forKey: key)
    if removed != nil { count -= 1 }
    return removed
  }

  public mutating func removeAll() {
    self = ChunkedDictionary()
  }

  public var keys: [Key] { buckets.flatMap(\.keys) }
  public var values: [Value] { buckets.flatMap(\.values) }

  public func makeIterator() -> FlattenSequence<[[Key: Value]]>.Iterator {
    buckets.joined().makeIterator()
  }

  /// How many buckets this dictionary and `other` share (the same storage, not a copy).
  func sharedBuckets(with other: ChunkedDictionary) -> Int {
    zip(buckets, other.buckets).count { mine, theirs in
      // Two dictionaries share storage when changing neither has copied it; an empty one
      // is the shared empty singleton and is not counted.
      !mine.isEmpty && mine.sameStorage(as: theirs)
    }
  }

  /// How many buckets hold entries.
  var filledBuckets: Int { buckets.count { !$0.isEmpty } }
}

extension Array {
  /// Whether `other` is this array's storage (a copy not yet changed).
  func sharesStorage(with other: Array) -> Bool {
    withUnsafeBufferPointer { mine in
      other.withUnsafeBufferPointer { mine.baseAddress == $0.baseAddress }
    }
  }
}

extension Dictionary {
  /// Whether `other` is this dictionary's storage (a copy not yet changed). A native
  /// `Dictionary` is one reference to its storage, so the two are compared as bytes.
  fileprivate func sameStorage(as other: Dictionary) -> Bool {
    withUnsafeBytes(of: self) { mine in withUnsafeBytes(of: other) { mine.elementsEqual($0) } }
  }
}

extension ChunkedDictionary: Equatable where Value: Equatable {
  public static func == (lhs: ChunkedDictionary, rhs: ChunkedDictionary) -> Bool {
    lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.key] == $0.value }
  }
}

extension ChunkedDictionary: Sendable where Key: Sendable, Value: Sendable {}

extension ChunkedDictionary: ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (Key, Value)...) {
    self.init(elements)
  }
}
