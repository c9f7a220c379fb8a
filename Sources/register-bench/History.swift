import RegisterEngine
import RegisterServer

// `register-bench history`: writes a catalog and a data directory holding days of a lane's
// business, for benchmarks of start-up, replay and verify on a long journal
// (Benchmarks/year.sh).

struct HistoryOptions {
  var days = 0
  var recordsPerDay = 0
  var products = 0
  var directory = ""
  var seed: UInt64 = 1

  static let usage = """
    usage: register-bench history --days D --records-per-day R --products P --to DIR [--seed S]
      writes DIR/catalog.json (P products) and DIR/data, a data directory whose journal holds
      D business days of about R records each; start registerd on it with
      registerd --data-dir DIR/data --catalog DIR/catalog.json
    """

  /// Parses the arguments after `history`; nil (with a message) when they are wrong.
  static func parse(_ arguments: [String]) -> HistoryOptions? {
    var options = HistoryOptions()
    var remaining = arguments[...]
    while let flag = remaining.popFirst() {
      guard let value = remaining.popFirst() else {
        return refuse("\(flag) needs a value")
      }
      switch flag {
      case "--days":
        guard let days = Int(value), (1...10_000).contains(days) else {
          return refuse("--days must be a number of days from 1 to 10000")
        }
        options.days = days
      case "--records-per-day":
        guard let records = Int(value), (20...1_000_000).contains(records) else {
          return refuse("--records-per-day must be from 20 to 1000000")
        }
        options.recordsPerDay = records
      case "--products":
        guard let products = Int(value), (1...100_000).contains(products) else {
          return refuse("--products must be from 1 to 100000")
        }
        options.products = products
      case "--to":
        guard !value.isEmpty else { return refuse("--to needs a directory") }
        options.directory = value
      case "--seed":
        guard let seed = UInt64(value) else { return refuse("--seed must be a whole number") }
        options.seed = seed
      default:
        return refuse("unknown option \(flag)")
      }
    }
    if options.days == 0 || options.recordsPerDay == 0 || options.products == 0
      || options.directory.isEmpty
    {
      return refuse("--days, --records-per-day, --products and --to are required")
    }
    return options
  }

  private static func refuse(_ message: String) -> HistoryOptions? {
    writeStandardError("register-bench history: \(message)\n\(usage)\n")
    return nil
  }
}

/// Runs `register-bench history` with the arguments after `history`; the exit status.
func runHistory(_ arguments: [String]) -> Int32 {
  guard let options = HistoryOptions.parse(arguments) else { return 2 }
  do {
    try generateHistory(options)
    return 0
  } catch {
    writeStandardError("register-bench history: \(error)\n")
    return 1
  }
}

func generateHistory(_ options: HistoryOptions) throws(HistoryError) {
  let began = monotonicNanoseconds()
  var random = HistoryRandom(seed: options.seed)
  let directory = options.directory
  let catalogPath = directory + "/catalog.json"
  // The catalog is written first and parsed back exactly as registerd will load it, so the
  // journal's catalog import matches the file and registerd imports nothing more at start.
  let text = HistoryCatalog.text(products: options.products, random: &random)
  let catalog: Catalog
  do {
    catalog = try CatalogFile.parse(Array(text.utf8), file: catalogPath)
  } catch {
    throw HistoryError("the generated catalog is not valid: \(error)")
  }
  let store = try HistoryStore(dataDirectory: directory + "/data")
  do {
    try FileIO.writeAtomically(Array(text.utf8), to: catalogPath, mode: 0o644)
  } catch {
    throw HistoryError("cannot write \(catalogPath): \(error)")
  }
  // Day 1 is Monday 5 January 2026, 08:00 at UTC−05:00.
  guard let start = Timestamp.parse("2026-01-05T08:00:00.000-05:00") else {
    throw HistoryError("bad start time")
  }
  let lane = try HistoryLane(catalog: catalog, store: store, random: random, start: start)
  for day in 0..<options.days {
    let dayBegan = monotonicNanoseconds()
    let before = lane.register.lastSequence
    try lane.runDay(day, records: options.recordsPerDay)
    let records = lane.register.lastSequence - before
    writeStandardError(
      "day \(day + 1)/\(options.days): \(records) records, \(lane.register.lastSequence) in all, "
        + "\(milliseconds(monotonicNanoseconds() - dayBegan)) ms\n")
  }
  try lane.flush()
  store.close()
  let elapsed = monotonicNanoseconds() - began
  let counts = lane.counts
  let records = lane.register.lastSequence
  let perSecond = elapsed > 0 ? UInt64(records) * 1_000_000_000 / elapsed : 0
  let refused =
    counts.refused.isEmpty
    ? "0"
    : counts.refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
      separator: ", ")
  writeStandardOutput(
    """
    days                \(options.days) (\(lane.register.closedDays.count) closed)
    records             \(records)
    journal bytes       \(store.bytes)
    seconds             \(milliseconds(elapsed) / 1000).\(HistoryCatalog.pad(Int(milliseconds(elapsed) % 1000), 3))
    records per second  \(perSecond)
    products            \(catalog.products.count)
    sales               \(counts.sales) (\(counts.splitTenders) split tenders)
    returns             \(counts.returns)
    voided orders       \(counts.voidedOrders), voided lines \(counts.voidedLines)
    parked and resumed  \(counts.parked)
    new customers       \(counts.customers)
    deliveries          \(counts.deliveries)
    drawer moves        \(counts.drawerMoves)
    refused requests    \(refused)
    catalog             \(catalogPath)
    data directory      \(store.dataDirectory)

    """)
}

private func milliseconds(_ nanoseconds: UInt64) -> UInt64 { nanoseconds / 1_000_000 }
