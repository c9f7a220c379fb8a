extension Register {
  /// True once the register has what a store needs before it serves: store settings of its
  /// own (a store or catalog file imported, or given by `setup`) and a manager. An installed
  /// registerd answers only `hello` and `setup` until then (`RegisterService.requiresSetup`).
  public var isSetUp: Bool { hasStoreSettings && hasManager }

  /// Store settings have been imported or given (an empty register's store has no name, and
  /// every store file must name the store).
  var hasStoreSettings: Bool { !store.name.isEmpty }

  var hasManager: Bool { operators.contains { $0.role == .manager } }

  /// What `setup` still needs, in words: for `hello` and the refusal of everything else.
  public var setupNeeds: [String] {
    (hasStoreSettings ? [] : ["the store's settings"]) + (hasManager ? [] : ["a manager"])
  }

  /// `setup`: the store settings and the first manager an installed register lacks. Each is
  /// required while it is missing and refused once the register has it, so setup can only
  /// complete a register, never overwrite one.
  func decideSetup(
    store given: JSONValue?, manager: SetupManager?, context: CommandContext
  ) throws(RegisterError) -> [Event] {
    guard !isSetUp else {
      throw RegisterError(
        .alreadySetUp,
        "this register is set up already (\(store.name)); the store's settings come from its store file, operators are added with operator_add"
      )
    }
    var events: [Event] = []
    var settings = store
    switch (hasStoreSettings, given) {
    case (false, nil):
      throw RegisterError(
        .badRequest,
        "store is required: the store's settings, shaped as a catalog file's store section (name, currency, tax)"
      )
    case (true, .some):
      throw RegisterError(
        .badRequest,
        "the store's settings are given already (by its store or catalog file); leave store out")
    case (false, .some(let json)):
      do {
        settings = try StoreSettings(json: json, path: "store")
      } catch {
        throw RegisterError(.badRequest, "\(error.path) \(message: error.errorMessage)")
      }
      events.append(.storeConfigured(settings))
    case (true, nil):
      break
    }
    switch (hasManager, manager) {
    case (false, nil):
      throw RegisterError(
        .badRequest, "manager is required: the first manager's id, name and PIN")
    case (true, .some):
      throw RegisterError(
        .badRequest, "the register has a manager already; add operators with operator_add")
    case (false, .some(let person)):
      try validateOperatorID(person.id)
      try PINHash.validate(person.pin)
      let hash = context.prepared.newHash(
        pin: person.pin, iterations: settings.pinIterations, random: context.random)
      events.append(
        .operatorAdded(Operator(id: person.id, name: person.name, role: .manager, pin: hash)))
    case (true, nil):
      break
    }
    return events
  }
}
