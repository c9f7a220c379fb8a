/// What `register-cli archive` moved out of a data directory's journal: each segment, where it
/// went, and the record it ends with. A journal whose first segment does not start at record 1
/// is whole only when this records the segment that ended just before it: its last record's
/// `seq` and `sum` are the chain point the journal continues from (start-up and `verify` check
/// the first segment's first `prev` against that sum). A first segment simply missing has no
/// such record, and is damage.
///
/// `journal/archived.json`, one line: `{"format":1,"segments":[{"name":"day000001-seq…ndjson",
/// "to":"/srv/archive/lane1","first_seq":1,"last_seq":41,"last_sum":"…"},…],"checksum":"…"}`,
/// where `checksum` is the SHA-256 of every byte before `,"checksum":"` (the journal's rule).
public struct ArchiveManifest: Sendable, Equatable {
  /// One segment moved out.
  public struct Entry: Sendable, Equatable {
    /// The segment's file name.
    public var name: String
    /// The directory it was moved to.
    public var directory: String
    public var firstSequence: Int64
    /// Its last record.
    public var last: JournalHead

    public init(name: String, directory: String, firstSequence: Int64, last: JournalHead) {
      self.name = name
      self.directory = directory
      self.firstSequence = firstSequence
      self.last = last
    }
  }

  /// Why a manifest cannot be read.
  public struct Problem: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
  }

  public static let format = 1
  /// Its file name, in the journal's directory.
  public static let fileName = "archived.json"

  /// The segments moved, in journal order.
  public private(set) var entries: [Entry] = []

  public init(entries: [Entry] = []) {
    record(entries)
  }

  /// Adds `moved` (a segment recorded already, by its first record, is recorded once).
  public mutating func record(_ moved: [Entry]) {
    for entry in moved where !entries.contains(where: { $0.firstSequence == entry.firstSequence }) {
      entries.append(entry)
    }
    entries.sort { $0.firstSequence < $1.firstSequence }
  }

  /// The chain point a journal whose first segment starts at record `firstSequence` continues
  /// from: the last record of the segment recorded as moved just before it (nil when none is).
  public func start(before firstSequence: Int64) -> JournalHead? {
    entries.last { $0.last.sequence + 1 == firstSequence }?.last
  }

  static let checksumMarker = Array(#","checksum":""#.utf8)

  /// The file's bytes.
  public func encoded() -> [UInt8] {
    var object = JSONObject()
    object["format"] = .int(Int64(Self.format))
    object["segments"] = .array(
      entries.map { entry in
        var member = JSONObject()
        member["name"] = .string(entry.name)
        member["to"] = .string(entry.directory)
        member["first_seq"] = .int(entry.firstSequence)
        member["last_seq"] = .int(entry.last.sequence)
        member["last_sum"] = .string(entry.last.sum)
        return .object(member)
      })
    var bytes = JSONValue.object(object).serializedBytes
    bytes.removeLast()  // the closing brace; the checksum follows
    let checksum = SHA256.hex(bytes)
    bytes.append(contentsOf: Self.checksumMarker)
    bytes.append(contentsOf: checksum.utf8)
    bytes.append(contentsOf: Array(#""}"#.utf8))
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// Reads a manifest's bytes: the checksum first, then every member.
  public static func decode(_ bytes: [UInt8]) throws(Problem) -> ArchiveManifest {
    var body = bytes[...]
    if body.last == UInt8(ascii: "\n") { body = body.dropLast() }
    let suffix = checksumMarker.count + 64 + 2
    guard body.count > suffix, body.last == UInt8(ascii: "}") else {
      throw Problem(message: "it does not end with its checksum (cut short?)")
    }
    let prefixEnd = body.endIndex - suffix
    guard body[prefixEnd..<prefixEnd + checksumMarker.count].elementsEqual(checksumMarker),
      SHA256.hex(Array(body[..<prefixEnd]))
        == String(
          decoding: body[(prefixEnd + checksumMarker.count)..<(body.endIndex - 2)], as: UTF8.self)
    else {
      throw Problem(
        message: "checksum mismatch: the file was changed or damaged after it was written")
    }
    do throws(JSONShapeError) {
      let value: JSONValue
      do {
        value = try JSONParser.parse(body)
      } catch {
        throw JSONShapeError(path: "", message: "is not JSON (\(error.description))")
      }
      var fields = try JSONFields(value)
      let format = try fields.required("format", as: Int.self)
      guard format == Self.format else {
        throw JSONShapeError(path: "format", message: "is \(format), not \(Self.format)")
      }
      guard let segments = try fields.required("segments", as: JSONValue.self).arrayValue else {
        throw JSONShapeError(path: "segments", message: "must be an array")
      }
      _ = try fields.required("checksum", as: String.self)
      try fields.rejectUnknown()
      var entries: [Entry] = []
      for (index, segment) in segments.enumerated() {
        let path = "segments[\(index)]"
        var members = try JSONFields(segment, path: path)
        let name = try members.required("name", as: String.self)
        let directory = try members.required("to", as: String.self)
        let first = try members.required("first_seq", as: Int64.self)
        let last = try members.required("last_seq", as: Int64.self)
        let sum = try members.required("last_sum", as: String.self)
        try members.rejectUnknown()
        guard first >= 1, last >= first, JournalHead.isSum(sum) else {
          throw JSONShapeError(path: path, message: "is not a segment's first and last record")
        }
        entries.append(
          Entry(
            name: name, directory: directory, firstSequence: first,
            last: JournalHead(sequence: last, sum: sum)))
      }
      return ArchiveManifest(entries: entries)
    } catch {
      throw Problem(message: "not an archive manifest: \(error.description)")
    }
  }
}
