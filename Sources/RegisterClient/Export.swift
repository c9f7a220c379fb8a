import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `register-cli export` was asked for.
package struct ExportOptions: Equatable, Sendable {
  package var dataDirectory: String?
  /// Rows of records after this sequence number only (0: from the start).
  package var after: Int64
  /// Keep going: export records as they become durable, until stopped.
  package var follow: Bool
  package var format: BackOfficeFormat
  package var lane: String?
  /// CSV: one file per table in this directory.
  package var directory: String?
  /// CSV to standard output: this table only.
  package var table: BackOfficeTable?

  package init(
    dataDirectory: String?, after: Int64, follow: Bool, format: BackOfficeFormat,
    lane: String?, directory: String?, table: BackOfficeTable?
  ) {
    self.dataDirectory = dataDirectory
    self.after = after
    self.follow = follow
    self.format = format
    self.lane = lane
    self.directory = directory
    self.table = table
  }
}

/// `register-cli export`: the journal's business facts for a back office, read from the data
/// directory (no daemon needed; with `--follow` it keeps reading the files as registerd
/// appends to them, and goes on across a restart of registerd).
enum Export {
  /// How many records one SQL transaction covers at most.
  static let recordsPerTransaction = 1000
  /// How long `--follow` waits before looking for new records again.
  static let followInterval: useconds_t = 200_000

  static func run(_ options: ExportOptions, environment: [String: String]) -> ExitStatus {
    let directory = options.dataDirectory ?? Offline.defaultDataDirectory(environment)
    let lane = options.lane ?? hostName()
    var sink: Sink
    do {
      sink = try Sink(options: options, lane: lane)
    } catch {
      return CLI.fail(.refused, error.message)
    }
    var exporter = BackOfficeExporter(lane: lane)
    var point: (sequence: Int64, sum: String?) = (0, nil)
    // From a cursor: start at the newest snapshot at or before it rather than the journal's
    // first record, so a nightly export reads about a day, not the lane's whole history. The
    // rows are the same (the snapshot is the state replay reaches there; the chain is checked
    // from its record on).
    if options.after > 0 {
      let (loaded, skipped) = SnapshotFiles.loadNewest(in: directory, upToSequence: options.after)
      for problem in skipped {
        writeStandardError(
          "register-cli: note: skipped a snapshot that cannot be used: \(problem)\n")
      }
      if let loaded {
        exporter = BackOfficeExporter(lane: lane, register: loaded.register)
        point = (loaded.head.sequence, loaded.head.sum)
      }
    }
    var first = true
    while true {
      guard let segments = Offline.segments(directory) else { return .refused }
      // Segments archived (`register-cli archive`) are not read back: say which cursors this
      // directory can export from rather than call the journal damaged.
      if first, let oldest = segments.first, oldest.firstSequence > point.sequence + 1 {
        let earliest = SnapshotFiles.list(in: directory).map(\.sequence)
          .filter { $0 >= oldest.firstSequence - 1 }.min()
        sink.finish()
        return CLI.fail(
          .refused,
          "the journal in \(JournalFiles.segmentDirectory(in: directory)) starts at seq \(oldest.firstSequence) (older segments were archived or removed), and an export after seq \(options.after) needs the records from seq \(point.sequence + 1)"
            + (earliest.map { "; export with --after \($0) or later" } ?? ""))
      }
      first = false
      let chain: JournalFiles.ChainScan
      do {
        chain = try JournalFiles.read(segments, after: point.sequence, sum: point.sum) {
          _, records throws(RecoveryError) in
          for record in records {
            let rows = try exporter.apply(record)
            if record.sequence > options.after { sink.add(rows, sequence: record.sequence) }
          }
        }
      } catch {
        sink.finish()
        return CLI.fail(.refused, error.description)
      }
      if let mismatch = chain.startMismatch {
        sink.finish()
        return CLI.fail(
          .refused, "the journal changed under the export: \(mismatch); export again from a cursor")
      }
      if let (path, damage) = chain.damage {
        sink.finish()
        return CLI.fail(
          .refused,
          "journal segment \(path) is damaged: \(damage.description); run register-cli verify")
      }
      point = (chain.lastSequence, chain.lastSum)
      sink.commit()
      guard options.follow else { break }
      usleep(followInterval)
    }
    sink.finish()
    if options.after > point.sequence {
      writeStandardError(
        "register-cli: note: the journal ends at seq \(point.sequence), before --after \(options.after)\n"
      )
    }
    return .done
  }

  static func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "lane" }
    let name = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "lane" : name
  }

  struct Problem: Error {
    var message: String
  }

  /// Where rows go: standard output or CSV files, buffered, in SQL transactions that carry the
  /// lane's cursor.
  struct Sink {
    let format: BackOfficeFormat
    let lane: String
    let table: BackOfficeTable?
    /// CSV files by table, when writing to a directory.
    var files: [BackOfficeTable: UnsafeMutablePointer<FILE>] = [:]
    var buffer = ""
    /// Records since the last commit (SQL), and the last of them.
    var pending = 0
    var lastSequence: Int64?

    init(options: ExportOptions, lane: String) throws(Problem) {
      format = options.format
      self.lane = lane
      table = options.table
      if let directory = options.directory {
        guard format == .csv else { throw Problem(message: "--to DIR goes with --format csv") }
        mkdir(directory, 0o755)
        for table in BackOfficeTable.allCases {
          let path = directory + "/" + table.rawValue + ".csv"
          // A new export writes new files; a follow that is restarted appends to them.
          let exists = access(path, F_OK) == 0
          guard let file = fopen(path, "a") else {
            throw Problem(message: "cannot write \(path): \(String(cString: strerror(errno)))")
          }
          if !exists || ftell(file) == 0 {
            fputs(BackOfficeFormat.csvHeader(table), file)
          }
          files[table] = file
        }
      } else if format == .csv {
        guard let table else {
          throw Problem(
            message:
              "--format csv writes one file per table: give --to DIR, or --table NAME for one table on standard output"
          )
        }
        buffer += BackOfficeFormat.csvHeader(table)
      }
    }

    mutating func add(_ rows: [BackOfficeRow], sequence: Int64) {
      if format == .sql && pending == 0 { buffer += "BEGIN;\n" }
      for row in rows {
        switch format {
        case .ndjson: buffer += BackOfficeFormat.ndjson(row)
        case .sql: buffer += BackOfficeFormat.sqlInsert(row)
        case .csv:
          if let file = files[row.table] {
            fputs(BackOfficeFormat.csv(row), file)
          } else if row.table == table {
            buffer += BackOfficeFormat.csv(row)
          }
        }
      }
      pending += 1
      lastSequence = sequence
      if format == .sql && pending >= Export.recordsPerTransaction { commit() }
      if buffer.utf8.count >= 1 << 16 { flush() }
    }

    /// Ends the open transaction (SQL) with the cursor, and writes out what is buffered.
    mutating func commit() {
      if format == .sql, pending > 0, let lastSequence {
        buffer += BackOfficeFormat.sqlCursor(lane: lane, sequence: lastSequence)
        buffer += "COMMIT;\n"
      }
      pending = 0
      flush()
      for file in files.values { fflush(file) }
    }

    mutating func flush() {
      guard !buffer.isEmpty else { return }
      writeStandardOutput(buffer)
      buffer = ""
    }

    /// Writes out what is complete; an open SQL transaction is dropped (rolled back by psql
    /// when the stream ends), never committed half.
    mutating func finish() {
      if format == .sql && pending > 0 {
        buffer += "ROLLBACK;\n"
        pending = 0
      }
      flush()
      for file in files.values { fclose(file) }
      files = [:]
    }
  }
}
