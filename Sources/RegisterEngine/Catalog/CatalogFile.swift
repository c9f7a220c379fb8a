/// Parses and serializes the catalog file, naming the file, the product and the field in every
/// error. (Reading and writing the file itself is RegisterServer's `CatalogFile.load(_:)` and
/// `save(_:to:)`.)
public enum CatalogFile {
  /// Parses and validates catalog bytes; `file` names the source in errors. With `store` (from
  /// a store file of the lane's own) the catalog's own `store` section is optional and ignored.
  public static func parse(_ bytes: [UInt8], file: String, store: StoreSettings? = nil)
    throws(CatalogError) -> Catalog
  {
    let json = try document(bytes, file: file)
    do {
      return try Catalog(json: json, store: store)
    } catch {
      throw CatalogError(file: file, message: error.description)
    }
  }

  /// Parses a store file: the store settings (name, address, currency, tax, rounding, limits)
  /// kept apart from the products, either as `{"store": {...}}` (the section cut out of a
  /// combined catalog file, as it is) or as the settings object alone.
  public static func parseStore(_ bytes: [UInt8], file: String) throws(CatalogError)
    -> StoreSettings
  {
    let json = try document(bytes, file: file)
    do throws(JSONShapeError) {
      guard case .object(let members) = json else {
        throw JSONShapeError(path: "", message: "must be an object: the store settings")
      }
      if members.count == 1, let wrapped = members["store"] {
        return try StoreSettings(json: wrapped, path: "store")
      }
      if members["products"] != nil {
        throw JSONShapeError(
          path: "products",
          message: "belongs in the catalog file, not the store file (give that with --catalog)")
      }
      return try StoreSettings(json: json, path: "store")
    } catch {
      throw CatalogError(file: file, message: error.description)
    }
  }

  private static func document(_ bytes: [UInt8], file: String) throws(CatalogError) -> JSONValue {
    do {
      return try JSONParser.parse(bytes)
    } catch {
      let (line, column) = position(of: error.offset, in: bytes)
      throw CatalogError(
        file: file, message: "not valid JSON at line \(line), column \(column): \(error.message)")
    }
  }

  /// The catalog as the file stores it: pretty JSON with a final newline.
  public static func serialize(_ catalog: Catalog) -> [UInt8] {
    Array((catalog.json.pretty + "\n").utf8)
  }

  static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    for byte in bytes.prefix(offset) {
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else {
        column += 1
      }
    }
    return (line, column)
  }
}
