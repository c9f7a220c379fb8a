import Foundation
import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// An installed register (`requiresSetup`) serves nobody until it has store settings and a
/// manager: every op but `hello` and `setup` is refused with `not_set_up` and changes nothing;
/// `setup` gives what it lacks, journaled, and only that.
@Suite struct SetupTests {
  static let store =
    #"{"name":"Corner Shop","currency":"USD","tax":{"classes":{"standard":"8.25","exempt":"0"},"default_class":"standard"}}"#
  static let manager = #"{"id":"mo","name":"Mo","pin":"4321"}"#

  /// A fresh install: an empty register (no catalog file imported) journaling into memory.
  struct Fresh {
    let storage = MemoryJournalStorage()
    let service: RegisterService

    init() {
      let journal = Journal(storage: storage, lastSum: JournalRecord.genesis, lastSequence: 0)
      service = RegisterService(
        register: Register(), clock: ManualClock(testTime), journal: journal)
      service.requiresSetup = true
    }
  }

  /// A request for every op, as a client would send it first thing.
  static let requests: [Op: String] = [
    Requests.Catalog.op: #"{"op":"catalog"}"#,
    Requests.CatalogExport.op: #"{"op":"catalog_export"}"#,
    Requests.ProductLookup.op: #"{"op":"product","sku":"TEE"}"#,
    Requests.Order.op: #"{"op":"order"}"#,
    Requests.Receipt.op: #"{"op":"receipt"}"#, Requests.Add.op: #"{"op":"add","sku":"TEE"}"#,
    Requests.Scan.op: #"{"op":"scan","code":"TEE"}"#,
    Requests.Remove.op: #"{"op":"remove","line":1}"#,
    Requests.SetQty.op: #"{"op":"set_qty","line":1,"qty":2}"#,
    Requests.Tender.op: #"{"op":"tender","type":"cash","amount":"1.00"}"#,
    Requests.Void.op: #"{"op":"void","reason":"x"}"#,
    Requests.Discount.op: #"{"op":"discount","percent":"10","reason":"x"}"#,
    Requests.OverridePrice.op:
      #"{"op":"override_price","line":1,"unit_price":"1.00","reason":"x"}"#,
    Requests.VoidLine.op: #"{"op":"void_line","line":1}"#, Requests.Park.op: #"{"op":"park"}"#,
    Requests.Parked.op: #"{"op":"parked"}"#, Requests.Resume.op: #"{"op":"resume","order_id":1}"#,
    Requests.Return.op: #"{"op":"return","receipt":1,"lines":[{"line":1,"qty":1}],"reason":"x"}"#,
    Requests.GiftCardBalance.op: #"{"op":"gift_card_balance","number":"6036000000000001"}"#,
    Requests.GiftCardReload.op:
      #"{"op":"gift_card_reload","number":"6001234567890128","amount":"25.00"}"#,
    Requests.Subscribe.op: #"{"op":"subscribe"}"#,
    Requests.OperatorAdd.op:
      #"{"op":"operator_add","operator_id":"eve","name":"E","role":"manager","pin":"1111"}"#,
    Requests.OperatorList.op: #"{"op":"operator_list"}"#,
    Requests.OperatorRemove.op: #"{"op":"operator_remove","operator_id":"eve"}"#,
    Requests.OperatorSetPIN.op: #"{"op":"operator_set_pin","operator_id":"eve","pin":"2222"}"#,
    Requests.OperatorUnlock.op: #"{"op":"operator_unlock","operator_id":"eve"}"#,
    Requests.SignIn.op: #"{"op":"sign_in","operator":"eve","pin":"1111"}"#,
    Requests.SignOut.op: #"{"op":"sign_out"}"#,
    Requests.CustomerAdd.op: #"{"op":"customer_add","name":"C"}"#,
    Requests.CustomerFind.op: #"{"op":"customer_find","query":"C"}"#,
    Requests.AttachCustomer.op: #"{"op":"attach_customer","customer_id":"C1"}"#,
    Requests.DetachCustomer.op: #"{"op":"detach_customer"}"#,
    Requests.CustomerHistory.op: #"{"op":"customer_history","customer_id":"C1"}"#,
    Requests.Wishlist.op: #"{"op":"wishlist","customer_id":"C1"}"#,
    Requests.WishlistAdd.op: #"{"op":"wishlist_add","customer_id":"C1","sku":"TEE"}"#,
    Requests.WishlistRemove.op: #"{"op":"wishlist_remove","customer_id":"C1","sku":"TEE"}"#,
    Requests.WishlistToOrder.op: #"{"op":"wishlist_to_order","customer_id":"C1","sku":"TEE"}"#,
    Requests.ProductAdd.op:
      #"{"op":"product_add","product":{"sku":"NEW","name":"N","description":"","category":"C","price":"1.00"}}"#,
    Requests.ProductUpdate.op: #"{"op":"product_update","sku":"NEW","changes":{"price":"0.01"}}"#,
    Requests.ProductRemove.op: #"{"op":"product_remove","sku":"NEW"}"#,
    Requests.StockAdjust.op: #"{"op":"stock_adjust","sku":"NEW","delta":1,"reason":"x"}"#,
    Requests.SetFloat.op: #"{"op":"float","amount":"100.00"}"#,
    Requests.PaidIn.op: #"{"op":"paid_in","amount":"1.00","reason":"x"}"#,
    Requests.PaidOut.op: #"{"op":"paid_out","amount":"1.00","reason":"x"}"#,
    Requests.NoSale.op: #"{"op":"no_sale","reason":"x"}"#,
    Requests.EmailReceipt.op: #"{"op":"email_receipt","receipt":1,"to":"a@b.example"}"#,
    Requests.Print.op: #"{"op":"print"}"#, Requests.Report.op: #"{"op":"report"}"#,
    Requests.CloseDay.op: #"{"op":"close_day"}"#,
  ]

  @Test func everyOpButHelloAndSetupHasARequestHere() {
    #expect(
      Set(Self.requests.keys)
        == Set(Op.allCases).subtracting([Requests.Hello.op, Requests.Setup.op]))
  }

  @Test(arguments: Op.allCases.filter { $0 != Requests.Hello.op && $0 != Requests.Setup.op })
  func aRegisterNotSetUpRefusesEveryOtherOp(_ op: Op) throws {
    let fresh = Fresh()
    let request = try #require(Self.requests[op])
    let reply = try fresh.service.send(request)
    #expect(reply.errorCode == "not_set_up", "\(op.rawValue): \(reply.serialized)")
    let message = reply["error"]?["message"]?.stringValue ?? ""
    #expect(message.contains("register-cli setup"), "\(message)")
    #expect(fresh.storage.bytes.isEmpty, "nothing journaled")
    #expect(fresh.service.register.lastSequence == 0)
  }

  @Test func helloSaysWhatIsMissing() throws {
    let fresh = Fresh()
    let hello = try fresh.service.ok(Requests.Hello())
    #expect(
      hello["setup_needed"] == .array([.string("the store's settings"), .string("a manager")]))
    // A checkout's register (setup not required) never says so.
    let open = RegisterService(register: Register(), clock: ManualClock(testTime), journal: nil)
    #expect(try open.ok(Requests.Hello())["setup_needed"] == nil)
  }

  @Test func badSetupIsRefusedAndChangesNothing() throws {
    let fresh = Fresh()
    let bad: [(String, String)] = [
      (#"{"op":"setup","manager":\#(Self.manager)}"#, "store is required"),
      (#"{"op":"setup","store":\#(Self.store)}"#, "manager is required"),
      (
        #"{"op":"setup","store":{"name":"X","currency":"USD","tax":{"classes":{"standard":"abc"},"default_class":"standard"}},"manager":\#(Self.manager)}"#,
        "store.tax"
      ),
      (
        #"{"op":"setup","store":\#(Self.store),"manager":{"id":"mo","name":"Mo","pin":"12"}}"#,
        "PIN"
      ),
      (
        #"{"op":"setup","store":\#(Self.store),"manager":{"id":"m o","name":"Mo","pin":"4321"}}"#,
        "operator"
      ),
      (
        #"{"op":"setup","store":\#(Self.store),"manager":{"id":"mo","name":"Mo","pin":"4321","role":"cashier"}}"#,
        "role"
      ),
    ]
    for (request, says) in bad {
      let reply = try fresh.service.send(request)
      #expect(reply["ok"] == .bool(false), "\(request)")
      let message = reply["error"]?["message"]?.stringValue ?? ""
      #expect(message.contains(says), "\(request) → \(message)")
      #expect(fresh.storage.bytes.isEmpty, "\(request) journaled something")
      #expect(!fresh.service.register.isSetUp)
    }
  }

  @Test func setupGivesTheStoreAndTheFirstManagerJournaledAndThenServes() throws {
    let fresh = Fresh()
    let result = try fresh.service.ok(
      #"{"op":"setup","store":\#(Self.store),"manager":\#(Self.manager)}"#)
    #expect(result["set_up"] == .bool(true))
    #expect(result["store"] == .string("Corner Shop"))
    #expect(result["operator"]?["id"] == .string("mo"))
    #expect(result["operator"]?["role"] == .string("manager"))
    let register = fresh.service.register
    #expect(register.isSetUp)
    #expect(register.store.tax.rate(of: "standard") == (try Percent.parse("8.25")))
    // No longer open: a change needs someone signed in, and the manager can.
    #expect(
      try fresh.service.send(Requests.SetFloat(amount: usd("50.00"))).errorCode == "not_signed_in")
    try fresh.service.ok(Requests.SignIn(operatorID: "mo", pin: "4321"))
    try fresh.service.ok(
      Requests.ProductAdd(
        product: .object([
          "sku": "MUG", "name": "Mug", "description": "", "category": "Home", "price": "20.00",
        ]))
    )
    let order = try fresh.service.ok(Requests.Add(sku: "MUG"))
    #expect(order["tax"] == .string("1.65"))
    // Setup is done once: a second is refused and changes nothing.
    let length = fresh.storage.bytes.count
    let again = try fresh.service.send(
      #"{"op":"setup","store":\#(Self.store),"manager":{"id":"zed","name":"Z","pin":"1111"}}"#)
    #expect(again.errorCode == "already_set_up")
    #expect(fresh.storage.bytes.count == length)
    // Journaled: a replay is set up with the same store and manager.
    let replayed = try Register.replaying(JournalScanner.scan(fresh.storage.bytes).records)
    #expect(replayed.isSetUp)
    #expect(replayed.store == register.store)
    #expect(replayed.operators.map(\.id) == ["mo"])
  }

  @Test func withAStoreFileImportedSetupGivesOnlyTheManager() throws {
    let fresh = Fresh()
    let catalog = try CatalogFile.parse(Array(testCatalogJSON.utf8), file: "t")
    try fresh.service.commit([.storeConfigured(catalog.store)])
    let hello = try fresh.service.ok(Requests.Hello())
    #expect(hello["setup_needed"] == .array([.string("a manager")]))
    let refused = try fresh.service.send(
      #"{"op":"setup","store":\#(Self.store),"manager":\#(Self.manager)}"#)
    #expect(refused["error"]?["message"]?.stringValue?.contains("leave store out") == true)
    try fresh.service.ok(#"{"op":"setup","manager":\#(Self.manager)}"#)
    #expect(fresh.service.register.isSetUp)
    #expect(fresh.service.register.store == catalog.store)
  }
}
