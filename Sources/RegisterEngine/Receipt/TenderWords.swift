/// Tenders in words for people (receipts, reports, the CLI), where the protocol and the day's
/// totals key them by their wire names: `gift_card` → "Gift card", `card_present VISA` → "VISA
/// (card terminal)", `store_credit` → "Store credit".
public enum TenderWords {
  /// A tender type's name, or a day total's key (the type, then what it was: a brand, a
  /// store tender's name).
  public static func label(_ key: String) -> String {
    let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
    guard let type = parts.first else { return key }
    let rest = parts.count > 1 ? parts[1] : nil
    switch TenderType(rawValue: type) {
    case .cash: return "Cash"
    case .card: return rest.map { "\($0) card" } ?? "Card"
    case .cardPresent: return rest.map { "\($0) (card terminal)" } ?? "Card (terminal)"
    case .giftCard: return "Gift card" + (rest.map { " \($0)" } ?? "")
    case .storeCredit: return "Store credit" + (rest.map { " \($0)" } ?? "")
    case .other: return rest.map(capitalized) ?? "Other"
    case nil: return capitalized(key)
    }
  }

  private static func capitalized(_ text: String) -> String {
    text.prefix(1).uppercased() + text.dropFirst()
  }
}
