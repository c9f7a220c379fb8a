// libFuzzer entry point for what a journal record can contain: every input is split into lines,
// and each line that is a JSON object is a record — its "type" and "data" as the journal holds
// them, and optionally its "operator" and "approved_by" — replayed, in order, into a register
// holding the repository's catalog, with the same `replay` recovery uses (the record's checksum and chain are not in
// play: anyone who can write the journal can give a record a correct SHA-256, so what recovery
// must survive is whatever a well-formed record may say). A record that cannot be read ends the
// replay with a RecoveryError, as it ends a start-up with a message. A trap, an overflow or an
// out-of-bounds access anywhere below is a crash registerd would have at every start on such a
// journal. The register replayed is then used as a start-up uses it: written as a snapshot and
// read back (the snapshot must read back, as the same register), and asked the requests a lane
// makes of it. Built and run by `Fuzz/run.sh journal`; its seeds are the journals of a
// short generated history and of the protocol document's requests.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let journalFuzzStart = Timestamp(epochMilliseconds: 1_773_601_385_000, utcOffsetSeconds: -18_000)

/// What the replay starts from: a register with the repository's Data/products.json (read from
/// the directory the fuzzer runs in, the repository's root), as a lane's journal starts with
/// that catalog's records. An input with records of its own for the store and the catalog
/// replaces them, as such records do.
let journalFuzzBase: Register = {
  let path = "Data/products.json"
  guard let file = fopen(path, "r") else { fatalError("run from the repository's root: no \(path)") }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count <= 0 { break }
    bytes += buffer[0..<count]
  }
  do {
    return Register(catalog: try CatalogFile.parse(bytes, file: path), at: journalFuzzStart)
  } catch {
    fatalError("\(path) does not load: \(error)")
  }
}()

/// Requests a lane makes of a register that has just started: none of them may trap, whatever
/// the journal left.
let journalFuzzReads: [[UInt8]] = [
  #"{"op":"hello"}"#, #"{"op":"order"}"#, #"{"op":"report"}"#, #"{"op":"receipt"}"#,
  #"{"op":"parked"}"#, #"{"op":"catalog","limit":5}"#, #"{"op":"operator_list"}"#,
  #"{"op":"customer_find","query":"a"}"#, #"{"op":"tender","type":"cash","amount":"1000.00"}"#,
  #"{"op":"close_day","counted":{"cash":"0.00"}}"#,
].map { Array($0.utf8) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var records: [JournalRecord] = []
  for line in bytes.split(separator: UInt8(ascii: "\n")).prefix(256) {
    guard case .object(let members)? = try? JSONParser.parse(line),
      case .string(let type)? = members["type"], let data = members["data"]
    else { continue }
    var operatorID: String?
    if case .string(let id)? = members["operator"] { operatorID = id }
    var approvedBy: String?
    if case .string(let id)? = members["approved_by"] { approvedBy = id }
    let sequence = Int64(records.count + 1)
    records.append(
      JournalRecord(
        sequence: sequence,
        at: Timestamp(
          epochMilliseconds: journalFuzzStart.epochMilliseconds + sequence * 1000,
          utcOffsetSeconds: journalFuzzStart.utcOffsetSeconds),
        type: type, data: data, operatorID: operatorID, approvedBy: approvedBy, key: nil,
        more: false, previous: JournalRecord.genesis, sum: JournalRecord.genesis))
  }
  var register = journalFuzzBase
  // Up to the first record that cannot be read, as recovery does.
  for record in records {
    do throws(RecoveryError) {
      try register.replay([record])
    } catch {
      break
    }
  }
  // Written as a snapshot and read back: it must read back, as the same register (a restart
  // from it must find what the journal said). A snapshot follows a record: none without one.
  if register.lastSequence > 0 {
    let head = JournalHead(sequence: register.lastSequence, sum: JournalRecord.genesis)
    let snapshot = SnapshotFile.encode(register, head: head)
    do {
      let (restored, restoredHead) = try SnapshotFile.decode(snapshot)
      guard restored == register, restoredHead == head else {
        fatalError("a snapshot of the replayed register reads back as a different register")
      }
    } catch {
      fatalError("a snapshot of the replayed register does not read back: \(error)")
    }
  }
  // And served: a lane's first requests.
  let service = RegisterService(
    register: register, clock: ManualClock(journalFuzzStart),
    random: { count in [UInt8](repeating: 7, count: count) })
  for request in journalFuzzReads {
    let result = service.process([IncomingLine(connection: 1, bytes: request)])
    guard result.replies.count == 1,
      (try? JSONParser.parse(Array(result.replies[0].line.utf8))) != nil
    else {
      fatalError("a request did not get exactly one JSON reply")
    }
  }
  return 0
}
