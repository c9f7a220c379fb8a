/// Reads the archived receipts of closed days (RegisterServer's `FileReceiptArchive` reads
/// `DATA/receipts/dayNNNNNN.ndjson`); the engine only asks for byte ranges.
public protocol ReceiptArchiveReader: AnyObject, Sendable {
  /// `length` bytes of day `day`'s archive file from `offset` (nil when they cannot be read).
  func read(day: Int, offset: Int, length: Int) -> [UInt8]?
}

/// One closed day's receipts, written to its archive file: one line per receipt, in number
/// order, each `{"number":N,"sale":{…}}` or `{"number":N,"return":{…}}`.
public struct ArchivedDay: Sendable, Equatable {
  public var day: Int
  /// The receipt numbers, in order.
  public var numbers: [Int]
  /// Where each line starts, and where the file ends (`numbers.count + 1` offsets).
  public var offsets: [Int]

  public init(day: Int, numbers: [Int], offsets: [Int]) {
    self.day = day
    self.numbers = numbers
    self.offsets = offsets
  }

  var first: Int? { numbers.first }
  var last: Int? { numbers.last }
}

/// A receipt of either kind, as an archive line holds it.
public enum ArchivedReceipt: Sendable, Equatable {
  case sale(CompletedSale)
  case refund(CompletedReturn)

  public var number: Int {
    switch self {
    case .sale(let sale): sale.receiptNumber
    case .refund(let refund): refund.receiptNumber
    }
  }

  /// The archive line (with its newline).
  public var line: [UInt8] {
    var object = JSONObject()
    object["number"] = .int(number)
    switch self {
    case .sale(let sale): object["sale"] = sale.snapshotValue
    case .refund(let refund): object["return"] = refund.snapshotValue
    }
    var bytes = JSONValue.object(object).serializedBytes
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// Reads an archive line (without its newline).
  public init(line: ArraySlice<UInt8>) throws(JSONShapeError) {
    let value: JSONValue
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw JSONShapeError(path: "", message: "is not JSON (\(error.description))")
    }
    var fields = try JSONFields(value)
    let number = try fields.required("number", as: Int.self)
    if let sale = fields.raw("sale") {
      self = .sale(try CompletedSale(snapshot: sale, path: "sale"))
    } else if let refund = fields.raw("return") {
      self = .refund(try CompletedReturn(snapshot: refund, path: "return"))
    } else {
      throw JSONShapeError(path: "", message: "holds neither a sale nor a return")
    }
    try fields.rejectUnknown()
    guard self.number == number else {
      throw JSONShapeError(path: "number", message: "is not the receipt's own number")
    }
  }
}

/// The receipts of closed days that are kept in archive files rather than in memory: which
/// day holds which numbers, and where each line is. Kept in the snapshot; the reader is set
/// by whoever opened the data directory.
public struct ReceiptArchive: Sendable, Equatable {
  /// Archived days, in day (and receipt number) order.
  public internal(set) var days: [ArchivedDay] = []
  /// Reads the files; nil where there are none (then archived receipts are not found).
  public var reader: (any ReceiptArchiveReader)?

  public init() {}

  public static func == (lhs: ReceiptArchive, rhs: ReceiptArchive) -> Bool {
    lhs.days == rhs.days
  }

  /// How many receipts are archived.
  public var count: Int { days.reduce(0) { $0 + $1.numbers.count } }

  /// The last archived receipt number.
  public var lastNumber: Int? { days.last?.last }

  /// The receipt with this number, read from its day's file (nil when it is not archived or
  /// cannot be read).
  public func receipt(_ number: Int) -> ArchivedReceipt? {
    // Days are in number order: find the day whose range holds the number.
    var low = 0
    var high = days.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let day = days[middle]
      guard let first = day.first, let last = day.last else { return nil }
      if number < first {
        high = middle - 1
      } else if number > last {
        low = middle + 1
      } else {
        return read(number, in: day)
      }
    }
    return nil
  }

  private func read(_ number: Int, in day: ArchivedDay) -> ArchivedReceipt? {
    guard let reader, let index = Self.search(day.numbers, number),
      day.offsets.indices.contains(index + 1)
    else { return nil }
    let start = day.offsets[index]
    let end = day.offsets[index + 1]
    guard start >= 0, end > start,
      let bytes = reader.read(day: day.day, offset: start, length: end - start),
      bytes.count == end - start, bytes.last == UInt8(ascii: "\n")
    else { return nil }
    guard let receipt = try? ArchivedReceipt(line: bytes.dropLast()), receipt.number == number
    else { return nil }
    return receipt
  }

  private static func search(_ numbers: [Int], _ number: Int) -> Int? {
    var low = 0
    var high = numbers.count - 1
    while low <= high {
      let middle = (low + high) / 2
      if numbers[middle] == number { return middle }
      if numbers[middle] < number { low = middle + 1 } else { high = middle - 1 }
    }
    return nil
  }

  /// The archived receipts of one day, in number order.
  public func receipts(ofDay day: Int) -> [ArchivedReceipt] {
    days.filter { $0.day == day }.flatMap { entry in
      entry.numbers.compactMap { read($0, in: entry) }
    }
  }

  /// Every archived receipt, in number order (reads every file: for tools, not the daemon).
  public var all: [ArchivedReceipt] {
    days.flatMap { day in day.numbers.compactMap { read($0, in: day) } }
  }

  /// The archive file of one closed day's receipts, and its index entry.
  public static func file(day: Int, receipts: [ArchivedReceipt]) -> (
    bytes: [UInt8], entry: ArchivedDay
  ) {
    var bytes: [UInt8] = []
    var offsets: [Int] = []
    for receipt in receipts {
      offsets.append(bytes.count)
      bytes.append(contentsOf: receipt.line)
    }
    offsets.append(bytes.count)
    return (bytes, ArchivedDay(day: day, numbers: receipts.map(\.number), offsets: offsets))
  }

  mutating func append(_ day: ArchivedDay) {
    days.append(day)
  }
}

/// Receipts of one kind by number, wherever they are kept: the ledger's in memory, then the
/// archive of closed days.
public struct ReceiptLookup<Element: Numbered>: Sendable, Equatable {
  let book: ReceiptBook<Element>
  let archive: ReceiptArchive
  let pick: @Sendable (ArchivedReceipt) -> Element?

  public static func == (lhs: ReceiptLookup, rhs: ReceiptLookup) -> Bool {
    lhs.values == rhs.values
  }

  /// The receipt with this number, if it is one of this kind.
  public subscript(number: Int) -> Element? {
    if let element = book[number] { return element }
    return archive.receipt(number).flatMap(pick)
  }

  /// Every receipt of this kind, in number order (the archived ones read from their files).
  public var values: [Element] {
    archive.all.compactMap(pick) + book.values
  }

  /// Every receipt number of this kind, in order.
  public var keys: [Int] { values.map(\.number) }

  /// How many there are (archived ones are read to be counted: for tools and tests).
  public var count: Int { archive.days.isEmpty ? book.count : values.count }
  public var isEmpty: Bool { count == 0 }

  /// How many are kept in memory.
  public var inMemory: Int { book.count }
}
