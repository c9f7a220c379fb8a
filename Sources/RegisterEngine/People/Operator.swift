/// What a cashier or a manager may do.
public enum OperatorRole: String, Sendable, Equatable, CaseIterable {
  case cashier
  case manager
}

/// A salted PBKDF2-HMAC-SHA256 hash of a PIN. The PIN itself is never kept.
public struct PINHash: Sendable, Equatable {
  public var salt: [UInt8]
  public var iterations: Int
  public var hash: [UInt8]

  /// PINs are 4 to 12 digits.
  public static func validate(_ pin: String) throws(RegisterError) {
    guard (4...12).contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else {
      throw RegisterError(.invalidPIN, "a PIN is 4 to 12 digits")
    }
  }

  /// Hashes `pin` with a fresh `salt`.
  public init(pin: String, salt: [UInt8], iterations: Int) {
    self.salt = salt
    self.iterations = iterations
    hash = PBKDF2.deriveKey(password: Array(pin.utf8), salt: salt, iterations: iterations)
  }

  init(salt: [UInt8], iterations: Int, hash: [UInt8]) {
    self.salt = salt
    self.iterations = iterations
    self.hash = hash
  }

  /// True when `pin` is the PIN this hash was made from (compared in constant time). A key
  /// already derived off the event loop for this PIN, salt and iteration count is used when
  /// `prepared` has one; otherwise it is derived here.
  public func matches(_ pin: String, prepared: PreparedPINs = PreparedPINs()) -> Bool {
    let candidate =
      prepared.derivedKey(PINDerivation(pin: pin, salt: salt, iterations: iterations))
      ?? PBKDF2.deriveKey(password: Array(pin.utf8), salt: salt, iterations: iterations)
    return PBKDF2.constantTimeEqual(candidate, hash)
  }

  /// "pbkdf2-sha256$ITERATIONS$SALT_HEX$HASH_HEX", as journaled.
  public var encoded: String {
    "pbkdf2-sha256$\(iterations)$\(hexString(salt))$\(hexString(hash))"
  }

  init?(encoded: String) {
    let parts = encoded.split(separator: "$").map(String.init)
    // The iteration count is bounded as the catalog's pin_hash_iterations is: a journal that
    // says 10^18 would otherwise stall every PIN check for ever.
    guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]),
      (1...10_000_000).contains(iterations), let salt = Self.bytes(hex: parts[2]),
      let hash = Self.bytes(hex: parts[3])
    else { return nil }
    self.init(salt: salt, iterations: iterations, hash: hash)
  }

  static func bytes(hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    var index = 0
    while index < digits.count {
      guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
        return nil
      }
      result.append(high << 4 | low)
      index += 2
    }
    return result
  }

  private static func nibble(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}

/// Someone who works the register.
public struct Operator: Sendable, Equatable {
  public var id: String
  public var name: String
  public var role: OperatorRole
  public var pin: PINHash
  /// Wrong PINs in a row since the last right one.
  public var failedAttempts: Int
  /// Locked by too many wrong PINs (see `Register.isLocked(_:at:)`: a lock expires).
  public var locked: Bool
  /// When the wrong PIN that locked the operator was journaled: the lock expires the store's
  /// `lockout_minutes` after this event time, so replay and recovery agree without a clock.
  public var lockedAt: Timestamp?

  /// Wrong PINs in a row that lock an operator until a manager unlocks them.
  public static let attemptsBeforeLock = 5

  public init(id: String, name: String, role: OperatorRole, pin: PINHash) {
    self.id = id
    self.name = name
    self.role = role
    self.pin = pin
    failedAttempts = 0
    locked = false
    lockedAt = nil
  }

  /// No wrong PINs counted and no lock (a right PIN, an unlock).
  mutating func clearLock() {
    failedAttempts = 0
    locked = false
    lockedAt = nil
  }

  var eventJSON: JSONValue {
    .object([
      "id": .string(id), "name": .string(name), "role": .string(role.rawValue),
      "pin_hash": .string(pin.encoded),
    ])
  }

  init(eventJSON json: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(json, path: path)
    id = try fields.required("id")
    name = try fields.required("name")
    let roleName = try fields.required("role", as: String.self)
    guard let role = OperatorRole(rawValue: roleName) else {
      throw JSONShapeError(path: "\(path).role", message: "unknown role")
    }
    self.role = role
    guard let hash = PINHash(encoded: try fields.required("pin_hash", as: String.self)) else {
      throw JSONShapeError(path: "\(path).pin_hash", message: "not a PIN hash")
    }
    pin = hash
    failedAttempts = 0
    locked = false
    lockedAt = nil
    try fields.rejectUnknown()
  }
}

/// Checks an operator id: 1 to 32 ASCII letters, digits, '-', '_' or '.'.
///
/// Checked byte by byte: a set of `Character`s matches by canonical equivalence, so the
/// Kelvin sign (U+212A) would pass as a "K" and be stored as an id that is not the one it
/// looks like.
func validateOperatorID(_ id: String) throws(RegisterError) {
  let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
  guard !id.isEmpty, id.utf8.count <= 32, id.utf8.allSatisfy({ allowed.contains($0) }) else {
    throw RegisterError(
      .badRequest, "an operator id is 1 to 32 letters, digits, '-', '_' or '.'")
  }
}
