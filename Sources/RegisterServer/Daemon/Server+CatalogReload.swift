import RegisterEngine

/// The catalog file read again on SIGHUP, on a thread of its own, and its changes imported
/// (journaled like any change); a bad file is refused and the current catalog kept.
extension Server {
  /// Starts reading the catalog file on its own thread (SIGHUP); one already being read is
  /// followed by another once it is done.
  func startCatalogReload() {
    guard let loadCatalog else { return }
    guard let catalogLoader else {
      // No thread to read it on (out of descriptors for its pipe): read it here.
      notifier?.reloading()
      finishCatalogReload(Result { try loadCatalog() })
      return
    }
    if catalogLoader.isBusy {
      reloadAgain = true
      return
    }
    notifier?.reloading()
    Log.info("SIGHUP: reading the catalog file again")
    catalogLoader.start { Result { try loadCatalog() } }
  }

  /// Imports the catalog the loader read (its changes are journaled like any change).
  func collectCatalog() {
    guard let catalogLoader else { return }
    for result in catalogLoader.takeCompletions() { finishCatalogReload(result) }
    if reloadAgain && !catalogLoader.isBusy {
      reloadAgain = false
      startCatalogReload()
    }
  }

  private func finishCatalogReload(_ result: Result<Catalog, any Error>) {
    switch result {
    case .success(let catalog):
      catalogLoaded(catalog)
    case .failure(let error):
      Log.warning("SIGHUP: not reloading, keeping the current catalog: \(error)")
    }
    journal.startWrite()
    release()
    notifier?.ready(status: readyStatus)
  }
}
