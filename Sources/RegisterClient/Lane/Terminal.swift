import CPlatform
import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal a full-screen program runs on: raw input (no echo, no line editing, Ctrl-C
/// read as a key), the alternate screen, the cursor hidden, mouse reports on — and all of it
/// put back on every way out: a normal exit, Ctrl-C, SIGTERM or SIGHUP (reported on
/// `signals` and ended by the program's loop) and a crash (restored by the C handler, see
/// CPlatform.h). Escape sequences and termios only.
final class Terminal {
  let input: Int32
  let output: Int32
  /// Reported signals, one byte each (the signal's number): SIGWINCH, SIGINT, SIGTERM, SIGHUP.
  let signals: Int32
  private let signalWrite: Int32
  private var saved = termios()
  private var active = false

  /// Entering: the alternate screen, the cursor hidden, SGR mouse reports of presses.
  static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1006h\u{1B}[0m\u{1B}[2J"
  /// Leaving: every one of those undone, in reverse.
  static let leave = "\u{1B}[0m\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"

  /// The terminal on `input` and `output`; nil when `input` is not a terminal.
  init?(input: Int32 = 0, output: Int32 = 1) {
    guard isatty(input) == 1, isatty(output) == 1 else { return nil }
    self.input = input
    self.output = output
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    signals = ends[0]
    signalWrite = ends[1]
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
  }

  deinit {
    restore()
    close(signals)
    close(signalWrite)
  }

  /// Raw mode and the full screen. Throws when the terminal's settings cannot be read or set.
  func start() throws(SystemError) {
    guard tcgetattr(input, &saved) == 0 else { throw SystemError("tcgetattr") }
    let leave = Array(Self.leave.utf8).map { CChar(bitPattern: $0) }
    guard registerd_terminal_arm(output, &saved, leave, Int32(leave.count), signalWrite) == 0
    else { throw SystemError("sigaction") }
    var raw = saved
    // No echo, no line editing, no signals from keys (Ctrl-C is a key), no flow control, CR
    // not turned into LF (Enter is read as it comes, from a keyboard or a scanner).
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | BRKINT | INPCK | ISTRIP)
    raw.c_cflag |= tcflag_t(CS8)
    withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
      bytes[Int(VMIN)] = 1
      bytes[Int(VTIME)] = 0
    }
    guard tcsetattr(input, TCSANOW, &raw) == 0 else {
      registerd_terminal_disarm()
      throw SystemError("tcsetattr")
    }
    active = true
    write(Self.enter)
  }

  /// The terminal as it was (once; later calls do nothing).
  func restore() {
    guard active else { return }
    active = false
    registerd_terminal_disarm()
  }

  /// Columns and rows (80×24 when the terminal does not say).
  var size: (columns: Int, rows: Int) { Self.size(of: output) }

  /// The size of the terminal on `descriptor` (80×24 when it does not say).
  static func size(of descriptor: Int32) -> (columns: Int, rows: Int) {
    var window = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0
    else { return (80, 24) }
    return (Int(window.ws_col), Int(window.ws_row))
  }

  /// Writes `text` whole (a full screen is one write where the kernel takes it).
  func write(_ text: String) {
    guard !text.isEmpty else { return }
    try? FileIO.writeAll(output, Array(text.utf8))
  }

  /// Reads what the keyboard has sent (at most 4 KiB); empty at end of input.
  func readKeys() -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { raw in
      retryingOnInterrupt { read(input, raw.baseAddress, raw.count) }
    }
    return count > 0 ? Array(buffer[0..<count]) : []
  }

  /// The signals reported since the last call.
  func takeSignals() -> [Int32] {
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = buffer.withUnsafeMutableBytes { raw in
      read(signals, raw.baseAddress, raw.count)
    }
    return count > 0 ? buffer[0..<count].map { Int32($0) } : []
  }
}
