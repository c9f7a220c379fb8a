extension KeyTable {
  /// The keys by business day (days in order, keys in the order of their bytes), each with
  /// the reply its request got.
  var snapshotValue: JSONValue {
    .object([
      "days": .array(
        days.keys.sorted().map { day in
          let table = days[day] ?? [:]
          var keys = JSONObject(capacity: table.count)
          for key in table.keys.sorted() {
            if let stored = table[key] { keys.append(key.text, stored.snapshotValue) }
          }
          return .object(["day": .int(day), "keys": .object(keys)])
        })
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    let held = try fields.array("days") {
      value, path throws(JSONShapeError) -> (Int, [ExactText: StoredKey]) in
      var entry = try JSONFields(value, path: path)
      let day = try entry.int("day", in: SnapshotRange.positive)
      let keysPath = entry.pathOf("keys")
      guard case .object(let object) = try entry.member("keys") else {
        throw JSONShapeError(path: keysPath, message: "expected an object of keys")
      }
      var table: [ExactText: StoredKey] = [:]
      table.reserveCapacity(object.count)
      var previous: ExactText?
      for (text, item) in object.members {
        let key = ExactText(text)
        let keyPath = joinPath(keysPath, text)
        // Sorted when written; a repeat or a step back is damage. Snapshots are written in the
        // order of the keys' bytes; older ones in `String`'s order, which differs only for
        // keys that are not ASCII, and is still read (so a repeat is looked for in the table
        // too: in either order it need not be next to the first).
        if let previous, !(previous < key || previous.text < text) || table[key] != nil {
          throw JSONShapeError(path: keyPath, message: "keys must be in sorted order, each once")
        }
        previous = key
        let stored = try StoredKey(snapshot: item, path: keyPath)
        guard stored.day == day else {
          throw JSONShapeError(
            path: joinPath(keyPath, "day"), message: "\(stored.day) is not the day \(day)")
        }
        table[key] = stored
      }
      try entry.rejectUnknown()
      return (day, table)
    }
    try requireIncreasing(held.map(\.0), path: fields.pathOf("days"))
    days = Dictionary(held, uniquingKeysWith: { first, _ in first })
    try fields.rejectUnknown()
  }
}

extension StoredKey {
  var snapshotValue: JSONValue {
    .object([
      "fingerprint": .string(fingerprint),
      "reply": reply,
      "day": .int(day),
      "sequence": .int(sequence),
    ])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init(
      fingerprint: try fields.string("fingerprint"),
      reply: try fields.member("reply"),
      day: try fields.int("day", in: SnapshotRange.positive),
      sequence: try fields.int64("sequence", in: SnapshotRange.count))
    try fields.rejectUnknown()
  }
}
