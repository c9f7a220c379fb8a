import Foundation
import RegisterEngine
import RegisterTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Lanes ringing up sales with idempotency keys, as a lane client does: each change is sent
/// with a key of its own and, refused with `storage_failed`, sent again with the same key until
/// it is acknowledged. Another client reads (`order`, `hello`) all the while.
final class KeyedLanes: @unchecked Sendable {
  private let lock = NSLock()
  /// Each change acknowledged: its request line and the result it got.
  private(set) var acknowledged: [String: (line: String, result: JSONValue)] = [:]
  /// Refusals other than `storage_failed` (a tender after another lane completed the sale),
  /// and failures of the connection.
  private(set) var refused: [String] = []
  private(set) var failures: [String] = []
  private(set) var storageRefusals = 0
  /// Reads made while the lanes ran, how many were not answered `ok`, and how many answered
  /// with the register read-only (a storage fault was on).
  private(set) var reads = 0
  private(set) var unansweredReads: [String] = []
  private(set) var readOnlySeen = 0
  private var running = true

  /// Runs `lanes` clients of `changes` keyed changes each (every fifth a cash tender, the
  /// others an item), with `during` run on this thread meanwhile; returns when every lane is
  /// done.
  func run(_ daemon: Daemon, lanes: Int = 20, changes: Int = 25, during: () throws -> Void)
    throws
  {
    let group = DispatchGroup()
    for lane in 0..<lanes {
      group.enter()
      Thread.detachNewThread { [self] in
        defer { group.leave() }
        ring(daemon, lane: lane, changes: changes)
      }
    }
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread { [self] in
      defer { readerDone.signal() }
      read(daemon)
    }
    try during()
    group.wait()
    lock.withLock { running = false }
    readerDone.wait()
  }

  private func ring(_ daemon: Daemon, lane: Int, changes: Int) {
    do {
      let client = try daemon.connect()
      for change in 0..<changes {
        let key = "lane\(lane)-\(change)"
        let line =
          change % 5 == 4
          ? #"{"op":"tender","type":"cash","amount":"1000","key":"\#(key)"}"#
          : #"{"op":"add","sku":"ITEM","key":"\#(key)"}"#
        var tries = 0
        while true {
          let reply = try client.send(line)
          if reply.isOK {
            lock.withLock { acknowledged[key] = (line, reply.result) }
            break
          }
          guard reply.errorCode == "storage_failed" else {
            lock.withLock { refused.append("\(key): \(reply.errorCode ?? "?")") }
            break
          }
          lock.withLock { storageRefusals += 1 }
          tries += 1
          guard tries < 3000 else {
            lock.withLock { failures.append("\(key): still refused after \(tries) tries") }
            return
          }
          // A lane waits a moment before it sends the change again (as a lane client does).
          usleep(10_000)
        }
      }
    } catch {
      lock.withLock { failures.append("lane \(lane): \(error)") }
    }
  }

  private func read(_ daemon: Daemon) {
    do {
      let client = try daemon.connect()
      while lock.withLock({ running }) {
        for line in [#"{"op":"order"}"#, #"{"op":"hello"}"#] {
          let reply = try client.send(line)
          lock.withLock {
            reads += 1
            if !reply.isOK { unansweredReads.append("\(line) → \(reply.serialized)") }
            if reply.result["read_only"] == .bool(true) { readOnlySeen += 1 }
          }
        }
        // A customer display's pace, not a busy loop: reads go on while the fault lasts.
        usleep(5_000)
      }
    } catch {
      lock.withLock { failures.append("reader: \(error)") }
    }
  }

  /// After the lanes ran through a fault: every change acknowledged, nothing lost, the
  /// journal verifies, and a restart (after kill -9) gives the same state; every keyed change
  /// sent again gets its first reply and changes nothing.
  func check(_ daemon: Daemon, lanes: Int = 20, changes: Int = 25, _ context: String) throws {
    #expect(failures.isEmpty, "\(context): \(failures.prefix(5))")
    #expect(unansweredReads.isEmpty, "\(context): \(unansweredReads.prefix(3))")
    #expect(reads > 0)
    #expect(storageRefusals > 0, "\(context): the fault refused no change")
    #expect(readOnlySeen > 0, "\(context): no read saw the register read-only")
    #expect(acknowledged.count + refused.count == lanes * changes, "\(context)")
    #expect(
      refused.allSatisfy { $0.hasSuffix("empty_order") }, "\(context): \(refused.prefix(5))")
    // What an item added was acknowledged for is there: in a receipt or the open order.
    let client = try daemon.connect()
    let state = try Self.state(client)
    let added = acknowledged.keys.filter { acknowledged[$0]?.line.contains(#""add""#) == true }
    #expect(state.items == added.count, "\(context): items rung up vs acknowledged adds")
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(context): \(verify.stderr)")
    daemon.kill9()
    try daemon.start()
    let restarted = try daemon.connect()
    #expect(try Self.state(restarted) == state, "\(context): the state after a restart")
    for (key, change) in acknowledged.sorted(by: { $0.key < $1.key }) {
      let again = try restarted.send(change.line)
      #expect(again.result == change.result, "\(context): \(key) sent again")
    }
    #expect(try Self.state(restarted) == state, "\(context): keyed changes sent again")
  }

  /// What the register holds: items rung up (sold, and in the open order), the open order and
  /// the X report.
  struct State: Equatable {
    var items: Int
    var order: JSONValue
    var report: JSONValue
  }

  static func state(_ client: Client) throws -> State {
    let order = try client.send(#"{"op":"order"}"#).result
    var report = try client.send(#"{"op":"report","kind":"x"}"#).result
    report = report["report"] ?? report
    let open = order["item_count"]?.int64Value ?? -1_000_000
    let sold = report["items_sold"]?.int64Value ?? -1_000_000
    return State(items: Int(open + sold), order: order, report: report)
  }
}

extension KeyedLanes {
  /// A store of one item, $1.00, with stock for every lane's sales.
  static let catalog = #"""
    {"store":{"name":"Lanes","currency":"USD","tax":{"classes":{"standard":"7.5"},"default_class":"standard"}},
     "products":[{"sku":"ITEM","name":"Item","description":"","category":"Test","price":"1.00","stock":1000000}]}
    """#
}

/// A tmpfs of its own (needs root and a kernel that lets it mount: true on the CI machine).
enum Tmpfs {
  static let canMount: Bool = {
    guard let directory = try? TemporaryDirectory() else { return false }
    defer { directory.cleanup() }
    let point = directory.path("probe")
    try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: false)
    guard mount(point, size: "64k") else { return false }
    unmount(point)
    return true
  }()

  static func mount(_ point: String, size: String) -> Bool {
    guard let program = try? ExternalProgram.mount.located() else { return false }
    let result = try? runProgram(
      program, ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", point])
    return result?.status == 0
  }

  static func unmount(_ point: String) {
    guard let program = try? ExternalProgram.umount.located() else { return }
    _ = try? runProgram(program, ["-l", point])
  }

  /// Fills the file system `file` is on: writes zeros to it until the disk is full.
  static func fill(_ file: String) throws {
    let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw HarnessError("cannot create \(file)") }
    defer { close(fd) }
    let zeros = [UInt8](repeating: 0, count: 64 << 10)
    while zeros.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
  }
}

/// registerd on a data directory that is a small tmpfs of its own, to fill.
final class FullDiskLane {
  let daemon: Daemon
  private let data: String
  private var filler: String { data + "/filler" }

  init() throws {
    let directory = try TemporaryDirectory()
    data = directory.path("data")
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
    guard Tmpfs.mount(data, size: "8m") else { throw HarnessError("cannot mount a tmpfs") }
    daemon = try Daemon(catalog: KeyedLanes.catalog, directory: directory)
  }

  /// Stops registerd and fills the disk. Stopped cleanly, the journal keeps no zeros written
  /// ahead: the first records that need a new page of the segment find no room.
  func stopAndFill() throws {
    #expect(daemon.stop() == 0)
    try Tmpfs.fill(filler)
  }

  /// Frees the disk.
  func free() throws {
    try FileManager.default.removeItem(atPath: filler)
  }

  /// Stops registerd, takes the tmpfs away and removes the directory.
  func cleanup() {
    _ = daemon.stop()
    Tmpfs.unmount(data)
    daemon.cleanup()
  }
}

/// Real storage faults under twenty lanes: fsync failing with EIO, a full disk, and kill -9
/// while the register is being rebuilt from its journal. The register is rebuilt from what is
/// durable, reads are answered throughout, changes are refused until storage works again and
/// taken after, and nothing acknowledged is lost.
@Suite("Storage faults under twenty lanes: rebuilt from the journal, then taking changes again")
struct StorageEpisodeEndToEndTests {
  @Test(
    "fdatasync failing with EIO for a while",
    .tags(.outsideProgram), .requires(.strace),
    .enabled(if: Strace.isUsable, Comment(rawValue: Strace.unusable)))
  func fsyncFailing() throws {
    let daemon = try Daemon(catalog: KeyedLanes.catalog)
    defer { daemon.cleanup() }
    // From the 20th fdatasync of a thread on, every one fails, until strace lets go.
    let trace = try Strace.Attached(
      to: daemon.process.processIdentifier,
      injecting: Strace.Fault(calls: "fdatasync", error: "EIO"), when: "20+",
      in: daemon.directory)
    let lanes = KeyedLanes()
    try lanes.run(daemon) {
      #expect(daemon.waitForLog("STORAGE FAILED"), "the fault was made: \(daemon.log)")
      // The fault lasts a while, the lanes trying again all the while: time passing is the test.
      usleep(1_500_000)
      trace.detach()
    }
    #expect(daemon.waitForLog("storage works again"), "\(daemon.log)")
    #expect(
      daemon.log.components(separatedBy: "STORAGE FAILED").count == 2, "logged once: \(daemon.log)")
    try lanes.check(daemon, "fdatasync EIO")
  }

  @Test(
    "a full disk (a small tmpfs) until space is freed",
    .tags(.outsideProgram), .requires(.mount, .umount),
    .enabled(if: Tmpfs.canMount, "needs to mount a tmpfs (root, and a kernel that allows it)"))
  func diskFull() throws {
    let lane = try FullDiskLane()
    defer { lane.cleanup() }
    let daemon = lane.daemon
    try lane.stopAndFill()
    try daemon.start()
    let lanes = KeyedLanes()
    try lanes.run(daemon) {
      #expect(daemon.waitForLog("STORAGE FAILED", within: 20), "the disk filled: \(daemon.log)")
      // The disk stays full a while, the lanes trying again all the while.
      usleep(1_000_000)
      try lane.free()
    }
    #expect(daemon.waitForLog("storage works again"), "\(daemon.log)")
    #expect(daemon.log.contains("No space left on device"), "\(daemon.log)")
    try lanes.check(daemon, "disk full")
  }

  /// A start on a full disk with a catalog file changed meanwhile: the import cannot be
  /// journaled, yet registerd serves (no exit for a service manager to restart in a loop),
  /// and takes changes once there is room.
  @Test(
    "started on a full disk with catalog changes to import: served as it was, the changes imported once space is freed",
    .tags(.outsideProgram), .requires(.mount, .umount),
    .enabled(if: Tmpfs.canMount, "needs to mount a tmpfs (root, and a kernel that allows it)"))
  func startedOnAFullDisk() throws {
    let lane = try FullDiskLane()
    defer { lane.cleanup() }
    let daemon = lane.daemon
    #expect(try daemon.connect().send(#"{"op":"add","sku":"ITEM"}"#).isOK)
    try lane.stopAndFill()
    // More products than the last page of the journal's segment has room for.
    let more = (1...300).map {
      #"{"sku":"MORE-\#($0)","name":"More \#($0)","description":"","category":"Test","price":"1.00"}"#
    }
    try KeyedLanes.catalog.replacingOccurrences(
      of: #""stock":1000000}"#, with: #""stock":1000000},"# + more.joined(separator: ",")
    )
    .write(toFile: daemon.catalogPath, atomically: false, encoding: .utf8)
    try daemon.start()
    #expect(daemon.waitForLog("STORAGE FAILED"), "\(daemon.log)")
    let client = try daemon.connect()
    let order = try client.send(#"{"op":"order"}"#)
    #expect(order.result["lines"]?.arrayValue?.count == 1, "the register as it was")
    #expect(try client.send(#"{"op":"add","sku":"ITEM"}"#).errorCode == "storage_failed")
    try lane.free()
    #expect(daemon.waitForLog("storage works again"), "\(daemon.log)")
    #expect(try client.send(#"{"op":"add","sku":"ITEM"}"#).isOK)
    // The catalog's changes waited for storage, and are imported now.
    #expect(daemon.log.contains("(it had waited for storage to work again)"), "\(daemon.log)")
    #expect(try client.send(#"{"op":"add","sku":"MORE-1"}"#).isOK)
    let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
    #expect(verify.status == 0, "\(verify.stderr)")
  }

  @Test(
    "kill -9 while the register is being rebuilt from its journal",
    .tags(.outsideProgram), .requires(.strace),
    .enabled(if: Strace.isUsable, Comment(rawValue: Strace.unusable)))
  func killedWhileRebuilding() throws {
    // A lane with a long journal, copied for each try: 15,000 records, under the 20,000 after
    // which a start writes a snapshot, so the rebuild replays every one.
    let template = try Daemon()
    defer { template.cleanup() }
    let client = try template.connect()
    try client.journalPaidIns(15_000)
    let expected = try KeyedLanes.state(client)
    #expect(template.stop() == 0)
    var landedMidRebuild = 0
    for delay in [0, 1, 2, 4, 8, 16, 32, 64] {
      let directory = try TemporaryDirectory()
      defer { directory.cleanup() }
      let copied = try runProgram(
        URL(fileURLWithPath: "/bin/cp"), ["-a", template.dataDirectory, directory.path("data")])
      #expect(copied.status == 0)
      let daemon = try Daemon(directory: directory)
      defer { daemon.cleanup() }
      let trace = try Strace.Attached(
        to: daemon.process.processIdentifier,
        injecting: Strace.Fault(calls: "fdatasync", error: "EIO"), when: "1+",
        in: daemon.directory)
      let lane = try daemon.connect()
      try lane.sendRaw(Array(#"{"op":"paid_in","amount":"0.01","reason":"lost"}"#.utf8) + [10])
      // The write failed once strace says so; the rebuild follows at once.
      #expect(waitUntil(within: 10, every: 0.0002) { Strace.injected(trace.log) })
      // The kill comes at a different moment after the fault each time: that is the test.
      usleep(UInt32(delay * 1000))
      let rebuilt = daemon.log.contains("STORAGE FAILED")
      daemon.kill9()
      _ = trace.finish()
      if !rebuilt { landedMidRebuild += 1 }
      try daemon.start()
      let after = try daemon.connect()
      #expect(try KeyedLanes.state(after) == expected, "killed \(delay) ms after the fault")
      let verify = try runCLI(["verify", "--data-dir", daemon.dataDirectory])
      #expect(verify.status == 0, "\(verify.stderr)")
      // And it takes changes.
      #expect(try after.send(#"{"op":"paid_in","amount":"0.01","reason":"x"}"#).isOK)
    }
    #expect(landedMidRebuild > 0, "no kill came before the rebuild was done")
  }
}
