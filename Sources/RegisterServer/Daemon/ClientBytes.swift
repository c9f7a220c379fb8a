/// What the daemon holds for its clients, all connections together: the bytes of replies made
/// and not yet written to their sockets (held until durable, queued behind a client that does
/// not read), which `--max-unread-replies` bounds, and how much of that it has let go of since
/// memory was last given back to the system.
///
/// One instance is shared by every `Connection`, and each keeps its share up to date as its
/// replies are made, queued and written, and gives its share back when it closes, so the total
/// is known at every moment without visiting every connection.
final class ClientBytes {
  /// Bytes of replies made and not yet written to the clients' sockets.
  private(set) var unreadReplies = 0
  /// The most `unreadReplies` has been since `takeFreed()` was last called.
  private var peak = 0
  /// Bytes of request lines dropped with their connections since `takeFreed()`.
  private var droppedInput = 0

  /// Replies made, queued, written or dropped: `change` more bytes are held (fewer when
  /// negative).
  func hold(_ change: Int) {
    unreadReplies += change
    if unreadReplies > peak { peak = unreadReplies }
  }

  /// Request lines dropped with their connection.
  func dropped(input bytes: Int) {
    droppedInput += bytes
  }

  /// How much of what was held has been let go of since the last call: the fall of
  /// `unreadReplies` from its peak, and the request lines dropped.
  func takeFreed() -> Int {
    defer {
      peak = unreadReplies
      droppedInput = 0
    }
    return peak - unreadReplies + droppedInput
  }

  /// `takeFreed()` would return at least `bytes`.
  func hasFreed(atLeast bytes: Int) -> Bool {
    peak - unreadReplies + droppedInput >= bytes
  }
}
