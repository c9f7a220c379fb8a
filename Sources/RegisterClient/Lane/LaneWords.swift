import RegisterEngine

/// What the lane screen says when registerd refuses: a sentence for a cashier, chosen by the
/// error's code and read from its data — never an error code. Codes a cashier rarely meets
/// are shown as registerd words them (its messages are written for people too).
enum LaneWords {
  static func said(_ error: ReplyError) -> String {
    let field = { (name: String) in error.data?[name]?.stringValue }
    switch error.code {
    case .unknownBarcode?, .unknownSKU?:
      let code = field("code") ?? field("sku")
      return "No product has the code \(code ?? "scanned"). Scan it again, or type its SKU."
    case .invalidBarcode?:
      return "That barcode did not read right. Scan it again."
    case .notSignedIn?:
      return "Nobody is signed in: press s to sign in."
    case .signedOutIdle?:
      return "You were signed out after a while without a sale: press s to sign in again."
    case .emptyOrder?:
      return "There is nothing on the order yet."
    case .tenderExceedsBalance?:
      return "That is more than is due: only cash gives change."
    case .orderHasTenders?:
      return "Payment has started: the total cannot go down now (void the sale instead)."
    case .storageFailed?:
      return
        "The register cannot save right now: nothing was done. Try again in a moment; if it goes on, call a manager."
    case .approvalRequired?:
      return "This needs a manager's approval."
    case .lineNotFound?:
      return "That line is not on the order any more."
    case .orderNotEmpty?:
      return "Finish or park the order on the screen first."
    case .giftCardNotFound?:
      return "No gift card has that number: check it and try again."
    default:
      return sentence(error.message)
    }
  }

  /// A message of registerd's as a sentence: a capital first, a full stop last.
  static func sentence(_ text: String) -> String {
    guard let first = text.first else { return text }
    let body = first.uppercased() + text.dropFirst()
    return body.hasSuffix(".") || body.hasSuffix(")") ? body : body + "."
  }
}
