/// Splits a command line the way a shell would for simple cases: spaces separate words,
/// single and double quotes group, a backslash escapes the next character.
func splitWords(_ line: String) throws(UsageError) -> [String] {
  var words: [String] = []
  var current = ""
  var inWord = false
  var quote: Character?
  var escaped = false
  for character in line {
    if escaped {
      current.append(character)
      escaped = false
      continue
    }
    if character == "\\" && quote != "'" {
      escaped = true
      inWord = true
      continue
    }
    if let open = quote {
      if character == open { quote = nil } else { current.append(character) }
      continue
    }
    switch character {
    case "'", "\"":
      quote = character
      inWord = true
    case " ", "\t":
      if inWord {
        words.append(current)
        current = ""
        inWord = false
      }
    default:
      current.append(character)
      inWord = true
    }
  }
  if quote != nil { throw UsageError("unterminated quote") }
  if escaped { throw UsageError("a line cannot end with a backslash") }
  if inWord { words.append(current) }
  return words
}

/// Words for people: one place that says how a count reads.
package enum Words {
  /// `1 item`, `2 items`, `0 items`; `plural` for a noun that does not just take an s
  /// (`1 entry`, `2 entries`).
  package static func count<Count: BinaryInteger>(
    _ count: Count, _ noun: String, plural: String? = nil
  ) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
  }
}
