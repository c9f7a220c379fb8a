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
  /// The catalog's products of one category (matched without regard to case).
  case catalogCategory(String)
  case hello
  case report
  case parked
  case operators
  case customers
  case history
  case product
  case wishlist
  case drawer
  /// An e-mail written to registerd's outbox (sending it is the mail system's job).
  case emailQueued
  /// One scan at the lane: the line it added and the running total, on one line.
  case scanned
  /// A gift card's balance, on one line.
  case giftCard
  case message(String)
  case plain(String)
  /// A print job queued for the receipt printer, on one line.
  case printQueued
  /// The reply's `escpos` bytes, written to standard output as they are (for a printer).
  case escpos
}

/// Commands that read the data directory directly, without a daemon.
package enum LocalCommand: Equatable {
  /// `archives`: directories `archive` moved older segments to, checked before the live ones;
  /// `journalKey`: the key file whose MACs every record must carry; `events`: every record is
  /// also read as registerd reads it, its event included.
  case verify(
    dataDirectory: String?, anchors: [JournalHead], archives: [String] = [],
    journalKey: String? = nil, events: Bool = false)
  case replay(dataDirectory: String?, day: Int?, receipt: Int?, fromJournal: Bool)
  /// The owner's recovery, with registerd stopped: journal an operator's unlock.
  case unlockOperator(id: String, dataDirectory: String)
  /// A consistent copy of the data directory to a new directory, while registerd runs.
  case backup(dataDirectory: String?, to: String, copy: Bool)
  /// Moves the sealed segments of days before `beforeDay` out of the data directory.
  case archive(dataDirectory: String?, beforeDay: Int, to: String)
  /// The journal's business facts for a back office.
  case export(ExportOptions)
}

/// A typed request as a client sends it: the op's body in its envelope.
public struct TypedRequest: Sendable, Equatable {
  /// The op's fields.
  public var body: any RequestBody
  /// The id, key, expected version and approval sent with it.
  public var envelope: RequestEnvelope

  /// `body` in `envelope`.
  public init(_ body: any RequestBody, envelope: RequestEnvelope = RequestEnvelope()) {
    self.body = body
    self.envelope = envelope
  }

  /// The op of the body.
  public var op: Op { Swift.type(of: body).op }

  /// The request line (without its newline).
  public var line: String { envelope.line(for: body) }

  public static func == (lhs: TypedRequest, rhs: TypedRequest) -> Bool {
    lhs.envelope == rhs.envelope && lhs.body.isEqual(to: rhs.body)
  }
}

/// What one command line asks for.
package enum Invocation: Equatable {
  /// A request to the daemon (with the approval given on the command line, if any; the
  /// session adds the id and the key), and how to print its result.
  case request(TypedRequest, OutputStyle)
  /// A request registerd would refuse, found before sending it (an amount that is not one):
  /// reported as registerd's refusal would be, with the same code and message.
  case refused(RegisterError)
  /// Read commands from standard input; stop at the first refused line unless `keepGoing`.
  case batch(keepGoing: Bool)
  /// Work on the journal offline.
  case local(LocalCommand)
  /// Write the live catalog as a catalog file: from the daemon, or replayed from a data
  /// directory offline; to standard output or (atomically) to a file.
  case exportCatalog(dataDirectory: String?, to: String?)
  /// Scan mode: every line read from standard input is a scanned code (a keyboard-wedge
  /// scanner types the code and Enter).
  case scanning
  /// A card tender; the number and CVV (and the expiry without `--exp`) are read at run time
  /// from the terminal or standard input unless the old form gave them here.
  case cardTender(CardTender)
  /// A request with PINs in it, read at run time from the terminal or standard input unless
  /// the old forms gave them here.
  case pinRequest(PINRequest)
  /// The first run of an installed register: what it lacks (store settings, a manager) is
  /// asked for, or taken from these answers, and sent as `setup`.
  case setup(SetupAnswers)
  /// A request that cannot be taken back (voiding the order, closing the day): at a terminal
  /// the person is asked `question` first; in a script, or with `--yes`, it is sent.
  case confirm(question: String, TypedRequest, OutputStyle)
  /// The cashier's full-screen lane.
  case lane
  /// Follow the order live (the customer display).
  case watch(topics: [String], count: Int?)
  /// The full help, or one command's.
  case help(command: String?)
  /// register-cli's version.
  case version
  /// The manual page register-cli(1), as roff.
  case manual
  /// A completion script for `Shell`.
  case completion(Shell)
  /// The protocol's JSON Schema (docs/protocol.schema.json).
  case schema
}

/// A shell `register-cli completion` writes a script for.
package enum Shell: String, Equatable, CaseIterable {
  case bash, zsh
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

  /// A receipt number as typed or scanned off the receipt's barcode ("42", "R42").
  static func receiptNumber(_ text: String, name: String) throws(UsageError) -> Int {
    guard let number = ReceiptCode.number(in: text) else {
      throw UsageError(
        "\(name) must be a receipt number like 42 (or R42 as scanned), not \"\(text)\"")
    }
    return number
  }

  private static func parseCommand(
    _ name: String, _ arguments: ArgumentList
  ) throws(UsageError) -> Invocation {
    var arguments = arguments
    // The command's own declaration reads its arguments (`CommandHelp.sections`).
    guard let parse = CommandHelp.parser(for: name) else { throw unknownCommand(name) }
    var invocation = try parse(name, &arguments)
    if let text = try arguments.option("--approve") {
      invocation = try approved(invocation, text)
    }
    try arguments.finish()
    // Only a line with no usage error gets as far as a refusal, as when registerd refused it.
    if let refusal = arguments.refusal { return .refused(refusal) }
    return invocation
  }

  /// `invocation` with the approval `--approve` gave: `MANAGER`, whose PIN is then read at run
  /// time, or the old `MANAGER:PIN`.
  static func approved(_ invocation: Invocation, _ text: String) throws(UsageError)
    -> Invocation
  {
    let manager: String
    var pin: String?
    if let colon = text.firstIndex(of: ":") {
      manager = String(text[..<colon])
      pin = String(text[text.index(after: colon)...])
    } else {
      manager = text
    }
    guard !manager.isEmpty else {
      throw UsageError("--approve takes the id of the manager who approves (MANAGER)")
    }
    switch invocation {
    case .request(let typed, let style):
      return .pinRequest(approving(PINRequest(typed, style), manager, pin))
    case .confirm(_, let typed, let style):
      // The manager coming over to type their PIN is the confirmation.
      return .pinRequest(approving(PINRequest(typed, style), manager, pin))
    case .pinRequest(let request):
      return .pinRequest(approving(request, manager, pin))
    case .cardTender(var card):
      card.approval = Approval(operatorID: manager, pin: pin ?? "")
      card.approvalPINInArguments = pin != nil
      return .cardTender(card)
    default:
      return invocation
    }
  }

  /// One thing a return names: `LINE[:QTY]` (a number of 1 to 4 digits: the receipt's line)
  /// or `ITEM[:QTY]` (a SKU or a barcode of an item on the receipt, as scanned off it).
  static func returnItem(_ text: String) throws(UsageError) -> ReturnRequestLine {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), !parts[0].isEmpty,
      let quantity = parts.count == 2 ? Int64(parts[1]) : 1
    else {
      throw UsageError("return takes ITEM or ITEM:QTY (a SKU, barcode or line), got \"\(text)\"")
    }
    let name = String(parts[0])
    if name.count <= 4, name.allSatisfy({ $0.isASCII && $0.isNumber }), let line = Int(name) {
      return ReturnRequestLine(line: line, quantity: quantity)
    }
    return ReturnRequestLine(code: name, quantity: quantity)
  }

  static func approving(_ request: PINRequest, _ manager: String, _ pin: String?)
    -> PINRequest
  {
    var request = request
    if let pin {
      request.request.envelope.approval = Approval(operatorID: manager, pin: pin)
      request.inArguments = true
    } else {
      request.approver = manager
    }
    return request
  }

  /// A request whose body carries a PIN: the one `--pin` gave (the old form), or one to read.
  static func pinRequest(_ body: PINBody, given pin: String?, style: OutputStyle)
    -> Invocation
  {
    .pinRequest(
      PINRequest(
        TypedRequest(body.body(with: pin ?? "")), style, pin: pin == nil ? body : nil,
        inArguments: pin != nil))
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

  static func operatorCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let action = try arguments.positional("add|list|remove|set-pin|unlock")
    switch action {
    case "add":
      let id = try arguments.positional("ID")
      guard let name = try arguments.option("--name"), let role = try arguments.option("--role")
      else { throw UsageError("operator add ID --name NAME --role cashier|manager") }
      let pin = try arguments.option("--pin")
      guard let role = OperatorRole(rawValue: role) else {
        return .refused(RegisterError(.badRequest, "role must be \"cashier\" or \"manager\""))
      }
      return pinRequest(
        .operatorAdd(operatorID: id, name: name, role: role), given: pin,
        style: .message("Operator \(id) added."))
    case "list":
      return request(Requests.OperatorList(), .operators)
    case "remove":
      let id = try arguments.positional("ID")
      return request(Requests.OperatorRemove(operatorID: id), .message("Operator \(id) removed."))
    case "set-pin":
      let id = try arguments.positional("ID")
      return pinRequest(
        .setPIN(operatorID: id), given: try arguments.option("--pin"),
        style: .message("PIN of \(id) changed."))
    case "unlock":
      let id = try arguments.positional("ID")
      if let directory = try arguments.option("--data-dir") {
        return .local(.unlockOperator(id: id, dataDirectory: directory))
      }
      return request(
        Requests.OperatorUnlock(operatorID: id), .message("Operator \(id) unlocked."))
    default:
      throw UsageError("operator takes add, list, remove, set-pin or unlock")
    }
  }

  static func customerCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let action = try arguments.positional("add|find|attach|detach|history")
    switch action {
    case "add":
      let name = try arguments.positional("NAME")
      let email = try arguments.option("--email")
      let phone = try arguments.option("--phone")
      let exempt = try arguments.option("--tax-exempt")
      return request(
        Requests.CustomerAdd(name: name, email: email, phone: phone, taxExempt: exempt),
        .customers)
    case "find":
      let query = try arguments.positional("QUERY")
      let limit = try arguments.option("--limit").map { text throws(UsageError) in
        try integer(text, name: "--limit", as: Int.self)
      }
      return request(Requests.CustomerFind(query: query, limit: limit), .customers)
    case "attach":
      let id = try arguments.positional("CUSTOMER_ID")
      return request(Requests.AttachCustomer(customerID: id), .order)
    case "detach":
      return request(Requests.DetachCustomer(), .order)
    case "history":
      let id = try arguments.positional("CUSTOMER_ID")
      return request(Requests.CustomerHistory(customerID: id), .history)
    default:
      throw UsageError("customer takes add, find, attach, detach or history")
    }
  }

  /// Product fields settable from flags; `none` clears an optional field in an update.
  private static let productFlags: [(flag: String, field: String, isInteger: Bool)] = [
    ("--name", "name", false), ("--description", "description", false),
    ("--category", "category", false), ("--price", "price", false),
    ("--sale-price", "sale_price", false), ("--stock", "stock", true),
    ("--tax-class", "tax_class", false), ("--image", "image", false),
  ]

  static func productCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let action = try arguments.positional("SKU|show|add|update|remove")
    switch action {
    case "show":
      return request(Requests.ProductLookup(sku: try arguments.positional("SKU")), .product)
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
          fields[entry.field] = .int(try integer(value, name: entry.flag))
        } else {
          fields[entry.field] = .string(value)
        }
      }
      for (flag, field) in [("--colors", "colors"), ("--barcode", "barcodes")] {
        guard let list = try arguments.option(flag) else { continue }
        fields[field] =
          action == "update" && list == "none"
          ? .null : .array(list.split(separator: ",").map { .string(String($0)) })
      }
      // Whatever is left is a flag nobody reads: named, rather than taken as nothing to change.
      try arguments.finish()
      if action == "add" {
        fields["sku"] = .string(sku)
        if fields["description"] == nil { fields["description"] = "" }
        return request(Requests.ProductAdd(product: .object(fields)), .product)
      }
      guard !fields.isEmpty else { throw UsageError("product update needs something to change") }
      return request(Requests.ProductUpdate(sku: sku, changes: fields), .product)
    case "remove":
      let sku = try arguments.positional("SKU")
      return request(Requests.ProductRemove(sku: sku), .message("Product \(sku) removed."))
    default:
      // `product SKU`: the product, with its stock here and at other stores.
      return request(Requests.ProductLookup(sku: action), .product)
    }
  }

  static func exportOptions(_ arguments: inout ArgumentList) throws(UsageError)
    -> ExportOptions
  {
    let directory = try arguments.option("--data-dir")
    let after = try arguments.option("--after").map { text throws(UsageError) in
      guard let value = Int64(text), value >= 0 else {
        throw UsageError("--after takes a journal sequence number (0 for the start)")
      }
      return value
    }
    let formatName = try arguments.option("--format") ?? "ndjson"
    guard let format = BackOfficeFormat(rawValue: formatName) else {
      throw UsageError("--format is ndjson, csv or sql")
    }
    let lane = try arguments.option("--lane")
    if let lane, lane.isEmpty || lane.count > 64 || lane.contains(where: \.isNewline) {
      throw UsageError("--lane takes a lane id of 1 to 64 characters")
    }
    let to = try arguments.option("--to")
    let table = try arguments.option("--table").map { text throws(UsageError) in
      guard let table = BackOfficeTable(rawValue: text) else {
        let names = BackOfficeTable.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageError("--table is one of \(names)")
      }
      return table
    }
    if to != nil && format != .csv { throw UsageError("--to DIR goes with --format csv") }
    if format == .csv && to == nil && table == nil {
      throw UsageError("--format csv needs --to DIR (a file per table) or --table NAME")
    }
    return ExportOptions(
      dataDirectory: directory, after: after ?? 0, follow: arguments.flag("--follow"),
      format: format, lane: lane, directory: to, table: table)
  }

  static func wishlistCommand(_ arguments: inout ArgumentList) throws(UsageError)
    -> Invocation
  {
    let first = try arguments.positional("CUSTOMER_ID|add|remove|to-order")
    switch first {
    case "add":
      let id = try arguments.positional("CUSTOMER_ID")
      let sku = try arguments.positional("SKU")
      return request(Requests.WishlistAdd(customerID: id, sku: sku), .wishlist)
    case "remove", "rm":
      let id = try arguments.positional("CUSTOMER_ID")
      let sku = try arguments.positional("SKU")
      return request(Requests.WishlistRemove(customerID: id, sku: sku), .wishlist)
    case "to-order", "order":
      let id = try arguments.positional("CUSTOMER_ID")
      let sku = try arguments.positional("SKU")
      return request(Requests.WishlistToOrder(customerID: id, sku: sku), .order)
    default:
      return request(Requests.Wishlist(customerID: first), .wishlist)
    }
  }

  /// A request for `body` (the session adds the id and the key), printed as `style`.
  static func request(_ body: any RequestBody, _ style: OutputStyle) -> Invocation {
    .request(TypedRequest(body), style)
  }

  /// A whole number typed for `name`.
  static func integer<Integer: FixedWidthInteger>(
    _ text: String, name: String, as type: Integer.Type = Int64.self
  ) throws(UsageError) -> Integer {
    // Read as an Int64 as before, whatever the field's type (the same on 64-bit platforms).
    if let wide = Int64(text), let value = Integer(exactly: wide) { return value }
    // A whole number too large (or too small) for the field is not "not a whole number".
    let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : text[...]
    if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
      throw UsageError("\(name) is a whole number too large to take, got \"\(text)\"")
    }
    throw UsageError("\(name) must be a whole number, got \"\(text)\"")
  }

  /// A tender as typed: cash is a request as it stands; a card may still need its number,
  /// CVV and expiry read at run time.
  enum TypedTender {
    case cash(Requests.Tender)
    case card(CardTender)
  }

  static func tender(_ arguments: inout ArgumentList) throws(UsageError)
    -> TypedTender
  {
    let type = try arguments.positional("cash|card|gift-card|store-credit|other|card-present")
    switch type {
    case "cash":
      let amount = arguments.money(try arguments.positional("AMOUNT"), path: "amount")
      return .cash(Requests.Tender(.cash(amount: amount)))
    case "card":
      var card = CardTender()
      card.number = arguments.optionalPositional()
      if let expiry = try arguments.option("--exp") {
        guard let parsed = CardExpiry(expiry) else {
          throw UsageError("--exp must be MM/YY or MM/YYYY, like 12/30")
        }
        card.expiry = parsed
      }
      card.cvv = try arguments.option("--cvv")
      card.amount = try arguments.option("--amount").map { arguments.money($0, path: "amount") }
      // Whatever is left is not echoed in the error: it may be a CVV typed without --cvv.
      if arguments.optionalPositional() != nil {
        throw UsageError(
          "tender card takes one NUMBER at most (better none: it is then asked for)")
      }
      return .card(card)
    case "gift-card", "gift_card":
      let number = try arguments.positional("NUMBER")
      let amount = try arguments.option("--amount").map { arguments.money($0, path: "amount") }
      return .cash(Requests.Tender(.giftCard(number: number, amount: amount)))
    case "store-credit", "store_credit":
      let customer = try arguments.positional("CUSTOMER")
      let amount = try arguments.option("--amount").map { arguments.money($0, path: "amount") }
      return .cash(Requests.Tender(.storeCredit(customerID: customer, amount: amount)))
    case "other":
      let name = try arguments.positional("NAME")
      let amount = arguments.money(try arguments.positional("AMOUNT"), path: "amount")
      let reference = try arguments.option("--reference")
      return .cash(Requests.Tender(.other(name: name, amount: amount, reference: reference)))
    case "card-present", "card_present":
      let amount = arguments.money(try arguments.positional("AMOUNT"), path: "amount")
      guard let brand = try arguments.option("--brand"),
        let last4 = try arguments.option("--last4"),
        let auth = try arguments.option("--auth")
      else {
        throw UsageError("tender card-present needs --brand B --last4 NNNN --auth CODE")
      }
      return .cash(
        Requests.Tender(.cardPresent(amount: amount, brand: brand, last4: last4, authCode: auth)))
    default:
      throw UsageError(
        "tender takes cash, card, gift-card, store-credit, other or card-present, got \"\(type)\"")
    }
  }
}

/// A command's arguments: positionals in order, `--name value` options anywhere.
struct ArgumentList {
  private var words: [String]
  private let command: String
  /// The first value registerd would refuse (an amount that is not one), reported once the
  /// line has no usage error.
  private(set) var refusal: RegisterError?

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
    "--json", "--reprint", "--progress", "--no-progress", "--keep-going", "--to-store-credit",
    "--escpos",
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

  /// Notes a refusal registerd would give (the first one counts, as registerd reads a
  /// request's fields in order and stops at the first bad one).
  mutating func refuse(_ error: RegisterError) {
    if refusal == nil { refusal = error }
  }

  /// The amount typed for the member `path` (see `TypedAmount.money`); text that is no
  /// amount is noted as registerd's refusal, and zero stands in for it.
  mutating func money(_ text: String, path: String) -> Money {
    do {
      return try TypedAmount.money(text, path: path)
    } catch {
      refuse(error)
      return Money(minorUnits: 0, currency: .usd)
    }
  }

  /// The percentage typed for the member `path`, refused as registerd would refuse it.
  mutating func percent(_ text: String, path: String) -> Percent {
    do {
      return try TypedAmount.percent(text, path: path)
    } catch {
      refuse(error)
      return .zero
    }
  }

  /// Refuses anything left over.
  func finish() throws(UsageError) {
    if let extra = words.first {
      if extra.hasPrefix("--") {
        throw UsageError("\(command): unknown option \(extra) (register-cli help \(command))")
      }
      throw UsageError("\(command): unexpected argument \"\(extra)\"")
    }
  }
}
