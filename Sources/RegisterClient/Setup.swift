import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `register-cli setup` was told on its command line; the rest is asked for.
package struct SetupAnswers: Equatable {
  package var storeName: String?
  /// The sales tax rate in percent, as typed ("7.5").
  package var taxRate: String?
  /// ISO 4217 code (default USD).
  package var currency: String?
  package var managerID: String?
  package var managerName: String?

  package init(
    storeName: String? = nil, taxRate: String? = nil, currency: String? = nil,
    managerID: String? = nil, managerName: String? = nil
  ) {
    self.storeName = storeName
    self.taxRate = taxRate
    self.currency = currency
    self.managerID = managerID
    self.managerName = managerName
  }

  /// The store settings `setup` sends: a catalog file's `store` section, with one tax class
  /// at the rate given and an exempt class (products name their class in the catalog).
  package static func store(name: String, taxRate: String, currency: String) -> JSONValue {
    .object([
      "name": .string(name),
      "currency": .string(currency),
      "tax": .object([
        "classes": .object(["standard": .string(taxRate), "exempt": .string("0")]),
        "default_class": .string("standard"),
      ]),
    ])
  }
}

extension Session {
  /// `setup`: asks registerd what it lacks (`hello`'s `setup_needed`), asks the person at the
  /// terminal for it — or reads the answers from standard input, one per line, in the order
  /// asked: store name, tax rate, manager id, manager name, PIN — and sends `setup`. A register
  /// that is set up already is left alone.
  func runSetup(_ answers: SetupAnswers) -> ExitStatus {
    let hello = TypedRequest(Requests.Hello(), envelope: RequestEnvelope(id: .int(nextID)))
    nextID += 1
    let needs: [String]
    switch exchange(hello.line) {
    case .failure(let failure):
      return CLI.fail(.unreachable, failure.message)
    case .success(let line):
      guard case .success(_, let result)? = try? Reply(line: line) else {
        return CLI.fail(.unreachable, "registerd's hello reply could not be read: \(line)")
      }
      needs = result["setup_needed"]?.arrayValue?.compactMap(\.stringValue) ?? []
      if needs.isEmpty {
        writeStandardOutput(
          "registerd at \(socketPath) is set up already (\(result["store"]?.stringValue ?? "?")); nothing to do.\n"
        )
        return .done
      }
    }
    let needsStore = needs.contains("the store's settings")
    let needsManager = needs.contains("a manager")
    if isatty(0) == 1 {
      writeStandardError("registerd needs \(needs.joined(separator: " and ")) before it serves.\n")
    }
    var store: JSONValue?
    var manager: SetupManager?
    do throws(UsageError) {
      if needsStore {
        let name = try Self.ask("Store name (as receipts print it): ", given: answers.storeName)
        let rate = try Self.ask(
          "Sales tax rate in percent (like 7.5; 0 for none): ", given: answers.taxRate)
        store = SetupAnswers.store(
          name: name, taxRate: rate, currency: answers.currency ?? "USD")
      }
      if needsManager {
        let id = try Self.ask("Manager's operator id (like mo): ", given: answers.managerID)
        let name = try Self.ask(
          "Manager's name [\(id)]: ", given: answers.managerName, default: id)
        guard
          let pin = try SecretEntry.read(prompt: "PIN for \(id) (4 to 12 digits): ", confirm: true)
        else { throw UsageError("no PIN given (standard input ended)") }
        manager = SetupManager(id: id, name: name, pin: pin)
      }
    } catch {
      return CLI.fail(.usage, error.message)
    }
    let signIn = manager.map { " Sign in with `register-cli sign-in \($0.id)`." } ?? ""
    return run(
      .request(
        TypedRequest(Requests.Setup(store: store, manager: manager)),
        .message("registerd is set up and serving.\(signIn)")))
  }

  /// One answer: the one given on the command line, else a line typed at the terminal (shown)
  /// or read from standard input; blank takes `default` when there is one.
  private static func ask(_ prompt: String, given: String?, default fallback: String? = nil)
    throws(UsageError) -> String
  {
    if let given { return given }
    let line: String?
    if isatty(0) == 1 {
      line = (TerminalReader() ?? TerminalReader(descriptor: 0)).read(prompt: prompt, echo: true)
    } else {
      line = readLine(strippingNewline: true)
    }
    guard let line else { throw UsageError("no answer to \"\(prompt)\" (standard input ended)") }
    let answer = String(line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    if answer.isEmpty, let fallback { return fallback }
    guard !answer.isEmpty else { throw UsageError("no answer to \"\(prompt)\"") }
    return answer
  }
}
