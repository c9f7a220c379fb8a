/// The stable error codes a client can receive. Documented in docs/PROTOCOL.md; never renamed.
public enum ErrorCode: String, Sendable, Equatable, CaseIterable {
  // Framing and request shape.
  case badJSON = "bad_json"
  case badRequest = "bad_request"
  case unknownOp = "unknown_op"
  case lineTooLong = "line_too_long"
  // Catalog and order.
  case unknownSKU = "unknown_sku"
  case outOfStock = "out_of_stock"
  case invalidQuantity = "invalid_quantity"
  case invalidAmount = "invalid_amount"
  case lineNotFound = "line_not_found"
  case emptyOrder = "empty_order"
  case invalidOption = "invalid_option"
  /// `scan` of a code shaped like a barcode whose check digit is wrong (a misread).
  case invalidBarcode = "invalid_barcode"
  /// `scan` of a code that is no product's barcode or SKU.
  case unknownBarcode = "unknown_barcode"
  case invalidDiscount = "invalid_discount"
  // Payment.
  case invalidCard = "invalid_card"
  case cardExpired = "card_expired"
  case tenderExceedsBalance = "tender_exceeds_balance"
  case insufficientCash = "insufficient_cash"
  /// A gift card or store credit tender of more than is on it.
  case insufficientBalance = "insufficient_balance"
  case giftCardNotFound = "gift_card_not_found"
  /// A gift card tender on an order that sells gift cards (or the other way round).
  case giftCardForGiftCard = "gift_card_for_gift_card"
  /// An `other` tender whose name is not one of the store's `tenders`.
  case unknownTender = "unknown_tender"
  /// A return of a gift card.
  case notReturnable = "not_returnable"
  // Receipts, days, storage.
  case receiptNotFound = "receipt_not_found"
  /// `print` while the store has no receipt printer (neither `printer` nor `--printer`).
  case noPrinter = "no_printer"
  /// `print` while the printer's queue is full (`PrintQueue.maximumPending` jobs wait).
  case printQueueFull = "print_queue_full"
  case dayNotFound = "day_not_found"
  case storageFailed = "storage_failed"
  // Lifecycle.
  case orderNotEmpty = "order_not_empty"
  case orderHasTenders = "order_has_tenders"
  case orderNotFound = "order_not_found"
  /// An order at its most lines or tenders (`Register.maximumLines`, `maximumTenders`).
  case orderFull = "order_full"
  /// As many orders parked as there may be (`Register.maximumParked`).
  case parkedFull = "parked_full"
  case lineVoided = "line_voided"
  case returnExceedsSold = "return_exceeds_sold"
  case keyReused = "key_reused"
  case versionConflict = "version_conflict"
  case subscriberTooSlow = "subscriber_too_slow"
  /// `subscribe` with an `after` before the journal's first segment: older records were moved
  /// out of the data directory by `register-cli archive`.
  case historyArchived = "history_archived"
  // People and catalog edits.
  case notSignedIn = "not_signed_in"
  /// An installed register without its store settings or a manager: `register-cli setup`.
  case notSetUp = "not_set_up"
  /// `setup` on a register that has both already.
  case alreadySetUp = "already_set_up"
  case signedOutIdle = "signed_out_idle"
  case approvalRequired = "approval_required"
  case wrongPIN = "wrong_pin"
  case operatorLocked = "operator_locked"
  case operatorNotFound = "operator_not_found"
  case operatorExists = "operator_exists"
  case forbidden = "forbidden"
  case customerNotFound = "customer_not_found"
  /// `customer_add` with the e-mail address of a customer the store already has.
  case customerExists = "customer_exists"
  case invalidCustomer = "invalid_customer"
  /// `wishlist_add` of a product already on the customer's wishlist.
  case alreadyOnWishlist = "already_on_wishlist"
  /// `wishlist_remove` or `wishlist_to_order` of a product not on the customer's wishlist.
  case notOnWishlist = "not_on_wishlist"
  /// `wishlist_add` to a wishlist that holds `CustomerBook.maximumWishlist` products.
  case wishlistFull = "wishlist_full"
  case productExists = "product_exists"
  /// `product_add` to a catalog that holds `Register.maximumProducts` products.
  case catalogFull = "catalog_full"
  /// `customer_add` when the register knows `Register.maximumCustomers` customers.
  case customersFull = "customers_full"
  /// `operator_add` when there are `Register.maximumOperators` operators.
  case operatorsFull = "operators_full"
  case invalidProduct = "invalid_product"
  case invalidEmail = "invalid_email"
  case invalidPhone = "invalid_phone"
  case invalidPIN = "invalid_pin"
  case internalError = "internal_error"
  // Connections.
  case tooManyConnections = "too_many_connections"
}

/// An error a request can get: a stable code, a message for people that says what to send
/// instead, and sometimes data (the current order in a `version_conflict`).
///
/// Messages quote what the client sent: they are `ErrorMessage`s, masked as they are made
/// except for the identifiers they name (a SKU, a barcode, an operator id).
public struct RegisterError: Error, Equatable, CustomStringConvertible {
  public var code: ErrorCode
  public private(set) var message: String
  public var data: JSONValue?

  public init(_ code: ErrorCode, _ message: ErrorMessage, data: JSONValue? = nil) {
    self.code = code
    self.message = message.text
    self.data = data.map(Self.masked)
  }

  /// `data` made safe as a message is: each string an identifier (letters, digits, `-`, `_`,
  /// `.`) kept as it is, every other one masked (`CardNumberMask`), so that a card number sent
  /// where a SKU goes is never echoed back in an error's data either.
  static func masked(_ data: JSONValue) -> JSONValue {
    switch data {
    case .string(let text):
      return .string(ErrorMessage.isIdentifier(text) ? text : CardNumberMask.mask(text))
    case .array(let items): return .array(items.map(masked))
    case .object(let object):
      var copy = JSONObject(capacity: object.count)
      for member in object.members { copy[member.key] = masked(member.value) }
      return .object(copy)
    case .null, .bool, .number: return data
    }
  }

  /// The message as made already (masked except for its identifiers).
  public var errorMessage: ErrorMessage { ErrorMessage(made: message) }

  public var description: String { "\(code.rawValue): \(message)" }

  /// The `error` object of a reply.
  public var json: JSONValue {
    .object([
      "code": .string(code.rawValue), "message": .string(message),
      "data": data,
    ])
  }

  static func overflow(_ what: String = "the order") -> RegisterError {
    RegisterError(.invalidAmount, "\(what) would come to an amount too large to handle")
  }
}
