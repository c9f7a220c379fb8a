import RegisterEngine

extension CatalogFile {
  /// The largest catalog or store file read (64 MiB: a catalog of a hundred thousand
  /// products is a few tens of megabytes). A larger file is refused before it is read: it is
  /// read in one go, on SIGHUP on the event loop, and a file that never ends (a link to
  /// /dev/zero) or a huge one would stall every client and fill the daemon's memory.
  public static let maximumFileSize = 64 << 20

  /// Loads and validates the catalog at `path`; with `storePath`, the store settings come from
  /// that file instead of the catalog's own `store` section.
  public static func load(_ path: String, storePath: String? = nil) throws(CatalogError) -> Catalog
  {
    var store: StoreSettings?
    if let storePath {
      store = try parseStore(read(storePath, what: "the store file"), file: storePath)
    }
    return try parse(read(path, what: "the catalog"), file: path, store: store)
  }

  /// Loads and validates a store file alone.
  public static func loadStore(_ path: String) throws(CatalogError) -> StoreSettings {
    try parseStore(read(path, what: "the store file"), file: path)
  }

  private static func read(_ path: String, what: String) throws(CatalogError) -> [UInt8] {
    do {
      // Links are followed: /etc/registerd/products.json may well be one a deployment
      // tool manages. What they lead to must still be a regular file within the limit.
      return try FileIO.read(path, limit: maximumFileSize)
    } catch {
      throw CatalogError(file: path, message: "cannot read \(what): \(error.description)")
    }
  }

  /// Writes the catalog atomically (temporary file, fsync, rename, fsync the directory).
  public static func save(_ catalog: Catalog, to path: String) throws(SystemError) {
    try FileIO.writeAtomically(serialize(catalog), to: path)
  }
}
