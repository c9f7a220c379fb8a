import RegisterEngine

/// What a store manager looks for in the log among the events just made durable: a day
/// closed, with its totals; an operator locked out by wrong PINs; receipts not queued for a
/// printer that has taken nothing for a long while.
enum BusinessLog {
  /// Logs `committed` if it is one a manager looks for.
  static func log(_ committed: CommittedEvent, of service: RegisterService) {
    // The register is read only for the events logged: a copy of it per event (every part
    // retained and released) cost more than the rest of a `paid_in`'s release.
    switch committed.event {
    case .dayClosed(let day, _, _):
      let register = service.register
      guard let closed = register.dayBook.closedDays[day] else { return }
      let currency = register.store.currency
      func amount(_ minorUnits: Int64) -> String {
        "\(Money(minorUnits: minorUnits, currency: currency).decimalString) \(currency.code)"
      }
      let totals = closed.totals
      Log.info(
        "day \(day) closed: \(totals.salesCount) sale(s), net sales \(amount(totals.netSales)), "
          + "tax \(amount(totals.tax)), total \(amount(totals.total)), "
          + "\(totals.returnsCount) return(s) totalling \(amount(totals.returnsTotal)) (record \(committed.sequence))"
      )
    case .pinFailed(let id):
      // Logged once, by the wrong PIN that locked the operator.
      let register = service.register
      guard let person = register.operators.first(where: { $0.id == id }), person.locked,
        person.lockedAt == committed.at
      else { return }
      Log.warning(
        "operator \(id) locked after \(Operator.attemptsBeforeLock) wrong PINs (for \(register.store.lockoutMinutes) minutes, or until a manager unlocks)"
      )
    case .storeConfigured, .catalogLoaded, .lineAdded, .lineRemoved, .quantitySet, .tenderAdded,
      .discountSet, .priceOverridden, .lineVoided, .orderResumed, .pinAccepted,
      .customerAttached, .customerDetached, .printDone, .saleCompleted, .returnCompleted,
      .orderVoided, .operatorAdded, .operatorRemoved, .operatorPINSet, .operatorUnlocked,
      .signedIn, .signedOut, .customerAdded, .productAdded, .productUpdated, .productRemoved,
      .stockAdjusted, .printQueued, .receiptEmailed, .orderParked, .wishlistAdded,
      .wishlistRemoved, .floatSet, .paidIn, .paidOut, .noSale:
      // Journaled and sent to subscribers; nothing a manager looks for in the log.
      break
    }
  }

  /// Says which receipts of the sales and returns just made durable were not queued for the
  /// printer: past `PrintQueue.maximumPending` jobs waiting (a printer that has taken nothing
  /// for a long while) a sale still completes, but its receipt is not queued (nor its drawer
  /// kick), and the manager needs to know which ones to print again.
  static func warnOfUnqueuedReceipts(_ events: [CommittedEvent], of service: RegisterService) {
    var queued = Set<Int>()
    var completed: [Int] = []
    for committed in events {
      if case .printQueued(let job) = committed.event, case .receipt(let number, _) = job.document {
        queued.insert(number)
      } else if case .saleCompleted(_, let number, _, _, _) = committed.event {
        completed.append(number)
      } else if case .returnCompleted(let refund) = committed.event {
        completed.append(refund.receipt)
      }
    }
    for number in completed where !queued.contains(number) {
      Log.warning(
        "receipt \(number) was not queued for printing: \(PrintQueue.maximumPending) jobs are already waiting for the printer (\((service.printerStatus ?? .unknown).rawValue)); once it prints again, print it with `register-cli print \(number)`"
      )
    }
  }
}
