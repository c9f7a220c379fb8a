/// Every op of the protocol, declared once: its request type (`requestType`), the
/// `hello` list, whether it changes state, and the CLI's choice to send an idempotency key all
/// come from here, through exhaustive switches.
public enum Op: String, CaseIterable, Sendable {
  case hello
  case catalog
  case catalogExport = "catalog_export"
  case product
  case order
  case receipt
  case add
  case scan
  case remove
  case setQty = "set_qty"
  case tender
  case void
  case discount
  case overridePrice = "override_price"
  case voidLine = "void_line"
  case park
  case parked
  case resume
  case `return`
  case giftCardBalance = "gift_card_balance"
  case subscribe
  case operatorAdd = "operator_add"
  case operatorList = "operator_list"
  case operatorRemove = "operator_remove"
  case operatorSetPIN = "operator_set_pin"
  case operatorUnlock = "operator_unlock"
  case signIn = "sign_in"
  case signOut = "sign_out"
  case customerAdd = "customer_add"
  case customerFind = "customer_find"
  case attachCustomer = "attach_customer"
  case detachCustomer = "detach_customer"
  case customerHistory = "customer_history"
  case wishlist
  case wishlistAdd = "wishlist_add"
  case wishlistRemove = "wishlist_remove"
  case wishlistToOrder = "wishlist_to_order"
  case productAdd = "product_add"
  case productUpdate = "product_update"
  case productRemove = "product_remove"
  case stockAdjust = "stock_adjust"
  case setFloat = "float"
  case paidIn = "paid_in"
  case paidOut = "paid_out"
  case noSale = "no_sale"
  case emailReceipt = "email_receipt"
  case print
  case report
  case closeDay = "close_day"
  case setup

  /// True when the op changes state (so it is journaled, needs durability and takes a key).
  public var isMutation: Bool {
    switch self {
    case .hello, .catalog, .catalogExport, .order, .receipt, .parked, .subscribe, .operatorList,
      .customerFind, .customerHistory, .report, .giftCardBalance, .product, .wishlist:
      false
    case .add, .scan, .remove, .setQty, .tender, .void, .discount, .overridePrice, .voidLine, .park,
      .resume, .`return`, .operatorAdd, .operatorRemove, .operatorSetPIN, .operatorUnlock, .signIn,
      .signOut, .customerAdd, .attachCustomer, .detachCustomer, .productAdd, .productUpdate,
      .productRemove,
      .stockAdjust, .setFloat, .paidIn, .paidOut, .noSale, .emailReceipt, .closeDay,
      .wishlistAdd, .wishlistRemove, .wishlistToOrder, .print, .setup:
      true
    }
  }
}

/// Who may send an op on a register that has operators (one with none runs open).
public enum OpAccess: Equatable, Sendable {
  /// Nobody need be signed in: a read (the customer display, a report script), or signing in.
  case open
  /// Anyone signed in, cashier or manager.
  case cashier
  /// A manager signed in, or anyone signed in with a manager's approval sent with the request
  /// (`approve`); without one the request gets `approval_required`. `work` names what needs the
  /// manager, in words for the message.
  case manager(work: String)
}

extension Op {
  /// Who may send this op: declared here once, enforced in one place (`Register.authorize`),
  /// tabulated in docs/PROTOCOL.md. Besides this, some requests of a cashier's op need a
  /// manager for what they come to — a discount past the store's limit, paying out more cash
  /// than the drawer holds, setting another operator's PIN (`Register+Rules`).
  public var access: OpAccess {
    switch self {
    case .hello, .catalog, .catalogExport, .product, .order, .receipt, .parked, .giftCardBalance,
      .subscribe, .operatorList, .customerFind, .customerHistory, .wishlist, .report, .signIn:
      .open
    // Only while the register is not set up (an installed one with no store or no manager):
    // `Register.decideSetup` refuses it after.
    case .setup: .open
    case .add, .scan, .remove, .setQty, .tender, .discount, .voidLine, .park, .resume, .signOut,
      .operatorSetPIN, .customerAdd, .attachCustomer, .detachCustomer, .wishlistAdd,
      .wishlistRemove, .wishlistToOrder, .setFloat, .paidIn, .paidOut, .emailReceipt, .print:
      .cashier
    case .void: .manager(work: "voiding an order")
    case .overridePrice: .manager(work: "a price override")
    case .return: .manager(work: "a return")
    case .noSale: .manager(work: "opening the drawer without a sale")
    case .operatorAdd, .operatorRemove, .operatorUnlock: .manager(work: "managing operators")
    case .productAdd, .productUpdate, .productRemove: .manager(work: "changing the catalog")
    case .stockAdjust: .manager(work: "adjusting stock")
    case .closeDay: .manager(work: "closing the day")
    }
  }
}

extension Op {
  /// Every op by its wire name, for decoding: found from the name's bytes (`ShortTextTable`),
  /// without hashing a `String` as a dictionary would, or comparing the name with each op's in
  /// turn as the synthesized `init(rawValue:)` does.
  private static let byName = ShortTextTable(cases: Op.self)

  /// The op named `name` on the wire.
  public static func named(_ name: String) -> Op? { byName.named(name) }
}
