/// What `Register.decide` makes of a command: the events that carry it out, or a refusal and
/// the events that stand even so.
///
/// Some refusals still change something: a wrong PIN is counted (`pin_failed`), and a manager's
/// right approval PIN resets their count (`pin_accepted`) even when the request it approved is
/// refused for another reason. Those events are journaled and applied like any other; only the
/// request itself is refused.
public enum Decision: Sendable, Equatable {
  /// The command is carried out by `events` (none for a read, or a change that changes
  /// nothing); `approvedBy` is the manager who approved it, when one had to.
  case accepted(events: [Event], approvedBy: String?)
  /// The command is refused with `error`; `events` are recorded all the same.
  case rejected(RegisterError, events: [Event])

  /// The events to journal and apply, whether the command was accepted or not.
  public var events: [Event] {
    switch self {
    case .accepted(let events, _), .rejected(_, let events): events
    }
  }

  /// The refusal, when the command was refused.
  public var rejection: RegisterError? {
    switch self {
    case .accepted: nil
    case .rejected(let error, _): error
    }
  }
}

/// The open order as a request's events leave it, with the totals `decide` computed for it (on
/// the same catalog, tax settings and time). `apply` takes these totals when the order it
/// reaches is this one, instead of totalling it again: with promotions, totalling searches for
/// the best combination, and it would otherwise run twice per request. Only for events that
/// leave the pricing as it is (`Event.changesPricing`); replay, which has none, totals every
/// order itself and reaches the same figures.
public struct PricedOrder: Sendable, Equatable {
  public var order: Order
  public var totals: OrderTotals

  public init(order: Order, totals: OrderTotals) {
    self.order = order
    self.totals = totals
  }
}
