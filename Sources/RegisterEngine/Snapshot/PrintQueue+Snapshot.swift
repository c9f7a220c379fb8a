extension PrintQueue {
  /// `{pending: [job, …], next_job}`: the jobs as journaled.
  var snapshotValue: JSONValue {
    .object(["pending": .array(pending.map(\.json)), "next_job": .int(nextJob)])
  }

  init(snapshot value: JSONValue, path: String) throws(JSONShapeError) {
    var fields = try JSONFields(value, path: path)
    self.init()
    pending = try fields.array("pending") { value, path throws(JSONShapeError) in
      try PrintJob(json: value, path: path)
    }
    nextJob = try fields.int("next_job", in: SnapshotRange.positive)
    try fields.rejectUnknown()
  }
}
