/// A message for people that quotes what a client or a file gave, made safe as it is written:
/// its text is masked (`CardNumberMask`), so a card number typed into the wrong box is never
/// echoed or logged, except the identifiers it names with `\(id:)` — a SKU, a barcode, an
/// operator id — which are quoted as they are, since a masked identifier names nothing.
///
///     RegisterError(.unknownBarcode, "no product has the barcode \(id: code)")
public struct ErrorMessage: ExpressibleByStringInterpolation, Sendable, Equatable {
  /// The message, masked except for its identifiers.
  public let text: String

  /// `text`, all of it masked.
  public init(masking text: String) {
    self.text = CardNumberMask.mask(text)
  }

  /// `text` as it is: a message made already (an error's, quoted in another).
  init(made text: String) {
    self.text = text
  }

  /// True when `text` is written as identifiers are (letters, digits, `-`, `_`, `.`): quoted
  /// as it is, never masked.
  static func isIdentifier(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(Interpolation.isIdentifierByte)
  }

  public init(stringLiteral value: String) {
    self.init(masking: value)
  }

  public init(stringInterpolation: Interpolation) {
    text = stringInterpolation.text + CardNumberMask.mask(stringInterpolation.pending)
  }

  /// Builds a message: literal text and interpolated values are masked, identifiers kept.
  public struct Interpolation: StringInterpolationProtocol {
    /// What is done: masked text and identifiers.
    var text = ""
    /// Text not masked yet (masked as a whole, so that a number split over a literal and a
    /// value is still found).
    var pending = ""

    public init(literalCapacity: Int, interpolationCount: Int) {
      pending.reserveCapacity(literalCapacity + 16 * interpolationCount)
    }

    public mutating func appendLiteral(_ literal: String) {
      pending += literal
    }

    /// A value quoted as text: masked.
    public mutating func appendInterpolation<Value>(_ value: Value) {
      pending += String(describing: value)
    }

    /// An identifier the store or a client chose, quoted as it is. Only a string written as
    /// identifiers are (letters, digits, `-`, `_`, `.`) is one: anything else sent in an
    /// identifier's place ("4242 4242 4242 4242" as a SKU) is text, and masked.
    public mutating func appendInterpolation(id identifier: String) {
      guard ErrorMessage.isIdentifier(identifier) else {
        pending += identifier
        return
      }
      flush()
      text += identifier
    }

    fileprivate static func isIdentifierByte(_ byte: UInt8) -> Bool {
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }

    /// A message made (and masked) already, quoted as it is.
    public mutating func appendInterpolation(message: ErrorMessage) {
      flush()
      text += message.text
    }

    private mutating func flush() {
      text += CardNumberMask.mask(pending)
      pending = ""
    }
  }
}
