import RegisterClient
import RegisterEngine
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading a card's number, CVV and expiry line by line, without a terminal or a daemon.
@Suite struct CardEntryTests {
  /// A reader over `lines` that records which fields were asked for.
  final class Lines {
    var lines: [String]
    var asked: [CardEntry.Field] = []
    init(_ lines: [String]) { self.lines = lines }
    func read(_ field: CardEntry.Field) -> String? {
      asked.append(field)
      return lines.isEmpty ? nil : lines.removeFirst()
    }
  }

  @Test("the number, then the CVV, then the expiry when --exp did not give it")
  func readsMissingFieldsInOrder() throws {
    let lines = Lines(["  4242 4242 4242 4242\r", "\t737 ", "12/30", "left over"])
    let tender = try CardEntry.request(CardTender(), read: lines.read)
    #expect(lines.asked == [.number, .cvv, .expiry])
    #expect(lines.lines == ["left over"], "nothing is read past the card")
    #expect(tender.type == .card && tender.amount == nil)
    // Spaces inside the number stay: registerd accepts and strips them.
    #expect(
      tender.card
        == CardInput(number: "4242 4242 4242 4242", expiryMonth: 12, expiryYear: 30, cvv: "737"))

    let withExpiry = Lines(["5555-5555-5555-4444", "321"])
    let card = CardTender(expiry: CardExpiry(month: 1, year: 2031))
    let second = try CardEntry.request(card, read: withExpiry.read)
    #expect(withExpiry.asked == [.number, .cvv])
    #expect(second.card?.expiryYear == 2031)
    #expect(CardEntry.Field.number.isSecret && CardEntry.Field.cvv.isSecret)
    #expect(!CardEntry.Field.expiry.isSecret)
  }

  @Test("short, empty or malformed input is refused, and the error never repeats it")
  func badInput() {
    func failure(_ lines: [String], _ card: CardTender = CardTender()) -> String? {
      do {
        _ = try CardEntry.request(card, read: Lines(lines).read)
        return nil
      } catch {
        return error.message
      }
    }
    #expect(failure([])?.contains("no card number given") == true)
    #expect(failure(["4242424242424242"])?.contains("no CVV given") == true)
    #expect(failure(["4242424242424242", "737"])?.contains("no expiry given") == true)
    #expect(failure(["   ", "737", "12/30"])?.contains("card number was empty") == true)
    let bad = failure(["4242424242424242", "737", "13-2030"])
    #expect(bad?.contains("MM/YY") == true)
    for message in [bad, failure(["4242424242424242"]), failure(["4242424242424242", ""])] {
      #expect(message?.contains("4242") == false)
      #expect(message?.contains("737") == false)
    }
  }

  @Test func expiryForms() {
    #expect(CardExpiry("12/30") == CardExpiry(month: 12, year: 30))
    #expect(CardExpiry("1/2031") == CardExpiry(month: 1, year: 2031))
    for bad in ["", "12", "12/", "/30", "12/3", "12/303", "ab/cd", "12/30/1", "123/30"] {
      #expect(CardExpiry(bad) == nil, "\(bad)")
    }
  }

  @Test("lines are read from a descriptor up to the newline and no further")
  func readLineFromDescriptor() throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer { close(ends[0]) }
    let text = Array("4242 4242\r\n737\n\nlast".utf8)
    #expect(write(ends[1], text, text.count) == text.count)
    close(ends[1])
    #expect(CardEntry.readLine(from: ends[0]) == "4242 4242\r")
    #expect(CardEntry.readLine(from: ends[0]) == "737")
    #expect(CardEntry.readLine(from: ends[0]) == "")
    #expect(CardEntry.readLine(from: ends[0]) == "last", "the last line may lack its newline")
    #expect(CardEntry.readLine(from: ends[0]) == nil)
  }

  @Test("a command line shown back in an error hides a card tender's words")
  func redaction() {
    #expect(
      CardTender.redacted("tender card 4242424242424242 --exp 12/30 --cvv 123") == "tender card …")
    #expect(CardTender.redacted("pay  'card' \"4242 4242\" --cvv 1") == "pay card …")
    #expect(CardTender.redacted("tender card \"4242 unterminated") == "tender card …")
    #expect(CardTender.redacted("tender cash 5") == "tender cash 5")
    #expect(CardTender.redacted("add CAP-BSB") == "add CAP-BSB")
  }
}

/// The roff the manual page is written in.
@Suite struct ManPageTests {
  @Test("roff specials are escaped: a leading . or ', backslashes, hyphens")
  func roffEscapes() {
    #expect(ManPage.roffText(".registerd") == "\\&.registerd")
    #expect(ManPage.roffText("'quoted'") == "\\&'quoted'")
    #expect(ManPage.roffText("a\n.b") == "a\n\\&.b")
    #expect(ManPage.roffText("mid.dle") == "mid.dle")
    #expect(ManPage.roffText("C:\\dir") == "C:\\edir")
    #expect(ManPage.roffText("--data-dir") == "\\-\\-data\\-dir")
    #expect(ManPage.roffQuoted("say \"hi\"") == "\"say \\(dqhi\\(dq\"")
  }

  @Test("completion words come from synopses: literal words, flags, not values")
  func completionLiterals() throws {
    let commands = Completion.commands
    let tender = try #require(commands.first { $0.names.contains("tender") })
    #expect(tender.names == ["tender", "pay"])
    #expect(
      tender.words == ["cash", "card", "gift-card", "store-credit", "other", "card-present"])
    #expect(tender.flags == ["--exp", "--amount", "--reference", "--brand", "--last4", "--auth"])
    let people = try #require(commands.first { $0.names == ["operator"] })
    #expect(people.words == ["add", "list", "remove", "set-pin", "unlock"])
    #expect(!people.words.contains("cashier"), "a flag's value is not a command word")
    #expect(Completion.globalFlags.contains("--approve"))
    #expect(Completion.globalFlags.contains("--socket"))
  }
}
