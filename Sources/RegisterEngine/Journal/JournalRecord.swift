/// An idempotency key remembered with the request it belonged to and the reply it got.
public struct KeyRecord: Sendable, Equatable {
  public var key: String
  /// SHA-256 of the request's content (no card data, no id), to spot a key reused for
  /// something else.
  public var fingerprint: String
  /// The `result` of the original reply.
  public var reply: JSONValue

  public init(key: String, fingerprint: String, reply: JSONValue) {
    self.key = key
    self.fingerprint = fingerprint
    self.reply = reply
  }

  var json: JSONValue {
    .object(["id": .string(key), "fingerprint": .string(fingerprint), "reply": reply])
  }

  init(json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    key = try fields.required("id")
    fingerprint = try fields.required("fingerprint")
    reply = try fields.required("reply")
    try fields.rejectUnknown()
  }
}

/// One line of the journal: an event with its sequence number, time, operator, and the two
/// hashes that make the journal tamper-evident.
///
/// On disk: `{"seq":…,"at":…,"type":…,"data":{…},["operator":…,]["key":{…},]["more":true,]
/// "prev":"<hex>",["mac":"<hex>",]"sum":"<hex>"}` where `sum` is the SHA-256 of every byte of
/// the line before `,"sum":"`, and `prev` is the previous record's `sum` (64 zeros for the first
/// record). With a journal key, `mac` is the HMAC-SHA256 under that key of every byte before
/// `,"mac":"` (see `HMACSHA256`).
public struct JournalRecord: Sendable, Equatable {
  public var sequence: Int64
  public var at: Timestamp
  public var type: String
  public var data: JSONValue
  public var operatorID: String?
  /// The manager who approved the request, when it needed one.
  public var approvedBy: String? = nil
  public var key: KeyRecord?
  /// True when the next record belongs to the same request: a request's events are applied
  /// all together or not at all.
  public var more: Bool
  public var previous: String
  public var sum: String
  /// The record's HMAC under the journal key, when it was written with one.
  public var mac: String? = nil

  /// The `prev` of the first record.
  public static let genesis = String(repeating: "0", count: 64)

  /// The bytes that follow a record's prefix: `,"sum":"` + 64 hex + `"}`.
  static let sumMarker = Array(#","sum":""#.utf8)
  static let suffixLength = sumMarker.count + 64 + 2
  static let macMarker = Array(#","mac":""#.utf8)
  /// `,"mac":"` + 64 hex + `"`.
  static let macLength = macMarker.count + 64 + 1

  /// Builds the line for a new record (with its trailing newline) and returns it with its sum.
  public static func encode(
    sequence: Int64, at: Timestamp, type: String, data: JSONValue, operatorID: String?,
    approvedBy: String? = nil, key: KeyRecord?, more: Bool, previous: String,
    macKey: HMACSHA256? = nil
  ) -> (line: [UInt8], sum: String) {
    encode(
      sequence: sequence, at: at, type: type, writeData: { $0.value("data", data) },
      operatorID: operatorID, approvedBy: approvedBy, key: key, more: more, previous: previous,
      macKey: macKey)
  }

  /// As `encode(sequence:at:type:data:…)`, with the `data` member written by `writeData`
  /// (an event writes its own, without a tree when it can).
  static func encode(
    sequence: Int64, at: Timestamp, type: String,
    writeData: (inout JSONObjectWriter) -> Void, operatorID: String?, approvedBy: String?,
    key: KeyRecord?, more: Bool, previous: String, macKey: HMACSHA256?
  ) -> (line: [UInt8], sum: String) {
    // Written member by member (the bytes writing the same object as a tree gives), left open:
    // the MAC and the sum follow.
    var prefix = JSONObjectWriter(capacity: 320 + 32 * (operatorID == nil ? 0 : 1))
    prefix.int("seq", sequence)
    prefix.timestamp("at", at)
    prefix.string("type", type)
    writeData(&prefix)
    if let operatorID { prefix.string("operator", operatorID) }
    if let approvedBy { prefix.string("approved_by", approvedBy) }
    if let key { prefix.value("key", key.json) }
    if more { prefix.bool("more", true) }
    prefix.string("prev", previous)
    var bytes = prefix.unfinished()
    if let macKey {
      let mac = macKey.hex(bytes)
      bytes.append(contentsOf: macMarker)
      bytes.append(contentsOf: mac.utf8)
      bytes.append(UInt8(ascii: "\""))
    }
    var hasher = SHA256()
    bytes.withUnsafeBytes { hasher.update(buffer: $0) }
    let words = hasher.finalizeWords()
    bytes.reserveCapacity(bytes.count + suffixLength + 1)
    bytes.append(contentsOf: sumMarker)
    let sumStart = bytes.count
    SHA256.appendHex(words, to: &bytes)
    let sum = String(decoding: bytes[sumStart...], as: UTF8.self)
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: "}"))
    bytes.append(UInt8(ascii: "\n"))
    return (bytes, sum)
  }

  /// Why a line is not a good record.
  public enum Problem: Error, Equatable, CustomStringConvertible {
    case notJSON(String)
    case badShape(String)
    case checksumMismatch
    case sequenceGap(expected: Int64, found: Int64)
    case brokenChain
    /// Read with the journal key, the record has no `"mac"`.
    case macMissing
    /// Read with the journal key, the record's `"mac"` is not the one the key makes.
    case macMismatch

    public var description: String {
      switch self {
      case .notJSON(let detail): "not a JSON record (\(detail))"
      case .badShape(let detail): "not a journal record (\(detail))"
      case .checksumMismatch: "checksum mismatch: the record was changed after it was written"
      case .sequenceGap(let expected, let found):
        "sequence gap: expected seq \(expected), found \(found) (a record was deleted or inserted)"
      case .brokenChain:
        "hash chain broken: prev does not match the previous record (a record was changed, deleted or inserted)"
      case .macMissing:
        "it carries no MAC (written without the journal key, or the MAC was removed)"
      case .macMismatch:
        "its MAC does not check out with the journal key: the record was rewritten by someone without the key, or the key is not the one it was written with"
      }
    }

    /// How to repair it, when cutting the journal there is not the way.
    public var repair: String? {
      switch self {
      case .macMissing, .macMismatch:
        "check that the journal key given is the one this journal was written with; if it is, the journal was rewritten: restore it from a backup (`register-cli verify --journal-key FILE` checks one)"
      case .notJSON, .badShape, .checksumMismatch, .sequenceGap, .brokenChain: nil
      }
    }
  }

  /// True when `line` (this record's line, without its newline) carries a MAC that `key` made.
  public static func macIsValid(_ line: ArraySlice<UInt8>, mac: String, key: HMACSHA256) -> Bool {
    line.withUnsafeBytes { macIsValid($0, mac: mac, key: key) }
  }

  /// `macIsValid` on a line's bytes in place (`SegmentChain` reads lines this way).
  static func macIsValid(_ line: UnsafeRawBufferPointer, mac: String, key: HMACSHA256) -> Bool {
    let macStart = line.count - suffixLength - macLength
    guard macStart > 0 else { return false }
    return key.hex(line[..<macStart]) == mac
  }

  /// Reads one line (without its newline) and checks its own checksum. Whether it follows its
  /// predecessor is checked by the scanner.
  public static func decode(line: ArraySlice<UInt8>) throws(Problem) -> JournalRecord {
    let value: JSONValue
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw .notJSON(error.description)
    }
    guard line.count > suffixLength else { throw .badShape("too short") }
    let prefixEnd = line.endIndex - suffixLength
    guard line[prefixEnd..<prefixEnd + sumMarker.count].elementsEqual(sumMarker) else {
      throw .badShape("\"sum\" must be the last member")
    }
    var record: JournalRecord
    do throws(JSONShapeError) {
      var fields = try JSONFields(value)
      let sequence = try fields.required("seq", as: Int64.self)
      let atText = try fields.required("at", as: String.self)
      guard let at = Timestamp.parse(atText) else {
        throw JSONShapeError(path: "at", message: "is not a timestamp")
      }
      let type = try fields.required("type", as: String.self)
      let data = try fields.required("data", as: JSONValue.self)
      let operatorID = try fields.optional("operator", as: String.self)
      let approvedBy = try fields.optional("approved_by", as: String.self)
      let key = try fields.raw("key").map { value throws(JSONShapeError) in
        try KeyRecord(json: value, path: "key")
      }
      let more = try fields.optional("more", as: Bool.self) ?? false
      let previous = try fields.required("prev", as: String.self)
      let mac = try fields.optional("mac", as: String.self)
      let sum = try fields.required("sum", as: String.self)
      try fields.rejectUnknown()
      if let mac {
        // Just before the sum, and hex: what `verify --journal-key` checks it over.
        let macStart = prefixEnd - macLength
        guard JournalHead.isSum(mac), macStart > line.startIndex,
          line[macStart..<macStart + macMarker.count].elementsEqual(macMarker)
        else {
          throw JSONShapeError(
            path: "mac", message: "must be 64 hex digits, the member just before \"sum\"")
        }
      }
      record = JournalRecord(
        sequence: sequence, at: at, type: type, data: data, operatorID: operatorID,
        approvedBy: approvedBy, key: key, more: more, previous: previous, sum: sum, mac: mac)
    } catch {
      throw .badShape(error.description)
    }
    guard sumMatches(line) else { throw .checksumMismatch }
    return record
  }

  /// True when `line` ends with a `"sum"` member (`,"sum":"` and 64 characters, then `"}`)
  /// that is the SHA-256 of everything before it, whatever else is in the line: it was
  /// written whole, as a record. A crash cuts a line short or leaves zeros in it; it does not
  /// leave a line that carries its own checksum, so such a line that cannot be read is
  /// damage, never a torn tail.
  public static func carriesOwnChecksum(_ line: ArraySlice<UInt8>) -> Bool {
    guard line.count > suffixLength else { return false }
    let prefixEnd = line.endIndex - suffixLength
    guard line[prefixEnd..<prefixEnd + sumMarker.count].elementsEqual(sumMarker),
      line[(line.endIndex - 2)...].elementsEqual([UInt8(ascii: "\""), UInt8(ascii: "}")])
    else { return false }
    return sumMatches(line)
  }

  /// True when the 64 characters after `,"sum":"` at the end of `line` (where `decode` and
  /// `carriesOwnChecksum` have found that marker) are the SHA-256 of what comes before the
  /// marker. The digest is compared with those bytes in place, without building a hex string.
  private static func sumMatches(_ line: ArraySlice<UInt8>) -> Bool {
    line.withUnsafeBytes { sumMatches($0) }
  }

  /// `sumMatches` on a line's bytes in place (`SegmentChain` reads lines this way).
  static func sumMatches(_ line: UnsafeRawBufferPointer) -> Bool {
    var hasher = SHA256()
    let prefixLength = line.count - suffixLength
    hasher.update(buffer: UnsafeRawBufferPointer(rebasing: line[..<prefixLength]))
    let sumStart = prefixLength + sumMarker.count
    return SHA256.digest(
      hasher.finalizeWords(),
      equalsHex: UnsafeRawBufferPointer(rebasing: line[sumStart..<sumStart + 64]))
  }
}
