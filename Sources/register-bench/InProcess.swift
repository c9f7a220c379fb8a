import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Journal storage that keeps nothing: the in-process benchmark measures the CPU of a request,
/// not the disk.
private final class DiscardingStorage: JournalStorage {
  private(set) var length = 0
  func appendDurably(_ bytes: [UInt8]) throws(SystemError) { length += bytes.count }
  func truncate(to length: Int) throws(SystemError) { self.length = length }
  func restoreDurable() throws(SystemError) {}
  func write(_ effect: FileEffect) throws(SystemError) {}
}

/// `register-bench inprocess [--count N] [--group G] [--catalog FILE] [LINE…]`: the CPU one request
/// line costs in the engine, without sockets or disk. Runs LINE (default a `paid_in`) N times
/// through the same steps as the daemon, in groups of G (as many requests as share one fsync):
/// on the loop's side `submit`, `nextWrite`, `finished` and `takeReleasable` with each reply
/// copied into an output buffer; on the writer's side `Journal.write(batch:)` into storage that
/// discards the bytes. Prints nanoseconds per request for each side. `--customers C` gives the
/// register C customers first (names, addresses and phone numbers as `history` makes them),
/// for requests whose cost grows with them (`customer_find`). Several LINEs are run in turn (an
/// `add` then a `tender`: a sale), and each `{n}` in a line becomes the request's number (1, 2,
/// …), so a request that must differ each time (`customer_add` of a new e-mail address,
/// `product_add` of a new SKU) can be measured too.
let inProcessUsage =
  "usage: register-bench inprocess [--count N] [--group G] [--customers C] [--catalog FILE] [REQUEST_LINE…]"

func runInProcess(_ arguments: [String]) -> Int32 {
  var count = 200_000
  var groupSize = 50
  var customers = 0
  var catalogPath = "Data/products.json"
  var given: [String] = []
  var rest = arguments[...]
  while let flag = rest.popFirst() {
    switch flag {
    case "--count", "--group", "--customers":
      guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else {
        writeStandardError(
          "register-bench inprocess: \(flag) needs a positive number\n\(inProcessUsage)\n")
        return 2
      }
      switch flag {
      case "--count": count = value
      case "--group": groupSize = value
      default: customers = value
      }
    case "--catalog":
      guard let value = rest.popFirst() else {
        writeStandardError("register-bench inprocess: --catalog needs a file\n\(inProcessUsage)\n")
        return 2
      }
      catalogPath = value
    default:
      guard !flag.hasPrefix("--") else {
        writeStandardError(
          "register-bench inprocess: unknown argument \(flag)\n\(inProcessUsage)\n")
        return 2
      }
      given.append(flag)
    }
  }
  let catalog: Catalog
  do {
    catalog = try CatalogFile.load(catalogPath, storePath: nil)
  } catch {
    writeStandardError("register-bench: cannot load \(catalogPath): \(error)\n")
    return 2
  }
  let journal = Journal(
    storage: DiscardingStorage(), lastSum: JournalRecord.genesis, lastSequence: 0)
  let service = RegisterService(
    register: Register(catalog: catalog), clock: SystemClock(), journal: journal)
  if customers > 0 {
    let first = HistoryLane.firstNames
    let last = HistoryLane.lastNames
    let added = (1...customers).map { number -> Event in
      let given = first[number % first.count]
      let family = last[(number / first.count) % last.count]
      return .customerAdded(
        Customer(
          id: "C\(number)", name: "\(given) \(family)",
          email: "\(given.lowercased()).\(family.lowercased())\(number)@example.com",
          phone: "(802) 555-\(1000 + number % 9000)"))
    }
    do {
      try service.commit(added)
    } catch {
      writeStandardError("register-bench: cannot add the customers: \(error)\n")
      return 2
    }
  }
  // The lines, made before the timing, one per request: the given ones in turn, `{n}` in each
  // the request's number.
  let pattern = given.isEmpty ? [#"{"op":"paid_in","amount":"0.01","reason":"bench"}"#] : given
  // (A line without `{n}` is made once: under callgrind, `instructions.sh` counts this too.)
  let numbered = pattern.map { $0.contains("{n}") }
  let plain = pattern.map { Array($0.utf8) }
  let lines: [[UInt8]] = (1...count).map {
    let index = ($0 - 1) % pattern.count
    guard numbered[index] else { return plain[index] }
    return Array(pattern[index].replacing("{n}", with: String($0)).utf8)
  }
  var loopNanoseconds: UInt64 = 0
  var writerNanoseconds: UInt64 = 0
  var output: [UInt8] = []
  var done = 0
  var refused = 0
  let failure = Array(#","ok":false,"#.utf8)
  while done < count {
    let size = min(groupSize, count - done)
    let batch = (0..<size).map {
      IncomingLine(connection: $0, bytes: lines[done + $0])
    }
    let t0 = monotonicNanoseconds()
    service.submit(batch)
    var works: [JournalWrite] = []
    while let work = service.nextWrite() { works.append(work) }
    let t1 = monotonicNanoseconds()
    let error = journal.write(batch: &works)
    let t2 = monotonicNanoseconds()
    for work in works { service.finished(work, error: error) }
    let released = service.takeReleasable()
    for reply in released.replies {
      reply.pieces.append(to: &output)
      output.append(10)
    }
    let t3 = monotonicNanoseconds()
    // Outside the timing: a refused request costs less than an accepted one, so a figure
    // from refusals would flatter the register.
    refused += released.replies.count { reply in
      var bytes: [UInt8] = []
      reply.pieces.append(to: &bytes)
      return bytes.count >= failure.count + 7
        && bytes.indices.dropLast(failure.count - 1).contains { start in
          bytes[start..<start + failure.count].elementsEqual(failure)
        }
    }
    output.removeAll(keepingCapacity: true)
    loopNanoseconds += (t1 - t0) + (t3 - t2)
    writerNanoseconds += t2 - t1
    done += size
  }
  print(
    "requests \(count) group \(groupSize): loop \(loopNanoseconds / UInt64(count)) ns/request, writer \(writerNanoseconds / UInt64(count)) ns/request; refused \(refused), journaled \(journal.lastSequence) record(s)"
  )
  return refused == 0 ? 0 : 1
}
