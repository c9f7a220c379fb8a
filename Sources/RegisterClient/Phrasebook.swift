/// Says registerd's protocol-speaking advice in the CLI's words.
///
/// registerd's messages are shared with raw-socket clients, so they name ops and JSON fields
/// (`send approve: {operator, pin}`). The CLI shows every daemon message through this one
/// table, which swaps such a phrase for what to type at the command line; a message without
/// one is shown as it is.
enum Phrasebook {
  /// Protocol phrase → command-line phrase.
  static let phrases: [(protocol: String, cli: String)] = [
    (
      "send approve: {operator, pin}",
      "add --approve MANAGER to the command (the manager types their PIN)"
    ),
    ("the catalog op lists them", "`register-cli catalog` lists them"),
    ("sign in first (op sign_in)", "sign in first: register-cli sign-in ID"),
    ("; use product_update", "; change it with register-cli product update SKU ..."),
    (
      "give the product that barcode (product_update)",
      "give the product that barcode: register-cli product update SKU --barcode CODE"
    ),
    ("with product_update first", "first: register-cli product update SKU --stock N"),
    ("use kind \"z\" with day", "use register-cli report z --day N"),
  ]

  /// `message` with every protocol phrase replaced.
  static func translate(_ message: String) -> String {
    var out = message
    for phrase in phrases where out.contains(phrase.protocol) {
      out = out.replacingAll(phrase.protocol, with: phrase.cli)
    }
    return out
  }
}

extension String {
  /// Replaces every occurrence of `target` (no Foundation in the CLI).
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var out = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      out += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return out + rest
  }
}
