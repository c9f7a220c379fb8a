import CPlatform

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A thread of its own that runs jobs one after another, at a scheduling niceness of its own
/// (a Dispatch queue's work runs on pool threads shared with the journal writer's, whose
/// priority must not change). For work no client waits on in a hurry (a large read a manager
/// asked for), so that the event loop, and every lane, comes first for the CPU.
final class WorkerThread: @unchecked Sendable {
  private var mutex = pthread_mutex_t()
  private var changed = pthread_cond_t()
  /// Guarded by `mutex`.
  private var jobs: [@Sendable () -> Void] = []
  private var running = false

  /// Starts the thread (nil when the system refuses one). A niceness the system refuses (a
  /// container without the right) leaves the thread at the process's.
  init?(niceness: Int32) {
    pthread_mutex_init(&mutex, nil)
    pthread_cond_init(&changed, nil)
    self.niceness = niceness
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t?
    #endif
    // The thread keeps its worker (it runs for the life of the daemon).
    let context = Unmanaged.passRetained(self).toOpaque()
    let started = pthread_create(
      &thread, &attributes,
      { context in
        guard let context else { return nil }
        Unmanaged<WorkerThread>.fromOpaque(context).takeRetainedValue().run()
        return nil
      }, context)
    guard started == 0 else {
      Unmanaged<WorkerThread>.fromOpaque(context).release()
      return nil
    }
  }

  private let niceness: Int32

  /// Runs `job` after those submitted before it.
  func submit(_ job: @escaping @Sendable () -> Void) {
    pthread_mutex_lock(&mutex)
    jobs.append(job)
    pthread_cond_broadcast(&changed)
    pthread_mutex_unlock(&mutex)
  }

  /// Waits until every job submitted so far has run.
  func waitUntilIdle() {
    pthread_mutex_lock(&mutex)
    while !jobs.isEmpty || running { pthread_cond_wait(&changed, &mutex) }
    pthread_mutex_unlock(&mutex)
  }

  private func run() {
    _ = registerd_set_thread_niceness(niceness)
    while true {
      pthread_mutex_lock(&mutex)
      while jobs.isEmpty { pthread_cond_wait(&changed, &mutex) }
      let job = jobs.removeFirst()
      running = true
      pthread_mutex_unlock(&mutex)
      job()
      pthread_mutex_lock(&mutex)
      running = false
      pthread_cond_broadcast(&changed)
      pthread_mutex_unlock(&mutex)
    }
  }
}
