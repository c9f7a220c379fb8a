/// The outbox e-mailed receipts go to: one message file per `email_receipt`, written by the
/// journal's storage once the group that records the e-mail is durable. (The catalog file is
/// never written: it is an import source.)
struct ReceiptOutbox {
  /// The directory the message files are written in.
  var directory: String

  /// The file an e-mail of receipt `number`, recorded at `sequence`, is written to.
  func path(receipt number: Int, sequence: Int64) -> String {
    "\(directory)/receipt-\(number)-\(sequence).eml"
  }

  /// The files a group's records call for, built from the state after the group: each
  /// e-mailed receipt that `register` holds.
  func effects(of records: [PendingRecord], in register: Register) -> [FileEffect] {
    var effects: [FileEffect] = []
    for record in records {
      guard case .receiptEmailed(let number, let to, let messageID) = record.event,
        let message = Self.message(
          receipt: number, to: to, messageID: messageID, at: record.at, in: register)
      else { continue }
      effects.append(
        FileEffect(
          path: path(receipt: number, sequence: record.sequence), bytes: message, mode: 0o640))
    }
    return effects
  }

  /// The e-mail of receipt `number` (a sale's or a return's), or nil when there is no such
  /// receipt.
  static func message(
    receipt number: Int, to: String, messageID: String, at time: Timestamp, in register: Register
  ) -> [UInt8]? {
    let text: String
    let isReturn: Bool
    let storeName: String
    if let sale = register.receipts[number] {
      text = ReceiptRenderer.text(sale)
      isReturn = false
      storeName = sale.header.storeName
    } else if let refund = register.returns[number] {
      text = ReceiptRenderer.text(refund)
      isReturn = true
      storeName = refund.header.storeName
    } else {
      return nil
    }
    return EmailMessage.render(
      receiptText: text, receiptNumber: number, storeName: storeName,
      from: register.store.emailFrom,
      to: to, messageID: messageID, at: time, isReturn: isReturn)
  }
}
