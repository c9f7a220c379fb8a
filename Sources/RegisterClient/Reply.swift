import RegisterEngine

/// A reply from registerd, typed: a success with its result, or a failure with its error.
public enum Reply: Sendable, Equatable {
  case success(id: JSONValue, result: JSONValue)
  case failure(id: JSONValue, error: ReplyError)

  /// The request's `id`, echoed (null when it had none or could not be read).
  public var id: JSONValue {
    switch self {
    case .success(let id, _), .failure(let id, _): id
    }
  }

  /// The result of a success.
  public var result: JSONValue? {
    if case .success(_, let result) = self { return result }
    return nil
  }

  /// The error of a failure.
  public var error: ReplyError? {
    if case .failure(_, let error) = self { return error }
    return nil
  }

  /// Reads a reply line.
  public init(line: String) throws(ReplyFormatError) {
    let value: JSONValue
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw ReplyFormatError("registerd sent a reply that is not JSON: \(line)")
    }
    try self.init(json: value)
  }

  /// Reads a parsed reply. Members this client does not know are left alone: a newer
  /// registerd may send more.
  public init(json: JSONValue) throws(ReplyFormatError) {
    guard case .object(let object) = json, case .bool(let ok)? = object["ok"] else {
      throw ReplyFormatError("registerd sent something that is not a reply: \(json.serialized)")
    }
    let id = object["id"] ?? .null
    if ok {
      self = .success(id: id, result: object["result"] ?? .null)
    } else {
      self = .failure(id: id, error: ReplyError(json: object["error"] ?? .null))
    }
  }
}

/// The error of a refused request: its stable code, the message for people, and data (the
/// current order in a `version_conflict`).
public struct ReplyError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The code, when this client knows it; nil for a code only a newer registerd has.
  public var code: ErrorCode?
  /// The code as registerd sent it.
  public var codeName: String
  public var message: String
  public var data: JSONValue?

  /// An error with a known code.
  public init(_ code: ErrorCode, _ message: String, data: JSONValue? = nil) {
    self.code = code
    codeName = code.rawValue
    self.message = message
    self.data = data
  }

  /// Reads a reply's `error` member; what is missing reads as a generic refusal.
  init(json: JSONValue) {
    codeName = json["code"]?.stringValue ?? "error"
    code = ErrorCode(rawValue: codeName)
    message = json["message"]?.stringValue ?? "the register refused the request"
    data = json["data"]
  }

  public var description: String { "\(codeName): \(message)" }
}

/// A line from registerd that is not a reply.
public struct ReplyFormatError: Error, Sendable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}

/// `hello`'s result: who registerd is.
struct HelloView {
  var version: String
  var store: String
  var protocolVersion: Int64

  init(json: JSONValue) throws(JSONShapeError) {
    var fields = try JSONFields(json)
    version = try fields.required("version")
    store = try fields.required("store")
    protocolVersion = try fields.required("protocol")
  }
}

/// The cash drawer of the open day (`float`, `paid_in`, `paid_out`, `no_sale` reply with it):
/// amounts as registerd writes them, in the store's currency.
struct DrawerView {
  var day: Int64
  var float: String
  var cashTaken: String
  var changeGiven: String
  var cashRefunds: String
  var paidIn: String
  var paidOut: String
  var expectedCash: String

  init(json: JSONValue) throws(JSONShapeError) {
    var fields = try JSONFields(json)
    day = try fields.required("day")
    float = try fields.required("float")
    cashTaken = try fields.required("cash_taken")
    changeGiven = try fields.required("change_given")
    cashRefunds = try fields.required("cash_refunds")
    paidIn = try fields.required("paid_in")
    paidOut = try fields.required("paid_out")
    expectedCash = try fields.required("expected_cash")
  }
}
