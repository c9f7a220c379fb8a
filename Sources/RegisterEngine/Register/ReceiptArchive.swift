/// Reads the archived receipts of closed days (RegisterServer's `FileReceiptArchive` reads
/// `DATA/receipts/dayNNNNNN.ndjson` and its index `dayNNNNNN.idx`); the engine only asks for
/// byte ranges.
public protocol ReceiptArchiveReader: AnyObject, Sendable {
  /// `length` bytes of day `day`'s receipts file (`index`: of its index file) from `offset`
  /// (nil when they cannot be read).
  func read(day: Int, index: Bool, offset: Int, length: Int) -> [UInt8]?
}

/// A run of consecutive receipt numbers of one closed day, in its archive files.
///
/// A day's receipts file has one line per receipt, in number order, each
/// `{"number":N,"sale":{…}}` or `{"number":N,"return":{…}}`; its index file has, for each line
/// and then for the end of the file, the byte offset as 16 hex digits and a newline. Receipt
/// `first + i` of a run is line `position + i`. (A day is one run: receipt numbers are
/// consecutive; a journal whose numbers jump gives a day several runs.)
public struct ArchivedDay: Sendable, Equatable {
  public var day: Int
  public var first: Int
  public var count: Int
  public var position: Int

  public init(day: Int, first: Int, count: Int, position: Int) {
    self.day = day
    self.first = first
    self.count = count
    self.position = position
  }

  var last: Int { first + count - 1 }

  /// The width of one index entry: 16 hex digits and a newline.
  static let entryLength = 17
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

extension ArchivedReceipt {
  /// The receipts of whole lines of a day's archive file (all of it, or a run of its lines),
  /// in order: what `replay --day N` prints of a closed day. A line that is not a receipt is
  /// an error naming it (`firstLine`: the number of the first line given).
  public static func lines(_ text: ArraySlice<UInt8>, firstLine: Int = 1) throws(JSONShapeError)
    -> [ArchivedReceipt]
  {
    var receipts: [ArchivedReceipt] = []
    var start = text.startIndex
    while start < text.endIndex {
      guard let end = text[start...].firstIndex(of: UInt8(ascii: "\n")) else {
        throw JSONShapeError(
          path: "line \(firstLine + receipts.count)", message: "has no newline (cut short?)")
      }
      do {
        receipts.append(try ArchivedReceipt(line: text[start..<end]))
      } catch {
        throw JSONShapeError(
          path: "line \(firstLine + receipts.count)" + (error.path.isEmpty ? "" : "." + error.path),
          message: error.errorMessage)
      }
      start = end + 1
    }
    return receipts
  }

  /// The business day the receipt was made on.
  public var day: Int {
    switch self {
    case .sale(let sale): sale.day
    case .refund(let refund): refund.day
    }
  }
}

extension ClosedDay {
  /// Why `receipts` are not every receipt of this day (nil when they are): each must be of
  /// this day, in increasing number order, from the day's first receipt to its last, and
  /// there must be as many as the day had sales and returns.
  public func mismatch(_ receipts: [ArchivedReceipt]) -> String? {
    let expected = totals.salesCount + totals.returnsCount
    guard receipts.count == expected else {
      return "it holds \(receipts.count) receipts; day \(number) had \(expected) sales and returns"
    }
    guard receipts.first?.number == totals.firstReceipt, receipts.last?.number == totals.lastReceipt
    else {
      return "its receipts do not run from day \(number)'s first receipt to its last"
    }
    for (position, receipt) in receipts.enumerated() {
      guard receipt.day == number else {
        return "receipt \(receipt.number) is of day \(receipt.day), not \(number)"
      }
      if position > 0, receipts[position - 1].number >= receipt.number {
        return "receipt \(receipt.number) is out of number order"
      }
    }
    return nil
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
  public var count: Int { days.reduce(0) { $0 + $1.count } }

  /// The last archived receipt number.
  public var lastNumber: Int? { days.last?.last }

  /// The receipt with this number, read from its day's file (nil when it is not archived or
  /// cannot be read).
  public func receipt(_ number: Int) -> ArchivedReceipt? {
    // Runs are in number order: find the one holding the number.
    var low = 0
    var high = days.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let run = days[middle]
      if number < run.first {
        high = middle - 1
      } else if number > run.last {
        low = middle + 1
      } else {
        return read(number, in: run)
      }
    }
    return nil
  }

  private func read(_ number: Int, in run: ArchivedDay) -> ArchivedReceipt? {
    guard let reader, number >= run.first, number <= run.last else { return nil }
    let line = run.position + (number - run.first)
    let width = ArchivedDay.entryLength
    guard
      let entries = reader.read(
        day: run.day, index: true, offset: line * width, length: 2 * width),
      entries.count == 2 * width,
      let start = Self.offset(entries[0..<width]), let end = Self.offset(entries[width...]),
      end > start,
      let bytes = reader.read(day: run.day, index: false, offset: start, length: end - start),
      bytes.count == end - start, bytes.last == UInt8(ascii: "\n")
    else { return nil }
    guard let receipt = try? ArchivedReceipt(line: bytes.dropLast()), receipt.number == number
    else { return nil }
    return receipt
  }

  /// An index entry: 16 hex digits and a newline.
  private static func offset(_ entry: ArraySlice<UInt8>) -> Int? {
    guard entry.count == ArchivedDay.entryLength, entry.last == UInt8(ascii: "\n") else {
      return nil
    }
    var value = 0
    for byte in entry.dropLast() {
      let digit: Int
      if (0x30...0x39).contains(byte) {
        digit = Int(byte - 0x30)
      } else if (0x61...0x66).contains(byte) {
        digit = Int(byte - 0x61 + 10)
      } else {
        return nil
      }
      guard value <= (Int.max - digit) / 16 else { return nil }
      value = value * 16 + digit
    }
    return value
  }

  /// The archived receipts of one day, in number order.
  public func receipts(ofDay day: Int) -> [ArchivedReceipt] {
    days.filter { $0.day == day }.flatMap { run in
      (run.first...run.last).compactMap { read($0, in: run) }
    }
  }

  /// Every archived receipt, in number order (reads every file: for tools, not the daemon).
  public var all: [ArchivedReceipt] {
    days.flatMap { run in (run.first...run.last).compactMap { read($0, in: run) } }
  }

  /// The archive files of one closed day's receipts (in number order): the receipts, their
  /// index, and the runs of consecutive numbers they hold.
  public static func files(day: Int, receipts: [ArchivedReceipt]) -> (
    receipts: [UInt8], index: [UInt8], runs: [ArchivedDay]
  ) {
    var bytes: [UInt8] = []
    var index: [UInt8] = []
    var runs: [ArchivedDay] = []
    func entry(_ offset: Int) {
      let digits = Array(String(offset, radix: 16).utf8)
      index.append(contentsOf: [UInt8](repeating: UInt8(ascii: "0"), count: 16 - digits.count))
      index.append(contentsOf: digits)
      index.append(UInt8(ascii: "\n"))
    }
    for (position, receipt) in receipts.enumerated() {
      entry(bytes.count)
      bytes.append(contentsOf: receipt.line)
      if let last = runs.last, last.last + 1 == receipt.number {
        runs[runs.count - 1].count += 1
      } else {
        runs.append(ArchivedDay(day: day, first: receipt.number, count: 1, position: position))
      }
    }
    entry(bytes.count)
    return (bytes, index, runs)
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
