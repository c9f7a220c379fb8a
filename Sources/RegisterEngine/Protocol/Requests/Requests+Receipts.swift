// Receipts: reprinting, returns against them, e-mailing them.

extension Requests {
  /// The ops this file declares (a part of `Requests.all`).
  static let receiptOps: [any DecodableRequestBody.Type] = [
    Receipt.self, Print.self, Return.self,
    EmailReceipt.self, GiftCardBalance.self,
  ]

  /// `receipt`: a receipt again (the last one when `number` is nil); with `escpos`, also as
  /// the bytes a receipt printer takes.
  public struct Receipt: RequestBody, Query {
    public static let wireName = "receipt"
    public static let access: OpAccess = .open
    public var number: Int?
    public var escpos: Bool
    public init(number: Int? = nil, escpos: Bool = false) {
      self.number = number
      self.escpos = escpos
    }
    init(from fields: inout RequestFields) throws(RegisterError) {
      number = try fields.receiptNumber("number")
      escpos = try fields.optional("escpos", as: Bool.self) ?? false
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      guard let wanted = number ?? register.lastReceiptNumber else {
        throw RegisterError(.receiptNotFound, "no sale has been completed yet")
      }
      let options = EscPosOptions(store: register.store)
      if let sale = register.receipts[wanted] {
        return .value(
          Replies.withBytes(
            sale.receiptReply(reprint: true),
            escpos ? ReceiptRenderer.escpos(sale, reprint: true, options: options) : nil))
      }
      if let refund = register.returns[wanted] {
        return .value(
          Replies.withBytes(
            refund.receiptReply(reprint: true),
            escpos ? ReceiptRenderer.escpos(refund, reprint: true, options: options) : nil))
      }
      throw RegisterError(.receiptNotFound, "there is no receipt \(wanted)")
    }
    public func encode(to object: inout JSONObject) {
      if let number { object["number"] = .int(number) }
      if escpos { object["escpos"] = .bool(true) }
    }
  }

  /// `print`: a receipt printed again on the receipt printer (the last one when `receipt` is
  /// nil), queued after the jobs already waiting.
  public struct Print: RequestBody, Mutation {
    public static let wireName = "print"
    public static let access: OpAccess = .cashier
    public var receipt: Int?
    public init(receipt: Int? = nil) { self.receipt = receipt }
    init(from fields: inout RequestFields) throws(RegisterError) {
      receipt = try fields.receiptNumber("receipt")
    }
    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decidePrint(receipt: receipt)
    }
    public func encode(to object: inout JSONObject) {
      if let receipt { object["receipt"] = .int(receipt) }
    }
  }

  /// `return`: units of a receipt's lines brought back, refunded to the original tenders.
  public struct Return: RequestBody, Mutation {
    public static let wireName = "return"
    public static let access: OpAccess = .manager(work: "a return")
    public var receipt: Int
    public var lines: [ReturnRequestLine]
    public var reason: String
    /// Where the refund goes: the sale's tenders, or store credit.
    public var refundTo: RefundDestination

    public init(
      receipt: Int, lines: [ReturnRequestLine], reason: String,
      refundTo: RefundDestination = .tenders
    ) {
      self.receipt = receipt
      self.lines = lines
      self.reason = reason
      self.refundTo = refundTo
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      guard let number = try fields.receiptNumber("receipt") else {
        throw RegisterError(.badRequest, "receipt is required")
      }
      receipt = number
      guard let items = try fields.optional("lines", as: [JSONValue].self) else {
        throw RegisterError(.badRequest, "lines is required, like [{\"line\": 1, \"qty\": 1}]")
      }
      lines = []
      for (index, item) in items.enumerated() {
        let path = "lines[\(index)]"
        do {
          var lineFields = RequestFields(
            try JSONFields(item, path: path), currency: fields.currency)
          let line = try lineFields.optional("line", as: Int.self)
          let code = try lineFields.optional("item", as: String.self)
          guard let quantity = try lineFields.quantity("qty") else {
            throw RegisterError(.badRequest, "\(path).qty is required")
          }
          try lineFields.rejectUnknown()
          switch (line, code) {
          case (let line?, nil): lines.append(ReturnRequestLine(line: line, quantity: quantity))
          case (nil, let code?): lines.append(ReturnRequestLine(code: code, quantity: quantity))
          case (.some, .some):
            throw RegisterError(
              .badRequest, "\(path) names a line and an item; give one of them")
          case (nil, nil):
            throw RegisterError(
              .badRequest,
              "\(path) needs line (the receipt's line number) or item (a SKU or barcode on the receipt)"
            )
          }
        } catch let error as RegisterError {
          throw error
        } catch {
          throw RegisterError(
            .badRequest, "\(path) must be an object like {\"line\": 1, \"qty\": 1}")
        }
      }
      reason = try fields.text("reason", required: true) ?? ""
      let destination = try fields.optional("refund_to", as: String.self)
      let customer = try fields.optional("customer_id", as: String.self)
      switch destination {
      case nil, "tenders":
        guard customer == nil else {
          throw RegisterError(
            .badRequest, "customer_id goes with \"refund_to\": \"store_credit\"")
        }
        refundTo = .tenders
      case "store_credit":
        refundTo = .storeCredit(customerID: customer)
      case "cash":
        guard customer == nil else {
          throw RegisterError(
            .badRequest, "customer_id goes with \"refund_to\": \"store_credit\"")
        }
        refundTo = .cash
      case let other?:
        throw RegisterError(
          .badRequest,
          "refund_to must be \"tenders\", \"cash\" or \"store_credit\", got \"\(other)\"")
      }
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      [
        try register.decideReturn(
          receipt: receipt, lines: lines, reason: reason, refundTo: refundTo)
      ]
    }

    public func encode(to object: inout JSONObject) {
      object["receipt"] = .int(receipt)
      object["lines"] = .array(
        lines.map { request in
          switch request.item {
          case .line(let line): .object(["line": .int(line), "qty": .int(request.quantity)])
          case .code(let code): .object(["item": .string(code), "qty": .int(request.quantity)])
          }
        })
      object["reason"] = .string(reason)
      switch refundTo {
      case .tenders: break
      case .cash: object["refund_to"] = .string("cash")
      case .storeCredit(let customer):
        object["refund_to"] = .string("store_credit")
        if let customer { object["customer_id"] = .string(customer) }
      }
    }
  }

  /// `email_receipt`: a receipt written to the outbox as an e-mail (to the customer's
  /// address when `to` is nil).
  public struct EmailReceipt: RequestBody, Mutation {
    public static let wireName = "email_receipt"
    public static let access: OpAccess = .cashier
    public var receipt: Int
    public var to: String?

    public init(receipt: Int, to: String? = nil) {
      self.receipt = receipt
      self.to = to
    }

    init(from fields: inout RequestFields) throws(RegisterError) {
      guard let number = try fields.receiptNumber("receipt") else {
        throw RegisterError(.badRequest, "receipt is required")
      }
      receipt = number
      to = try fields.optional("to")
    }

    func decide(on register: Register, context: CommandContext, standing: inout [Event])
      throws(RegisterError) -> [Event]
    {
      try register.decideEmailReceipt(receipt: receipt, to: to, context: context)
    }

    public func encode(to object: inout JSONObject) {
      object["receipt"] = .int(receipt)
      if let to { object["to"] = .string(to) }
    }
  }

  /// `gift_card_balance`: what is left on a gift card, when it was issued and last used.
  public struct GiftCardBalance: RequestBody, Query {
    public static let wireName = "gift_card_balance"
    public static let access: OpAccess = .open
    public var number: String
    public init(number: String) { self.number = number }
    init(from fields: inout RequestFields) throws(RegisterError) {
      number = try fields.required("number", as: String.self)
    }
    func answer<Source: ReplySource>(
      _ replies: inout Replies, from source: Source, register: inout Register
    ) throws(RegisterError) -> ReplyResult {
      .value(try register.giftCardBalance(number))
    }
    public func encode(to object: inout JSONObject) { object["number"] = .string(number) }
  }
}

// What each receipt op says on the wire.

extension Requests.Receipt {
  public static let summary = "Reprints a receipt: the last one, or `number`."
  public static let fields: [WireField] = [
    .optional("number", .receiptNumber, "the receipt's number or code (default the last)"),
    .optional("escpos", .boolean, "also the receipt as ESC/POS bytes, in base64"),
  ]
  public static let result = WireType.ref("receipt_reply")
}

extension Requests.Print {
  public static let summary = "Sends a receipt (default the last) to the receipt printer."
  public static let fields: [WireField] = [
    .optional("receipt", .receiptNumber, "the receipt's number or code")
  ]
  public static let result = WireType.object(
    [.required("print_job", .ref("print_job"), "the job queued for the printer")])
}

extension Requests.Return {
  public static let summary = "Refunds items of an earlier receipt."
  public static let fields: [WireField] = [
    .required("receipt", .receiptNumber, "the sale's receipt number or code"),
    .required("lines", .array(.ref("return_line")), "what comes back"),
    .required("reason", .string(maxLength: 200), "why"),
    .optional(
      "refund_to", .oneOfStrings(["tenders", "store_credit", "cash"]),
      "where the refund goes (default the sale's tenders)"),
    .optional("customer_id", .text, "refund_to store_credit: whose credit (default the sale's)"),
  ]
  public static let result = WireType.ref("receipt_reply")
}

extension Requests.EmailReceipt {
  public static let summary = "E-mails a receipt (written to the outbox for the mailer)."
  public static let fields: [WireField] = [
    .required("receipt", .receiptNumber, "the receipt's number or code"),
    .optional("to", .text, "the address (default the customer's)"),
  ]
  public static let result = WireType.object([.required("emailed", .ref("emailed"), "the message")])
}

extension Requests.GiftCardBalance {
  public static let summary = "A gift card's balance, and when it was issued and last used."
  public static let fields: [WireField] = [
    .required("number", .string(maxLength: 64), "the gift card's number")
  ]
  public static let result = WireType.object(
    [.required("gift_card", .ref("gift_card"), "the card (its number masked)")])
}
