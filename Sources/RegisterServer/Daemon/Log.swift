import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How much registerd logs: a message is written when its level is at or above the one in
/// force (`--log-level`, `REGISTERD_LOG_LEVEL`; default `info`).
package enum LogLevel: Int, Comparable, CaseIterable, Sendable {
  // The raw values are the syslog priorities journald reads from a `<N>` prefix.
  case error = 3
  case warning = 4
  case info = 6
  case debug = 7

  /// The name used on the command line and in the log.
  package var name: String {
    switch self {
    case .error: "error"
    case .warning: "warning"
    case .info: "info"
    case .debug: "debug"
    }
  }

  /// The level called `name` (nil: no such level).
  package init?(name: String) {
    guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else {
      return nil
    }
    self = level
  }

  /// More severe levels are smaller, as syslog priorities are.
  package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// registerd's log, on standard error: one line per message.
///
/// Under journald (`JOURNAL_STREAM` names the stream standard error is) each line is
/// `<N>message`, the priority prefix journald understands, with no time (journald adds its
/// own). Otherwise it is `2026-11-23T22:25:01.123+00:00 registerd[PID] info: message`, with
/// the real wall-clock time in the local offset (even when `REGISTERD_FIXED_TIME` freezes the
/// register's clock). Line breaks and other control characters in a message are escaped, so
/// one message is always one line. Nothing is masked here: what a log line quotes of a client's
/// or a file's text comes in errors that were masked as they were made (`ErrorMessage`), and
/// the rest — paths, file names, identifiers — must be quoted exactly to be of use.
package enum Log {
  /// Messages less severe than this are not written.
  nonisolated(unsafe) package static var level: LogLevel = .info
  /// True when standard error is connected to journald.
  nonisolated(unsafe) package static var toJournal = false

  /// Looks at the environment for journald (`JOURNAL_STREAM`). Call once at start-up, before
  /// other threads run.
  package static func configure(environment: [String: String]) {
    toJournal = standardErrorIsJournal(environment["JOURNAL_STREAM"])
  }

  /// True when `journalStream` ("DEVICE:INODE", as systemd sets it) names the file standard
  /// error is open on. A variable inherited from a parent whose standard error went to the
  /// journal, while ours goes elsewhere, does not match (see systemd.exec(5)).
  package static func standardErrorIsJournal(_ journalStream: String?) -> Bool {
    guard let journalStream else { return false }
    let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else {
      return false
    }
    var info = stat()
    guard fstat(2, &info) == 0 else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
  }

  /// Logs a failure that needs someone's attention.
  package static func error(_ message: String) { write(.error, message) }
  /// Logs something wrong that registerd worked around.
  package static func warning(_ message: String) { write(.warning, message) }
  /// Logs an event a store manager looks for (start, day closed, reloads).
  package static func info(_ message: String) { write(.info, message) }
  /// Logs detail for finding a problem (connections opening and closing).
  package static func debug(_ message: String) { write(.debug, message) }

  /// Writes `message` at `level` when that level is logged.
  package static func write(_ level: LogLevel, _ message: String) {
    guard level <= Self.level else { return }
    writeStandardError(line(level, message, journal: toJournal))
  }

  /// The line for `message` at `level`, newline included.
  static func line(_ level: LogLevel, _ message: String, journal: Bool) -> String {
    let text = escaped(message)
    if journal { return "<\(level.rawValue)>\(text)\n" }
    return "\(timestamp()) registerd[\(getpid())] \(level.name): \(text)\n"
  }

  /// `message` with line breaks and other control characters written as `\n`, `\r`, `\t` or
  /// `\xNN`, so that what a message quotes cannot start a line of its own.
  static func escaped(_ message: String) -> String {
    guard message.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return message }
    var result = ""
    result.reserveCapacity(message.utf8.count + 8)
    for scalar in message.unicodeScalars {
      switch scalar.value {
      case 0x0A: result += "\\n"
      case 0x0D: result += "\\r"
      case 0x09: result += "\\t"
      case 0..<0x20, 0x7F:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The wall-clock time now, RFC 3339 with milliseconds and the local UTC offset.
  static func timestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    localtime_r(&seconds, &parts)
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return digits.count >= width
        ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
    let offset = Int(parts.tm_gmtoff)
    let sign = offset < 0 ? "-" : "+"
    let minutes = abs(offset) / 60
    return
      "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
      + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
      + ".\(pad(Int(now.tv_nsec) / 1_000_000, 3))\(sign)\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))"
  }
}
