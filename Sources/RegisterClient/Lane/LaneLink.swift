import RegisterEngine
import RegisterServer

/// The lane screen's two connections to registerd: one for its requests, one subscribed to
/// the live events (so a change made on another terminal shows at once). When either breaks,
/// both are dropped; `connect` makes them again. It subscribes without `after`: the lane reads
/// the order and the status bar again once subscribed, which covers whatever happened while it
/// was away, and a catch-up could be long, or refused after `register-cli archive`, and keep
/// the lane offline.
final class LaneLink {
  let socketPath: String
  private var requests: RegisterConnection?
  private var events: RegisterConnection?
  private var nextID = 1

  init(socketPath: String) {
    self.socketPath = socketPath
  }

  var isOnline: Bool { requests != nil && events != nil }

  /// The connection whose descriptor to watch for events.
  var eventDescriptor: Int32? { events?.descriptor }

  /// Connects both and subscribes; false when registerd cannot be reached (or refused).
  func connect() -> Bool {
    disconnect()
    guard let made = try? RegisterConnection(socketPath: socketPath),
      let listener = try? RegisterConnection(socketPath: socketPath)
    else { return false }
    guard case .success? = try? listener.send(TypedRequest(Requests.Subscribe())) else {
      return false
    }
    requests = made
    events = listener
    return true
  }

  func disconnect() {
    requests = nil
    events = nil
  }

  /// Sends `request` (with the next id) and reads its reply; nil when the connection broke —
  /// then both are dropped, and the caller sends the same request (its key unchanged) once
  /// `connect` succeeds again.
  func send(_ request: TypedRequest) -> Reply? {
    guard let requests else { return nil }
    var request = request
    request.envelope.id = .int(nextID)
    nextID += 1
    do {
      return try requests.send(request)
    } catch {
      disconnect()
      return nil
    }
  }

  /// The events that have arrived (their types), read without waiting; `lost` when the
  /// connection ended (or registerd said the listener fell behind).
  func takeEvents() -> (types: [String], lost: Bool) {
    guard let events else { return ([], true) }
    var types: [String] = []
    while events.waitForInput(milliseconds: 0) {
      guard let line = try? events.readLine() else {
        disconnect()
        return (types, true)
      }
      guard let event = try? JSONParser.parse(line) else { continue }
      if event["event"] == "error" {
        disconnect()
        return (types, true)
      }
      if let type = event["event"]?.stringValue { types.append(type) }
    }
    return (types, false)
  }
}
