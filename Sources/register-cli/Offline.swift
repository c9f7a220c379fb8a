import RegisterEngine

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
    case .verify(let directory):
      return verify(directory ?? defaultDataDirectory(environment), json: json)
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

  static func verify(_ directory: String, json: Bool) -> ExitStatus {
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
        ]).serialized + "\n")
    }
    if let problem {
      return CLI.fail(.refused, "journal \(path) is NOT intact: \(problem)")
    }
    if !json {
      writeStandardOutput(
        "journal \(path) is intact: \(scan.records.count) records, last seq \(scan.lastSequence), last sum \(scan.lastSum)\n"
      )
    }
    return .done
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
      guard let sale = register.receipts[receipt] else {
        return CLI.fail(.refused, "receipt_not_found: there is no receipt \(receipt) in \(path)")
      }
      if json {
        writeStandardOutput(sale.receiptReply(reprint: false).serialized + "\n")
      } else {
        writeStandardOutput(ReceiptRenderer.text(sale))
      }
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
    let sales = register.receipts.values.filter { $0.day == chosenDay }.sorted {
      $0.receiptNumber < $1.receiptNumber
    }
    if json {
      writeStandardOutput(
        JSONValue.object([
          "day": .int(chosenDay),
          "closed": .bool(register.closedDays[chosenDay] != nil),
          "receipts": .array(sales.map { $0.receiptReply(reprint: false) }),
          "report": ReportRenderer.reply(report),
        ]).serialized + "\n")
    } else {
      for sale in sales {
        writeStandardOutput(ReceiptRenderer.text(sale) + "\n")
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
