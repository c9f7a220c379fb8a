import RegisterEngine

extension CommandHelp {
  /// The commands of help's section "Catalog and drawer": each declared once — its words, its usage
  /// and help, and (on its first entry) how its arguments are read.
  static let catalogAndDrawer: [CommandHelp] = [
    CommandHelp(
      ["product"],
      "product add SKU --name N --category C --price P [--sale-price S] [--stock N]\n"
        + "              [--tax-class T] [--description D] [--fields '{...}']",
      "--fields: product fields as a JSON object, as in\nthe catalog file; flags override its members",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = try CommandParser.productCommand(&arguments)
        return invocation
      }),
    CommandHelp(
      ["product"], "product update SKU [--price P] [--sale-price S|none] [--stock N] ...",
      "also --name, --description, --category,\n--tax-class, --image, --colors A,B, --barcode\nCODE[,CODE] (none clears) and --fields '{...}'"
    ),
    CommandHelp(["product"], "product remove SKU"),
    CommandHelp(
      ["product"], "product SKU|BARCODE",
      "one product: price, stock and what is available\nhere, and stock at the chain's other stores"
    ),
    CommandHelp(
      ["catalog", "products"], "catalog export [--data-dir DIR] [--to FILE]",
      "the live catalog (current stock included) as a\ncatalog file, from registerd or, with --data-dir,\nfrom the journal offline; registerd never writes\nthe file it imported"
    ),
    CommandHelp(
      ["stock"], "stock adjust SKU DELTA --reason TEXT",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let action = try arguments.positional("adjust")
        guard action == "adjust" else {
          throw UsageError("stock takes: adjust SKU DELTA --reason TEXT")
        }
        let sku = try arguments.positional("SKU")
        let delta = try CommandParser.integer(try arguments.positional("DELTA"), name: "DELTA")
        guard let reason = try arguments.option("--reason") else {
          throw UsageError("stock adjust needs --reason TEXT")
        }
        invocation = CommandParser.request(
          Requests.StockAdjust(sku: sku, delta: delta, reason: reason), .product)
        return invocation
      }),
    CommandHelp(
      ["float"], "float AMOUNT", "the opening float",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let amount = arguments.money(try arguments.positional("AMOUNT"), path: "amount")
        invocation = CommandParser.request(Requests.SetFloat(amount: amount), .drawer)
        return invocation
      }),
    CommandHelp(
      ["paid-in", "paid-out"], "paid-in AMOUNT --reason TEXT | paid-out AMOUNT --reason TEXT",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let amount = arguments.money(try arguments.positional("AMOUNT"), path: "amount")
        guard let reason = try arguments.option("--reason") else {
          throw UsageError("\(name) needs --reason TEXT")
        }
        invocation = CommandParser.request(
          name == "paid-in"
            ? Requests.PaidIn(amount: amount, reason: reason)
            : Requests.PaidOut(amount: amount, reason: reason),
          .drawer)
        return invocation
      }),
    CommandHelp(
      ["no-sale"], "no-sale [--reason TEXT]",
      "open the drawer without a sale (needs a manager)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = CommandParser.request(
          Requests.NoSale(reason: try arguments.option("--reason")), .drawer)
        return invocation
      }),
    CommandHelp(
      ["email"], "email RECEIPT [--to ADDRESS]",
      "e-mail a receipt (to the customer's address by\ndefault): registerd queues it in its outbox;\nalso: receipt N --email ADDRESS",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let receipt = try CommandParser.receiptNumber(
          try arguments.positional("RECEIPT"), name: "RECEIPT")
        invocation = CommandParser.request(
          Requests.EmailReceipt(receipt: receipt, to: try arguments.option("--to")),
          .emailQueued)
        return invocation
      }),
  ]
}
