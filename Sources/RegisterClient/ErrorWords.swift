import RegisterEngine

/// What register-cli says when registerd refuses a request: chosen by the error's code and
/// read from its `data`, never by matching the daemon's words.
///
/// registerd's messages are shared with raw-socket clients, so their advice names ops and JSON
/// fields (`send approve: {operator, pin}`). For the codes whose advice is what to send, the CLI
/// says instead what to type; every other refusal is shown as registerd worded it (a code this
/// client does not know too).
enum ErrorWords {
  /// The sentence for `error`.
  static func said(_ error: ReplyError) -> String {
    let field = { (name: String) in error.data?[name]?.stringValue }
    switch error.code {
    case .notSignedIn?:
      return "nobody is signed in; sign in first: register-cli sign-in ID"
    case .approvalRequired?:
      guard let needs = field("needs") else { return error.message }
      return
        "\(needs): sign in as a manager, or add --approve MANAGER to the command (the manager types their PIN)"
    case .unknownSKU?:
      guard let sku = field("sku") else { return error.message }
      return "no product has SKU \"\(sku)\"; `register-cli catalog` lists them"
    case .productExists?:
      guard let sku = field("sku") else { return error.message }
      return
        "a product with SKU \"\(sku)\" exists; change it with register-cli product update \(sku) ..."
    case .unknownBarcode?:
      guard let code = field("code") else { return error.message }
      let kind = field("kind").map { "\($0) " } ?? ""
      return
        "no product has the \(kind)barcode \(code); add it with its SKU, or give a product that barcode: register-cli product update SKU --barcode \(code)"
    case .invalidProduct? where error.data?["stock_tracked"] == .bool(false):
      guard let sku = field("sku") else { return error.message }
      return
        "\(sku) does not track stock; set its stock first: register-cli product update \(sku) --stock N"
    default:
      return error.message
    }
  }
}
