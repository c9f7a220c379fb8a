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
