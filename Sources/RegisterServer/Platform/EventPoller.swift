#if os(Linux)
  import CPlatform
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Waits for descriptors to become ready, with `poll(2)`'s interface: the loop lists what it
/// wants from each descriptor (a `pollfd` array, a negative descriptor or no events meaning
/// "not now") and gets back what is ready in `revents`.
///
/// On Linux it is `epoll` underneath: the list is compared with what is registered, the
/// differences are sent to the kernel (`epoll_ctl`, only when a connection's interest changes),
/// and the wait costs what is ready, not what is listed. `poll` registers and unregisters a
/// wait on every listed descriptor on every call, which with fifty lane clients was a tenth of
/// the loop's time. Elsewhere it is `poll` itself.
final class EventPoller {
  #if os(Linux)
    private let epollFD: Int32
    /// What the kernel has for each registered descriptor, and the last wait that listed it.
    private var registered: [Int32: (events: UInt32, wait: Int)] = [:]
    private var waits = 0
    /// Where each descriptor of the current list is in it.
    private var positions: [Int32: Int] = [:]
    private var ready = [epoll_event](repeating: epoll_event(), count: 256)
  #endif

  /// Where the kernel refuses an epoll instance (out of descriptors), `poll` is used.
  init() {
    #if os(Linux)
      epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
    #endif
  }

  deinit {
    #if os(Linux)
      if epollFD >= 0 { close(epollFD) }
    #endif
  }

  /// Call before closing a descriptor the loop listed: a later descriptor with the same number
  /// (the next client) must be registered afresh.
  func forget(_ fd: Int32) {
    #if os(Linux)
      guard epollFD >= 0, registered.removeValue(forKey: fd) != nil else { return }
      var unused = epoll_event()
      _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &unused)
    #endif
  }

  /// Waits up to `timeout` milliseconds (-1: for ever) for a listed descriptor to be ready and
  /// sets every entry's `revents`; returns how many entries have any, or -1 with `errno`.
  func wait(_ fds: inout [pollfd], timeout: Int32) -> Int32 {
    #if os(Linux)
      guard epollFD >= 0 else { return poll(&fds, nfds_t(fds.count), timeout) }
      waits += 1
      positions.removeAll(keepingCapacity: true)
      for index in fds.indices {
        fds[index].revents = 0
        let fd = fds[index].fd
        guard fd >= 0, fds[index].events != 0 else { continue }
        positions[fd] = index
        let wanted = UInt32(UInt16(bitPattern: fds[index].events))
        if let known = registered[fd], known.events == wanted {
          registered[fd] = (wanted, waits)
          continue
        }
        var event = epoll_event()
        event.events = wanted
        event.data.fd = fd
        var result = epoll_ctl(
          epollFD, registered[fd] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        if result != 0 && errno == ENOENT {
          result = epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
        } else if result != 0 && errno == EEXIST {
          result = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
        }
        if result == 0 {
          registered[fd] = (wanted, waits)
        } else {
          // Not a descriptor epoll can watch (closed under us): poll would say POLLNVAL.
          registered[fd] = nil
          fds[index].revents = Int16(POLLNVAL)
        }
      }
      // Descriptors no longer listed (a paused listener, a client at its bound) are dropped,
      // so their hang-ups do not wake the loop while they are not asked about.
      for (fd, entry) in registered where entry.wait != waits {
        registered[fd] = nil
        var unused = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &unused)
      }
      let invalid = fds.reduce(0) { $0 + ($1.revents != 0 ? 1 : 0) }
      let count = ready.withUnsafeMutableBufferPointer { buffer in
        epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), invalid > 0 ? 0 : timeout)
      }
      guard count >= 0 else { return -1 }
      var marked = Int32(invalid)
      for slot in 0..<Int(count) {
        guard let index = positions[ready[slot].data.fd] else { continue }
        if fds[index].revents == 0 { marked += 1 }
        fds[index].revents |= Int16(truncatingIfNeeded: ready[slot].events)
      }
      return marked
    #else
      return poll(&fds, nfds_t(fds.count), timeout)
    #endif
  }
}
