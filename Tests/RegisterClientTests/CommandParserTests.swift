import RegisterClient
import RegisterEngine
import Testing

/// register-cli's argument parsing, tested directly: the words of a command line in, the
/// request (or the usage error) out — no daemon, no process.
@Suite struct CommandParserTests {
  /// The request a command line builds, or nil when it builds something else.
  func request(_ words: [String]) throws -> JSONObject? {
    guard case .request(let object, _) = try CommandParser.parse(words) else { return nil }
    return object
  }

  /// The usage error a command line gets.
  func usageError(_ words: [String]) -> UsageError? {
    do {
      _ = try CommandParser.parse(words)
      return nil
    } catch {
      return error
    }
  }

  @Test func addWithQuantityAndOption() throws {
    let object = try #require(try request(["add", "PRINT", "2", "--option", "size=11x14"]))
    #expect(object["op"] == .string("add"))
    #expect(object["sku"] == .string("PRINT"))
    #expect(object["qty"] == .int(2))
    #expect(object["options"]?["size"] == .string("11x14"))
    // Nothing else: the daemon refuses unknown fields, so the CLI must not invent any.
    #expect(object.keys.sorted() == ["op", "options", "qty", "sku"])
  }

  @Test func optionsGoAnywhereOnTheLine() throws {
    let expected = try CommandParser.parse(["add", "PRINT", "2", "--option", "size=11x14"])
    #expect(try CommandParser.parse(["add", "--option", "size=11x14", "PRINT", "2"]) == expected)
    #expect(try CommandParser.parse(["add", "PRINT", "--option=size=11x14", "2"]) == expected)
  }

  @Test func addWithoutQuantityOrOptionsSendsOnlyTheSKU() throws {
    let object = try #require(try request(["add", "TEE"]))
    #expect(object.keys.sorted() == ["op", "sku"])
    #expect(try CommandParser.parse(["add", "TEE"]) == .request(object, .order))
  }

  @Test func tenderCashKeepsTheAmountAsText() throws {
    // Money goes on the wire as the decimal string typed, never through a Double.
    let object = try #require(try request(["tender", "cash", "20.10"]))
    #expect(object["op"] == .string("tender"))
    #expect(object["type"] == .string("cash"))
    #expect(object["amount"] == .string("20.10"))
  }

  @Test(arguments: [
    (["add"], "add needs SKU", "add"),
    (["add", "TEE", "two"], "QTY must be a whole number, got \"two\"", "add"),
    (
      ["add", "TEE", "--option", "frame"], "--option takes GROUP=CHOICE, like --option frame=oak",
      "add"
    ),
    (["add", "TEE", "--option"], "--option needs a value", "add"),
    (["add", "TEE", "1", "extra"], "add: unexpected argument \"extra\"", "add"),
    (["remove", "1.5"], "LINE must be a whole number, got \"1.5\"", "remove"),
  ])
  func usageErrorsNameTheCommand(words: [String], message: String, command: String) {
    #expect(usageError(words) == UsageError(message, command: command))
  }

  @Test func noCommandAndUnknownCommands() {
    #expect(usageError([]) == UsageError("no command given"))
    #expect(
      usageError(["--frobnicate"])?.message == "unknown option \"--frobnicate\" before the command")
    let unknown = usageError(["fly"])
    #expect(unknown?.message.hasPrefix("unknown command \"fly\"") == true)
    #expect(unknown?.command == nil)
  }

  @Test func helpOfACommandWinsOverItsArguments() throws {
    #expect(try CommandParser.parse(["add", "TEE", "--help"]) == .help(command: "add"))
    #expect(try CommandParser.parse(["help", "add"]) == .help(command: "add"))
  }

  @Test(arguments: [
    ["--json", "show"], ["show", "--json"], ["--socket", "/tmp/r.sock", "show", "--json"],
    ["show", "--socket=/tmp/r.sock", "--json"],
  ])
  func globalOptionsAreTakenFromAnywhere(line: [String]) throws {
    var words = line
    let options = try GlobalOptions.extract(from: &words)
    #expect(options.json)
    #expect(words == ["show"])
    #expect(
      options.socketPath == (line.contains { $0.contains("/tmp/r.sock") } ? "/tmp/r.sock" : nil))
  }

  @Test func wordsAfterDoubleDashAreNotGlobalOptions() throws {
    var words = ["customer", "find", "--", "--json"]
    let options = try GlobalOptions.extract(from: &words)
    #expect(!options.json)
    #expect(words == ["customer", "find", "--json"])
  }

  @Test func socketWithoutAPathIsAUsageError() {
    var words = ["show", "--socket"]
    #expect(throws: UsageError("--socket needs a path")) {
      try GlobalOptions.extract(from: &words)
    }
  }
}
