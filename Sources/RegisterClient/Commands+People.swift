import RegisterEngine

extension CommandHelp {
  /// The commands of help's section "People (once an operator exists, changes need someone signed in)": each declared once — its words, its usage
  /// and help, and (on its first entry) how its arguments are read.
  static let people: [CommandHelp] = [
    CommandHelp(
      ["setup"], "setup [--store-name NAME] [--tax-rate PERCENT] [--currency CODE]",
      "first run of an installed register, which serves\nnothing until it is set up: the store's name, tax\nrate and currency (default USD), and its first\nmanager; what is not given is asked for, or read\nfrom standard input one per line",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = .setup(
          SetupAnswers(
            storeName: try arguments.option("--store-name"),
            taxRate: try arguments.option("--tax-rate"),
            currency: try arguments.option("--currency"),
            managerID: try arguments.option("--manager"),
            managerName: try arguments.option("--manager-name")))
        return invocation
      }),
    CommandHelp(
      ["setup"], "setup [--manager ID] [--manager-name NAME]",
      "the first manager; the PIN is asked for without\necho (twice), or read from standard input"
    ),
    CommandHelp(
      ["operator"], "operator add ID --name NAME --role cashier|manager",
      "the new operator's PIN is asked for without echo\n(twice), or read from standard input",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = try CommandParser.operatorCommand(&arguments)
        return invocation
      }),
    CommandHelp(["operator"], "operator list | remove ID | set-pin ID | unlock ID"),
    CommandHelp(
      ["operator"], "operator unlock ID --data-dir DIR",
      "with registerd stopped: the owner's way to unlock\n(e.g. the last manager), journaled offline"
    ),
    CommandHelp(
      ["sign-in", "signin", "login"], "sign-in ID",
      "sign in at the register; the PIN is asked for\nwithout echo, or read from standard input (the\nold `--pin PIN` works but shows it to `ps`)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let id = try arguments.positional("OPERATOR")
        invocation = try CommandParser.pinRequest(
          .signIn(operatorID: id), given: arguments.option("--pin"),
          style: .message("Signed in as \(id)."))
        return invocation
      }),
    CommandHelp(
      ["sign-out", "signout", "logout"], "sign-out",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = CommandParser.request(Requests.SignOut(), .message("Signed out."))
        return invocation
      }),
    CommandHelp(
      ["--approve"], "--approve MANAGER",
      "(on any command) a manager's approval; the manager\ntypes their PIN when asked (a wrong one counts\ntoward their lockout)"
    ),
    CommandHelp(
      ["customer"], "customer add NAME [--email E] [--phone P] [--tax-exempt CERTIFICATE]",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = try CommandParser.customerCommand(&arguments)
        return invocation
      }),
    CommandHelp(
      ["customer"], "customer find QUERY [--limit N] | attach ID | detach | history ID"),
    CommandHelp(
      ["wishlist"], "wishlist CUSTOMER_ID",
      "a customer's wishlist, with what is in stock here\nand at other stores",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        invocation = try CommandParser.wishlistCommand(&arguments)
        return invocation
      }),
    CommandHelp(
      ["wishlist"], "wishlist add|remove CUSTOMER_ID SKU",
      "put a product on the wishlist (in stock or not),\nor take it off"),
    CommandHelp(
      ["wishlist"], "wishlist to-order CUSTOMER_ID SKU",
      "one unit onto the open order, off the wishlist\n(it stays on the list when out of stock)"
    ),
  ]
}
