/// A product barcode as printed under the bars: the digits of an EAN-13, a UPC-A or an EAN-8,
/// the last one a correct check digit.
///
/// A UPC-A is an EAN-13 with a leading zero (036000291452 is 0036000291452), so two codes are
/// compared by `key`, their EAN-13 form; an EAN-8 is its own number space. Barcodes are not
/// card numbers, even when their digits pass the Luhn check (one in ten does): they are
/// checked by their own check digit and stored and echoed as they are.
public struct Barcode: Sendable, Equatable, Hashable {
  public enum Kind: String, Sendable {
    case ean13 = "EAN-13"
    case upcA = "UPC-A"
    case ean8 = "EAN-8"
  }

  /// Why a text is not a barcode.
  public enum Problem: Error, Equatable {
    /// Not 8, 12 or 13 ASCII digits.
    case notABarcode
    /// The right length of digits, but the last is not the check digit of the others.
    case badCheckDigit(kind: Kind, expected: Character)
  }

  /// The digits as given (with the check digit).
  public let digits: String
  public let kind: Kind

  /// The form two barcodes are compared by: EAN-13 digits (a UPC-A with its leading zero), or
  /// the EAN-8's own digits.
  public var key: String { kind == .upcA ? "0" + digits : digits }

  /// Reads `text` as a barcode, or says why it is not one.
  public static func parse(_ text: String) -> Result<Barcode, Problem> {
    let bytes = Array(text.utf8)
    guard bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
      return .failure(.notABarcode)
    }
    let kind: Kind
    switch bytes.count {
    case 13: kind = .ean13
    case 12: kind = .upcA
    case 8: kind = .ean8
    default: return .failure(.notABarcode)
    }
    let values = bytes.map { Int($0 - UInt8(ascii: "0")) }
    let expected = checkDigit(of: values.dropLast())
    guard values[values.count - 1] == expected else {
      return .failure(
        .badCheckDigit(kind: kind, expected: Character(String(expected))))
    }
    return .success(Barcode(digits: text, kind: kind))
  }

  /// The check digit of the digits before it: weights 3 and 1 alternating from the right
  /// (the GS1 rule shared by EAN-13, UPC-A and EAN-8).
  static func checkDigit(of digits: ArraySlice<Int>) -> Int {
    var sum = 0
    for (offset, digit) in digits.reversed().enumerated() {
      sum += digit * (offset % 2 == 0 ? 3 : 1)
    }
    return (10 - sum % 10) % 10
  }

  /// True when `text` is the length and kind of a barcode (8, 12 or 13 digits), right or
  /// wrong.
  public static func looksLikeBarcode(_ text: String) -> Bool {
    if case .failure(.notABarcode) = parse(text) { return false }
    return true
  }
}

extension Barcode {
  /// The prefixes GS1 leaves to each store for its own codes (EAN-13 20–29): the ones a store
  /// may name in `price_barcode_prefixes`.
  public static let priceEmbeddedPrefixes: [String] = (20...29).map(String.init)

  /// An EAN-13 that carries a price, read in the common layout `PP IIIII VVVVV C`: prefix,
  /// five digits naming the item, five digits of price in minor units, check digit. The
  /// product carries the item's code with the price digits zero (`base`), so the catalog's
  /// barcode index finds it.
  public struct PriceEmbedded: Sendable, Equatable {
    /// The code with its price digits zero and its check digit recomputed: the product's
    /// barcode.
    public var base: Barcode
    /// The price, in minor units (0–99999).
    public var price: Int64
  }

  /// The price-embedded reading of this code when it is an EAN-13 with one of `prefixes`
  /// and a price that is not zero; nil otherwise (a zero price is the item's own code).
  public func priceEmbedded(prefixes: [String]) -> PriceEmbedded? {
    guard kind == .ean13, prefixes.contains(String(digits.prefix(2))) else { return nil }
    let bytes = Array(digits.utf8)
    var price: Int64 = 0
    for byte in bytes[7..<12] { price = price * 10 + Int64(byte - UInt8(ascii: "0")) }
    guard price > 0 else { return nil }
    var baseDigits = bytes[0..<7].map { Int($0 - UInt8(ascii: "0")) } + [0, 0, 0, 0, 0]
    baseDigits.append(Self.checkDigit(of: baseDigits[...]))
    let text = String(decoding: baseDigits.map { UInt8(ascii: "0") + UInt8($0) }, as: UTF8.self)
    return PriceEmbedded(base: Barcode(digits: text, kind: .ean13), price: price)
  }
}
