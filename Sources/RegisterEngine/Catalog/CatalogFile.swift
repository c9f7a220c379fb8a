/// Parses and serializes the catalog file, naming the file, the product and the field in every
/// error. (Reading and writing the file itself is RegisterServer's `CatalogFile.load(_:)` and
/// `save(_:to:)`.)
public enum CatalogFile {
  /// Parses and validates catalog bytes; `file` names the source in errors.
  public static func parse(_ bytes: [UInt8], file: String) throws(CatalogError) -> Catalog {
    let json: JSONValue
    do {
      json = try JSONParser.parse(bytes)
    } catch {
      let (line, column) = position(of: error.offset, in: bytes)
      throw CatalogError(
        file: file, message: "not valid JSON at line \(line), column \(column): \(error.message)")
    }
    do {
      return try Catalog(json: json)
    } catch {
      throw CatalogError(file: file, message: error.description)
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
