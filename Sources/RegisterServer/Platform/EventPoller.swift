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
    /// What is registered with the kernel. One stored property, changed in place by each call:
    /// a class's properties are checked for overlapping access at run time on every access,
    /// and a wait touches these arrays several times per listed descriptor.
    private var interest = Interest()
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
      guard epollFD >= 0 else { return }
      interest.forget(fd, epollFD: epollFD)
    #endif
  }

  /// Waits up to `timeout` milliseconds (-1: for ever) for a listed descriptor to be ready and
  /// sets every entry's `revents`; returns how many entries have any, or -1 with `errno`.
  func wait(_ fds: inout [pollfd], timeout: Int32) -> Int32 {
    #if os(Linux)
      guard epollFD >= 0 else { return poll(&fds, nfds_t(fds.count), timeout) }
      return interest.wait(&fds, timeout: timeout, epollFD: epollFD)
    #else
      return poll(&fds, nfds_t(fds.count), timeout)
    #endif
  }
}

#if os(Linux)
  /// The descriptors registered with an epoll instance, and the wait over them.
  private struct Interest {
    /// Indexed by descriptor number (they are small and dense): what the kernel has for it
    /// (`events`, nil when not registered), the last wait that listed it, and where it is in
    /// the current list. Arrays rather than dictionaries: this is looked at for every listed
    /// descriptor on every pass of the loop.
    private var registered: [UInt32?] = []
    private var listedIn: [Int] = []
    private var position: [Int] = []
    /// Registered descriptors, to find the ones no longer listed without scanning every number.
    private var registeredFDs: [Int32] = []
    private var waits = 0
    private var ready = [epoll_event](repeating: epoll_event(), count: 256)
    /// Linux's default ceiling on descriptor numbers (`fs.nr_open`).
    private static let largestIndexed: Int32 = 1 << 20

    mutating func forget(_ fd: Int32, epollFD: Int32) {
      guard fd >= 0, Int(fd) < registered.count, registered[Int(fd)] != nil else { return }
      unregister(fd, epollFD: epollFD)
    }

    private mutating func grow(to count: Int) {
      registered += [UInt32?](repeating: nil, count: count - registered.count)
      listedIn += [Int](repeating: 0, count: count - listedIn.count)
      position += [Int](repeating: 0, count: count - position.count)
    }

    private mutating func unregister(_ fd: Int32, epollFD: Int32) {
      registered[Int(fd)] = nil
      registeredFDs.removeAll { $0 == fd }
      var unused = epoll_event()
      _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &unused)
    }

    mutating func wait(_ fds: inout [pollfd], timeout: Int32, epollFD: Int32) -> Int32 {
      // Descriptor numbers index arrays here; one past any ordinary limit (only a process
      // whose limit was raised past a million could have it) is left to poll.
      if fds.contains(where: { $0.fd >= Self.largestIndexed }) {
        return poll(&fds, nfds_t(fds.count), timeout)
      }
      waits += 1
      var invalid: Int32 = 0
      for index in fds.indices {
        fds[index].revents = 0
        let fd = fds[index].fd
        guard fd >= 0, fds[index].events != 0 else { continue }
        let slot = Int(fd)
        if slot >= registered.count { grow(to: slot + 1) }
        position[slot] = index
        listedIn[slot] = waits
        let wanted = UInt32(UInt16(bitPattern: fds[index].events))
        let known = registered[slot]
        if known == wanted { continue }
        var event = epoll_event()
        event.events = wanted
        event.data.fd = fd
        var result = epoll_ctl(epollFD, known == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        if result != 0 && errno == ENOENT {
          result = epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
        } else if result != 0 && errno == EEXIST {
          result = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
        }
        if result == 0 {
          if known == nil { registeredFDs.append(fd) }
          registered[slot] = wanted
        } else {
          // Not a descriptor epoll can watch (closed under us): poll would say POLLNVAL.
          if known != nil { unregister(fd, epollFD: epollFD) }
          fds[index].revents = Int16(POLLNVAL)
          invalid += 1
        }
      }
      // Descriptors no longer listed (a paused listener, a client at its bound) are dropped,
      // so their hang-ups do not wake the loop while they are not asked about.
      var kept = 0
      for fd in registeredFDs {
        if listedIn[Int(fd)] == waits {
          registeredFDs[kept] = fd
          kept += 1
        } else {
          registered[Int(fd)] = nil
          var unused = epoll_event()
          _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &unused)
        }
      }
      registeredFDs.removeLast(registeredFDs.count - kept)
      let count = ready.withUnsafeMutableBufferPointer { buffer in
        epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), invalid > 0 ? 0 : timeout)
      }
      guard count >= 0 else { return -1 }
      var marked = invalid
      for slot in 0..<Int(count) {
        let fd = Int(ready[slot].data.fd)
        guard fd < listedIn.count, listedIn[fd] == waits else { continue }
        let index = position[fd]
        if fds[index].revents == 0 { marked += 1 }
        fds[index].revents |= Int16(truncatingIfNeeded: ready[slot].events)
      }
      return marked
    }
  }
#endif
