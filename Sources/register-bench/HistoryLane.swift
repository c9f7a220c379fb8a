import RegisterEngine

/// What a generated history holds, for the summary.
struct HistoryCounts {
  var sales = 0
  var returns = 0
  var voidedOrders = 0
  var voidedLines = 0
  var parked = 0
  var customers = 0
  var deliveries = 0
  var drawerMoves = 0
  var splitTenders = 0
  /// Requests the register refused, by error code: the generator means to send only
  /// requests that succeed, so any here say it has fallen out of step with the engine.
  var refused: [String: Int] = [:]
}

/// One lane's business, day after day: the engine in process (`Register.decide` and `apply`,
/// as `RegisterService` uses them, on requests decoded from protocol lines by the daemon's own
/// `RequestDecoder`), on a clock that walks through each business day, with every record
/// journaled through `HistoryStore`.
final class HistoryLane {
  /// A business day: the first request at 08:00, the close at 20:00 (UTC−05:00).
  static let dayLength: Int64 = 86_400_000
  static let openHours: Int64 = 12 * 3_600_000
  /// How many records are gathered before one append (one write, one fsync).
  static let groupSize = 1000

  private(set) var register = Register()
  private(set) var counts = HistoryCounts()
  private let store: HistoryStore
  private var random: HistoryRandom
  private var pending: [PendingRecord] = []
  private let skus: [String]
  private let firstDay: Timestamp
  private var now: Timestamp
  private var dayStart: Timestamp
  private var dayFirstSequence: Int64 = 0
  private var recordsPerDay = 1
  /// Sale receipts, oldest first: what customers bring back.
  private var saleReceipts: [Int] = []

  /// A lane that starts serving `catalog` at `start` (08:00 of the first day), the way
  /// registerd does on an empty data directory: the start-up events are journaled first.
  init(
    catalog: Catalog, store: HistoryStore, random: HistoryRandom, start: Timestamp
  ) throws(HistoryError) {
    self.store = store
    self.random = random
    skus = catalog.products.map(\.sku)
    firstDay = start
    now = Timestamp(
      epochMilliseconds: start.epochMilliseconds - 600_000,
      utcOffsetSeconds: start.utcOffsetSeconds)
    dayStart = start
    record(Register.startupEvents(for: catalog, current: nil), approvedBy: nil)
    try flush()
  }

  // MARK: - Days

  /// Runs business day `index` (0-based): the float, about `records` records of business,
  /// and the close with the drawer counted.
  func runDay(_ index: Int, records: Int) throws(HistoryError) {
    dayStart = Timestamp(
      epochMilliseconds: firstDay.epochMilliseconds + Int64(index) * Self.dayLength,
      utcOffsetSeconds: firstDay.utcOffsetSeconds)
    dayFirstSequence = register.lastSequence
    recordsPerDay = max(records, 1)
    try send(#"{"op":"float","amount":"200.00"}"#)
    // A sale is about eight records; stop early enough that the close lands near the target.
    while recordsToday < Int64(recordsPerDay) - 8 {
      try activity()
    }
    // The drawer is counted at 20:00; now and then it is a little over or short.
    advance(to: dayStart.epochMilliseconds + Self.openHours)
    var counted = register.day.totals.expectedCash
    if random.chance(25) { counted = max(0, counted + Int64(random.between(-500...300))) }
    try send(#"{"op":"close_day","counted":{"cash":"\#(decimal(counted))"}}"#)
    try flush()
    try store.snapshot(&register)
  }

  /// Records of the open day so far, pending ones included.
  private var recordsToday: Int64 { register.lastSequence - dayFirstSequence }

  /// One thing that happens at the lane.
  private func activity() throws(HistoryError) {
    let roll = random.below(1000)
    switch roll {
    case ..<25: try returnItems()
    case ..<40: try parkedSale()
    case ..<55: try newCustomerSale()
    case ..<62: try drawerMove()
    default: try sale()
    }
    // Cash goes to the bank when the drawer holds too much.
    let expected = register.day.totals.expectedCash
    if expected > 300_000 {
      counts.drawerMoves += 1
      try send(
        #"{"op":"paid_out","amount":"\#(decimal(expected - 30_000))","reason":"bank deposit"}"#)
    }
  }

  // MARK: - Sales

  /// A sale of 1–6 lines, with the edits cashiers make, paid (or voided).
  private func sale(customer: String? = nil) throws(HistoryError) {
    try ringUp(lines: random.pick([1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6]))
    if let customer = customer ?? existingCustomer() {
      try send(#"{"op":"attach_customer","customer_id":"\#(customer)"}"#)
    }
    try edit()
    if random.chance(perMille: 20) {
      // The customer walks away, sometimes after the card was already run.
      if random.chance(30), balance >= 2 {
        try send(cardTender(amount: balance / 2))
      }
      counts.voidedOrders += 1
      try send(#"{"op":"void","reason":"\#(random.pick(voidReasons))"}"#)
      return
    }
    try pay()
  }

  private let voidReasons = ["customer left", "declined to pay", "wrong items rung", "test"]

  /// Scans `lines` items onto the open order.
  private func ringUp(lines: Int) throws(HistoryError) {
    for _ in 0..<lines {
      let sku = skus[random.popular(skus.count)]
      let quantity = random.chance(85) ? 1 : random.between(2...3)
      try restockIfLow(sku)
      if quantity == 1 {
        try send(#"{"op":"add","sku":"\#(sku)"}"#)
      } else {
        try send(#"{"op":"add","sku":"\#(sku)","qty":\#(quantity)}"#)
      }
    }
  }

  /// Corrections on the open order: a quantity changed, a line removed or voided, a discount.
  private func edit() throws(HistoryError) {
    if random.chance(10), let line = randomActiveLine() {
      try restockIfLow(line.sku)
      try send(#"{"op":"set_qty","line":\#(line.line),"qty":\#(random.between(1...3))}"#)
    }
    if random.chance(6), register.order.activeLines.count > 1, let line = randomActiveLine() {
      try send(#"{"op":"remove","line":\#(line.line)}"#)
    }
    if random.chance(3), register.order.activeLines.count > 1, let line = randomActiveLine() {
      counts.voidedLines += 1
      try send(#"{"op":"void_line","line":\#(line.line)}"#)
    }
    if random.chance(8), let line = randomActiveLine() {
      let reason = random.pick(["loyalty", "damaged box", "price match", "staff"])
      try send(
        #"{"op":"discount","line":\#(line.line),"percent":"\#(random.pick([5, 10, 15, 20]))","reason":"\#(reason)"}"#
      )
    }
    if random.chance(4) {
      try send(#"{"op":"discount","percent":"\#(random.pick([5, 10]))","reason":"coupon"}"#)
    }
  }

  /// Pays the open order: card (55 %), cash with change (35 %) or split (10 %).
  private func pay() throws(HistoryError) {
    let roll = random.below(100)
    if roll < 55 {
      try send(cardTender(amount: nil))
    } else if roll < 90 || balance < 2 {
      try send(cashTender())
    } else {
      counts.splitTenders += 1
      try send(cardTender(amount: balance / 2))
      try send(cashTender())
    }
    guard register.order.isEmpty, let receipt = register.lastReceiptNumber else {
      throw HistoryError("order \(register.order.id) did not complete after its tenders")
    }
    counts.sales += 1
    saleReceipts.append(receipt)
  }

  /// What the open order still needs, in cents.
  private var balance: Int64 { register.totals.total - register.order.paid }

  /// Cash for the balance: exact, or the next note up (the change is given back).
  private func cashTender() -> String {
    var amount = balance
    if random.chance(75) {
      let note = Int64(random.pick([100, 500, 1000, 2000, 5000, 10000]))
      amount = (amount + note - 1) / note * note
    }
    return #"{"op":"tender","type":"cash","amount":"\#(decimal(amount))"}"#
  }

  /// A card tender with a test card number (a valid Luhn check digit, a brand's prefix and
  /// length); registerd journals only its brand and last four digits.
  private func cardTender(amount: Int64?) -> String {
    let (prefix, length, cvvLength): (String, Int, Int)
    switch random.below(100) {
    case ..<55: (prefix, length, cvvLength) = ("4", 16, 3)
    case ..<85: (prefix, length, cvvLength) = ("5" + String(random.between(1...5)), 16, 3)
    case ..<93: (prefix, length, cvvLength) = (random.pick(["34", "37"]), 15, 4)
    default: (prefix, length, cvvLength) = ("6011", 16, 3)
    }
    let payload = prefix + random.digits(length - prefix.count - 1)
    let card =
      #"{"number":"\#(payload)\#(Self.luhnCheckDigit(payload))","exp_month":\#(random.between(1...12)),"exp_year":\#(random.between(2028...2032)),"cvv":"\#(random.digits(cvvLength))"}"#
    guard let amount else { return #"{"op":"tender","type":"card","card":\#(card)}"# }
    return #"{"op":"tender","type":"card","card":\#(card),"amount":"\#(decimal(amount))"}"#
  }

  /// The digit that makes `payload` followed by it pass the Luhn check.
  static func luhnCheckDigit(_ payload: String) -> Int {
    var sum = 0
    for (index, character) in payload.reversed().enumerated() {
      var digit = Int(character.asciiValue ?? 48) - 48
      if index % 2 == 0 {
        digit *= 2
        if digit > 9 { digit -= 9 }
      }
      sum += digit
    }
    return (10 - sum % 10) % 10
  }

  // MARK: - The rest of the day

  /// A customer brings back one unit of an earlier sale (most often a recent one; it may be
  /// from any earlier day).
  private func returnItems() throws(HistoryError) {
    guard !saleReceipts.isEmpty else { return try sale() }
    let number = saleReceipts[saleReceipts.count - 1 - random.popular(saleReceipts.count)]
    guard let sold = register.receipts[number] else { return }
    let returned = register.returnedQuantities[number] ?? [:]
    let candidates = sold.order.activeLines.filter { $0.quantity > returned[$0.line] ?? 0 }
    guard !candidates.isEmpty else { return }
    // A refund in cash needs that much cash in the drawer; the till sends such a customer to
    // the manager another day.
    let paidInCash = sold.order.tenders.contains { $0.type == .cash }
    if paidInCash && register.day.totals.expectedCash < sold.totals.total { return }
    let line = random.pick(candidates)
    let reason = random.pick(["wrong size", "defective", "changed mind", "gift receipt"])
    counts.returns += 1
    try send(
      #"{"op":"return","receipt":\#(number),"lines":[{"line":\#(line.line),"qty":1}],"reason":"\#(reason)"}"#
    )
  }

  /// A sale set aside (the customer fetches something), another customer served meanwhile,
  /// then the first one resumed and paid.
  private func parkedSale() throws(HistoryError) {
    try ringUp(lines: random.between(1...3))
    let note = random.pick(["fetching wallet", "fitting room", "price check"])
    try send(#"{"op":"park","note":"\#(note)"}"#)
    guard let parked = register.parked.last?.id else {
      throw HistoryError("order was not parked")
    }
    counts.parked += 1
    try sale()
    try send(#"{"op":"resume","order_id":\#(parked)}"#)
    if random.chance(40) { try ringUp(lines: 1) }
    try pay()
  }

  /// A new customer signs up at the till and is attached to their sale.
  private func newCustomerSale() throws(HistoryError) {
    let first = random.pick(Self.firstNames)
    let last = random.pick(Self.lastNames)
    let email = "\(first.lowercased()).\(last.lowercased())\(random.below(100))@example.com"
    let phone = "(802) 555-\(random.digits(4))"
    try send(
      #"{"op":"customer_add","name":"\#(first) \#(last)","email":"\#(email)","phone":"\#(phone)"}"#)
    guard let customer = register.customers.last?.id else {
      throw HistoryError("customer was not added")
    }
    counts.customers += 1
    try sale(customer: customer)
  }

  /// A regular customer (one sale in ten carries one, once there are some).
  private func existingCustomer() -> String? {
    let customers = register.customers
    guard !customers.isEmpty, random.chance(10) else { return nil }
    return customers[random.below(customers.count)].id
  }

  /// Cash in or out of the drawer that is not a sale.
  private func drawerMove() throws(HistoryError) {
    counts.drawerMoves += 1
    if random.chance(40) {
      try send(#"{"op":"paid_in","amount":"50.00","reason":"change from the bank"}"#)
    } else if register.day.totals.expectedCash > 5_000 {
      let amount = Int64(random.between(500...4_000))
      let reason = random.pick(["window cleaning", "postage", "milk for the staff room", "parking"])
      try send(#"{"op":"paid_out","amount":"\#(decimal(amount))","reason":"\#(reason)"}"#)
    }
  }

  /// Tops up a tracked product's stock (a delivery) before it runs too low to sell.
  private func restockIfLow(_ sku: String) throws(HistoryError) {
    guard let stock = register.products[sku]?.stock, stock < 40 else { return }
    counts.deliveries += 1
    try send(
      #"{"op":"stock_adjust","sku":"\#(sku)","delta":\#(random.between(60...200)),"reason":"delivery"}"#
    )
  }

  private func randomActiveLine() -> OrderLine? {
    let lines = register.order.activeLines
    return lines.isEmpty ? nil : lines[random.below(lines.count)]
  }

  static let firstNames = [
    "Dana", "Avery", "Jordan", "Morgan", "Riley", "Casey", "Quinn", "Harper", "Rowan", "Emerson",
    "Sam", "Alex", "Taylor", "Jamie", "Robin", "Lee",
  ]
  static let lastNames = [
    "Whitfield", "Okafor", "Lindqvist", "Moreau", "Castillo", "Nakamura", "Brennan", "Haddad",
    "Kowalski", "Abernathy", "Singh", "Delacroix",
  ]

  // MARK: - Requests and records

  /// Moves the clock to when the next request of the day happens: the day's requests spread
  /// over the opening hours (a few seconds apart at 5,000 records a day), never backwards.
  private func tick() {
    let step = Self.openHours / Int64(recordsPerDay)
    let due = dayStart.epochMilliseconds + recordsToday * step
    advance(to: due + Int64(random.below(Int(max(step / 2, 1)))))
  }

  private func advance(to milliseconds: Int64) {
    now = Timestamp(
      epochMilliseconds: max(now.epochMilliseconds + 150, milliseconds),
      utcOffsetSeconds: dayStart.utcOffsetSeconds)
  }

  /// Sends one request line to the register, as the daemon handles it (without the reply).
  /// Returns false when the register refused it (counted in `counts.refused`).
  @discardableResult
  private func send(_ line: String) throws(HistoryError) -> Bool {
    tick()
    let request: Request
    do {
      request = try RequestDecoder.decode(Array(line.utf8), currency: register.store.currency)
    } catch {
      throw HistoryError("registerd would not read the generated request \(line): \(error.error)")
    }
    var context = CommandContext(now: now, approval: request.approval)
    if request.body is Requests.CloseDay {
      // The Z report anchors the chain at the record before the close, as registerd does.
      try flush()
      let head = store.head
      if head.sequence > 0 { context.journalHead = head }
    }
    switch register.decide(request.body, context: context) {
    case .accepted(let events, let approvedBy):
      record(events, approvedBy: approvedBy)
      if pending.count >= Self.groupSize { try flush() }
      return true
    case .rejected(let error, let standing):
      record(standing, approvedBy: nil)
      counts.refused[error.code.rawValue, default: 0] += 1
      return false
    }
  }

  /// Applies a request's events and queues their records, linked with `more` so recovery
  /// applies all of them or none (as `RegisterService.record` does).
  private func record(_ events: [Event], approvedBy: String?) {
    for (index, event) in events.enumerated() {
      let sequence = register.lastSequence + 1
      var operatorID = register.signedIn
      if case .signedIn(let id) = event { operatorID = id }
      register.apply(event, at: now, operatorID: operatorID, sequence: sequence)
      pending.append(
        PendingRecord(
          sequence: sequence, at: now, event: event, operatorID: operatorID,
          approvedBy: approvedBy, key: nil, more: index != events.count - 1))
    }
  }

  /// Writes the pending records.
  func flush() throws(HistoryError) {
    guard !pending.isEmpty else { return }
    try store.append(pending)
    pending.removeAll(keepingCapacity: true)
  }

  private func decimal(_ cents: Int64) -> String {
    HistoryCatalog.decimal(Int(cents))
  }
}
