/// The back office's rows as NDJSON, CSV (RFC 4180) and SQL statements for PostgreSQL.
public enum BackOfficeFormat: String, CaseIterable, Sendable {
  case ndjson, csv, sql

  /// One NDJSON line (with its newline): `{"fact": table, column: value, …}`; money as
  /// decimal strings, integers as numbers.
  public static func ndjson(_ row: BackOfficeRow) -> String {
    var object = JSONObject(capacity: row.values.count + 1)
    object["fact"] = .string(row.table.rawValue)
    for (column, value) in zip(row.table.columns, row.values) {
      switch value {
      case .text(let text): object[column] = .string(text)
      case .integer(let number): object[column] = .int(number)
      case .decimal(let text): object[column] = .string(text)
      case .null: object[column] = .null
      }
    }
    return JSONValue.object(object).serialized + "\n"
  }

  /// The header line of a table's CSV file.
  public static func csvHeader(_ table: BackOfficeTable) -> String {
    table.columns.map(csvField).joined(separator: ",") + "\r\n"
  }

  /// One CSV record (RFC 4180: CRLF, fields with a comma, quote or line break in quotes, a
  /// quote doubled); null is an empty field.
  public static func csv(_ row: BackOfficeRow) -> String {
    row.values.map { value in
      switch value {
      case .text(let text): csvField(text)
      case .integer(let number): String(number)
      case .decimal(let text): text
      case .null: ""
      }
    }.joined(separator: ",") + "\r\n"
  }

  static func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      // A field that starts like a spreadsheet formula is quoted too, so it stays text.
      return text.first.map { "=+-@".contains($0) } == true ? "\"\(text)\"" : text
    }
    return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
  }

  /// An INSERT of one row that does nothing when the row is there already (a record loaded
  /// twice), for PostgreSQL.
  public static func sqlInsert(_ row: BackOfficeRow) -> String {
    let values = row.values.map { value in
      switch value {
      case .text(let text): sqlString(text)
      case .integer(let number): String(number)
      case .decimal(let text): text
      case .null: "NULL"
      }
    }
    return "INSERT INTO \(row.table.rawValue) (\(row.table.columns.joined(separator: ", "))) "
      + "VALUES (\(values.joined(separator: ", "))) ON CONFLICT DO NOTHING;\n"
  }

  /// Moves the lane's cursor to `sequence` (never back): committed in the same transaction as
  /// the rows of the records up to it, so a loader restarted from the cursor loads each record
  /// once.
  public static func sqlCursor(lane: String, sequence: Int64) -> String {
    "INSERT INTO lanes (lane, last_seq) VALUES (\(sqlString(lane)), \(sequence)) "
      + "ON CONFLICT (lane) DO UPDATE SET last_seq = GREATEST(lanes.last_seq, EXCLUDED.last_seq);\n"
  }

  /// A string literal: quotes doubled, and never a backslash escape (standard strings).
  static func sqlString(_ text: String) -> String {
    "'" + text.replacingAll("'", with: "''") + "'"
  }
}

extension String {
  /// Every `target` replaced by `replacement` (without Foundation).
  func replacingAll(_ target: Character, with replacement: String) -> String {
    var out = ""
    out.reserveCapacity(count)
    for character in self {
      if character == target { out += replacement } else { out.append(character) }
    }
    return out
  }
}
