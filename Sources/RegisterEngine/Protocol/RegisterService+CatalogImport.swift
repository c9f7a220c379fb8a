/// The catalog file imported into the register: at start-up, on SIGHUP (`stageImport`), and
/// later when an import had to wait: for the open order's payment to finish, or for storage
/// to work again after a failure.
extension RegisterService {
  /// What importing the catalog file (at start-up, or on SIGHUP) does to the register now.
  public enum CatalogImport: Equatable {
    /// The register has it already.
    case unchanged
    /// These events import it (new store settings, then the products and promotions): stage
    /// or commit them.
    case changes([Event])
    /// Not yet: it would lower the total of the open order, which payment has started on
    /// (`reason` says how). It is kept, and imported right after the change that leaves the
    /// open order without tenders — its sale completed, or the order voided.
    case deferred(order: Int, reason: String)
    /// Not yet: storage has failed (`reason`), and the register takes no changes. It is kept,
    /// and imported once a write succeeds again.
    case waitsForStorage(reason: String)
    /// Never: it would change the currency of a register that holds amounts
    /// (`Register.currencyChangeRefusal`). Nothing is imported; `reason` says why.
    case refused(reason: String)
  }

  /// Imports `catalog`, the catalog file as read now, into the register it was last imported
  /// into (nil: a register with nothing in it yet). A payment under way is never repriced from
  /// under the cashier: once an order has tenders its total may only go up, and an import that
  /// would lower it waits until that order is done (see `CatalogImport.deferred`). Replaces
  /// any import still waiting: the file as read last is the one that counts.
  public func importCatalog(_ catalog: Catalog, into current: Register?) -> CatalogImport {
    deferredImport = nil
    if let reason = current?.currencyChangeRefusal(to: catalog.store.currency) {
      return .refused(reason: reason)
    }
    let events = Register.startupEvents(for: catalog, current: current)
    guard !events.isEmpty else { return .unchanged }
    if let current, !current.order.tenders.isEmpty {
      do {
        try current.checkOutcome(of: events, at: clock.now())
      } catch {
        deferredImport = catalog
        deferredBecause = "the order being paid to be finished"
        return .deferred(order: current.order.id, reason: error.message)
      }
    }
    return .changes(events)
  }

  /// Imports `catalog`, the catalog file read again (SIGHUP), into the register as it is, and
  /// stages its changes to be written with the next group. While storage has failed it waits
  /// (`waitsForStorage`), and so do changes a failure dropped before they were written: each is
  /// imported, against the register as it is then, once storage works again.
  public func stageImport(_ catalog: Catalog) -> CatalogImport {
    if let storageFailure {
      if let reason = register.currencyChangeRefusal(to: catalog.store.currency) {
        return .refused(reason: reason)
      }
      deferredImport = catalog
      deferredBecause = "storage to work again"
      return .waitsForStorage(reason: storageFailure)
    }
    let outcome = importCatalog(catalog, into: register)
    if case .changes(let events) = outcome {
      stage(events, at: clock.now(), approvedBy: nil)
      stagedImport = (catalog, register.lastSequence)
    }
    return outcome
  }

  /// Stages the waiting catalog import once the open order has no tenders (its sale completed,
  /// or it was voided), computed against the register as it is now.
  func stageDeferredImport(at time: Timestamp) {
    guard let catalog = deferredImport, register.order.tenders.isEmpty, storageFailure == nil
    else { return }
    deferredImport = nil
    let events = Register.startupEvents(for: catalog, current: register)
    guard !events.isEmpty else { return }
    stage(events, at: time, approvedBy: nil)
    stagedImport = (catalog, register.lastSequence)
    onDeferredImport(events, deferredBecause)
  }

  /// Once storage works again: the catalog import that waited for it (or that the failure
  /// dropped), against the register as it is now (it may wait on for an order being paid, as
  /// any import).
  func importWhatWaitedForStorage() {
    if let catalog = deferredImport,
      case .changes(let events) = importCatalog(
        catalog, into: register)
    {
      let because = deferredBecause
      stage(events, at: clock.now(), approvedBy: nil)
      stagedImport = (catalog, register.lastSequence)
      onDeferredImport(events, because)
    }
  }
}
