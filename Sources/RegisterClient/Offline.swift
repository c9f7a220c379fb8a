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
    case .verify(let directory, let anchors):
      return verify(directory ?? defaultDataDirectory(environment), anchors: anchors, json: json)
    case .replay(let directory, let day, let receipt):
      return replay(
        directory ?? defaultDataDirectory(environment), day: day, receipt: receipt, json: json)
    case .unlockOperator(let id, let directory):
      return unlock(id, directory: directory, json: json)
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
    environment["REGISTER_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? ".registerd"
  }

  static func read(_ directory: String) -> (path: String, bytes: [UInt8])? {
    let path = JournalFiles.journalPath(in: directory)
    do {
      return (path, try FileIO.read(path))
    } catch {
      _ = CLI.fail(.refused, "cannot read the journal \(path): \(error) (use --data-dir DIR)")
      return nil
    }
  }

  /// The register as the journal in `directory` leaves it (nil, with the reason printed,
  /// when the journal cannot be read or replayed).
  static func register(_ directory: String) -> Register? {
    guard let (path, bytes) = read(directory) else { return nil }
    let scan = JournalScanner.scan(bytes)
    if let damage = scan.damage {
      _ = CLI.fail(
        .refused, "journal \(path) is damaged: \(damage.description); run register-cli verify")
      return nil
    }
    do {
      return try Register.replaying(scan.records)
    } catch {
      _ = CLI.fail(.refused, "cannot replay \(path): \(error)")
      return nil
    }
  }

  static func verify(_ directory: String, anchors: [JournalHead], json: Bool) -> ExitStatus {
    guard let (path, bytes) = read(directory) else { return .refused }
    let scan = JournalScanner.scan(bytes)
    var problem: String?
    if let damage = scan.damage {
      problem = "first bad record: \(damage.description)"
    } else if scan.tailLength > 0 {
      problem =
        "after \(scan.records.count) intact records, the last \(scan.tailLength) bytes are a torn or unreadable tail "
        + "(\(scan.tailReason ?? "unknown")); registerd sets it aside at its next start"
    } else {
      // The chain is sound; make sure every event can also be read back.
      do {
        _ = try Register.replaying(scan.records)
      } catch {
        problem = error.description
      }
    }
    // An intact chain can still be short: records cut off at a request boundary leave no
    // trace in the file. A head printed on paper (the Z report) says what must be there.
    let anchorProblems = anchors.compactMap { anchorProblem($0, in: scan) }
    if problem == nil, let first = anchorProblems.first {
      problem = first + (anchorProblems.count > 1 ? " (and \(anchorProblems.count - 1) more)" : "")
    }
    if json {
      writeStandardOutput(
        JSONValue.object([
          "journal": .string(path), "intact": .bool(problem == nil),
          "records": .int(scan.records.count), "last_seq": .int(scan.lastSequence),
          "last_sum": .string(scan.lastSum),
          "first_bad": scan.damage.map {
            .object([
              "line": .int($0.line), "seq": $0.sequence.map { .int($0) }, "offset": .int($0.offset),
              "problem": .string($0.problem),
            ])
          },
          "problem": problem.map(JSONValue.string),
          "anchors": anchors.isEmpty
            ? nil
            : .array(
              anchors.map { anchor in
                .object([
                  "seq": .int(anchor.sequence), "sum": .string(anchor.sum),
                  "problem": anchorProblem(anchor, in: scan).map(JSONValue.string),
                ])
              }),
        ]).serialized + "\n")
    }
    if let problem {
      return CLI.fail(.refused, "journal \(path) is NOT intact: \(problem)")
    }
    if !json {
      writeStandardOutput(
        "journal \(path) is intact: \(scan.records.count) records, last seq \(scan.lastSequence), last sum \(scan.lastSum)\n"
      )
      for anchor in anchors {
        writeStandardOutput("anchor \(anchor.sequence): record present with that sum\n")
      }
    }
    return .done
  }

  /// Why the journal does not hold `anchor` (nil when it holds that record with that sum).
  static func anchorProblem(_ anchor: JournalHead, in scan: JournalScan) -> String? {
    // Intact records are numbered 1, 2, 3, … so the record is found by position; a damaged
    // journal is searched (it has failed already, this only adds detail).
    let index = Int(clamping: anchor.sequence) - 1
    let record =
      scan.records.indices.contains(index) && scan.records[index].sequence == anchor.sequence
      ? scan.records[index] : scan.records.first { $0.sequence == anchor.sequence }
    guard let record else {
      return
        "anchor \(anchor.sequence): the journal has no record \(anchor.sequence) (it ends at seq \(scan.lastSequence)); "
        + "records after it were cut off or the journal is not the one that printed the anchor"
    }
    guard record.sum == anchor.sum else {
      return
        "anchor \(anchor.sequence): record \(anchor.sequence) has sum \(record.sum), not \(anchor.sum); "
        + "the journal was rewritten from there on or the anchor was mistyped"
    }
    return nil
  }

  static func replay(_ directory: String, day: Int?, receipt: Int?, json: Bool) -> ExitStatus {
    guard let (path, bytes) = read(directory) else { return .refused }
    let scan = JournalScanner.scan(bytes)
    if let damage = scan.damage {
      return CLI.fail(
        .refused, "journal \(path) is damaged: \(damage.description); run register-cli verify")
    }
    if scan.tailLength > 0 {
      writeStandardError(
        "register-cli: note: ignoring a torn tail of \(scan.tailLength) bytes at the end of \(path)\n"
      )
    }
    let showProgress = isatty(2) == 1 && scan.records.count >= 1000
    let total = scan.records.count
    let register: Register
    do {
      register = try Register.replaying(scan.records) { done in
        if showProgress {
          writeStandardError(
            "\rreplaying \(path): \(done * 100 / max(total, 1))% (\(done)/\(total) records)")
        }
      }
    } catch {
      return CLI.fail(.refused, error.description)
    }
    if showProgress {
      writeStandardError("\rreplaying \(path): 100% (\(total)/\(total) records)\n")
    }

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
    let printed = PrintedReceipt.all(ofDay: chosenDay, in: register)
    if json {
      writeStandardOutput(
        JSONValue.object([
          "day": .int(chosenDay),
          "closed": .bool(register.closedDays[chosenDay] != nil),
          "receipts": .array(printed.map(\.reply)),
          "report": ReportRenderer.reply(report),
        ]).serialized + "\n")
    } else {
      for receipt in printed {
        writeStandardOutput(receipt.text + "\n")
      }
      writeStandardOutput(ReportRenderer.text(report))
    }
    return .done
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
enum PrintedReceipt {
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
    let sales = register.receipts.values.filter { $0.day == day }.map(PrintedReceipt.sale)
    let refunds = register.returns.values.filter { $0.day == day }.map(PrintedReceipt.refund)
    return (sales + refunds).sorted { $0.number < $1.number }
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
