/// Text as searches compare it: lower case, with the accents of Latin letters taken off
/// (`José Müller` → `jose muller`, `Ærø` → `aero`, `Straße` → `strasse`), so a cashier typing
/// on a plain keyboard finds the customer. Combining marks (a name stored decomposed) are
/// dropped; other scripts are kept as they are, lower-cased.
enum SearchFold {
  static func fold(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.lowercased().unicodeScalars {
      let value = scalar.value
      if (0x300...0x36F).contains(value) { continue }  // combining diacritical marks
      if value >= 0xDF, value <= 0x17F, let base = latin[Int(value - 0xDF)], !base.isEmpty {
        out.append(contentsOf: base.unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }

  /// U+00DF…U+017F (lower case: the input is lower-cased first) to plain letters; nil keeps
  /// the character.
  private static let latin: [String?] = {
    var table = [String?](repeating: nil, count: 0x17F - 0xDF + 1)
    func set(_ scalar: UInt32, _ base: String) { table[Int(scalar - 0xDF)] = base }
    set(0xDF, "ss")
    for (scalar, base) in zip(0xE0...0xE5, ["a", "a", "a", "a", "a", "a"]) {
      set(UInt32(scalar), base)
    }
    set(0xE6, "ae")
    set(0xE7, "c")
    for scalar in 0xE8...0xEB { set(UInt32(scalar), "e") }
    for scalar in 0xEC...0xEF { set(UInt32(scalar), "i") }
    set(0xF0, "d")
    set(0xF1, "n")
    for scalar in 0xF2...0xF6 { set(UInt32(scalar), "o") }
    set(0xF8, "o")
    for scalar in 0xF9...0xFC { set(UInt32(scalar), "u") }
    set(0xFD, "y")
    set(0xFE, "th")
    set(0xFF, "y")
    // Latin Extended-A: pairs of capital and small letters; the input is lower-cased, but
    // both are listed so the table reads as the block does.
    let extended: [(ClosedRange<UInt32>, String)] = [
      (0x100...0x105, "a"), (0x106...0x10D, "c"), (0x10E...0x111, "d"), (0x112...0x11B, "e"),
      (0x11C...0x123, "g"), (0x124...0x127, "h"), (0x128...0x131, "i"), (0x132...0x133, "ij"),
      (0x134...0x135, "j"), (0x136...0x138, "k"), (0x139...0x142, "l"), (0x143...0x14B, "n"),
      (0x14C...0x151, "o"), (0x152...0x153, "oe"), (0x154...0x159, "r"), (0x15A...0x161, "s"),
      (0x162...0x167, "t"), (0x168...0x173, "u"), (0x174...0x175, "w"), (0x176...0x178, "y"),
      (0x179...0x17E, "z"), (0x17F...0x17F, "s"),
    ]
    for (range, base) in extended {
      for scalar in range { set(scalar, base) }
    }
    return table
  }()
}
