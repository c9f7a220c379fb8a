import RegisterEngine
import RegisterServer

/// The lane screen's two connections to registerd: one for its requests, one subscribed to
/// the live events (so a change made on another terminal shows at once). When either breaks,
/// both are dropped; `connect` makes them again and subscribes with `after`, so the events
/// since the last one seen come first and none is missed.
final class LaneLink {
  let socketPath: String
  private var requests: RegisterConnection?
  private var events: RegisterConnection?
  /// The `seq` of the last event read.
  private(set) var lastSeen: Int64?
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
    let subscribe = TypedRequest(Requests.Subscribe(after: lastSeen))
    guard case .success(_, let result)? = try? listener.send(subscribe) else { return false }
    if lastSeen == nil { lastSeen = result["after"]?.int64Value }
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
      if let sequence = event["seq"]?.int64Value { lastSeen = sequence }
      if let type = event["event"]?.stringValue { types.append(type) }
    }
    return (types, false)
  }
}
