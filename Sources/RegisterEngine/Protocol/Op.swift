/// Every op of the protocol by its wire name. What each op is — its fields, whether it changes
/// state, who may send it, its reply — is declared by its request type (`requestType`).
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

  /// True when the op changes state (so it is journaled, needs durability and takes a key):
  /// as its request type declares.
  public var isMutation: Bool { requestType.changesState }
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
  /// Who may send this op: declared with its request type (`access`), enforced in one place
  /// (`Register.authorize`), tabulated in docs/PROTOCOL.md. Besides this, some requests of a
  /// cashier's op need a manager for what they come to — a discount past the store's limit,
  /// paying out more cash than the drawer holds, setting another operator's PIN
  /// (`Register+Rules`). `setup` is open only while the register is not set up:
  /// `Register.decideSetup` refuses it after.
  public var access: OpAccess { requestType.access }
}

extension Op {
  /// Every op by its wire name, for decoding: found from the name's bytes (`ShortTextTable`),
  /// without hashing a `String` as a dictionary would, or comparing the name with each op's in
  /// turn as the synthesized `init(rawValue:)` does.
  private static let byName = ShortTextTable(cases: Op.self)

  /// The op named `name` on the wire.
  public static func named(_ name: String) -> Op? { byName.named(name) }
}
