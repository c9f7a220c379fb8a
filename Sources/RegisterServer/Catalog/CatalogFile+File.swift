import RegisterEngine

extension CatalogFile {
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

  private static func read(_ path: String, what: String) throws(CatalogError) -> [UInt8] {
    do {
      return try FileIO.read(path)
    } catch {
      throw CatalogError(file: path, message: "cannot read \(what): \(error.description)")
    }
  }

  /// Writes the catalog atomically (temporary file, fsync, rename, fsync the directory).
  public static func save(_ catalog: Catalog, to path: String) throws(SystemError) {
    try FileIO.writeAtomically(serialize(catalog), to: path)
  }
}
