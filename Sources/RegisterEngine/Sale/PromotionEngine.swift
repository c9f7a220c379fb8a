/// The promotions in force for an order, and how to find a SKU's category.
public struct PromotionContext {
  public var promotions: [Promotion]
  public var category: (String) -> String?

  public init(promotions: [Promotion], category: @escaping (String) -> String?) {
    self.promotions = promotions
    self.category = category
  }

  /// No promotions.
  public static var none: PromotionContext {
    PromotionContext(promotions: [], category: { _ in nil })
  }
}

/// Finds the combination of promotion applications that saves the customer the most.
///
/// Units of the same price that the same promotions cover are interchangeable, so they are
/// grouped into classes; promotions that share no class are independent and solved apart
/// (components). A component with one promotion is solved exactly by taking units from the
/// dearest down (quantity and mix-and-match prices: groups while they save; buy X get Y:
/// consecutive groups, the cheapest of each discounted). A component where promotions compete
/// for units is searched exhaustively over the class counts (memoized) while it holds at most
/// `exactUnitLimit` units and the search stays within `searchBudget` steps; past that, the best
/// of the greedy passes over every order of its promotions (at most 120) is taken — the one
/// place where the result is a heuristic.
public enum PromotionEngine {
  /// A line whose units may take part, at its charged unit price.
  public struct Candidate: Sendable, Equatable {
    public var line: Int
    public var sku: String
    public var category: String?
    public var unitPrice: Int64
    public var quantity: Int64

    public init(line: Int, sku: String, category: String?, unitPrice: Int64, quantity: Int64) {
      self.line = line
      self.sku = sku
      self.category = category
      self.unitPrice = unitPrice
      self.quantity = quantity
    }
  }

  /// The most units a component of competing promotions may hold for the exact search.
  public static let exactUnitLimit = 48
  /// The most steps (states and candidate applications) the exact search may take.
  public static let searchBudget = 60_000

  private struct UnitClass {
    var price: Int64
    var covering: [Int]
    var members: [(line: Int, quantity: Int64)]
    var count: Int64
  }

  /// One application: the promotion and how many units it takes from each class.
  private struct Application {
    var promotion: Int
    var takes: [(unitClass: Int, units: Int64)]
    var times: Int64
    var saving: Int64
  }

  /// The best applications for `candidates` under `promotions`, one entry per promotion that
  /// applied (in catalog order), each line's share of its saving in whole minor units that sum
  /// to the saving, spread in proportion to the gross of the units that took part.
  public static func best(
    _ candidates: [Candidate], promotions: [Promotion]
  ) -> [AppliedPromotion] {
    guard !promotions.isEmpty else { return [] }
    // Classes: same price, same covering promotions.
    var classes: [UnitClass] = []
    for candidate in candidates where candidate.quantity > 0 && candidate.unitPrice > 0 {
      let covering = promotions.indices.filter {
        promotions[$0].covers(sku: candidate.sku, category: candidate.category)
      }
      guard !covering.isEmpty else { continue }
      if let index = classes.firstIndex(where: {
        $0.price == candidate.unitPrice && $0.covering == covering
      }) {
        classes[index].members.append((candidate.line, candidate.quantity))
        classes[index].count += candidate.quantity
      } else {
        classes.append(
          UnitClass(
            price: candidate.unitPrice, covering: covering,
            members: [(candidate.line, candidate.quantity)], count: candidate.quantity))
      }
    }
    guard !classes.isEmpty else { return [] }
    // Dearest first: the order the greedy passes take units in.
    classes.sort { $0.price > $1.price }
    var applications: [Application] = []
    for component in components(classes, promotionCount: promotions.count) {
      applications += solve(component, classes: classes, promotions: promotions)
    }
    return aggregate(applications, classes: classes, promotions: promotions)
  }

  /// Groups of classes (with the promotions that cover them) that no promotion connects.
  private static func components(
    _ classes: [UnitClass], promotionCount: Int
  ) -> [(classes: [Int], promotions: [Int])] {
    var parent = Array(0..<promotionCount)
    func root(_ node: Int) -> Int {
      var node = node
      while parent[node] != node { node = parent[node] }
      return node
    }
    for unitClass in classes {
      for other in unitClass.covering.dropFirst() {
        let (a, b) = (root(unitClass.covering[0]), root(other))
        if a != b { parent[max(a, b)] = min(a, b) }
      }
    }
    var byRoot: [Int: (classes: [Int], promotions: [Int])] = [:]
    for (index, unitClass) in classes.enumerated() {
      byRoot[root(unitClass.covering[0]), default: ([], [])].classes.append(index)
    }
    for promotion in 0..<promotionCount where byRoot[root(promotion)] != nil {
      byRoot[root(promotion)]?.promotions.append(promotion)
    }
    return byRoot.keys.sorted().compactMap { byRoot[$0] }
  }

  private static func solve(
    _ component: (classes: [Int], promotions: [Int]), classes: [UnitClass],
    promotions: [Promotion]
  ) -> [Application] {
    var counts = classes.map(\.count)
    if component.promotions.count == 1 {
      return greedy(
        component.promotions[0], classes: component.classes, counts: &counts, all: classes,
        promotions: promotions)
    }
    let units = component.classes.reduce(Int64(0)) { $0 + classes[$1].count }
    if units <= Int64(exactUnitLimit),
      let exact = exactSearch(component, classes: classes, promotions: promotions)
    {
      return exact
    }
    return heuristic(component, classes: classes, promotions: promotions)
  }

  /// One promotion alone, taking units dearest first.
  private static func greedy(
    _ promotion: Int, classes members: [Int], counts: inout [Int64], all classes: [UnitClass],
    promotions: [Promotion]
  ) -> [Application] {
    let rule = promotions[promotion]
    let size = Int64(rule.unitsPerApplication)
    let covered = members.filter { classes[$0].covering.contains(promotion) }
    var result: [Application] = []
    var position = 0
    while position < covered.count {
      let current = covered[position]
      if counts[current] == 0 {
        position += 1
        continue
      }
      if counts[current] >= size {
        // Whole groups within one class are all alike: take them at once.
        let times = counts[current] / size
        let saving = rule.saving(of: Array(repeating: classes[current].price, count: Int(size)))
        guard saving > 0 else { return result }
        counts[current] -= times * size
        result.append(
          Application(
            promotion: promotion, takes: [(current, size)], times: times, saving: saving))
        continue
      }
      // A group across classes: the next `size` units in price order.
      var takes: [(unitClass: Int, units: Int64)] = []
      var prices: [Int64] = []
      var need = size
      var cursor = position
      while need > 0 && cursor < covered.count {
        let unitClass = covered[cursor]
        let take = min(need, counts[unitClass])
        if take > 0 {
          takes.append((unitClass, take))
          prices += Array(repeating: classes[unitClass].price, count: Int(take))
          need -= take
        }
        cursor += 1
      }
      guard need == 0 else { return result }
      let saving = rule.saving(of: prices)
      guard saving > 0 else { return result }
      for take in takes { counts[take.unitClass] -= take.units }
      result.append(Application(promotion: promotion, takes: takes, times: 1, saving: saving))
    }
    return result
  }

  /// Every assignment of a component's units to applications, memoized on the class counts.
  /// Nil when the search would pass `searchBudget` steps.
  private static func exactSearch(
    _ component: (classes: [Int], promotions: [Int]), classes: [UnitClass],
    promotions: [Promotion]
  ) -> [Application]? {
    let search = ExactSearch(
      members: component.classes, classes: classes, promotions: promotions)
    let start = component.classes.map { classes[$0].count }
    _ = search.best(start)
    if search.exhausted { return nil }
    var result: [Application] = []
    var state = start
    while let choice = search.memo[state], state.contains(where: { $0 > 0 }) {
      if let promotion = choice.promotion {
        let takes = choice.takes.enumerated().filter { $0.element > 0 }.map {
          (unitClass: component.classes[$0.offset], units: $0.element)
        }
        result.append(
          Application(promotion: promotion, takes: takes, times: 1, saving: choice.saving))
        for position in state.indices { state[position] -= choice.takes[position] }
      } else if let first = state.firstIndex(where: { $0 > 0 }) {
        state[first] -= 1
      }
    }
    return result
  }

  /// The exhaustive search's state: the best choice found for each class-count state.
  private final class ExactSearch {
    struct Choice {
      var value: Int64
      var promotion: Int?
      var takes: [Int64]
      var saving: Int64
    }

    let members: [Int]
    let classes: [UnitClass]
    let promotions: [Promotion]
    var memo: [[Int64]: Choice] = [:]
    var steps = 0
    var exhausted = false

    init(members: [Int], classes: [UnitClass], promotions: [Promotion]) {
      self.members = members
      self.classes = classes
      self.promotions = promotions
    }

    /// Counts a step; false once the budget is spent.
    func step() -> Bool {
      steps += 1
      if steps > PromotionEngine.searchBudget { exhausted = true }
      return !exhausted
    }

    /// The most the units left in `state` can save.
    func best(_ state: [Int64]) -> Int64 {
      if let known = memo[state] { return known.value }
      guard step(), let first = state.firstIndex(where: { $0 > 0 }) else { return 0 }
      // The first unit left goes unpromoted...
      var skipped = state
      skipped[first] -= 1
      var best = Choice(value: self.best(skipped), promotion: nil, takes: [], saving: 0)
      // ...or into one application of a promotion that covers it, with later units.
      for promotion in classes[members[first]].covering {
        let eligible = (first..<members.count).filter {
          classes[members[$0]].covering.contains(promotion)
        }
        var takes = Array(repeating: Int64(0), count: members.count)
        takes[first] = 1
        let size = Int64(promotions[promotion].unitsPerApplication)
        choose(promotion, state, eligible, 0, size - 1, &takes, &best)
      }
      if exhausted { return 0 }
      memo[state] = best
      return best.value
    }

    /// Completes an application's units from `eligible[index...]` and keeps the best.
    private func choose(
      _ promotion: Int, _ state: [Int64], _ eligible: [Int], _ index: Int, _ need: Int64,
      _ takes: inout [Int64], _ best: inout Choice
    ) {
      // Every node counts against the budget, so an application of many units over many
      // classes cannot make the search run long without completing.
      guard step() else { return }
      if need == 0 {
        var prices: [Int64] = []
        for (position, count) in takes.enumerated() where count > 0 {
          prices += Array(repeating: classes[members[position]].price, count: Int(count))
        }
        let saving = promotions[promotion].saving(of: prices)
        guard saving > 0 else { return }
        var next = state
        for position in next.indices { next[position] -= takes[position] }
        let value = saving + self.best(next)
        if value > best.value {
          best = Choice(value: value, promotion: promotion, takes: takes, saving: saving)
        }
        return
      }
      guard index < eligible.count else { return }
      // Not enough units left in the classes after this one to complete the application.
      var left: Int64 = 0
      for later in eligible[index...] {
        left += state[later] - takes[later]
        if left >= need { break }
      }
      guard left >= need else { return }
      let position = eligible[index]
      let available = state[position] - takes[position]
      for extra in stride(from: min(available, need), through: 0, by: -1) {
        takes[position] += extra
        choose(promotion, state, eligible, index + 1, need - extra, &takes, &best)
        takes[position] -= extra
      }
    }
  }

  /// The best of greedy passes over orders of the component's promotions.
  private static func heuristic(
    _ component: (classes: [Int], promotions: [Int]), classes: [UnitClass],
    promotions: [Promotion]
  ) -> [Application] {
    var orders: [[Int]] = []
    if component.promotions.count <= 5 {
      func permute(_ prefix: [Int], _ rest: [Int]) {
        if rest.isEmpty { orders.append(prefix) }
        for (index, next) in rest.enumerated() {
          var remaining = rest
          remaining.remove(at: index)
          permute(prefix + [next], remaining)
        }
      }
      permute([], component.promotions)
    } else {
      orders = [component.promotions, component.promotions.reversed()]
    }
    var best: (saving: Int64, applications: [Application]) = (-1, [])
    for order in orders {
      var counts = classes.map(\.count)
      var applications: [Application] = []
      for promotion in order {
        applications += greedy(
          promotion, classes: component.classes, counts: &counts, all: classes,
          promotions: promotions)
      }
      let saving = applications.reduce(Int64(0)) { $0 + $1.saving * $1.times }
      if saving > best.saving { best = (saving, applications) }
    }
    return best.applications
  }

  /// One entry per promotion that applied: units handed to lines in line order within each
  /// class, the saving spread over the lines in proportion to the gross of their units.
  private static func aggregate(
    _ applications: [Application], classes: [UnitClass], promotions: [Promotion]
  ) -> [AppliedPromotion] {
    // Units each promotion took from each class.
    var taken = Array(
      repeating: [Int64](repeating: 0, count: classes.count), count: promotions.count)
    var saving = Array(repeating: Int64(0), count: promotions.count)
    var times = Array(repeating: Int64(0), count: promotions.count)
    for application in applications {
      for take in application.takes {
        taken[application.promotion][take.unitClass] += take.units * application.times
      }
      saving[application.promotion] += application.saving * application.times
      times[application.promotion] += application.times
    }
    // Hand each class's units to its lines, promotion by promotion.
    var perLine = Array(repeating: [Int: Int64](), count: promotions.count)
    for (index, unitClass) in classes.enumerated() {
      var members = unitClass.members
      var cursor = 0
      for promotion in promotions.indices {
        var need = taken[promotion][index]
        while need > 0 && cursor < members.count {
          let take = min(need, members[cursor].quantity)
          perLine[promotion][members[cursor].line, default: 0] += take
          members[cursor].quantity -= take
          need -= take
          if members[cursor].quantity == 0 { cursor += 1 }
        }
      }
    }
    var prices: [Int: Int64] = [:]
    for unitClass in classes {
      for member in unitClass.members { prices[member.line] = unitClass.price }
    }
    var result: [AppliedPromotion] = []
    for (index, promotion) in promotions.enumerated() where saving[index] > 0 {
      let lines = perLine[index].keys.sorted()
      let weights = lines.map { (perLine[index][$0] ?? 0) * (prices[$0] ?? 0) }
      let shares =
        (try? OrderTotals.allocate(saving[index], proportionallyTo: weights))
        ?? weights.map { _ in 0 }
      result.append(
        AppliedPromotion(
          id: promotion.id, name: promotion.name, applications: times[index],
          saving: saving[index],
          lines: zip(lines, shares).map {
            AppliedPromotion.Share(line: $0.0, units: perLine[index][$0.0] ?? 0, saving: $0.1)
          }))
    }
    return result
  }
}
