import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A request that carries PINs, as typed: the PINs belong on the terminal (asked for without
/// echo) or on standard input (one per line), not on the command line, where `ps` and the
/// shell history see them. The old forms (`--pin PIN`, `--approve MANAGER:PIN`) still work,
/// with a warning.
package struct PINRequest: Equatable {
  /// The request as it goes, once the PINs to read are in it.
  package var request: TypedRequest
  package var style: OutputStyle
  /// The op's own PIN, when it is to be read.
  package var pin: PINBody?
  /// The manager named by `--approve MANAGER`, whose PIN is to be read.
  package var approver: String?
  /// True when a PIN came on the command line (the old forms, which warn).
  package var inArguments = false

  package init(
    _ request: TypedRequest, _ style: OutputStyle, pin: PINBody? = nil, approver: String? = nil,
    inArguments: Bool = false
  ) {
    self.request = request
    self.style = style
    self.pin = pin
    self.approver = approver
    self.inArguments = inArguments
  }

  /// The warning printed for the old forms.
  package static let argumentWarning = """
    register-cli: warning: a PIN on the command line is visible to other users in `ps` and is \
    kept in your shell history; leave it out (`register-cli sign-in ID`, `--approve MANAGER`) \
    and register-cli asks for it without echo, or reads it from standard input, one per line

    """

  /// The request with its PINs read by `read` (a prompt, and whether to ask twice at a
  /// terminal, in; the line, or nil at the end of input, out). An approval's PIN is read after
  /// the op's own.
  package func filled(read: (String, Bool) throws(UsageError) -> String?) throws(UsageError)
    -> TypedRequest
  {
    var request = self.request
    if let pin {
      guard let typed = try read(pin.prompt, pin.isNew) else {
        throw UsageError("no PIN given (standard input ended)")
      }
      request.body = pin.body(with: typed)
    }
    if let approver {
      guard let typed = try read(Self.approvalPrompt(approver), false) else {
        throw UsageError("no PIN given for \(approver)'s approval (standard input ended)")
      }
      request.envelope.approval = Approval(operatorID: approver, pin: typed)
    }
    return request
  }

  /// What a cashier's terminal shows when a manager comes over to approve: a wrong PIN here
  /// counts toward that manager's lockout as one at sign-in does.
  package static func approvalPrompt(_ manager: String) -> String {
    "\(manager)'s PIN to approve (a wrong PIN counts toward \(manager)'s lockout): "
  }
}

/// An op whose body carries a PIN, with what it needs besides.
package enum PINBody: Equatable {
  case signIn(operatorID: String)
  case operatorAdd(operatorID: String, name: String, role: OperatorRole)
  case setPIN(operatorID: String)

  /// The prompt for the PIN.
  package var prompt: String {
    switch self {
    case .signIn(let id): "PIN for \(id): "
    case .operatorAdd(let id, _, _): "PIN for the new operator \(id): "
    case .setPIN(let id): "New PIN for \(id): "
    }
  }

  /// True for a PIN being set: at a terminal it is asked for twice.
  package var isNew: Bool {
    switch self {
    case .signIn: false
    case .operatorAdd, .setPIN: true
    }
  }

  /// The request body with `pin`.
  package func body(with pin: String) -> any RequestBody {
    switch self {
    case .signIn(let id): Requests.SignIn(operatorID: id, pin: pin)
    case .operatorAdd(let id, let name, let role):
      Requests.OperatorAdd(operatorID: id, name: name, role: role, pin: pin)
    case .setPIN(let id): Requests.OperatorSetPIN(operatorID: id, pin: pin)
    }
  }
}

/// Reading a secret line: from the terminal without echo when standard input is one, else the
/// next line of standard input (in `batch`, the line after the command).
package enum SecretEntry {
  /// One secret; with `confirm`, at a terminal it is asked for again and must match.
  package static func read(prompt: String, confirm: Bool) throws(UsageError) -> String? {
    guard isatty(0) == 1 else { return readLine(strippingNewline: true) }
    // The controlling terminal, else standard input itself: a terminal either way, so the echo
    // goes off for the secret.
    let terminal = TerminalReader() ?? TerminalReader(descriptor: 0)
    guard let first = terminal.read(prompt: prompt, echo: false) else { return nil }
    guard confirm else { return first }
    guard let again = terminal.read(prompt: "Again: ", echo: false) else { return nil }
    guard again == first else { throw UsageError("the two PINs typed differ; nothing was sent") }
    return first
  }
}
