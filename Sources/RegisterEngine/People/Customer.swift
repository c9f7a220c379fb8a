/// A customer the store knows.
public struct Customer: Sendable, Equatable {
  public var id: String
  public var name: String
  public var email: String?
  public var phone: String?
  /// The number of the customer's tax-exemption certificate: orders they are attached to are
  /// not taxed, and their receipts print the number.
  public var taxExempt: String?

  public init(
    id: String, name: String, email: String?, phone: String?, taxExempt: String? = nil
  ) {
    self.id = id
    self.name = name
    self.email = email
    self.phone = phone
    self.taxExempt = taxExempt
  }

  var json: JSONValue {
    .object([
      "customer_id": .string(id), "name": .string(name), "email": email.map(JSONValue.string),
      "phone": phone.map(JSONValue.string), "tax_exempt": taxExempt.map(JSONValue.string),
    ])
  }

  init(eventJSON json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    id = try fields.required("customer_id")
    name = try fields.required("name")
    email = try fields.optional("email")
    phone = try fields.optional("phone")
    taxExempt = try fields.optional("tax_exempt")
    try fields.rejectUnknown()
  }

  /// The digits of the phone number, for matching however it was typed.
  var phoneDigits: String { (phone ?? "").filter(\.isNumber) }
}

/// E-mail and phone checks, with messages that say what is wrong.
public enum ContactValidation {
  /// A practical check of an address: one "@", a local part of allowed characters, a domain of
  /// dot-separated labels with a letter-only top level, no spaces, at most 254 characters.
  ///
  /// An address that holds something that looks like a card number (`CardNumberMask`) is
  /// refused: an address is stored, journaled, echoed and written into a message's `To:` as it
  /// is, and a masked one would no longer reach anybody.
  public static func validateEmail(_ email: String) throws(RegisterError) {
    // First, and without the address in the message: the message would otherwise show it.
    guard !CardNumberMask.containsCardNumber(email), !holdsSeparatedCardNumber(email) else {
      throw RegisterError(
        .invalidEmail,
        "the e-mail address looks like it holds a card number (12 to 19 digits, alone or in groups joined by single spaces or dashes, that pass the Luhn check); card numbers are never stored, so give another address"
      )
    }
    let fail = { (why: String) in
      RegisterError(.invalidEmail, "\"\(email)\" is not an e-mail address: \(why)")
    }
    // ASCII only, checked on the bytes: the checks below match `Character`s, which compare by
    // canonical equivalence (a Kelvin sign, U+212A, would pass as a "K" and be stored as an
    // address that is not the one it looks like). It makes every count below a byte count.
    guard email.utf8.allSatisfy({ $0 < 0x80 }) else {
      throw fail("use plain ASCII letters, digits and punctuation")
    }
    guard email.utf8.count <= 254 else { throw fail("longer than 254 characters") }
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2 else { throw fail("it needs exactly one @") }
    let local = parts[0]
    let domain = parts[1]
    let localAllowed = Set(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+/=?^_`{|}~-")
    guard !local.isEmpty, local.count <= 64, local.allSatisfy({ localAllowed.contains($0) }),
      !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
    else { throw fail("the part before @ is not valid") }
    let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
    let labelAllowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
    guard labels.count >= 2,
      labels.allSatisfy({
        !$0.isEmpty && $0.count <= 63 && $0.allSatisfy { labelAllowed.contains($0) }
          && !$0.hasPrefix("-") && !$0.hasSuffix("-")
      }),
      let top = labels.last, top.count >= 2, top.allSatisfy(\.isLetter)
    else { throw fail("the domain after @ is not valid (like example.com)") }
  }

  /// True when a run of digits joined by the separators an address allows (`.`, `_`, `+`, `-`)
  /// makes a card number: 4242.4242.4242.4242@example.com, which the masking rule (groups
  /// joined by single spaces or dashes) does not read as one.
  static func holdsSeparatedCardNumber(_ email: String) -> Bool {
    var digits: [UInt8] = []
    for byte in email.utf8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        digits.append(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"):
        continue
      default:
        if CardNumberMask.isCardNumber(digits: digits) { return true }
        digits.removeAll(keepingCapacity: true)
      }
    }
    return CardNumberMask.isCardNumber(digits: digits)
  }

  /// A phone number: digits with optional spaces, dashes, dots, parentheses and a leading +;
  /// 7 to 15 digits in all.
  ///
  /// One whose digits look like a card number is refused (a phone number is stored and shown
  /// as it is, so it cannot be masked): all its digits taken together, or a run of them in
  /// groups joined by single spaces or dashes, that number 12 to 19 and pass the Luhn check
  /// (`CardNumberMask`'s rule). One phone number in ten of 12 to 15 digits passes the check
  /// by chance and is refused too; the message says why, so it can be given without the
  /// country code or left out.
  public static func validatePhone(_ phone: String) throws(RegisterError) {
    let body = phone.hasPrefix("+") ? phone.utf8.dropFirst() : phone.utf8[...]
    // Bytes, not characters: a digit is one ASCII byte, and no other character gets through.
    let allowed = Set("0123456789 -.()".utf8)
    let digits = body.filter { $0 >= 0x30 && $0 <= 0x39 }.map { $0 - 0x30 }
    guard body.allSatisfy({ allowed.contains($0) }), (7...15).contains(digits.count) else {
      throw RegisterError(
        .invalidPhone,
        "\"\(phone)\" is not a phone number: use 7 to 15 digits, with spaces, dashes or a leading +"
      )
    }
    guard !CardNumberMask.isCardNumber(digits: digits), !CardNumberMask.containsCardNumber(phone)
    else {
      throw RegisterError(
        .invalidPhone,
        "the phone number looks like a card number (12 to 19 of its digits pass the Luhn check, as a card number's do); card numbers are never stored, so give it without the country code, or leave it out"
      )
    }
  }
}
