import RegisterEngine

extension CommandHelp {
  /// The commands of help's section "Ringing up": each declared once — its words, its usage
  /// and help, and (on its first entry) how its arguments are read.
  static let ringingUp: [CommandHelp] = [
    CommandHelp(
      ["lane"], "lane",
      "the cashier's full-screen lane: scan or type codes,\nkeys for quantity, voids, discounts, customers,\nparking, tender, returns and reports; live with\nthe other terminals; reconnects (h: the keys)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        .lane
      }),
    CommandHelp(
      ["catalog", "products"], "catalog [--category C] [--limit N] [--after SKU]",
      "list products, prices and stock (1000 at a time\nunless --limit says; --after the last one shown\nfor the next)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        switch arguments.optionalPositional() {
        case nil:
          let limit = try arguments.option("--limit").map { text throws(UsageError) in
            try CommandParser.integer(text, name: "--limit", as: Int.self)
          }
          let after = try arguments.option("--after")
          let category = try arguments.option("--category")
          invocation = CommandParser.request(
            Requests.Catalog(limit: limit, afterSKU: after),
            category.map(OutputStyle.catalogCategory) ?? .catalog)
        case "export":
          let directory = try arguments.option("--data-dir")
          invocation = .exportCatalog(
            dataDirectory: directory, to: try arguments.option("--to"))
        case let other?:
          throw UsageError("catalog takes no argument but export, not \"\(other)\"")
        }
        return invocation
      }),
    CommandHelp(
      ["show", "order"], "show", "the open order",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = CommandParser.request(Requests.Order(), .order)
        return invocation
      }),
    CommandHelp(
      ["add"], "add SKU [QTY] [--option GROUP=CHOICE ...] [--amount A]",
      "ring up a product (each add is a new line)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        var add = Requests.Add(sku: try arguments.positional("SKU"))
        if let quantity = arguments.optionalPositional() {
          add.quantity = try CommandParser.integer(quantity, name: "QTY")
        }
        add.amount = try arguments.option("--amount").map {
          arguments.money($0, path: "amount")
        }
        while let option = try arguments.option("--option") {
          guard let equals = option.firstIndex(of: "=") else {
            throw UsageError("--option takes GROUP=CHOICE, like --option frame=oak")
          }
          add.options[String(option[..<equals])] = String(
            option[option.index(after: equals)...])
        }
        invocation = CommandParser.request(add, .order)
        return invocation
      }),
    CommandHelp(
      ["scan"], "scan [CODE]",
      "ring up the product a barcode (EAN-13, UPC-A,\nEAN-8) or SKU names; without CODE, scan mode:\nevery line read from standard input is a code",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        guard let code = arguments.optionalPositional() else {
          try arguments.finish()
          return .scanning
        }
        invocation = CommandParser.request(Requests.Scan(code: code), .scanned)
        return invocation
      }),
    CommandHelp(
      ["remove", "rm"], "remove LINE", "take a line off the order",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let line = try CommandParser.integer(
          try arguments.positional("LINE"), name: "LINE", as: Int.self)
        invocation = CommandParser.request(Requests.Remove(line: line), .order)
        return invocation
      }),
    CommandHelp(
      ["qty", "set-qty"], "qty LINE QTY", "change a line's quantity",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let line = try CommandParser.integer(
          try arguments.positional("LINE"), name: "LINE", as: Int.self)
        let quantity = try CommandParser.integer(try arguments.positional("QTY"), name: "QTY")
        invocation = CommandParser.request(
          Requests.SetQty(line: line, quantity: quantity), .order)
        return invocation
      }),
    CommandHelp(
      ["tender", "pay"], "tender cash AMOUNT", "take cash (change is given when over)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        switch try CommandParser.tender(&arguments) {
        case .cash(let cash): invocation = CommandParser.request(cash, .orderOrReceipt)
        case .card(let card): invocation = .cardTender(card)
        }
        return invocation
      }),
    CommandHelp(
      ["tender", "pay"], "tender card [--exp MM/YY] [--amount AMOUNT]",
      "take a card (amount defaults to the balance); the\nnumber and CVV (and the expiry without --exp) are\nasked for without echo, or read from standard\ninput, one per line, when it is not a terminal;\nthe old form `tender card NUMBER --cvv CVV` works\nbut shows them to `ps` and shell history"
    ),
    CommandHelp(
      ["tender", "pay"], "tender gift-card NUMBER [--amount AMOUNT]",
      "pay with a gift card (amount defaults to the lesser\nof its balance and the balance due)"
    ),
    CommandHelp(
      ["tender", "pay"], "tender store-credit CUSTOMER [--amount AMOUNT]",
      "pay with a customer's store credit"),
    CommandHelp(
      ["tender", "pay"], "tender other NAME AMOUNT [--reference R]",
      "take one of the store's own tenders (check,\nvoucher, ...: store setting \"tenders\"); no change"
    ),
    CommandHelp(
      ["tender", "pay"], "tender card-present AMOUNT --brand B --last4 NNNN --auth CODE",
      "record a card payment an external terminal\napproved (no card number reaches registerd)"),
    CommandHelp(
      ["gift-card", "giftcard"], "gift-card balance NUMBER",
      "a gift card's balance, when it was issued and\nlast used",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let action = try arguments.positional("balance|reload")
        switch action {
        case "balance":
          let number = try arguments.positional("NUMBER")
          invocation = CommandParser.request(
            Requests.GiftCardBalance(number: number), .giftCard)
        case "reload":
          let number = try arguments.positional("NUMBER")
          let amount = arguments.money(try arguments.positional("AMOUNT"), path: "amount")
          invocation = CommandParser.request(
            Requests.GiftCardReload(number: number, amount: amount), .order)
        default:
          throw UsageError(
            "gift-card takes balance NUMBER or reload NUMBER AMOUNT, not \"\(action)\"")
        }
        return invocation
      }),
    CommandHelp(
      ["gift-card", "giftcard"], "gift-card reload NUMBER AMOUNT",
      "load AMOUNT onto a gift card, as a line of the\norder (the card has it once the sale completes)"
    ),
    CommandHelp(
      ["discount"], "discount [LINE] (--percent P | --amount A) --reason TEXT",
      "discount a line, or the whole order without LINE\n(0 removes the discount)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let line = try arguments.optionalPositional().map { text throws(UsageError) in
          try CommandParser.integer(text, name: "LINE", as: Int.self)
        }
        let percent = try arguments.option("--percent")
        let amount = try arguments.option("--amount")
        let value: DiscountValue
        switch (percent, amount) {
        case (let percent?, nil): value = .percent(arguments.percent(percent, path: "percent"))
        case (nil, let amount?): value = .amount(arguments.money(amount, path: "amount"))
        default: throw UsageError("discount needs --percent P or --amount A (0 removes it)")
        }
        guard let reason = try arguments.option("--reason") else {
          throw UsageError("discount needs --reason TEXT")
        }
        invocation = CommandParser.request(
          Requests.Discount(line: line, value: value, reason: reason), .order)
        return invocation
      }),
    CommandHelp(
      ["override", "override-price"], "override LINE PRICE --reason TEXT",
      "replace a line's unit price",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let line = try CommandParser.integer(
          try arguments.positional("LINE"), name: "LINE", as: Int.self)
        let price = arguments.money(try arguments.positional("PRICE"), path: "unit_price")
        guard let reason = try arguments.option("--reason") else {
          throw UsageError("override needs --reason TEXT")
        }
        invocation = CommandParser.request(
          Requests.OverridePrice(line: line, unitPrice: price, reason: reason), .order)
        return invocation
      }),
    CommandHelp(
      ["void"], "void [--reason TEXT] [--yes]",
      "cancel the open order and hand back its tenders\n(asked to confirm at a terminal, unless --yes)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let typed = TypedRequest(Requests.Void(reason: try arguments.option("--reason")))
        invocation =
          arguments.flag("--yes")
          ? .request(typed, .order)
          : .confirm(question: "Void the open order and everything on it?", typed, .order)
        return invocation
      }),
    CommandHelp(
      ["void-line", "void_line"], "void-line LINE",
      "void a line: it stays on the order, marked VOID",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let line = try CommandParser.integer(
          try arguments.positional("LINE"), name: "LINE", as: Int.self)
        invocation = CommandParser.request(Requests.VoidLine(line: line), .order)
        return invocation
      }),
    CommandHelp(
      ["park"], "park [--note TEXT]", "set the open order aside and open a new one",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = CommandParser.request(
          Requests.Park(note: try arguments.option("--note")), .order)
        return invocation
      }),
    CommandHelp(
      ["parked"], "parked", "list parked orders",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = CommandParser.request(Requests.Parked(), .parked)
        return invocation
      }),
    CommandHelp(
      ["resume"], "resume ORDER", "bring a parked order back as the open order",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let order = try CommandParser.integer(
          try arguments.positional("ORDER"), name: "ORDER", as: Int.self)
        invocation = CommandParser.request(Requests.Resume(orderID: order), .order)
        return invocation
      }),
    CommandHelp(
      ["return", "refund"], "return RECEIPT ITEM[:QTY]... --reason TEXT",
      "refund items of an earlier receipt (RECEIPT as\nprinted or scanned: 42 or R42); ITEM is a SKU or\nbarcode on it (scan the item), or a line number\n(1-4 digits); refunded to the cards, gift cards\nand other tenders that paid, the rest in cash",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let receipt = try CommandParser.receiptNumber(
          try arguments.positional("RECEIPT"), name: "RECEIPT")
        guard let reason = try arguments.option("--reason") else {
          throw UsageError("return needs --reason TEXT")
        }
        let toStoreCredit = arguments.flag("--to-store-credit")
        let toCash = arguments.flag("--to-cash")
        let customer = try arguments.option("--customer")
        var lines: [ReturnRequestLine] = []
        while let item = arguments.optionalPositional() {
          lines.append(try CommandParser.returnItem(item))
        }
        guard !lines.isEmpty else {
          throw UsageError("return needs at least one ITEM[:QTY] (a SKU, a barcode or a LINE)")
        }
        let refundTo: RefundDestination
        switch (toStoreCredit, toCash) {
        case (true, true): throw UsageError("--to-store-credit and --to-cash: choose one")
        case (true, false): refundTo = .storeCredit(customerID: customer)
        case (false, _) where customer != nil:
          throw UsageError("--customer goes with --to-store-credit")
        case (false, true): refundTo = .cash
        case (false, false): refundTo = .tenders
        }
        invocation = CommandParser.request(
          Requests.Return(receipt: receipt, lines: lines, reason: reason, refundTo: refundTo),
          .receipt)
        return invocation
      }),
    CommandHelp(
      ["return", "refund"],
      "return RECEIPT ITEM[:QTY]... --reason TEXT --to-cash",
      "all in cash (a sale paid otherwise too: only where\nthe store allows it, cash_refunds)"),
    CommandHelp(
      ["return", "refund"],
      "return RECEIPT ITEM[:QTY]... --reason TEXT --to-store-credit [--customer ID]",
      "refund to the store credit of the sale's customer\n(or the one named)"),
    CommandHelp(
      ["watch"], "watch [--topics order,sale,day] [--count N]",
      "the customer display: last item, big total,\nchange and thank-you (plain lines when piped,\nevents with --json); reconnects when registerd\nrestarts",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let topics =
          try arguments.option("--topics").map {
            $0.split(separator: ",").map(String.init)
          } ?? ["order", "sale", "day"]
        let count = try arguments.option("--count").map { text throws(UsageError) in
          let value: Int = try CommandParser.integer(text, name: "--count", as: Int.self)
          guard value > 0 else {
            throw UsageError(
              "--count must be 1 or more (how many events to show), got \(value)")
          }
          return value
        }
        invocation = .watch(topics: topics, count: count)
        return invocation
      }),
    CommandHelp(
      ["receipt", "reprint"], "receipt [NUMBER] [--email ADDRESS]",
      "reprint a receipt (default: the last one)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let number = try arguments.optionalPositional().map { text throws(UsageError) in
          try CommandParser.receiptNumber(text, name: "NUMBER")
        }
        if let address = try arguments.option("--email") {
          guard let number else {
            throw UsageError("receipt --email needs the receipt NUMBER")
          }
          invocation = CommandParser.request(
            Requests.EmailReceipt(receipt: number, to: address), .emailQueued)
        } else if arguments.flag("--escpos") {
          invocation = CommandParser.request(
            Requests.Receipt(number: number, escpos: true), .escpos)
        } else {
          invocation = CommandParser.request(Requests.Receipt(number: number), .receipt)
        }
        return invocation
      }),
    CommandHelp(
      ["print"], "print [NUMBER]",
      "print a receipt again on the receipt printer\n(default: the last one)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let number = try arguments.optionalPositional().map { text throws(UsageError) in
          try CommandParser.receiptNumber(text, name: "NUMBER")
        }
        invocation = CommandParser.request(Requests.Print(receipt: number), .printQueued)
        return invocation
      }),
    CommandHelp(
      ["receipt", "reprint"], "receipt [NUMBER] --escpos > FILE",
      "the receipt as ESC/POS bytes for a receipt printer\n(cat FILE > /dev/usb/lp0)"),
    CommandHelp(
      ["hello", "status"], "hello", "check the daemon is there",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = CommandParser.request(Requests.Hello(), .hello)
        return invocation
      }),
  ]
}
