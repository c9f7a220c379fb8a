/// A snapshot file: the register's whole state as of one journal record, checksummed.
///
/// `{"format":2,"seq":S,"sum":"<the record's sum>","day":D,"state":{…},"checksum":"<hex>"}` on
/// one line, where `checksum` is the SHA-256 of every byte before `,"checksum":"` (the same
/// rule as a journal record's `sum`) and `state` is `Register.snapshotValue()`. Start-up loads
/// the newest good one and applies only the journal records after `seq`; the record `seq` must
/// be in the journal with that `sum`, which ties the snapshot to this journal.
public enum SnapshotFile {
  /// Why a snapshot cannot be used.
  public struct Problem: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }

    public init(message: String) {
      self.message = message
    }
  }

  static let checksumMarker = Array(#","checksum":""#.utf8)
  static let suffixLength = checksumMarker.count + 64 + 2

  /// The file's bytes for `register`, whose last applied record is `head`.
  public static func encode(_ register: Register, head: JournalHead) -> [UInt8] {
    var object = JSONObject()
    object["format"] = .int(Int64(Register.snapshotFormat))
    object["seq"] = .int(head.sequence)
    object["sum"] = .string(head.sum)
    object["day"] = .int(register.day.number)
    object["state"] = register.snapshotValue()
    var bytes = JSONValue.object(object).serializedBytes
    bytes.removeLast()  // the closing brace; the checksum follows
    let checksum = SHA256.hex(bytes)
    bytes.append(contentsOf: checksumMarker)
    bytes.append(contentsOf: checksum.utf8)
    bytes.append(contentsOf: Array(#""}"#.utf8))
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// Reads a snapshot file: checksum first (a damaged file is not parsed), then the state,
  /// with `decodeState` (the platform may give one that decodes the catalog on another thread).
  public static func decode(
    _ bytes: [UInt8],
    decodeState: (JSONValue) throws(JSONShapeError) -> Register = {
      (state) throws(JSONShapeError) in try Register(snapshot: state)
    }
  ) throws(Problem) -> (register: Register, head: JournalHead) {
    let whole = { (state: JSONValue, _: [String: ArraySlice<UInt8>]) throws(JSONShapeError) in
      try decodeState(state)
    }
    return try decode(bytes, splitting: false, catalogFound: { _ in }, decodeState: whole)
  }

  /// As `decode(_:decodeState:)`, with the state's members `Register.stateMembersReadAsText`
  /// left unparsed (`null` in the state given to `decodeState`, which gets their texts):
  /// the catalog's text is handed to `catalogFound` as soon as the parser has passed it (it
  /// comes early in the state), for the platform to parse and decode on another thread while
  /// this one reads the rest (the catalog is about half of a year-end snapshot, and all of a
  /// first day's); the ledger is read from its text without a tree.
  public static func decode(
    _ bytes: [UInt8], splittingCatalog catalogFound: (ArraySlice<UInt8>) -> Void,
    decodeState: (JSONValue, [String: ArraySlice<UInt8>]) throws(JSONShapeError) -> Register
  ) throws(Problem) -> (register: Register, head: JournalHead) {
    try decode(bytes, splitting: true, catalogFound: catalogFound) {
      state, texts throws(JSONShapeError) in
      guard texts["catalog"] != nil else {
        throw JSONShapeError(path: "state.catalog", message: "is required")
      }
      return try decodeState(state, texts)
    }
  }

  /// Closed day `number` as a snapshot file holds it in its state's day book (nil when the
  /// day book has no such day), with the state's day: what `replay --day N` needs of a closed
  /// day beside its archived receipts. The checksum is checked as for `decode`; the rest of
  /// the state is only skipped by its strings and brackets, and of the day book only that day
  /// is decoded.
  public static func closedDay(_ number: Int, in bytes: [UInt8]) throws(Problem) -> (
    day: Int, closed: ClosedDay?
  ) {
    let body = try checked(bytes)
    let value: JSONValue
    do {
      value = try JSONParser.parse(body, deferring: stateMembersBesideDayBook, under: ["state"])
        .value
    } catch {
      throw Problem(message: "not JSON (\(error.description))")
    }
    do throws(JSONShapeError) {
      var fields = try JSONFields(value)
      let day = try fields.required("day", as: Int.self)
      let path = "state.day_book.closed_days"
      guard let days = value["state"]?["day_book"]?["closed_days"]?.arrayValue else {
        throw JSONShapeError(path: path, message: "is required, an array")
      }
      guard let index = days.firstIndex(where: { $0["number"]?.int64Value == Int64(number) })
      else { return (day, nil) }
      let closed = try ClosedDay(snapshot: days[index], path: "\(path)[\(index)]")
      guard closed.number < day else {
        throw JSONShapeError(
          path: "\(path)[\(index)]", message: "day \(closed.number) is closed but the day is \(day)"
        )
      }
      return (day, closed)
    } catch {
      throw Problem(message: "not a register snapshot: \(error.description)")
    }
  }

  /// The journal record a snapshot file is the state as of, and the state's day, read without
  /// decoding the state (its checksum checked): what `verify` needs to say whether the journal
  /// reaches the snapshot start-up would load.
  public static func head(of bytes: [UInt8]) throws(Problem) -> (head: JournalHead, day: Int) {
    let body = try checked(bytes)
    let value: JSONValue
    do {
      value = try JSONParser.parse(body, deferring: ["state"], under: []).value
    } catch {
      throw Problem(message: "not JSON (\(error.description))")
    }
    do throws(JSONShapeError) {
      var fields = try JSONFields(value)
      let format = try fields.required("format", as: Int64.self)
      guard Register.readableSnapshotFormats.contains(format) else {
        throw JSONShapeError(path: "format", message: "is \(format), not a format this reads")
      }
      let head = JournalHead(
        sequence: try fields.required("seq", as: Int64.self),
        sum: try fields.required("sum", as: String.self))
      guard head.sequence > 0, JournalHead.isSum(head.sum) else {
        throw JSONShapeError(path: "seq", message: "is not a journal record's seq and sum")
      }
      return (head, try fields.required("day", as: Int.self))
    } catch {
      throw Problem(message: "not a register snapshot: \(error.description)")
    }
  }

  /// The state's members `closedDay` skips: all but the day book and a few scalars.
  static let stateMembersBesideDayBook: Set<String> = [
    "catalog", "orders", "ledger", "staff", "customer_book", "stored_value", "keys",
    "print_queue", "last_activity",
  ]

  /// The file's text before its checksum, once the checksum is found to match it.
  private static func checked(_ bytes: [UInt8]) throws(Problem) -> ArraySlice<UInt8> {
    var body = bytes[...]
    if body.last == UInt8(ascii: "\n") { body = body.dropLast() }
    guard body.count > suffixLength else { throw Problem(message: "too short to be a snapshot") }
    let prefixEnd = body.endIndex - suffixLength
    guard body[prefixEnd..<prefixEnd + checksumMarker.count].elementsEqual(checksumMarker),
      body.last == UInt8(ascii: "}")
    else { throw Problem(message: "it does not end with its checksum (cut short?)") }
    let written = String(
      decoding: body[(prefixEnd + checksumMarker.count)..<(body.endIndex - 2)], as: UTF8.self)
    var hasher = SHA256()
    body[body.startIndex..<prefixEnd].withUnsafeBytes { hasher.update(buffer: $0) }
    guard hexString(hasher.finalize()) == written else {
      throw Problem(
        message: "checksum mismatch: the file was changed or damaged after it was written")
    }
    return body
  }

  private static func decode(
    _ bytes: [UInt8], splitting: Bool, catalogFound: (ArraySlice<UInt8>) -> Void,
    decodeState: (JSONValue, [String: ArraySlice<UInt8>]) throws(JSONShapeError) -> Register
  ) throws(Problem) -> (register: Register, head: JournalHead) {
    let body = try checked(bytes)
    let value: JSONValue
    var texts: [String: ArraySlice<UInt8>] = [:]
    do {
      if splitting {
        let parsed = try JSONParser.parse(
          body, deferring: Register.stateMembersReadAsText, under: ["state"]
        ) { key, range in
          if key == "catalog" { catalogFound(body[range]) }
        }
        value = parsed.value
        texts = parsed.deferred.mapValues { body[$0] }
      } else {
        value = try JSONParser.parse(body)
      }
    } catch {
      throw Problem(message: "not JSON (\(error.description))")
    }
    do throws(JSONShapeError) {
      var fields = try JSONFields(value)
      let format = try fields.required("format", as: Int64.self)
      guard Register.readableSnapshotFormats.contains(format) else {
        throw JSONShapeError(
          path: "format",
          message:
            "is \(format); this registerd reads formats 1-\(Register.snapshotFormat) (a newer registerd wrote it?)"
        )
      }
      let sequence = try fields.required("seq", as: Int64.self)
      let sum = try fields.required("sum", as: String.self)
      let day = try fields.required("day", as: Int.self)
      let state = try fields.required("state", as: JSONValue.self)
      _ = try fields.required("checksum", as: String.self)
      try fields.rejectUnknown()
      guard sequence > 0, JournalHead.isSum(sum) else {
        throw JSONShapeError(path: "seq", message: "is not a journal record's seq and sum")
      }
      let register = try decodeState(state, texts)
      guard register.lastSequence == sequence, register.day.number == day else {
        throw JSONShapeError(path: "state", message: "is not the state as of seq \(sequence)")
      }
      return (register, JournalHead(sequence: sequence, sum: sum))
    } catch {
      throw Problem(message: "not a register snapshot: \(error.description)")
    }
  }
}
