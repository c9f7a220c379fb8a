import Dispatch
import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `verify` and `replay`: read the journal directly, without a daemon.
enum Offline {
  static func run(_ command: LocalCommand, json: Bool, environment: [String: String]) -> ExitStatus
  {
    switch command {
    case .verify(let directory, let anchors, let archives, let key, let events):
      return verify(
        directory ?? defaultDataDirectory(environment), anchors: anchors, archives: archives,
        journalKey: key, events: events, json: json)
    case .replay(let directory, let day, let receipt, let fromJournal):
      return replay(
        directory ?? defaultDataDirectory(environment), day: day, receipt: receipt,
        fromJournal: fromJournal, json: json)
    case .unlockOperator(let id, let directory):
      return unlock(id, directory: directory, json: json)
    case .backup(let directory, let target, let copy):
      return Maintenance.backup(
        directory ?? defaultDataDirectory(environment), to: target, copy: copy, json: json,
        environment: environment)
    case .archive(let directory, let day, let target):
      return Maintenance.archive(
        directory ?? defaultDataDirectory(environment), beforeDay: day, to: target, json: json)
    case .export(let options):
      return Export.run(options, environment: environment)
    }
  }

  /// `operator unlock ID --data-dir DIR`: with registerd stopped, journal the unlock.
  static func unlock(_ id: String, directory: String, json: Bool) -> ExitStatus {
    let outcome: OfflineUnlock.Outcome
    do {
      outcome = try OfflineUnlock.unlock(
        operatorID: id, directory: directory, now: SystemClock().now())
    } catch {
      return CLI.fail(.refused, error.description)
    }
    let sequence: Int64?
    switch outcome {
    case .unlocked(let seq): sequence = seq
    case .notLocked: sequence = nil
    }
    if json {
      writeStandardOutput(
        JSONValue.object([
          "unlocked": .string(id), "journaled": .bool(sequence != nil),
          "seq": sequence.map { .int($0) },
        ]).serialized + "\n")
    } else if let sequence {
      writeStandardOutput("Operator \(id) unlocked (journal record \(sequence)).\n")
    } else {
      writeStandardOutput("Operator \(id) was not locked; nothing written.\n")
    }
    return .done
  }

  static func defaultDataDirectory(_ environment: [String: String]) -> String {
    Paths.clientDataDirectory(environment: environment)
  }

  /// The journal's segments in `directory` (nil, with the reason printed, when there are none
  /// or they cannot be listed).
  static func segments(_ directory: String) -> [JournalFiles.Segment]? {
    let folder = JournalFiles.segmentDirectory(in: directory)
    let segments: [JournalFiles.Segment]
    do {
      segments = try JournalFiles.segments(in: directory)
    } catch {
      _ = CLI.fail(.refused, "cannot read the journal \(folder): \(error) (use --data-dir DIR)")
      return nil
    }
    guard !segments.isEmpty else {
      if FileIO.exists(JournalFiles.legacyPath(in: directory)) {
        _ = CLI.fail(
          .refused,
          "\(JournalFiles.legacyPath(in: directory)) is the journal of an older registerd; start registerd once to move it into \(folder)"
        )
      } else {
        _ = CLI.fail(.refused, "there is no journal in \(folder) (use --data-dir DIR)")
      }
      return nil
    }
    return segments
  }

  static func verify(
    _ directory: String, anchors: [JournalHead], archives: [String] = [],
    journalKey: String? = nil, events: Bool = false, json: Bool
  ) -> ExitStatus {
    guard let live = segments(directory) else { return .refused }
    var macKey: HMACSHA256?
    if let journalKey {
      do {
        macKey = try JournalKey.load(journalKey)
      } catch {
        return CLI.fail(.refused, error.description)
      }
    }
    let path = JournalFiles.segmentDirectory(in: directory)
    // Archived segments (`register-cli archive`) come first, then the live ones.
    let segments: [JournalFiles.Segment]
    switch Maintenance.combined(live: live, archives: archives) {
    case .success(let all): segments = all
    case .failure(let problem):
      return CLI.fail(.refused, "journal \(path) is NOT intact: \(problem)")
    }
    // A journal whose older segments were archived is checked from its first record on, which
    // must follow the last record the archive manifest says was moved out; with --archive the
    // whole chain must be there.
    let firstSequence = segments.first?.firstSequence ?? 1
    if firstSequence > 1, !archives.isEmpty {
      return CLI.fail(
        .refused,
        "journal \(path) is NOT intact: with the archive(s) it starts at seq \(firstSequence), not 1: records 1-\(firstSequence - 1) are in neither (another archive directory, or they are lost)"
      )
    }
    let start: JournalHead
    do {
      guard let found = try JournalFiles.start(of: segments, in: directory) else {
        let missing = JournalFiles.missingStart(segments[0], in: directory)
        return CLI.fail(
          .refused,
          "journal \(path) is NOT intact: \(missing.problem); to repair, \(missing.repair ?? "")")
      }
      start = found
    } catch {
      return CLI.fail(.refused, "journal \(path) is NOT intact: \(error)")
    }
    // First the fast way to a yes: every record's checksum, number, link and MAC from the
    // lines' bytes, segments on both cores (`SegmentChain`). Asked to read every event too, or
    // when anything is not as registerd writes it, the full scan below reads each record and
    // says what is wrong and where.
    // The snapshot start-up would start from: its record must be in the journal with its sum,
    // or registerd does not start (acknowledged records missing, or a rewritten journal).
    let snapshot = newestSnapshot(in: directory)
    let wanted = Set(anchors.map(\.sequence) + (snapshot.map { [$0.head.sequence] } ?? []))
    if !events,
      let quick = quickChain(segments, start: start, key: macKey, wanted: wanted)
    {
      return verified(
        path: path, chain: quick.chain, anchorSums: quick.sums, anchors: anchors,
        start: start, snapshot: snapshot, segments: segments, live: live, archives: archives,
        macChecked: macKey == nil ? nil : quick.chain.records, events: false, json: json)
    }
    // Every record's checksum and place in the chain, across segments, one segment in memory at
    // a time; every event must also be readable (decoded with the store's currency as the
    // journal sets it — from a snapshot when the journal's start was archived), and the
    // anchors' records are looked up on the way.
    var currency =
      firstSequence > 1
      ? Maintenance.currency(before: firstSequence, in: directory) : Register().store.currency
    var anchorSums: [Int64: String] = [:]
    // The next receipt number, as replay checks it (from the first receipt seen when the
    // journal's start was archived).
    var nextReceipt: Int? = firstSequence > 1 ? nil : 1
    // With the key, every record must carry a MAC the key made: one that does not is damage,
    // as it is at start-up.
    var chain: JournalFiles.ChainScan
    do {
      chain = try JournalFiles.read(
        segments, after: start.sequence, sum: start.sum, key: macKey
      ) {
        _, records throws(RecoveryError) in
        for record in records {
          if wanted.contains(record.sequence) { anchorSums[record.sequence] = record.sum }
          let event: Event
          do {
            event = try Event.decode(type: record.type, data: record.data, currency: currency)
          } catch {
            throw RecoveryError(
              "journal record seq \(record.sequence) (\(record.type)) cannot be read: \(error)"
            )
          }
          if case .storeConfigured(let store) = event { currency = store.currency }
          if let next = nextReceipt, let problem = event.receiptProblem(next: next) {
            throw RecoveryError(outOfTurn: record, problem)
          }
          if let receipt = event.receiptGiven { nextReceipt = max(nextReceipt ?? 1, receipt + 1) }
        }
      }
    } catch {
      return CLI.fail(.refused, "journal \(path) is NOT intact: \(error)")
    }
    return verified(
      path: path, chain: chain, anchorSums: anchorSums, anchors: anchors, start: start,
      snapshot: snapshot, segments: segments, live: live, archives: archives,
      macChecked: macKey == nil ? nil : chain.records, events: events, json: json)
  }

  /// The newest snapshot in `directory` that reads back (its checksum, and its name matching
  /// its record and day), with the record it is the state as of: the one start-up loads.
  static func newestSnapshot(in directory: String) -> (path: String, head: JournalHead)? {
    for snapshot in SnapshotFiles.list(in: directory).reversed() {
      guard let bytes = try? FileIO.read(snapshot.path, followingSymlinks: false),
        let read = try? SnapshotFile.head(of: bytes), read.head.sequence == snapshot.sequence,
        read.day == snapshot.day
      else { continue }
      return (snapshot.path, read.head)
    }
    return nil
  }

  /// The chain of `segments` checked the fast way (`SegmentChain`), segments read and checked
  /// on both cores and then joined: each must start where the one before ended, and the first
  /// right after `start`. Nil when anything is not as registerd writes it — a torn tail, a
  /// request cut short, a segment named for another record, no record at all — for the full
  /// scan to say what.
  static func quickChain(
    _ segments: [JournalFiles.Segment], start: JournalHead, key: HMACSHA256?,
    wanted: Set<Int64>
  ) -> (chain: JournalFiles.ChainScan, sums: [Int64: String])? {
    let checked = PartResults<(bytes: Int, chain: SegmentChain?)?>(count: segments.count)
    DispatchQueue.concurrentPerform(iterations: segments.count) { index in
      guard let bytes = try? JournalFiles.readSegment(segments[index].path) else {
        checked.set(index, [nil])
        return
      }
      checked.set(
        index, [(bytes.count, SegmentChain.check(bytes[...], key: key, wanted: wanted))])
    }
    var chain = JournalFiles.ChainScan(lastSequence: start.sequence, lastSum: start.sum)
    var knownSum = start.sum
    var sums: [Int64: String] = [:]
    for (segment, result) in zip(segments, checked.joined()) {
      guard let result else { return nil }
      chain.bytes += result.bytes
      if result.bytes == 0 { continue }
      guard let part = result.chain, part.firstSequence == segment.firstSequence,
        part.firstSequence == chain.lastSequence + 1, knownSum == part.firstPrevious,
        !part.endsInsideRequest
      else { return nil }
      chain.lastSequence = part.lastSequence
      chain.lastSum = part.lastSum
      chain.records += part.records
      knownSum = part.lastSum
      sums.merge(part.sums) { first, _ in first }
    }
    guard chain.records > 0 else { return nil }
    return (chain, sums)
  }

  /// What `verify` says of a chain read (by either way): intact, or the first problem.
  private static func verified(
    path: String, chain: JournalFiles.ChainScan, anchorSums: [Int64: String],
    anchors: [JournalHead], start: JournalHead, snapshot: (path: String, head: JournalHead)?,
    segments: [JournalFiles.Segment], live: [JournalFiles.Segment], archives: [String],
    macChecked: Int?, events: Bool, json: Bool
  ) -> ExitStatus {
    let firstSequence = start.sequence + 1
    var problem: String?
    if let (segmentPath, damage) = chain.damage {
      problem =
        "first bad record: \(damage.description) in \(segmentPath)"
        + (damage.repair.map { "; to repair, \($0)" } ?? "")
    } else if let tail = chain.tail {
      problem =
        "after \(Words.count(chain.records, "intact record")), the last \(tail.length - tail.goodLength) bytes of \(tail.segment.path) are a torn or unreadable tail "
        + "(\(tail.reason)); registerd sets it aside at its next start"
    }
    // An intact chain can still be short: records cut off at a request boundary leave no
    // trace in the file. A head printed on paper (the Z report) says what must be there.
    func anchorProblem(_ anchor: JournalHead) -> String? {
      guard let sum = anchorSums[anchor.sequence] else {
        return
          anchor.sequence < firstSequence
          ? "anchor \(anchor.sequence): record \(anchor.sequence) was archived (the journal here starts at seq \(firstSequence)); verify with --archive ADIR to check it"
          : "anchor \(anchor.sequence): the journal has no record \(anchor.sequence) (it ends at seq \(chain.lastSequence)); "
            + "records after it were cut off or the journal is not the one that printed the anchor"
      }
      guard sum == anchor.sum else {
        return
          "anchor \(anchor.sequence): record \(anchor.sequence) has sum \(sum), not \(anchor.sum); "
          + "the journal was rewritten from there on or the anchor was mistyped"
      }
      return nil
    }
    let anchorProblems = anchors.compactMap(anchorProblem)
    if problem == nil, let first = anchorProblems.first {
      problem = first + (anchorProblems.count > 1 ? " (and \(anchorProblems.count - 1) more)" : "")
    }
    // As start-up finds it: the newest snapshot's record must be in the journal, with its sum.
    var snapshotProblem: String?
    if let (snapshotPath, head) = snapshot {
      let sum = head.sequence == start.sequence ? start.sum : anchorSums[head.sequence]
      let mismatch: String? =
        if head.sequence > chain.lastSequence {
          "the journal ends at seq \(chain.lastSequence), before seq \(head.sequence)"
        } else if head.sequence < start.sequence {
          "the journal here starts at seq \(firstSequence), after it"
        } else if sum != head.sum {
          "record \(head.sequence) has sum \(sum ?? "(none)"), not \(head.sum)"
        } else {
          nil
        }
      snapshotProblem = mismatch.map {
        "the snapshot \(snapshotPath) is the register as of journal record \(head.sequence), but \($0): acknowledged records are missing from the journal, or it was rewritten (registerd does not start on it)"
      }
    }
    if problem == nil, let snapshotProblem { problem = snapshotProblem }
    if json {
      writeStandardOutput(
        JSONValue.object([
          "journal": .string(path), "intact": .bool(problem == nil),
          "segments": .int(segments.count), "bytes": .int(chain.bytes),
          "records": .int(chain.records), "first_seq": .int(firstSequence),
          "archived_segments": archives.isEmpty ? nil : .int(segments.count - live.count),
          "last_seq": .int(chain.lastSequence),
          "last_sum": .string(chain.lastSum),
          "macs_checked": macChecked.map { .int($0) },
          "events_read": .bool(events),
          "first_bad": chain.damage.map {
            .object([
              "segment": .string($0.path),
              "line": .int($0.damage.line), "seq": $0.damage.sequence.map { .int($0) },
              "offset": .int($0.damage.offset), "problem": .string($0.damage.problem),
              "repair": $0.damage.repair.map(JSONValue.string),
            ])
          },
          "problem": problem.map(JSONValue.string),
          "snapshot": snapshot.map {
            .object([
              "path": .string($0.path), "seq": .int($0.head.sequence),
              "problem": snapshotProblem.map(JSONValue.string),
            ])
          },
          "anchors": anchors.isEmpty
            ? nil
            : .array(
              anchors.map { anchor in
                .object([
                  "seq": .int(anchor.sequence), "sum": .string(anchor.sum),
                  "problem": anchorProblem(anchor).map(JSONValue.string),
                ])
              }),
        ]).serialized + "\n")
    }
    if let problem {
      return CLI.fail(.refused, "journal \(path) is NOT intact: \(problem)")
    }
    if !json {
      if firstSequence > 1 {
        writeStandardOutput(
          "records 1-\(firstSequence - 1) were archived (register-cli archive, as \(JournalFiles.archiveManifestPath(in: FileIO.parentDirectory(of: path))) records): checked from seq \(firstSequence), the first record here, which follows the last one archived; add --archive ADIR to check the whole chain\n"
        )
      } else if !archives.isEmpty {
        writeStandardOutput(
          "\(Words.count(segments.count - live.count, "archived segment")) from \(archives.joined(separator: ", ")), then the live ones: the whole chain from seq 1\n"
        )
      }
      writeStandardOutput(
        "journal \(path) is intact: \(Words.count(chain.records, "record")) in \(Words.count(segments.count, "segment")), last seq \(chain.lastSequence), last sum \(chain.lastSum)\n"
      )
      for anchor in anchors {
        writeStandardOutput("anchor \(anchor.sequence): record present with that sum\n")
      }
      if let macChecked {
        writeStandardOutput("every record's MAC checks out with the journal key (\(macChecked))\n")
      }
      if events {
        writeStandardOutput("every record and its event read as registerd reads them\n")
      }
    }
    return .done
  }

  /// The register as the journal in `directory` leaves it (nil, with the reason printed,
  /// when the journal cannot be read or replayed): from the newest snapshot (with a state day
  /// up to `day`, when given) and the records after it — up to the close of `day`, when given.
  static func register(_ directory: String, day: Int? = nil) -> Register? {
    load(directory, day: day)?.register
  }

  /// As `register(_:day:)`, with how it was reached: the snapshot started from and the records
  /// applied after it.
  static func load(_ directory: String, day: Int? = nil) -> JournalFiles.Loaded? {
    guard let segments = segments(directory) else { return nil }
    let showProgress = isatty(2) == 1
    let loaded: JournalFiles.Loaded
    do {
      loaded = try JournalFiles.load(directory, segments: segments, snapshotDay: day) { register in
        if showProgress {
          writeStandardError("\rreplaying: up to record \(register.lastSequence)")
        }
        return day.map { register.closedDays[$0] != nil } ?? false
      }
    } catch {
      _ = CLI.fail(.refused, error.description)
      return nil
    }
    if showProgress { writeStandardError("\n") }
    for skipped in loaded.skippedSnapshots {
      writeStandardError("register-cli: note: skipped a snapshot that cannot be used: \(skipped)\n")
    }
    let chain = loaded.chain
    if let (segmentPath, damage) = chain.damage {
      _ = CLI.fail(
        .refused,
        "journal segment \(segmentPath) is damaged: \(damage.description); run register-cli verify")
      return nil
    }
    if let tail = chain.tail {
      writeStandardError(
        "register-cli: note: ignoring a torn tail of \(tail.length - tail.goodLength) bytes at the end of \(tail.segment.path)\n"
      )
    }
    return loaded
  }

  static func replay(
    _ directory: String, day: Int?, receipt: Int?, fromJournal: Bool = false, json: Bool
  ) -> ExitStatus {
    if receipt == nil, let day, !fromJournal,
      let archived = archivedDay(day, in: directory, json: json)
    {
      return printDay(
        day, closed: true, receipts: archived.receipts, report: DayReport(closed: archived.closed),
        replayed: archived.replayed, json: json)
    }
    guard let loaded = load(directory, day: day) else { return .refused }
    let register = loaded.register
    let path = JournalFiles.segmentDirectory(in: directory)

    if let receipt {
      guard let printed = PrintedReceipt(number: receipt, in: register) else {
        return CLI.fail(.refused, "receipt_not_found: there is no receipt \(receipt) in \(path)")
      }
      writeStandardOutput(json ? printed.reply.serialized + "\n" : printed.text)
      return .done
    }

    let chosenDay = day ?? defaultDay(register)
    let report: DayReport
    if let closed = register.closedDays[chosenDay] {
      report = DayReport(closed: closed)
    } else if chosenDay == register.day.number {
      report = DayReport(
        openDayOf: register, at: register.lastActivity ?? Timestamp(epochMilliseconds: 0))
    } else {
      return CLI.fail(
        .refused,
        "day_not_found: there is no day \(chosenDay) in the journal (days 1-\(register.day.number))"
      )
    }
    return printDay(
      chosenDay, closed: register.closedDays[chosenDay] != nil,
      receipts: PrintedReceipt.laidOut(PrintedReceipt.all(ofDay: chosenDay, in: register)) {
        LaidOutReceipt($0, json: json)
      }, report: report,
      replayed: .object([
        "from": .string("journal"),
        "snapshot": loaded.snapshot.map { .string($0.path) },
        "records": .int(loaded.chain.records), "bytes": .int(loaded.chain.bytes),
      ]), json: json)
  }

  /// A day's paper roll: its receipts, each followed by a blank line, then its report (or all
  /// of it as one JSON object, with where it was `replayed` from).
  private static func printDay(
    _ day: Int, closed: Bool, receipts: [LaidOutReceipt], report: DayReport, replayed: JSONValue,
    json: Bool
  ) -> ExitStatus {
    if json {
      writeStandardOutput(
        JSONValue.object([
          "day": .int(day),
          "closed": .bool(closed),
          "receipts": .array(receipts.compactMap(\.reply)),
          "report": ReportRenderer.reply(report),
          "replayed": replayed,
        ]).serialized + "\n")
    } else {
      // One write for the day's paper roll, not one per receipt.
      writeStandardOutput(receipts.compactMap(\.text).joined() + ReportRenderer.text(report))
    }
    return .done
  }

  /// Closed day `day` from the files the daemon wrote as it closed it, without the journal:
  /// its receipts from the day's receipt archive (`receipts/dayNNNNNN.ndjson`, the file
  /// `receipt N` reads a closed day's receipt from) and its Z report from the day book of the
  /// first snapshot after it. The two are read at once, on two threads. Nil when they are not
  /// there (the day is open, or closed so recently that the snapshot after it is not written
  /// yet) or do not agree (the archive does not hold the receipts the day's totals count, or
  /// cannot be read, which is said on stderr): the day is then replayed from the journal.
  static func archivedDay(_ day: Int, in directory: String, json: Bool) -> (
    receipts: [LaidOutReceipt], closed: ClosedDay, replayed: JSONValue
  )? {
    let book = Slot<(closed: ClosedDay, snapshot: SnapshotFiles.Snapshot, bytes: Int)>()
    let (path, text) = SnapshotFiles.archivedReceipts(day: day, in: directory)
    // The archive's lines are decoded and laid out in sixteen parts, beside the snapshot's day
    // book (the longest task, started first): small parts keep both cores busy to the end. A
    // part laid out in vain (the archive turns out not to match) costs a few milliseconds.
    let chunks = Self.chunks(text ?? [], parts: 16)
    let parts = PartResults<ArchivePart>(count: chunks.count)
    DispatchQueue.concurrentPerform(iterations: 1 + chunks.count) { task in
      if task == 0 {
        book.value = SnapshotFiles.closedDay(day, in: directory)
        return
      }
      let chunk = chunks[task - 1]
      do throws(JSONShapeError) {
        let receipts = try ArchivedReceipt.lines(
          (text ?? [])[chunk.bytes], firstLine: chunk.firstLine)
        parts.set(
          task - 1,
          [
            ArchivePart(
              receipts: receipts,
              laidOut: receipts.map { LaidOutReceipt(PrintedReceipt($0), json: json) })
          ])
      } catch {
        parts.set(task - 1, [ArchivePart(failure: error)])
      }
    }
    let archiveBytes = text?.count
    let decoded = parts.joined()
    let receipts = decoded.flatMap(\.receipts)
    let failure = decoded.lazy.compactMap(\.failure).first
    guard let (closed, snapshot, snapshotBytes) = book.value else { return nil }
    // A day without a receipt has no archive file.
    guard archiveBytes != nil || closed.totals.salesCount + closed.totals.returnsCount == 0
    else { return nil }
    if let problem = failure?.description ?? closed.mismatch(receipts) {
      writeStandardError(
        "register-cli: note: the receipt archive \(path) does not hold day \(day)'s receipts (\(problem)); replaying the journal instead\n"
      )
      return nil
    }
    return (
      decoded.flatMap(\.laidOut), closed,
      .object([
        "from": .string("archive"),
        "archive": archiveBytes == nil ? nil : .string(path),
        "receipts": .int(receipts.count),
        "snapshot": .string(snapshot.path),
        "bytes": .int((archiveBytes ?? 0) + snapshotBytes),
      ])
    )
  }

  /// `text` cut into at most `parts` runs of whole lines of about the same number of lines,
  /// each with the number of its first line (a last line without its newline is in the last).
  static func chunks(_ text: [UInt8], parts: Int) -> [(bytes: Range<Int>, firstLine: Int)] {
    var starts = [0]
    text.withUnsafeBufferPointer { bytes in
      for offset in bytes.indices where bytes[offset] == UInt8(ascii: "\n") {
        starts.append(offset + 1)
      }
    }
    if starts.last == text.count { starts.removeLast() }
    guard !starts.isEmpty, !text.isEmpty else { return [] }
    let count = min(parts, starts.count)
    return (0..<count).map { part in
      let first = starts.count * part / count
      let next = starts.count * (part + 1) / count
      return (starts[first]..<(next < starts.count ? starts[next] : text.count), first + 1)
    }
  }

  /// The open day when anything happened in it, else the last closed day.
  static func defaultDay(_ register: Register) -> Int {
    let open = register.day
    if open.totals.salesCount > 0 || open.totals.voidedOrders > 0 || open.openedAt != nil
      || register.closedDays.isEmpty
    {
      return open.number
    }
    return register.closedDays.keys.max() ?? open.number
  }
}

/// A receipt as it was printed at the time: a sale's or a return's (they share one number
/// sequence, so replay must print both kinds to reproduce the day's paper roll).
enum PrintedReceipt: Sendable {
  case sale(CompletedSale)
  case refund(CompletedReturn)

  /// The receipt with this number, of either kind.
  init?(number: Int, in register: Register) {
    if let sale = register.receipts[number] {
      self = .sale(sale)
    } else if let refund = register.returns[number] {
      self = .refund(refund)
    } else {
      return nil
    }
  }

  /// Every receipt of `day`, sales and returns, in number order.
  static func all(ofDay day: Int, in register: Register) -> [PrintedReceipt] {
    register.ledger.receipts(ofDay: day).map(PrintedReceipt.init)
  }

  init(_ receipt: ArchivedReceipt) {
    switch receipt {
    case .sale(let sale): self = .sale(sale)
    case .refund(let refund): self = .refund(refund)
    }
  }

  /// `transform` of each receipt, in order, worked out on two threads: laying out a busy
  /// day's 500 receipts takes tens of milliseconds, and by then a replay has nothing else left
  /// to do.
  static func laidOut<T: Sendable>(
    _ receipts: [PrintedReceipt], _ transform: @escaping @Sendable (PrintedReceipt) -> T
  ) -> [T] {
    let parts = receipts.count < 32 ? 1 : 2
    let results = PartResults<T>(count: parts)
    DispatchQueue.concurrentPerform(iterations: parts) { part in
      let start = receipts.count * part / parts
      let end = receipts.count * (part + 1) / parts
      results.set(part, receipts[start..<end].map(transform))
    }
    return results.joined()
  }

  var number: Int {
    switch self {
    case .sale(let sale): sale.receiptNumber
    case .refund(let refund): refund.receiptNumber
    }
  }

  /// The text exactly as printed when the receipt was made (not marked as a reprint).
  var text: String {
    switch self {
    case .sale(let sale): ReceiptRenderer.text(sale)
    case .refund(let refund): ReceiptRenderer.text(refund)
    }
  }

  /// The `receipt` member of the reply that printed it.
  var reply: JSONValue {
    switch self {
    case .sale(let sale): sale.receiptReply(reprint: false)
    case .refund(let refund): refund.receiptReply(reprint: false)
    }
  }
}

/// A receipt as the paper roll prints it: its text and a blank line, or with `--json` its
/// reply.
enum LaidOutReceipt: Sendable {
  case text(String)
  case reply(JSONValue)

  init(_ receipt: PrintedReceipt, json: Bool) {
    self = json ? .reply(receipt.reply) : .text(receipt.text + "\n")
  }

  var text: String? {
    guard case .text(let text) = self else { return nil }
    return text
  }

  var reply: JSONValue? {
    guard case .reply(let reply) = self else { return nil }
    return reply
  }
}

/// A run of a receipt archive's lines, decoded and laid out on one thread (or why it could not
/// be decoded).
private struct ArchivePart: Sendable {
  var receipts: [ArchivedReceipt] = []
  var laidOut: [LaidOutReceipt] = []
  var failure: JSONShapeError?
}

/// A value worked out on another thread: written by the one thread that works it out, and read
/// after that thread is done (`DispatchQueue.concurrentPerform` has returned).
private final class Slot<T>: @unchecked Sendable {
  var value: T?
}

/// The results of `PrintedReceipt.laidOut`'s parts: each part's slot is written by the one
/// thread that works it out, and read after every part is done.
private final class PartResults<T>: @unchecked Sendable {
  private let slots: UnsafeMutableBufferPointer<[T]>

  init(count: Int) {
    slots = .allocate(capacity: count)
    slots.initialize(repeating: [])
  }

  deinit {
    slots.deinitialize()
    slots.deallocate()
  }

  func set(_ part: Int, _ results: [T]) { slots[part] = results }

  func joined() -> [T] { slots.flatMap { $0 } }
}
