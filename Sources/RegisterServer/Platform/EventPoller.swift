#if os(Linux)
  import CPlatform
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A descriptor that is ready, and what it is ready for (`poll`'s `revents` bits).
struct ReadyDescriptor {
  var fd: Int32
  var events: Int16
}

/// Values by descriptor number. Descriptors are small and dense, so an array indexed by the
/// number serves them (the loop looks one up for every descriptor that is ready); a number past
/// any ordinary limit (a process whose limit was raised past a million) goes to a dictionary.
struct DescriptorTable<Value> {
  private var small: [Value?] = []
  private var large: [Int32: Value] = [:]
  private static var smallLimit: Int32 { 1 << 20 }

  subscript(fd: Int32) -> Value? {
    get {
      guard fd >= 0 else { return nil }
      if fd < Self.smallLimit { return Int(fd) < small.count ? small[Int(fd)] : nil }
      return large[fd]
    }
    set {
      guard fd >= 0 else { return }
      if fd < Self.smallLimit {
        if Int(fd) >= small.count {
          guard newValue != nil else { return }
          small += [Value?](repeating: nil, count: Int(fd) + 1 - small.count)
        }
        small[Int(fd)] = newValue
      } else {
        large[fd] = newValue
      }
    }
  }

  mutating func removeAll() {
    small.removeAll()
    large.removeAll()
  }
}

/// Waits for descriptors to become ready. The loop says what it wants from a descriptor when
/// that changes (`watch`), not on every pass, and a wait reports only the descriptors that are
/// ready: a pass costs what happened, not what is connected.
///
/// On Linux it is `epoll` underneath: `watch` sends a change to the kernel (`epoll_ctl`) only
/// when the events wanted differ from what is registered, and the wait is level-triggered, as
/// `poll` is. Elsewhere it is `poll` over what is watched.
final class EventPoller {
  /// What is watched, by descriptor (never zero events: those are not watched).
  private var watched = DescriptorTable<Int16>()
  /// The watched descriptors, kept only when the wait is `poll` (no epoll): epoll has its own,
  /// and keeping this one costs a scan of it whenever a descriptor stops being watched.
  private var watchedList: [Int32] = []
  private let usesPoll: Bool
  /// Watched descriptors the kernel would not take (not open): reported as `POLLNVAL`, as
  /// `poll` would.
  private var invalid: Set<Int32> = []
  #if os(Linux)
    private let epollFD: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 256)
  #endif
  private var pollList: [pollfd] = []

  init() {
    #if os(Linux)
      epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
      usesPoll = epollFD < 0
    #else
      usesPoll = true
    #endif
  }

  deinit {
    #if os(Linux)
      if epollFD >= 0 { close(epollFD) }
    #endif
  }

  /// Waits for `fd` to be ready for `events` (`POLLIN`, `POLLOUT`); zero stops watching it.
  /// Hang-ups and errors are reported for a watched descriptor whatever was asked, as `poll`
  /// does.
  func watch(_ fd: Int32, for events: Int16) {
    guard fd >= 0 else { return }
    let known = watched[fd]
    guard known != (events == 0 ? nil : events) else { return }
    if events == 0 {
      watched[fd] = nil
      if !invalid.isEmpty { invalid.remove(fd) }
      if usesPoll { watchedList.removeAll { $0 == fd } }
    } else {
      if usesPoll && known == nil { watchedList.append(fd) }
      watched[fd] = events
    }
    #if os(Linux)
      guard epollFD >= 0 else { return }
      var event = epoll_event()
      event.events = UInt32(UInt16(bitPattern: events))
      event.data.fd = fd
      if events == 0 {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        return
      }
      var result = epoll_ctl(epollFD, known == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
      // The kernel drops a descriptor when it is closed; one closed without `forget` and
      // reused, or one added twice, is put right here.
      if result != 0 && errno == ENOENT {
        result = epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
      } else if result != 0 && errno == EEXIST {
        result = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
      }
      if result != 0 {
        invalid.insert(fd)
      } else if !invalid.isEmpty {
        invalid.remove(fd)
      }
    #endif
  }

  /// Call before closing a watched descriptor: a later descriptor with the same number (the
  /// next client) is then watched afresh.
  func forget(_ fd: Int32) {
    watch(fd, for: 0)
  }

  /// Waits up to `timeout` milliseconds (-1: for ever) for a watched descriptor to be ready,
  /// and puts each ready one in `ready` (emptied first); returns how many, or -1 with `errno`.
  func wait(timeout: Int32, ready: inout [ReadyDescriptor]) -> Int32 {
    ready.removeAll(keepingCapacity: true)
    #if os(Linux)
      if epollFD >= 0 {
        for fd in invalid { ready.append(ReadyDescriptor(fd: fd, events: Int16(POLLNVAL))) }
        let count = events.withUnsafeMutableBufferPointer { buffer in
          epoll_wait(
            epollFD, buffer.baseAddress, Int32(buffer.count), ready.isEmpty ? timeout : 0)
        }
        guard count >= 0 else { return -1 }
        for slot in 0..<Int(count) {
          let fd = events[slot].data.fd
          // A descriptor given up meanwhile (its event was already queued) is not reported.
          guard watched[fd] != nil, invalid.isEmpty || !invalid.contains(fd) else { continue }
          ready.append(
            ReadyDescriptor(fd: fd, events: Int16(truncatingIfNeeded: events[slot].events)))
        }
        return Int32(ready.count)
      }
    #endif
    // `poll` over what is watched (where epoll is missing, or refused an instance).
    pollList.removeAll(keepingCapacity: true)
    for fd in watchedList {
      pollList.append(pollfd(fd: fd, events: watched[fd] ?? 0, revents: 0))
    }
    let count = poll(&pollList, nfds_t(pollList.count), timeout)
    guard count >= 0 else { return -1 }
    for entry in pollList where entry.revents != 0 {
      ready.append(ReadyDescriptor(fd: entry.fd, events: entry.revents))
    }
    return Int32(ready.count)
  }
}
