/// How a tender was paid.
public enum TenderType: String, Sendable, Equatable, CaseIterable {
  case cash
  case card
  /// A card payment an external terminal approved: registerd sees only the brand, the last four
  /// digits and the terminal's authorization code, never the card number.
  case cardPresent = "card_present"
  /// A gift card the store issued, by its number.
  case giftCard = "gift_card"
  /// A customer's store credit (from returns refunded to store credit).
  case storeCredit = "store_credit"
  /// A tender the store configured by name (`tenders` in the store settings): a check, a
  /// voucher.
  case other
}

/// One payment on an order (or one refund of a return).
public struct Tender: Sendable, Equatable {
  public var type: TenderType
  public var amount: Money
  /// Brand and last four for a card or card-present tender.
  public var card: CardSummary?
  /// The gift card's number, for a gift-card tender.
  public var giftCard: String?
  /// The customer whose store credit paid (or was refunded).
  public var customerID: String?
  /// The store tender's name (`check`), for an `other` tender.
  public var name: String?
  /// A store tender's reference (a check number).
  public var reference: String?
  /// The terminal's authorization code, for a card-present tender.
  public var authCode: String?

  public init(
    type: TenderType, amount: Money, card: CardSummary? = nil, giftCard: String? = nil,
    customerID: String? = nil, name: String? = nil, reference: String? = nil,
    authCode: String? = nil
  ) {
    self.type = type
    self.amount = amount
    self.card = card
    self.giftCard = giftCard
    self.customerID = customerID
    self.name = name
    self.reference = reference
    self.authCode = authCode
  }

  /// How the tender prints: "Cash", "VISA ****4242", "Gift card ****0123", "Check #1042".
  /// A gift card's number is a bearer instrument: only its last four digits are printed for a
  /// payment (the full number appears only on the receipt that issued it).
  public var label: String {
    switch type {
    case .cash: return "Cash"
    case .card: return card?.masked ?? "Card"
    case .cardPresent:
      return (card?.masked ?? "Card") + " (terminal" + (authCode.map { " \($0)" } ?? "") + ")"
    case .giftCard: return "Gift card ****" + String((giftCard ?? "").suffix(4))
    case .storeCredit: return "Store credit" + (customerID.map { " \($0)" } ?? "")
    case .other:
      let title = (name ?? "other").prefix(1).uppercased() + (name ?? "other").dropFirst()
      return title + (reference.map { " #\($0)" } ?? "")
    }
  }

  /// What a refund against this tender goes back to: one key per card-present card, gift
  /// card, customer's credit or store tender name (cards are keyed by their `CardSummary`,
  /// cash by nothing). Used to keep refunds to each within what it paid.
  var refundKey: String? {
    switch type {
    case .cash, .card: nil
    case .cardPresent: card.map { "card_present \($0.brand.rawValue) \($0.last4)" }
    case .giftCard: giftCard.map { "gift_card \($0)" }
    case .storeCredit: customerID.map { "store_credit \($0)" }
    case .other: name.map { "other \($0)" }
    }
  }

  /// The tender with what identifies it, and `amount`: the refund of part of it.
  func refund(of amount: Money) -> Tender {
    Tender(
      type: type, amount: amount, card: card, giftCard: giftCard, customerID: customerID,
      name: name)
  }
}
