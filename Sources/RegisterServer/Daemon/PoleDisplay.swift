import Dispatch
import RegisterEngine

/// The customer's pole display, driven off the event loop: the loop hands it each new screen
/// (`show`), a worker writes the newest one (screens the worker had no time for are skipped:
/// only the last matters). A display that cannot be reached is logged once and tried again
/// with the next screen; nothing waits for it and nothing is journaled (the screen is a view
/// of the register, not a fact).
package final class PoleDisplay: CustomerDisplayLink, @unchecked Sendable {
  package let address: DeviceAddress
  private let lock = Lock()
  private var latest: [UInt8]?
  private var running = false
  /// Whether the last write reached the display (nil before the first); under `lock`.
  private var reached: Bool?

  package init(address: DeviceAddress) {
    self.address = address
  }

  /// Shows `bytes` (from the loop thread), replacing any screen not yet written.
  package func show(_ bytes: [UInt8]) {
    let start = lock.withLock {
      latest = bytes
      guard !running else { return false }
      running = true
      return true
    }
    if start { DispatchQueue.global().async { [self] in drain() } }
  }

  private func drain() {
    while let bytes = lock.withLock({ () -> [UInt8]? in
      guard let next = latest else {
        running = false
        return nil
      }
      latest = nil
      return next
    }) {
      do {
        try DeviceConnection(address).write(bytes)
        if lock.withLock({ exchange(&reached, true) }) == false {
          Log.info("customer display \(address) is back")
        }
      } catch {
        if lock.withLock({ exchange(&reached, false) }) != false {
          Log.warning("customer display \(address) cannot be reached (\(error)); sales go on")
        }
      }
    }
  }

  package var device: String { address.description }

  package var status: DisplayStatus {
    switch lock.withLock({ reached }) {
    case true?: .ok
    case false?: .offline
    case nil: .unknown
    }
  }
}

/// The old value out, the new one in.
private func exchange<Value>(_ stored: inout Value, _ new: Value) -> Value {
  let old = stored
  stored = new
  return old
}
