extension String {
  /// `count` copies of `character` (none when `count` is not positive). The standard
  /// `String(repeating:count:)` appends one character at a time — a third of the time a
  /// receipt took to lay out was spent there — and traps on a negative count; an ASCII
  /// character is written here in one pass.
  init(repeated character: Character, count: Int) {
    guard count > 0 else {
      self = ""
      return
    }
    guard let byte = character.asciiValue else {
      self = String(repeating: String(character), count: count)
      return
    }
    self = String(unsafeUninitializedCapacity: count) { buffer in
      buffer.initialize(repeating: byte)
      return count
    }
  }
}
