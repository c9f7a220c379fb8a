extension Staff {
  /// The operators with their PIN hashes and lock state, and who is signed in.
  var snapshotValue: JSONValue {
    .object([
      "operators": .array(operators.map(\.snapshotValue)),
      "signed_in": signedIn.snapshot(JSONValue.string),
      // Written only when there is one, so a snapshot of a register nobody is signed in to
      // reads as it did before the idle sign-out.
      "operator_active_at": operatorActiveAt?.snapshotValue,
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    operators = try fields.array("operators") { value, path throws(JSONShapeError) in
      try Operator(snapshot: value, path: path)
    }
    var seen: Set<String> = []
    for (index, person) in operators.enumerated() where !seen.insert(person.id).inserted {
      throw JSONShapeError(
        path: indexPath(fields.pathOf("operators"), index),
        message: "operator \"\(id: person.id)\" appears twice")
    }
    signedIn = try fields.nullableString("signed_in")
    operatorActiveAt =
      fields.has("operator_active_at") ? try fields.timestamp("operator_active_at") : nil
    try fields.rejectUnknown()
  }
}

extension Operator {
  /// Every stored property: the PIN as its journaled hash, the wrong-PIN count and the lock.
  var snapshotValue: JSONValue {
    .object([
      "id": .string(id),
      "name": .string(name),
      "role": .string(role.rawValue),
      "pin": .string(pin.encoded),
      "failed_attempts": .int(failedAttempts),
      "locked": .bool(locked),
      "locked_at": lockedAt.snapshot(\.snapshotValue),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    let id = try fields.string("id")
    let name = try fields.string("name")
    let roleName = try fields.string("role")
    guard let role = OperatorRole(rawValue: roleName) else {
      throw JSONShapeError(path: fields.pathOf("role"), message: "unknown role \"\(roleName)\"")
    }
    guard let pin = PINHash(encoded: try fields.string("pin")) else {
      throw JSONShapeError(path: fields.pathOf("pin"), message: "not a PIN hash")
    }
    self.init(id: id, name: name, role: role, pin: pin)
    failedAttempts = try fields.int(
      "failed_attempts", in: 0...Int64(Operator.attemptsBeforeLock))
    locked = try fields.bool("locked")
    lockedAt = try fields.nullableTimestamp("locked_at")
    try fields.rejectUnknown()
  }
}
