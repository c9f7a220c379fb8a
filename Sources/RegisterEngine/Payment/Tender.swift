/// How a tender was paid.
public enum TenderType: String, Sendable, Equatable, CaseIterable {
  case cash
  case card
}

/// One payment on an order.
public struct Tender: Sendable, Equatable {
  public var type: TenderType
  public var amount: Money
  /// Brand and last four for a card tender.
  public var card: CardSummary?

  public init(type: TenderType, amount: Money, card: CardSummary? = nil) {
    self.type = type
    self.amount = amount
    self.card = card
  }

  /// How the tender prints: "Cash" or "VISA ****4242".
  public var label: String {
    card?.masked ?? (type == .cash ? "Cash" : "Card")
  }
}
