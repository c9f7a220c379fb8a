import Foundation
import RegisterTestSupport
import Testing

/// A program running in a terminal of its own size under tmux (a server of its own, no user
/// configuration), driven as a person drives it: keys typed (`send-keys`), the screen read
/// back as text (`capture-pane`), the window resized.
final class TmuxScreen {
  private let server: String
  private let tmux: URL

  /// Starts `command` (words, quoted for the shell here) in a `width`×`height` window, with
  /// `environment` set for it.
  init(_ command: [String], width: Int = 80, height: Int = 24, environment: [String: String] = [:])
    throws
  {
    tmux = try ExternalProgram.tmux.located()
    server = "lane-\(getpid())-\(UUID().uuidString.prefix(8))"
    let assignments = environment.sorted { $0.key < $1.key }.map {
      "\($0.key)=\(Self.quoted($0.value))"
    }
    // (NO_COLOR from the test's own environment is not passed on: a test says what it wants.)
    let line = (["exec", "env", "-u", "NO_COLOR"] + assignments + command.map(Self.quoted))
      .joined(separator: " ")
    try run([
      "new-session", "-d", "-s", "lane", "-x", "\(width)", "-y", "\(height)", line,
    ])
    // The window keeps the size asked for, whatever size tmux thinks its client has.
    try run(["set-option", "-t", "lane", "window-size", "manual"])
  }

  deinit { close() }

  /// Stops the program and the tmux server. The program is killed outright first: a process
  /// the test runner starts may inherit blocked signals, and one that never sees tmux's SIGHUP
  /// would keep its server, and itself, running after the test.
  func close() {
    if let pid = try? pid(), pid > 0 { kill(pid, SIGKILL) }
    _ = try? runProgram(tmux, ["-L", server, "kill-server"])
  }

  /// Types `text` as it is (each character a key).
  func type(_ text: String) throws {
    try run(["send-keys", "-t", "lane", "-l", "--", text])
  }

  /// Presses named keys: `Enter`, `Escape`, `F9`, `Up`, `DC` (Delete), `C-c`.
  func press(_ keys: String...) throws {
    try run(["send-keys", "-t", "lane"] + keys)
  }

  /// The screen's rows, trailing spaces taken off.
  func rows() throws -> [String] {
    let result = try runProgram(tmux, ["-L", server, "capture-pane", "-p", "-t", "lane"])
    return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
      String($0.reversed().drop { $0 == " " }.reversed())
    }
  }

  /// The screen as one text, rows joined by newlines.
  func text() throws -> String { try rows().joined(separator: "\n") }

  /// Waits until the screen shows `text` (the screen is read again every 20 ms: tmux tells
  /// nobody when a program draws); throws with the screen as it was after `seconds`.
  @discardableResult
  func waitFor(_ text: String, within seconds: Double = 10) throws -> [String] {
    try waitUntil("the screen shows \"\(text)\"", within: seconds) {
      $0.joined(separator: "\n").contains(text)
    }
  }

  /// Waits until `condition` holds of the screen's rows, and the screen has settled: tmux
  /// takes a large frame (a redraw after a resize) in more than one read, so a capture can show
  /// one half drawn. The rows returned held the condition on two reads 30 ms apart that agreed.
  @discardableResult
  func waitUntil(
    _ what: String, within seconds: Double = 10, _ condition: ([String]) -> Bool
  ) throws -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var rows = try self.rows()
    while true {
      if condition(rows) {
        // Settled means the same on a second read a little later: time must pass between.
        usleep(30_000)
        let again = try self.rows()
        if again == rows || (Date() >= deadline && condition(again)) { return again }
        rows = again
        continue
      }
      guard Date() < deadline else {
        throw HarnessError(
          "timed out waiting until \(what); the screen:\n\(rows.joined(separator: "\n"))")
      }
      // tmux does not say when the screen changes: it is read again every 20 ms.
      usleep(20_000)
      rows = try self.rows()
    }
  }

  /// From now on, every byte the program writes to its terminal is appended to `path` (tmux's
  /// `pipe-pane`), to see how it draws, not only what.
  func recordOutput(to path: String) throws {
    try run(["pipe-pane", "-t", "lane", "-o", "cat >> " + Self.quoted(path)])
  }

  /// Resizes the window (the program gets SIGWINCH).
  func resize(width: Int, height: Int) throws {
    try run(["resize-window", "-t", "lane", "-x", "\(width)", "-y", "\(height)"])
  }

  /// The program's process id.
  func pid() throws -> Int32 {
    let result = try runProgram(
      tmux, ["-L", server, "display-message", "-p", "-t", "lane", "#{pane_pid}"])
    return Int32(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  /// True while the program still runs in its window.
  func isRunning() throws -> Bool {
    let result = try runProgram(
      tmux, ["-L", server, "display-message", "-p", "-t", "lane", "#{pane_dead}"])
    return result.status == 0
      && result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
  }

  private func run(_ arguments: [String]) throws {
    let result = try runProgram(tmux, ["-L", server, "-f", "/dev/null"] + arguments)
    guard result.status == 0 else {
      throw HarnessError("tmux \(arguments.joined(separator: " ")) failed: \(result.stderr)")
    }
  }

  private static func quoted(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
