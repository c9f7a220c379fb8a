import Foundation
import RegisterEngine
import Testing

@testable import RegisterClient

/// What people read: tenders in words, product details beside the price, every product flag
/// taken or named, and the two requests that cannot be taken back asked about at a terminal.
@Suite struct WordsForPeopleTests {
  @Test(arguments: [
    ("cash", "Cash"), ("card", "Card"), ("VISA", "VISA"), ("gift_card", "Gift card"),
    ("store_credit", "Store credit"), ("card_present VISA", "VISA (card terminal)"),
    ("card_present", "Card (terminal)"), ("other check", "Check"),
  ])
  func tendersAreWords(key: String, words: String) {
    #expect(TenderWords.label(key) == words)
  }

  @Test func anOrderPaidByGiftCardAndStoreCreditSaysSo() throws {
    let order = try JSONParser.parse(
      #"{"order_id":3,"status":"completed","version":4,"customer_id":"C7","lines":[],"item_count":0,"subtotal":"0.00","tax":"0.00","total":"60.00","tenders":[{"type":"gift_card","amount":"50.00"},{"type":"store_credit","amount":"10.00"}],"paid":"60.00"}"#
    )
    let text = Output.render(order, style: .order)
    #expect(text.contains("Gift card"), "\(text)")
    #expect(text.contains("Store credit"), "\(text)")
    #expect(!text.contains("_"), "no wire names: \(text)")
    #expect(text.contains("Customer: C7"), "\(text)")
  }

  @Test func anOrderOfGiftCardsAloneHasNoItemCount() throws {
    let order = try JSONParser.parse(
      #"{"order_id":3,"status":"open","version":2,"lines":[{"line":1,"sku":"G25","name":"Gift Card","qty":1,"amount":"25.00"}],"item_count":0,"subtotal":"0.00","tax":"0.00","gift_cards":"25.00","total":"25.00","tenders":[],"paid":"0.00"}"#
    )
    let text = Output.render(order, style: .order)
    #expect(!text.contains("Items") && !text.contains("Subtotal"), "\(text)")
  }

  @Test func theOrderNamesItsCustomerByName() throws {
    let order = try JSONParser.parse(
      #"{"order_id":3,"status":"open","version":2,"customer_id":"C7","customer_name":"Dana Lee","lines":[],"item_count":0,"subtotal":"0.00","tax":"0.00","total":"0.00","tenders":[],"paid":"0.00"}"#
    )
    let text = Output.render(order, style: .order)
    #expect(text.contains("Customer: Dana Lee (C7)"), "\(text)")
    #expect(text.contains("Items"), "\(text)")
  }

  @Test func aGiftCardBalanceSaysWhenInLocalTime() throws {
    let reply = try JSONParser.parse(
      #"{"gift_card":{"number":"****1234","balance":"12.50","issued_amount":"25.00","issued_day":3,"issued_receipt":7,"last_used_at":"2026-03-15T14:03:05.000-05:00"}}"#
    )
    let text = Output.render(reply, style: .giftCard)
    #expect(!text.contains("T14:03"), "no ISO timestamp: \(text)")
    #expect(text.contains(HumanTime.display("2026-03-15T14:03:05.000-05:00") ?? "?"), "\(text)")
  }

  @Test(arguments: [
    ReplyError(
      .unknownBarcode, "no product has the EAN-13 barcode 4006381333931; (product_update)",
      data: .object(["code": .string("4006381333931"), "kind": .string("EAN-13")])),
    ReplyError(
      .invalidProduct, "TEE does not track stock; set its stock with product_update first",
      data: .object(["sku": .string("TEE"), "stock_tracked": .bool(false)])),
    ReplyError(
      .productExists, "a product with SKU \"TEE\" exists; use product_update",
      data: .object(["sku": .string("TEE")])),
  ])
  func daemonAdviceIsSaidAsACommand(error: ReplyError) {
    let said = ErrorWords.said(error)
    #expect(!said.contains("product_update"), "\(said)")
    #expect(said.contains("register-cli product update"), "\(said)")
    #expect(said.contains("TEE") || said.contains("4006381333931"), "\(said)")
  }

  @Test func anXReportOfAnotherDayIsRefusedBeforeItIsSent() {
    do {
      _ = try CommandParser.parse(["report", "x", "--day", "3"])
      Issue.record("report x --day was taken")
    } catch {
      #expect(error.message.contains("register-cli report z --day"), "\(error.message)")
    }
  }

  @Test func wordsAreChosenByCodeNotByTheDaemonsWording() {
    // The same words with another code are shown as they came; a code the client does not
    // know, too.
    let other = ReplyError(.badRequest, "x; use product_update", data: nil)
    #expect(ErrorWords.said(other) == "x; use product_update")
    let approval = ReplyError(
      .approvalRequired, "a return needs a manager: send approve: {operator, pin}",
      data: .object(["needs": .string("a return needs a manager")]))
    #expect(ErrorWords.said(approval).contains("--approve MANAGER"))
    #expect(!ErrorWords.said(approval).contains("{operator, pin}"))
    let notSigned = ReplyError(.notSignedIn, "nobody is signed in; sign in first (op sign_in)")
    #expect(ErrorWords.said(notSigned).contains("register-cli sign-in"))
  }

  @Test func aProductShowsItsCategoryRegularPriceColoursAndGiftCardNeeds() throws {
    let product = try JSONParser.parse(
      #"{"sku":"GIFT-OPEN","name":"Gift card","description":"Any amount","category":"Gift Cards","price":"0.00","unit_price":"0.00","gift_card":true,"open_amount":true}"#
    )
    let details = Output.productDetails(product).joined(separator: "; ")
    #expect(details.contains("Gift Cards"))
    #expect(details.contains("--amount"), "\(details)")
    let tee = try JSONParser.parse(
      #"{"sku":"TEE","name":"Tee","category":"Tops","price":"14.99","sale_price":"9.99","unit_price":"9.99","colors":["Black","White"]}"#
    )
    let teeDetails = Output.productDetails(tee).joined(separator: "; ")
    #expect(teeDetails == "Tops; on sale, regular price 14.99; colours Black, White")
  }

  @Test func productUpdateTakesEveryFieldFlagAndNamesAnUnknownOne() throws {
    guard
      case .request(let typed, _) = try CommandParser.parse([
        "product", "update", "TEE", "--barcode", "5449000000996,4006381333931",
      ])
    else { throw UsageError("not a request") }
    #expect(
      typed.line
        == #"{"op":"product_update","sku":"TEE","changes":{"barcodes":["5449000000996","4006381333931"]}}"#
    )
    do {
      _ = try CommandParser.parse(["product", "update", "TEE", "--colour", "red"])
      Issue.record("an unknown flag was taken")
    } catch {
      #expect(error.message.contains("--colour"), "\(error.message)")
    }
  }

  @Test func voidAndCloseDayAreConfirmedUnlessYes() throws {
    guard case .confirm(let question, let typed, _) = try CommandParser.parse(["void"]) else {
      throw UsageError("void is not confirmed")
    }
    #expect(question.contains("Void"))
    #expect(typed.op == Requests.Void.op)
    guard case .confirm = try CommandParser.parse(["close-day", "--counted-cash", "100"]) else {
      throw UsageError("close-day is not confirmed")
    }
    guard case .request(let sent, _) = try CommandParser.parse(["close-day", "--yes"]) else {
      throw UsageError("--yes still asks")
    }
    #expect(sent.op == Requests.CloseDay.op)
    guard case .request = try CommandParser.parse(["void", "--yes", "--reason", "x"]) else {
      throw UsageError("--yes still asks")
    }
  }
}
