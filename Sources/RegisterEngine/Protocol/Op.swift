/// An op of the protocol. Each op is declared once, by its request type (`Requests.PaidIn`
/// declares `paid_in`): its wire name, its fields, who may send it, and its entry into the
/// register — a `Query` answered from the state as it is, or a `Mutation` decided into events.
/// The ops there are are the request types the `Requests` files list (`Requests.all`).
public struct Op: Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// The op's request type.
  public let requestType: any RequestBody.Type

  init(_ requestType: any RequestBody.Type) {
    self.requestType = requestType
  }

  /// The op's name on the wire (`paid_in`).
  public var rawValue: String { requestType.wireName }
  public var description: String { rawValue }

  public static func == (left: Op, right: Op) -> Bool {
    left.rawValue == right.rawValue
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue)
  }

  /// Every op, in the order the `Requests` files list them.
  public static var allCases: [Op] { Requests.all.map { Op($0) } }

  /// True when the op changes state (so it is journaled, needs durability and takes a key):
  /// its request type is a `Mutation`.
  public var isMutation: Bool { requestType is any Mutation.Type }

  /// Who may send this op: declared with its request type (`access`), enforced in one place
  /// (`Register.authorize`), tabulated in docs/PROTOCOL.md. Besides this, some requests of a
  /// cashier's op need a manager for what they come to — a discount past the store's limit,
  /// paying out more cash than the drawer holds (`Register+Rules`), setting another operator's
  /// PIN (`Requests.OperatorSetPIN.access(signedIn:)`). `setup` is open only while the
  /// register is not set up: `Register.decideSetup` refuses it after.
  public var access: OpAccess { requestType.access }

  /// The op named `name` on the wire.
  public static func named(_ name: String) -> Op? {
    OpTable.named(name).map { Op($0) }
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

/// Every op by its wire name, for decoding: found from the name's bytes (`ShortTextTable`),
/// without hashing a `String` as a dictionary would.
enum OpTable {
  private static let byName = ShortTextTable(Requests.all.map { ($0.wireName, $0) })

  /// The request type of the op named `name`. A name too long for the table is no op's (none
  /// is longer than the table's limit, which `OpTableTests` checks).
  static func named(_ name: String) -> (any DecodableRequestBody.Type)? { byName.value(of: name) }
}

/// A decoded request as the register takes it: a read, or a change.
enum Operation: Sendable {
  case query(any Query)
  case mutation(any Mutation)

  /// The request's typed body.
  var body: any DecodableRequestBody {
    switch self {
    case .query(let query): query
    case .mutation(let mutation): mutation
    }
  }
}
