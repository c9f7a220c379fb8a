/// One PBKDF2 derivation a PIN check needs: the candidate PIN with the salt and iteration count
/// of the hash it is compared with.
public struct PINDerivation: Hashable, Sendable {
  public var pin: String
  public var salt: [UInt8]
  public var iterations: Int

  public init(pin: String, salt: [UInt8], iterations: Int) {
    self.pin = pin
    self.salt = salt
    self.iterations = iterations
  }

  /// The derived key (the costly part of a PIN check: `iterations` HMACs).
  public func deriveKey() -> [UInt8] {
    PBKDF2.deriveKey(password: Array(pin.utf8), salt: salt, iterations: iterations)
  }
}

/// The PBKDF2 work a request line carries PINs for, worked out before the line is handled so
/// that the daemon can do it on another thread: the event loop must not stop for the hashing
/// (about 0.13 s a PIN at the default iteration count) while other clients wait.
///
/// The register stays pure: it never starts the work itself. `decide` uses what was prepared
/// when it still fits — the same PIN, salt and iteration count — and otherwise derives the key
/// itself (the state changed in between, e.g. the PIN was set again: rare).
public struct PINWork: Sendable {
  /// Candidate PINs to check against a stored hash (sign-in, a manager's approval).
  public var checks: [PINDerivation]
  /// New PINs to hash with a fresh salt (operator_add, operator_set_pin).
  public var fresh: [PINDerivation]

  public init(checks: [PINDerivation] = [], fresh: [PINDerivation] = []) {
    self.checks = checks
    self.fresh = fresh
  }

  /// True when there is nothing to derive.
  public var isEmpty: Bool { checks.isEmpty && fresh.isEmpty }

  /// Does the work (CPU only, no shared state: safe on any thread).
  public func perform() -> PreparedPINs {
    var prepared = PreparedPINs()
    for check in checks { prepared.keys[check] = check.deriveKey() }
    for new in fresh {
      prepared.hashes[new.pin] = PINHash(pin: new.pin, salt: new.salt, iterations: new.iterations)
    }
    return prepared
  }
}

/// PBKDF2 results computed ahead of `decide` (see `PINWork`).
public struct PreparedPINs: Sendable {
  /// Derived keys of candidate PINs.
  var keys: [PINDerivation: [UInt8]] = [:]
  /// New PIN hashes, by PIN.
  var hashes: [String: PINHash] = [:]

  public init() {}

  /// The key derived for `derivation`, when it was prepared.
  func derivedKey(_ derivation: PINDerivation) -> [UInt8]? { keys[derivation] }

  /// A new hash of `pin` with `iterations`: the prepared one when it matches, else one made now
  /// with a fresh salt from `random`.
  func newHash(pin: String, iterations: Int, random: (Int) -> [UInt8]) -> PINHash {
    if let prepared = hashes[pin], prepared.iterations == iterations { return prepared }
    return PINHash(pin: pin, salt: random(16), iterations: iterations)
  }
}
