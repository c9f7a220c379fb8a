import RegisterEngine

/// A command-line problem: exit status 2, with the message and the command it concerns (whose
/// usage is printed with it).
package struct UsageError: Error, Equatable {
  package var message: String
  /// The command word, when it is one the parser knows.
  package var command: String?

  package init(_ message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }
}

/// How to print a successful reply for people.
package enum OutputStyle: Equatable {
  case order
  case orderOrReceipt
  case receipt
  case catalog
  case hello
  case report
  case parked
  case operators
  case customers
  case history
  case product
  case drawer
  /// An e-mail written to registerd's outbox (sending it is the mail system's job).
  case emailQueued
  case message(String)
  case plain(String)
}

/// Commands that read the data directory directly, without a daemon.
package enum LocalCommand: Equatable {
  case verify(dataDirectory: String?, anchors: [JournalHead])
  case replay(dataDirectory: String?, day: Int?, receipt: Int?)
  /// The owner's recovery, with registerd stopped: journal an operator's unlock.
  case unlockOperator(id: String, dataDirectory: String)
}

/// What one command line asks for.
package enum Invocation: Equatable {
  /// A request to the daemon, and how to print its result.
  case request(JSONObject, OutputStyle)
  /// Read commands from standard input; stop at the first refused line unless `keepGoing`.
  case batch(keepGoing: Bool)
  /// Work on the journal offline.
  case local(LocalCommand)
  /// Write the live catalog as a catalog file: from the daemon, or replayed from a data
  /// directory offline; to standard output or (atomically) to a file.
  case exportCatalog(dataDirectory: String?, to: String?)
  /// Follow the order live (the customer display).
  case watch(topics: [String], count: Int?)
  /// The full help, or one command's.
  case help(command: String?)
  /// register-cli's version.
  case version
}

/// Turns words into an invocation. The command names and their arguments are listed in
/// `CommandHelp.sections`.
package enum CommandParser {
  /// Parses a command line (global options already taken out). A usage error names the
  /// command, so that its usage can be shown with the message.
  package static func parse(_ words: [String]) throws(UsageError) -> Invocation {
    guard let name = words.first else { throw UsageError("no command given") }
    let isKnown = !CommandHelp.entries(for: name).isEmpty
    // `COMMAND --help` is the help of that command, whatever else is on the line.
    if isKnown, words.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
      return .help(command: name)
    }
    do {
      return try parseCommand(name, ArgumentList(Array(words.dropFirst()), command: name))
    } catch {
      var error = error
      // (An unknown topic of `help` is about the topic, not about `help`.)
      if error.command == nil && isKnown && name != "help" { error.command = name }
      throw error
    }
  }

  private static func parseCommand(
    _ name: String, _ arguments: ArgumentList
  ) throws(UsageError) -> Invocation {
    var arguments = arguments
    var invocation: Invocation
    switch name {
    case "help", "-h", "--help":
      let topic = arguments.optionalPositional()
      try arguments.finish()
      if let topic, CommandHelp.entries(for: topic).isEmpty {
        throw unknownCommand(topic)
      }
      return .help(command: topic)
    case "--version", "version":
      try arguments.finish()
      return .version
    case "-", "batch":
      let keepGoing = arguments.flag("--keep-going")
      try arguments.finish()
      return .batch(keepGoing: keepGoing)
    case "hello", "status":
      invocation = .request(request("hello"), .hello)
    case "catalog", "products":
      switch arguments.optionalPositional() {
      case nil:
        invocation = .request(request("catalog"), .catalog)
      case "export":
        let directory = try arguments.option("--data-dir")
        invocation = .exportCatalog(dataDirectory: directory, to: try arguments.option("--to"))
      case let other?:
        throw UsageError("catalog takes no argument but export, not \"\(other)\"")
      }
    case "show", "order":
      invocation = .request(request("order"), .order)
    case "add":
      let sku = try arguments.positional("SKU")
      var object = request("add", ["sku": .string(sku)])
      if let quantity = arguments.optionalPositional() {
        object["qty"] = try integer(quantity, name: "QTY")
      }
      var options = JSONObject()
      while let option = try arguments.option("--option") {
        guard let equals = option.firstIndex(of: "=") else {
          throw UsageError("--option takes GROUP=CHOICE, like --option frame=oak")
        }
        options[String(option[..<equals])] = .string(String(option[option.index(after: equals)...]))
      }
      if !options.isEmpty { object["options"] = .object(options) }
      invocation = .request(object, .order)
    case "remove", "rm":
      let line = try integer(try arguments.positional("LINE"), name: "LINE")
      invocation = .request(request("remove", ["line": line]), .order)
    case "qty", "set-qty":
      let line = try integer(try arguments.positional("LINE"), name: "LINE")
      let quantity = try integer(try arguments.positional("QTY"), name: "QTY")
      invocation = .request(request("set_qty", ["line": line, "qty": quantity]), .order)
    case "tender", "pay":
      invocation = .request(try tender(&arguments), .orderOrReceipt)
    case "void":
      var object = request("void")
      if let reason = try arguments.option("--reason") { object["reason"] = .string(reason) }
      invocation = .request(object, .order)
    case "receipt", "reprint":
      var object = request("receipt")
      if let number = arguments.optionalPositional() {
        object["number"] = try integer(number, name: "NUMBER")
      }
      if let address = try arguments.option("--email") {
        guard let number = object["number"] else {
          throw UsageError("receipt --email needs the receipt NUMBER")
        }
        invocation = .request(
          request("email_receipt", ["receipt": number, "to": .string(address)]),
          .emailQueued)
      } else {
        invocation = .request(object, .receipt)
      }
    case "discount":
      var object = request("discount")
      if let line = arguments.optionalPositional() {
        object["line"] = try integer(line, name: "LINE")
      }
      let percent = try arguments.option("--percent")
      let amount = try arguments.option("--amount")
      switch (percent, amount) {
      case (let percent?, nil): object["percent"] = .string(percent)
      case (nil, let amount?): object["amount"] = .string(amount)
      default: throw UsageError("discount needs --percent P or --amount A (0 removes it)")
      }
      guard let reason = try arguments.option("--reason") else {
        throw UsageError("discount needs --reason TEXT")
      }
      object["reason"] = .string(reason)
      invocation = .request(object, .order)
    case "override", "override-price":
      let line = try integer(try arguments.positional("LINE"), name: "LINE")
      let price = try arguments.positional("PRICE")
      guard let reason = try arguments.option("--reason") else {
        throw UsageError("override needs --reason TEXT")
      }
      invocation = .request(
        request(
          "override_price", ["line": line, "unit_price": .string(price), "reason": .string(reason)]
        ), .order)
    case "operator":
      invocation = try operatorCommand(&arguments)
    case "sign-in", "signin", "login":
      let id = try arguments.positional("OPERATOR")
      guard let pin = try arguments.option("--pin") else {
        throw UsageError("sign-in needs --pin PIN")
      }
      invocation = .request(
        request("sign_in", ["operator": .string(id), "pin": .string(pin)]),
        .message("Signed in as \(id)."))
    case "sign-out", "signout", "logout":
      invocation = .request(request("sign_out"), .message("Signed out."))
    case "customer":
      invocation = try customerCommand(&arguments)
    case "product":
      invocation = try productCommand(&arguments)
    case "stock":
      let action = try arguments.positional("adjust")
      guard action == "adjust" else {
        throw UsageError("stock takes: adjust SKU DELTA --reason TEXT")
      }
      let sku = try arguments.positional("SKU")
      let delta = try integer(try arguments.positional("DELTA"), name: "DELTA")
      guard let reason = try arguments.option("--reason") else {
        throw UsageError("stock adjust needs --reason TEXT")
      }
      invocation = .request(
        request("stock_adjust", ["sku": .string(sku), "delta": delta, "reason": .string(reason)]),
        .product)
    case "float":
      let amount = try arguments.positional("AMOUNT")
      invocation = .request(request("float", ["amount": .string(amount)]), .drawer)
    case "paid-in", "paid-out":
      let amount = try arguments.positional("AMOUNT")
      guard let reason = try arguments.option("--reason") else {
        throw UsageError("\(name) needs --reason TEXT")
      }
      invocation = .request(
        request(
          name == "paid-in" ? "paid_in" : "paid_out",
          ["amount": .string(amount), "reason": .string(reason)]),
        .drawer)
    case "no-sale":
      var object = request("no_sale")
      if let reason = try arguments.option("--reason") { object["reason"] = .string(reason) }
      invocation = .request(object, .drawer)
    case "email":
      let receipt = try integer(try arguments.positional("RECEIPT"), name: "RECEIPT")
      var object = request("email_receipt", ["receipt": receipt])
      if let to = try arguments.option("--to") { object["to"] = .string(to) }
      invocation = .request(object, .emailQueued)
    case "void-line", "void_line":
      let line = try integer(try arguments.positional("LINE"), name: "LINE")
      invocation = .request(request("void_line", ["line": line]), .order)
    case "park":
      var object = request("park")
      if let note = try arguments.option("--note") { object["note"] = .string(note) }
      invocation = .request(object, .order)
    case "parked":
      invocation = .request(request("parked"), .parked)
    case "resume":
      let order = try integer(try arguments.positional("ORDER"), name: "ORDER")
      invocation = .request(request("resume", ["order_id": order]), .order)
    case "return", "refund":
      let receipt = try integer(try arguments.positional("RECEIPT"), name: "RECEIPT")
      guard let reason = try arguments.option("--reason") else {
        throw UsageError("return needs --reason TEXT")
      }
      var lines: [JSONValue] = []
      while let item = arguments.optionalPositional() {
        let parts = item.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let line = Int(parts[0]),
          let quantity = parts.count == 2 ? Int(parts[1]) : 1
        else { throw UsageError("return takes LINE or LINE:QTY, got \"\(item)\"") }
        lines.append(.object(["line": .int(line), "qty": .int(quantity)]))
      }
      guard !lines.isEmpty else { throw UsageError("return needs at least one LINE[:QTY]") }
      invocation = .request(
        request("return", ["receipt": receipt, "lines": .array(lines), "reason": .string(reason)]),
        .receipt)
    case "watch":
      let topics =
        try arguments.option("--topics").map {
          $0.split(separator: ",").map(String.init)
        } ?? ["order", "sale", "day"]
      let count = try arguments.option("--count").map { text throws(UsageError) in
        guard let value = Int(text), value > 0 else { throw UsageError("--count must be a number") }
        return value
      }
      invocation = .watch(topics: topics, count: count)
    case "report":
      let kind = arguments.optionalPositional() ?? "x"
      guard kind == "x" || kind == "z" else {
        throw UsageError("report takes x or z, got \"\(kind)\"")
      }
      var object = request("report", ["kind": .string(kind)])
      if let day = try arguments.option("--day") { object["day"] = try integer(day, name: "--day") }
      invocation = .request(object, .report)
    case "close-day", "close_day":
      var object = request("close_day")
      if let cash = try arguments.option("--counted-cash") {
        object["counted"] = .object(["cash": .string(cash)])
      }
      invocation = .request(object, .report)
    case "verify":
      let directory = try arguments.option("--data-dir")
      var anchors: [JournalHead] = []
      while let text = try arguments.option("--anchor") {
        guard let anchor = JournalHead(anchor: text) else {
          throw UsageError(
            "--anchor takes SEQ:SUM, a record's sequence number and its 64-hex-digit sum as the Z report prints them, got \"\(text)\""
          )
        }
        anchors.append(anchor)
      }
      invocation = .local(.verify(dataDirectory: directory, anchors: anchors))
    case "replay":
      let directory = try arguments.option("--data-dir")
      let day = try arguments.option("--day").map { text throws(UsageError) in
        guard let value = Int(text), value > 0 else {
          throw UsageError("--day must be a day number")
        }
        return value
      }
      let receipt = try arguments.option("--receipt").map { text throws(UsageError) in
        guard let value = Int(text), value > 0 else {
          throw UsageError("--receipt must be a receipt number")
        }
        return value
      }
      invocation = .local(.replay(dataDirectory: directory, day: day, receipt: receipt))
    default:
      throw unknownCommand(name)
    }
    if let approval = try arguments.option("--approve"),
      case .request(var object, let style) = invocation
    {
      guard let colon = approval.firstIndex(of: ":") else {
        throw UsageError("--approve takes OPERATOR:PIN of a manager")
      }
      object["approve"] = .object([
        "operator": .string(String(approval[..<colon])),
        "pin": .string(String(approval[approval.index(after: colon)...])),
      ])
      invocation = .request(object, style)
    }
    try arguments.finish()
    return invocation
  }

  /// An unknown command word, with the nearest known one when it looks like a typo.
  static func unknownCommand(_ name: String) -> UsageError {
    if name.hasPrefix("-") {
      return UsageError("unknown option \"\(name)\" before the command")
    }
    if let near = CommandHelp.suggestion(for: name) {
      return UsageError("unknown command \"\(name)\"; did you mean \"\(near)\"?")
    }
    return UsageError("unknown command \"\(name)\"")
  }

  private static func operatorCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let action = try arguments.positional("add|list|remove|set-pin|unlock")
    switch action {
    case "add":
      let id = try arguments.positional("ID")
      guard let name = try arguments.option("--name"), let role = try arguments.option("--role"),
        let pin = try arguments.option("--pin")
      else { throw UsageError("operator add ID --name NAME --role cashier|manager --pin PIN") }
      return .request(
        request(
          "operator_add",
          [
            "operator_id": .string(id), "name": .string(name), "role": .string(role),
            "pin": .string(pin),
          ]),
        .message("Operator \(id) added."))
    case "list":
      return .request(request("operator_list"), .operators)
    case "remove":
      let id = try arguments.positional("ID")
      return .request(
        request("operator_remove", ["operator_id": .string(id)]),
        .message("Operator \(id) removed."))
    case "set-pin":
      let id = try arguments.positional("ID")
      guard let pin = try arguments.option("--pin") else {
        throw UsageError("operator set-pin ID --pin PIN")
      }
      return .request(
        request("operator_set_pin", ["operator_id": .string(id), "pin": .string(pin)]),
        .message("PIN of \(id) changed."))
    case "unlock":
      let id = try arguments.positional("ID")
      if let directory = try arguments.option("--data-dir") {
        return .local(.unlockOperator(id: id, dataDirectory: directory))
      }
      return .request(
        request("operator_unlock", ["operator_id": .string(id)]),
        .message("Operator \(id) unlocked."))
    default:
      throw UsageError("operator takes add, list, remove, set-pin or unlock")
    }
  }

  private static func customerCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let action = try arguments.positional("add|find|attach|history")
    switch action {
    case "add":
      let name = try arguments.positional("NAME")
      var object = request("customer_add", ["name": .string(name)])
      if let email = try arguments.option("--email") { object["email"] = .string(email) }
      if let phone = try arguments.option("--phone") { object["phone"] = .string(phone) }
      return .request(object, .customers)
    case "find":
      return .request(
        request("customer_find", ["query": .string(try arguments.positional("QUERY"))]), .customers)
    case "attach":
      let id = try arguments.positional("CUSTOMER_ID")
      return .request(request("attach_customer", ["customer_id": .string(id)]), .order)
    case "history":
      let id = try arguments.positional("CUSTOMER_ID")
      return .request(request("customer_history", ["customer_id": .string(id)]), .history)
    default:
      throw UsageError("customer takes add, find, attach or history")
    }
  }

  /// Product fields settable from flags; `none` clears an optional field in an update.
  private static let productFlags: [(flag: String, field: String, isInteger: Bool)] = [
    ("--name", "name", false), ("--description", "description", false),
    ("--category", "category", false), ("--price", "price", false),
    ("--sale-price", "sale_price", false), ("--stock", "stock", true),
    ("--tax-class", "tax_class", false), ("--image", "image", false),
  ]

  private static func productCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let action = try arguments.positional("add|update|remove")
    switch action {
    case "add", "update":
      let sku = try arguments.positional("SKU")
      var fields = JSONObject()
      // Not --json: that is the global output option, and goes anywhere on the line.
      if let json = try arguments.option("--fields") {
        guard case .object(let object)? = try? JSONParser.parse(json) else {
          throw UsageError(
            "--fields must be a JSON object of product fields, like '{\"name\":\"Tee\",\"price\":\"9.99\"}'"
          )
        }
        fields = object
      }
      for entry in productFlags {
        guard let value = try arguments.option(entry.flag) else { continue }
        if action == "update" && value == "none" {
          fields[entry.field] = .null
        } else if entry.isInteger {
          fields[entry.field] = try integer(value, name: entry.flag)
        } else {
          fields[entry.field] = .string(value)
        }
      }
      if let colors = try arguments.option("--colors") {
        fields["colors"] = .array(colors.split(separator: ",").map { .string(String($0)) })
      }
      if action == "add" {
        fields["sku"] = .string(sku)
        if fields["description"] == nil { fields["description"] = "" }
        return .request(request("product_add", ["product": .object(fields)]), .product)
      }
      guard !fields.isEmpty else { throw UsageError("product update needs something to change") }
      return .request(
        request("product_update", ["sku": .string(sku), "changes": .object(fields)]), .product)
    case "remove":
      let sku = try arguments.positional("SKU")
      return .request(
        request("product_remove", ["sku": .string(sku)]), .message("Product \(sku) removed."))
    default:
      throw UsageError("product takes add, update or remove")
    }
  }

  static func request(_ op: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) -> JSONObject
  {
    var object = JSONObject()
    object["op"] = .string(op)
    for (key, value) in fields { object[key] = value }
    return object
  }

  static func integer(_ text: String, name: String) throws(UsageError) -> JSONValue {
    guard let value = Int64(text) else {
      throw UsageError("\(name) must be a whole number, got \"\(text)\"")
    }
    return .int(value)
  }

  private static func tender(_ arguments: inout ArgumentList) throws(UsageError) -> JSONObject {
    let type = try arguments.positional("cash|card")
    switch type {
    case "cash":
      let amount = try arguments.positional("AMOUNT")
      return request("tender", ["type": "cash", "amount": .string(amount)])
    case "card":
      let number = try arguments.positional("NUMBER")
      guard let expiry = try arguments.option("--exp") else {
        throw UsageError("tender card needs --exp MM/YY")
      }
      let parts = expiry.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let month = Int(parts[0]), let year = Int(parts[1]) else {
        throw UsageError("--exp must be MM/YY or MM/YYYY, like 12/30")
      }
      guard let cvv = try arguments.option("--cvv") else {
        throw UsageError("tender card needs --cvv CVV")
      }
      var object = request("tender", ["type": "card"])
      if let amount = try arguments.option("--amount") { object["amount"] = .string(amount) }
      object["card"] = .object([
        "number": .string(number), "exp_month": .int(month), "exp_year": .int(year),
        "cvv": .string(cvv),
      ])
      return object
    default:
      throw UsageError("tender takes cash or card, got \"\(type)\"")
    }
  }
}

/// A command's arguments: positionals in order, `--name value` options anywhere.
struct ArgumentList {
  private var words: [String]
  private let command: String

  init(_ words: [String], command: String) {
    self.words = words
    self.command = command
  }

  /// Removes and returns the value of `--name VALUE` or `--name=VALUE`.
  mutating func option(_ name: String) throws(UsageError) -> String? {
    for (index, word) in words.enumerated() {
      if word == name {
        guard index + 1 < words.count else { throw UsageError("\(name) needs a value") }
        let value = words[index + 1]
        words.removeSubrange(index...index + 1)
        return value
      }
      if word.hasPrefix(name + "=") {
        words.remove(at: index)
        return String(word.dropFirst(name.count + 1))
      }
    }
    return nil
  }

  /// Removes `--name` when present.
  mutating func flag(_ name: String) -> Bool {
    guard let index = words.firstIndex(of: name) else { return false }
    words.remove(at: index)
    return true
  }

  /// The next positional argument, which must be there.
  mutating func positional(_ name: String) throws(UsageError) -> String {
    guard let value = optionalPositional() else {
      throw UsageError("\(command) needs \(name)")
    }
    return value
  }

  /// Options that take no value.
  static let booleanFlags: Set<String> = [
    "--json", "--reprint", "--progress", "--no-progress", "--keep-going",
  ]

  /// The next positional argument, if any. A word that follows a `--name` option is that
  /// option's value, not a positional.
  mutating func optionalPositional() -> String? {
    var index = 0
    while index < words.count {
      let word = words[index]
      if word.hasPrefix("--") && word.count > 2 {
        let takesValue = !word.contains("=") && !Self.booleanFlags.contains(word)
        index += takesValue ? 2 : 1
        continue
      }
      return words.remove(at: index)
    }
    return nil
  }

  /// Refuses anything left over.
  func finish() throws(UsageError) {
    if let extra = words.first {
      throw UsageError("\(command): unexpected argument \"\(extra)\"")
    }
  }
}
