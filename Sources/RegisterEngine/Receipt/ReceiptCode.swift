/// The receipt number as a barcode carries it, so a return or a reprint can be scanned off the
/// paper: `R` and the number ("R42"). Read back, `R42`, `r42`, `R000042` and a bare `42` all
/// name receipt 42.
public enum ReceiptCode {
  /// The text a receipt's barcode carries.
  public static func text(for number: Int) -> String { "R\(number)" }

  /// The receipt number in a scanned or typed code, or nil when it is not one.
  public static func number(in code: String) -> Int? {
    var digits = Substring(code)
    if let first = digits.first, first == "R" || first == "r" { digits = digits.dropFirst() }
    guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
    else { return nil }
    guard let number = Int(digits), number >= 1,
      Int64(number) <= IntegerRanges.maximumCounter
    else { return nil }
    return number
  }
}
