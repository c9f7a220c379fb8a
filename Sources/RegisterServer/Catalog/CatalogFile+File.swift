import RegisterEngine

extension CatalogFile {
  /// Loads and validates the catalog at `path`.
  public static func load(_ path: String) throws(CatalogError) -> Catalog {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(path)
    } catch {
      throw CatalogError(file: path, message: "cannot read the catalog: \(error.description)")
    }
    return try parse(bytes, file: path)
  }

  /// Writes the catalog atomically (temporary file, fsync, rename, fsync the directory).
  public static func save(_ catalog: Catalog, to path: String) throws(SystemError) {
    try FileIO.writeAtomically(serialize(catalog), to: path)
  }
}
