import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `tender card` as typed: what came on the command line. The number and the CVV belong on
/// the terminal or standard input, not here (anything in argv is visible to `ps` and lands in
/// shell history); the old form that gives them here still works, with a warning.
package struct CardTender: Equatable {
  /// The card number typed on the command line (the old form), or nil to read it.
  package var number: String?
  /// The CVV typed with `--cvv` (the old form), or nil to read it.
  package var cvv: String?
  /// The expiry from `--exp`, or nil to read it after the CVV.
  package var expiry: CardExpiry?
  package var amount: Money?
  /// `--approve MANAGER` (its PIN read after the card's fields) or `--approve MANAGER:PIN`.
  package var approval: Approval?
  /// True when `--approve` gave the PIN too (the old form, which warns).
  package var approvalPINInArguments = false

  package init(
    number: String? = nil, cvv: String? = nil, expiry: CardExpiry? = nil, amount: Money? = nil,
    approval: Approval? = nil
  ) {
    self.number = number
    self.cvv = cvv
    self.expiry = expiry
    self.amount = amount
    self.approval = approval
  }

  /// True when a secret came on the command line (the old form, which warns).
  package var hasSecretInArguments: Bool { number != nil || cvv != nil }

  /// True when the approval's PIN is still to be read.
  package var approvalPINToRead: Bool { approval != nil && !approvalPINInArguments }

  /// A command line as it may be shown back (in an error): a card tender's words after
  /// `card` are left out, as they may hold the number or the CVV.
  package static func redacted(_ line: String) -> String {
    // Split plainly (not as a shell would): a line with a stray quote is still recognised.
    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map {
      $0.trimmingQuotes
    }
    guard words.count > 2, ["tender", "pay"].contains(words[0]), words[1] == "card"
    else { return line }
    return "\(words[0]) card …"
  }

  /// The warning printed once for the old form.
  package static let argumentWarning = """
    register-cli: warning: a card number or CVV on the command line is visible to other users \
    in `ps` and is kept in your shell history; leave them out (`register-cli tender card --exp \
    MM/YY`) and register-cli asks for them without echo, or reads them from standard input, \
    one per line (number, then CVV)

    """
}

/// A card's expiry month and year, as typed (`12/30` or `12/2030`).
package struct CardExpiry: Equatable {
  package var month: Int
  package var year: Int

  package init(month: Int, year: Int) {
    self.month = month
    self.year = year
  }

  /// Reads `MM/YY` or `MM/YYYY`; nil for anything else.
  package init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, (1...2).contains(parts[0].count), [2, 4].contains(parts[1].count),
      let month = Int(parts[0]), let year = Int(parts[1])
    else { return nil }
    self.init(month: month, year: year)
  }
}

/// Why the card could not be read. Messages never contain what was typed.
package struct CardEntryError: Error, Equatable {
  package var message: String
}

/// Completes a card tender from lines read one at a time: the number, then the CVV, then the
/// expiry — each only when it did not come on the command line. The source of the lines is
/// the caller's (the terminal without echo, or standard input), so this is testable alone.
package enum CardEntry {
  /// What is asked for, in order, and whether it is secret (read without echo).
  package enum Field: Equatable {
    case number, cvv, expiry

    package var prompt: String {
      switch self {
      case .number: "Card number: "
      case .cvv: "CVV: "
      case .expiry: "Expiry (MM/YY): "
      }
    }

    package var isSecret: Bool { self != .expiry }
  }

  /// The fields `card` still needs, in the order they are read.
  package static func missing(_ card: CardTender) -> [Field] {
    var fields: [Field] = []
    if card.number == nil { fields.append(.number) }
    if card.cvv == nil { fields.append(.cvv) }
    if card.expiry == nil { fields.append(.expiry) }
    return fields
  }

  /// The tender request for `card`, reading each missing field with `read` (nil: no more
  /// input). Surrounding spaces of a line are dropped; spaces and dashes inside the number
  /// are left for registerd, which accepts them.
  package static func request(
    _ card: CardTender, read: (Field) -> String?
  ) throws(CardEntryError) -> Requests.Tender {
    var card = card
    for field in missing(card) {
      guard let line = read(field) else {
        throw CardEntryError(message: "no \(name(of: field)) given (\(howToGive))")
      }
      let value = trimmed(line)
      guard !value.isEmpty else {
        throw CardEntryError(message: "the \(name(of: field)) was empty")
      }
      switch field {
      case .number: card.number = value
      case .cvv: card.cvv = value
      case .expiry:
        guard let expiry = CardExpiry(value) else {
          throw CardEntryError(message: "the expiry must be MM/YY or MM/YYYY, like 12/30")
        }
        card.expiry = expiry
      }
    }
    guard let number = card.number, let cvv = card.cvv, let expiry = card.expiry else {
      throw CardEntryError(message: "the card is incomplete")
    }
    return Requests.Tender(
      .card(
        CardInput(number: number, expiryMonth: expiry.month, expiryYear: expiry.year, cvv: cvv),
        amount: card.amount))
  }

  static let howToGive =
    "type it when asked, or give the number, the CVV and, without --exp, the expiry on standard input, one per line"

  private static func name(of field: Field) -> String {
    switch field {
    case .number: "card number"
    case .cvv: "CVV"
    case .expiry: "expiry"
    }
  }

  private static func trimmed(_ line: String) -> String {
    var value = Substring(line)
    while let last = value.last, last == " " || last == "\t" || last == "\r" {
      value = value.dropLast()
    }
    while let first = value.first, first == " " || first == "\t" { value = value.dropFirst() }
    return String(value)
  }

  /// Reads one line from `descriptor`, byte by byte (nothing is read past the newline, so the
  /// rest stays for whoever reads next); nil at end of input before any byte.
  package static func readLine(from descriptor: Int32) -> String? {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(descriptor, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
  }
}

/// Reading from the controlling terminal (`/dev/tty`) with the echo off for secrets. The
/// terminal's settings are put back on every path: after the line, on an error, and when a
/// signal (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) ends the program while it waits.
package final class TerminalReader {
  private let descriptor: Int32

  /// Opens the controlling terminal; nil when there is none.
  package init?() {
    let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
  }

  /// Reads from an already open terminal (a test's pseudo-terminal); it is not closed.
  package init(descriptor: Int32) {
    self.descriptor = descriptor
    ownsDescriptor = false
  }

  private var ownsDescriptor = true

  deinit {
    if ownsDescriptor { close(descriptor) }
  }

  /// Prompts on standard error and reads one line; with `echo` false the terminal does not
  /// show what is typed. nil at end of input.
  package func read(prompt: String, echo: Bool) -> String? {
    var saved = termios()
    guard !echo, tcgetattr(descriptor, &saved) == 0 else {
      writeStandardError(prompt)
      return CardEntry.readLine(from: descriptor)
    }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    // ECHONL: the Enter still moves to the next line, so the next prompt starts on its own.
    quiet.c_lflag |= tcflag_t(ECHONL)
    TerminalRestore.arm(descriptor: descriptor, settings: saved)
    defer { TerminalRestore.disarm() }
    // The echo goes off before the prompt shows, so nothing typed after it is echoed; TCSANOW
    // (not TCSAFLUSH) keeps what was typed ahead.
    _ = tcsetattr(descriptor, TCSANOW, &quiet)
    writeStandardError(prompt)
    return CardEntry.readLine(from: descriptor)
  }
}

/// The terminal settings to put back, kept where a signal handler can reach them.
enum TerminalRestore {
  nonisolated(unsafe) static var descriptor: Int32 = -1
  nonisolated(unsafe) static var settings = termios()
  static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
  nonisolated(unsafe) static var previous: [sigaction] = []

  static func arm(descriptor: Int32, settings: termios) {
    Self.settings = settings
    Self.descriptor = descriptor
    previous = signals.map { signal in
      var action = sigaction()
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = restoreAndRaise
      #else
        action.__sigaction_u.__sa_handler = restoreAndRaise
      #endif
      sigemptyset(&action.sa_mask)
      var old = sigaction()
      sigaction(signal, &action, &old)
      return old
    }
  }

  static func disarm() {
    if descriptor >= 0 { tcsetattr(descriptor, TCSANOW, &settings) }
    for (signal, old) in zip(signals, previous) {
      var old = old
      sigaction(signal, &old, nil)
    }
    previous = []
    descriptor = -1
  }
}

/// The signal handler: the terminal's settings back (tcsetattr is async-signal-safe), then the
/// signal again with its default action, so the program ends as it would have.
private func restoreAndRaise(_ signal: Int32) {
  if TerminalRestore.descriptor >= 0 {
    tcsetattr(TerminalRestore.descriptor, TCSANOW, &TerminalRestore.settings)
  }
  var action = sigaction()
  #if canImport(Glibc)
    action.__sigaction_handler.sa_handler = SIG_DFL
  #else
    action.__sigaction_u.__sa_handler = SIG_DFL
  #endif
  sigaction(signal, &action, nil)
  raise(signal)
}

extension Substring {
  /// The word without the quotes around it.
  fileprivate var trimmingQuotes: String {
    String(drop { $0 == "\"" || $0 == "'" }.reversed().drop { $0 == "\"" || $0 == "'" }.reversed())
  }
}
