import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `register-cli lane`: the cashier's full-screen lane. It reads keys (a keyboard, a
/// keyboard-wedge scanner, clicks and touches on the legend), sends requests, shows the order
/// as registerd has it after each reply and each live event, and asks on its input line for
/// what a flow needs (an amount, a card, a manager's PIN). Its actions are in Lane+Actions.swift.
final class Lane {
  let link: LaneLink
  var state = LaneState()
  /// What to do with the prompt's answer (nil: no prompt).
  var answer: ((String) -> Void)?
  /// Changes made while registerd could not be reached, each with its key: sent in order once
  /// it can be, so none is made twice or lost.
  var waiting: [TypedRequest] = []
  private var targets: [ClickTarget] = []
  private var writer: FrameWriter
  private var running = true
  private var nextAttempt: Int64 = 0
  /// When the status bar is to be read again (nil: not yet planned), and when it last was.
  private var statusDue: Int64?
  private var lastStatus: Int64 = 0
  /// The status bar is read again at most this often while events come.
  static let statusMilliseconds: Int64 = 250
  /// And at least this often: what comes with no event (the printer's paper, the customer
  /// display) shows within it.
  static let quietStatusMilliseconds: Int64 = 5000
  /// Milliseconds between attempts to reach registerd again.
  static let retryMilliseconds: Int64 = 300
  /// How long an Escape waits for the rest of a sequence (a function key's bytes can come
  /// apart over SSH).
  static let escapeMilliseconds: Int32 = 40

  init(socketPath: String, colors: Bool) {
    link = LaneLink(socketPath: socketPath)
    writer = FrameWriter(colors: colors)
    state.colors = colors
  }

  /// Runs the lane until Ctrl-C, SIGTERM, SIGHUP or the end of the terminal.
  func run() -> ExitStatus {
    guard let terminal = Terminal() else {
      return CLI.fail(
        .usage,
        "lane is a full-screen program: run it on a terminal (for scripts: register-cli scan, batch)"
      )
    }
    do {
      try terminal.start()
    } catch {
      return CLI.fail(.usage, "cannot set up the terminal: \(error)")
    }
    defer { terminal.restore() }
    var decoder = KeyDecoder()
    reconnect()
    draw(terminal)
    while running {
      var descriptors = [
        pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0),
        pollfd(fd: terminal.signals, events: Int16(POLLIN), revents: 0),
      ]
      if let events = link.eventDescriptor {
        descriptors.append(pollfd(fd: events, events: Int16(POLLIN), revents: 0))
      }
      if link.isOnline && statusDue == nil {
        statusDue = lastStatus + Self.quietStatusMilliseconds
      }
      var timeout: Int32 =
        decoder.isWaiting
        ? Self.escapeMilliseconds : link.isOnline ? -1 : Int32(Self.retryMilliseconds)
      if let statusDue, link.isOnline {
        let wait = Int32(clamping: max(0, statusDue - Self.now()))
        timeout = timeout < 0 ? wait : min(timeout, wait)
      }
      let ready = retryingOnInterrupt { poll(&descriptors, nfds_t(descriptors.count), timeout) }
      if descriptors[1].revents != 0 {
        for signal in terminal.takeSignals() {
          if signal == SIGWINCH {
            writer.invalidate()
          } else {
            running = false
          }
        }
      }
      if descriptors[0].revents != 0 {
        let bytes = terminal.readKeys()
        if bytes.isEmpty { running = false }
        for key in decoder.feed(bytes) where running { handle(key) }
      } else if ready == 0 && decoder.isWaiting {
        for key in decoder.flush() where running { handle(key) }
      }
      if link.isOnline {
        let (types, lost) = link.takeEvents()
        if !types.isEmpty { refresh(after: types) }
        if lost { goOffline() }
      }
      if link.isOnline, let statusDue, Self.now() >= statusDue { refreshStatus() }
      if !link.isOnline && Self.now() >= nextAttempt { reconnect() }
      if running { draw(terminal) }
    }
    return .done
  }

  private func draw(_ terminal: Terminal) {
    let size = terminal.size
    let (frame, targets) = LaneView.render(state, width: size.columns, height: size.rows)
    self.targets = targets
    terminal.write(writer.update(to: frame))
  }

  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
  }

  // MARK: The connection

  /// Connects, sends what waited (in order, each with its own key), and reads the register
  /// as it is now.
  func reconnect() {
    nextAttempt = Self.now() + Self.retryMilliseconds
    guard link.connect() else {
      if state.connection == .online { state.connection = .offline }
      return
    }
    let wasOffline = state.connection == .offline
    state.connection = .online
    if wasOffline {
      let sent =
        waiting.isEmpty ? "" : "; sent what waited (\(Words.count(waiting.count, "change")))"
      state.message = LaneState.Message("Connected to the register again\(sent).")
    }
    while let request = waiting.first {
      guard let reply = link.send(request) else {
        goOffline()
        return
      }
      waiting.removeFirst()
      state.waiting = waiting.count
      take(reply, for: request, then: nil)
    }
    refreshStatus()
    refreshOrder()
  }

  func goOffline() {
    // (The status bar is read again once registerd is back.)
    statusDue = nil
    link.disconnect()
    state.connection = .offline
    nextAttempt = Self.now() + Self.retryMilliseconds
  }

  /// Reads again what the events changed: the order, and the status bar's facts.
  private func refresh(after types: [String]) {
    // The order's own events, and those that end an order: the order is read again at once.
    let orderEvents = CustomerDisplay.orderEvents.union(["sale_completed", "return_completed"])
    if types.contains(where: orderEvents.contains) { refreshOrder() }
    // Everything else touches the status bar (who is signed in, the day, the drawer, the
    // printer): read again at most every `statusMilliseconds`, however many events come — a
    // busy register sends thousands a second, and the lane must stay quick to scan.
    if types.contains(where: { !CustomerDisplay.orderEvents.contains($0) }) {
      let soon = max(Self.now(), lastStatus + Self.statusMilliseconds)
      statusDue = min(statusDue ?? soon, soon)
    }
  }

  func refreshOrder() {
    guard case .success(_, let result)? = query(Requests.Order()) else { return }
    state.order = result
    if !(result["lines"]?.arrayValue ?? []).isEmpty { state.completed = nil }
  }

  func refreshStatus() {
    lastStatus = Self.now()
    statusDue = nil
    if case .success(_, let hello)? = query(Requests.Hello()) {
      state.store = hello["store"]?.stringValue ?? ""
      state.currency = hello["currency"]?.stringValue
      state.day = hello["day"]?.int64Value.map { Int($0) }
      state.readOnly = hello["read_only"] == .bool(true)
      state.printer = hello["printer"]?["status"]?.stringValue
      state.display = hello["display"]?["status"]?.stringValue
      state.tenders = (hello["tenders"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
    if case .success(_, let people)? = query(Requests.OperatorList()) {
      let operators = people["operators"]?.arrayValue ?? []
      state.hasOperators = !operators.isEmpty
      let id = people["signed_in"]?.stringValue
      state.signedIn = id.map { id in
        let person = operators.first { $0["id"]?.stringValue == id }
        let name = person?["name"]?.stringValue ?? id
        return person?["role"]?.stringValue.map { "\(name) (\($0))" } ?? name
      }
    }
    if case .success(_, let report)? = query(Requests.Report(kind: .x)) {
      state.drawer = report["report"]?["expected_cash"]?.stringValue
    }
  }

  /// A read: sent now, or nil when registerd cannot be reached.
  func query(_ body: any RequestBody) -> Reply? {
    guard link.isOnline else { return nil }
    guard let reply = link.send(TypedRequest(body)) else {
      goOffline()
      return nil
    }
    return reply
  }

  // MARK: Keys

  func handle(_ key: Key) {
    if case .click(let column, let row) = key {
      guard let target = targets.first(where: { $0.row == row && $0.columns.contains(column) })
      else { return }
      switch target.action {
      case .key(let key): handle(key)
      case .selectLine(let line): state.selectedLine = line
      }
      return
    }
    if key == .control("c") {
      running = false
      return
    }
    if state.prompt != nil {
      handlePrompt(key)
      return
    }
    if case .text(_, let lines) = state.pane {
      let step = [Key.up: -1, .down: 1, .pageUp: -10, .pageDown: 10][key]
      if let step {
        state.textScroll = max(0, min(lines.count - 1, state.textScroll + step))
      } else {
        state.pane = .order
      }
      return
    }
    switch key {
    case .character(let character):
      typed(character)
    case .enter:
      ring()
    case .backspace:
      if state.input.isEmpty { state.quantity = nil } else { state.input.removeLast() }
    case .escape:
      state.input = ""
      state.quantity = nil
      state.message = nil
    case .up: moveSelection(by: -1)
    case .down: moveSelection(by: 1)
    case .pageUp: moveSelection(by: -5)
    case .pageDown: moveSelection(by: 5)
    case .home: state.selectedLine = state.lineNumbers.first
    case .end: state.selectedLine = state.lineNumbers.last
    case .delete: removeLine()
    case .function(let number):
      if let command = LaneView.commands.first(where: { $0.function == number }) {
        self.command(command.key)
      }
    case .tab, .left, .right, .control, .click: break
    }
  }

  /// A character on the ringing screen: part of a code, a quantity before the scan, or — on
  /// an empty input line, in lower case — a command. (Codes and SKUs are digits and capitals,
  /// as scanners type them; a lower-case letter after something typed is typed too.)
  private func typed(_ character: Character) {
    let digitsOnly = !state.input.isEmpty && state.input.allSatisfy(\.isASCIIDigit)
    if (character == "*" || character == "x") && digitsOnly {
      guard let quantity = Int64(state.input), (1...9999).contains(quantity) else {
        state.message = LaneState.Message("A quantity is 1 to 9999.", isError: true)
        state.input = ""
        return
      }
      state.quantity = quantity
      state.input = ""
      return
    }
    if state.input.isEmpty && character.isLowercase && character.isASCII {
      command(character)
      return
    }
    guard state.input.count < 64 else { return }
    state.input.append(character)
  }

  private func moveSelection(by step: Int) {
    let numbers = state.lineNumbers
    guard !numbers.isEmpty else { return }
    let index = state.currentLine.flatMap { numbers.firstIndex(of: $0) } ?? numbers.count - 1
    state.selectedLine = numbers[max(0, min(numbers.count - 1, index + step))]
  }

  private func handlePrompt(_ key: Key) {
    guard var prompt = state.prompt else { return }
    switch key {
    case .escape:
      close()
      state.message = LaneState.Message("Cancelled.")
    case .enter where !prompt.isMenu:
      let text = prompt.text
      let answer = self.answer
      close()
      answer?(text)
    case .backspace:
      if !prompt.text.isEmpty { prompt.text.removeLast() }
      state.prompt = prompt
    case .character(let character):
      if let quick = prompt.quick.first(where: { $0.key == character }),
        prompt.isMenu || !(character.isNumber || character == "." || character == "%")
      {
        let answer = self.answer
        close()
        answer?(quick.value)
      } else if !prompt.isMenu && prompt.text.count < 200 {
        prompt.text.append(character)
        state.prompt = prompt
      }
    default:
      break
    }
  }

  /// Asks `prompt` on the input line; `then` gets the answer (Esc cancels and calls nothing).
  func ask(_ prompt: LaneState.PromptView, then: @escaping (String) -> Void) {
    state.prompt = prompt
    answer = then
  }

  /// Ends the prompt (and a list shown for it).
  func close() {
    state.prompt = nil
    answer = nil
    if case .list = state.pane { state.pane = .order }
  }
}

extension Character {
  var isASCIIDigit: Bool { isASCII && isNumber }
}
