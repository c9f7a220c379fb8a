import CPlatform

/// The process's heap, as the C library manages it.
enum ProcessMemory {
  /// Gives the memory malloc holds free back to the system (glibc's `malloc_trim(0)`; nothing
  /// elsewhere). It walks every arena, so it is called after large frees, not after each.
  static func returnFree() {
    registerd_return_free_memory()
  }
}
