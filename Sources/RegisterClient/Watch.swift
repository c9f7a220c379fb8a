import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `register-cli watch`: the customer-facing display. Subscribes to live events and prints the
/// order after each change; when registerd goes away it keeps trying to reconnect, and picks
/// up where it left off (`subscribe` with `after`), so no change is missed.
struct Watch {
  let socketPath: String
  let json: Bool
  let topics: [String]
  let count: Int?

  func run() -> ExitStatus {
    let isTerminal = isatty(1) == 1
    var lastSeen: Int64?
    var seen = 0
    var announcedWait = false
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
        show(order(orders), event: nil, terminal: isTerminal)
      } else {
        writeStandardError("register-cli: reconnected to registerd\n")
      }
      // Read events until the connection drops. (Event lines are read by their keys: the
      // display shows a few members of any event type, including ones newer than this client.)
      while let line = try? events.readLine() {
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
          show(order(orders), event: event, terminal: isTerminal)
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

  private func show(_ order: JSONValue?, event: JSONValue?, terminal: Bool) {
    var out = terminal ? "\u{1B}[H\u{1B}[2J" : ""
    if let event {
      let type = event["event"]?.stringValue ?? "?"
      out += "[\(event["seq"].map(Output.describe) ?? "?")] \(type)\n"
      if type == EventType.saleCompleted.rawValue, let number = event["data"]?["receipt"] {
        out +=
          "Thank you! Receipt \(Output.describe(number)), change \(Output.text(event["data"]?["change"]))\n"
      }
    }
    if let order { out += Output.order(order) }
    writeStandardOutput(out + (terminal ? "" : "\n"))
  }
}
