import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `register-cli watch`: the customer-facing display. Subscribes to live events and shows the
/// `CustomerDisplay` after each change — on a terminal as a full screen (cleared, the total in
/// big digits), else as plain lines without escape codes; with `--json`, the event stream as
/// it comes. When registerd goes away it keeps trying to reconnect, and picks up where it left
/// off (`subscribe` with `after`), so no change is missed.
final class Watch {
  let socketPath: String
  let json: Bool
  let topics: [String]
  let count: Int?
  /// How long the thank-you stays before the welcome comes back (as on the pole display).
  static let thanksMilliseconds = Int32(CustomerDisplay.thanksMilliseconds)
  /// What the terminal shows, so that an update writes only what changed.
  private var screen = FrameWriter(colors: false)

  init(socketPath: String, json: Bool, topics: [String], count: Int?) {
    self.socketPath = socketPath
    self.json = json
    self.topics = topics
    self.count = count
  }

  func run() -> ExitStatus {
    let isTerminal = isatty(1) == 1
    var lastSeen: Int64?
    var seen = 0
    var announcedWait = false
    var display = CustomerDisplay()
    while true {
      guard let events = try? RegisterConnection(socketPath: socketPath),
        let orders = try? RegisterConnection(socketPath: socketPath)
      else {
        if lastSeen == nil && !announcedWait {
          writeStandardError("register-cli: waiting for registerd at \(socketPath)…\n")
          announcedWait = true
        }
        usleep(300_000)
        continue
      }
      let subscribe = TypedRequest(Requests.Subscribe(topics: topics, after: lastSeen))
      guard let reply = try? events.send(subscribe) else { continue }
      guard case .success(_, let result) = reply else {
        return CLI.fail(.refused, "cannot subscribe: \(reply.error?.message ?? "refused")")
      }
      if lastSeen == nil {
        lastSeen = result["after"]?.int64Value ?? 0
        if !json {
          display.store =
            (try? orders.send(TypedRequest(Requests.Hello())))?.result?["store"]?
            .stringValue
          display.apply(event: nil, order: order(orders))
          show(display, terminal: isTerminal)
        }
      } else {
        writeStandardError("register-cli: reconnected to registerd\n")
      }
      // Read events until the connection drops. (Event lines are read by their keys: the
      // display shows a few members of any event type, including ones newer than this client.)
      while true {
        if !json && display.screen == .thanks
          && !events.waitForInput(milliseconds: Self.thanksMilliseconds)
        {
          display.idle()
          show(display, terminal: isTerminal)
          continue
        }
        guard let line = try? events.readLine() else { break }
        guard let event = try? JSONParser.parse(line) else { continue }
        if event["event"] == "error" {
          writeStandardError(
            "register-cli: \(event["error"]?["message"]?.stringValue ?? "disconnected")\n")
          break
        }
        if let sequence = event["seq"]?.int64Value { lastSeen = sequence }
        if json {
          writeStandardOutput(line + "\n")
        } else {
          let before = display
          display.apply(event: event, order: order(orders))
          if display != before { show(display, terminal: isTerminal) }
        }
        seen += 1
        if let count, seen >= count { return .done }
      }
      writeStandardError("register-cli: lost registerd; reconnecting…\n")
      usleep(300_000)
    }
  }

  private func order(_ connection: RegisterConnection) -> JSONValue? {
    (try? connection.send(TypedRequest(Requests.Order())))?.result
  }

  /// On a terminal: only the cells that changed since the last screen are written (the first
  /// screen, and one after a resize, is drawn whole); else the lines, then a blank line.
  private func show(_ display: CustomerDisplay, terminal: Bool) {
    let lines = display.lines(big: terminal)
    guard terminal else {
      writeStandardOutput(lines.joined(separator: "\n") + "\n\n")
      return
    }
    let size = Terminal.size(of: 1)
    var frame = Frame(width: size.columns, height: size.rows)
    for (row, line) in lines.enumerated() { frame.put(line, row: row) }
    writeStandardOutput(screen.update(to: frame))
  }
}
