import RegisterEngine

extension CommandHelp {
  /// The commands of help's section "Scripting": each declared once — its words, its usage
  /// and help, and (on its first entry) how its arguments are read.
  static let scripting: [CommandHelp] = [
    CommandHelp(
      ["batch", "-"], "batch [--keep-going]",
      "read commands from standard input, one per line\n(`-` for short); stops at the first line that is\nrefused unless --keep-going; a `tender card` line\ntakes its number and CVV from the lines after it\n(typed at a terminal: asked for without echo)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        let keepGoing = arguments.flag("--keep-going")
        try arguments.finish()
        return .batch(keepGoing: keepGoing)
      }),
    CommandHelp(["--json"], "--json", "print each reply's JSON instead of text"),
    CommandHelp(
      ["help"], "help [COMMAND]", "this help, or one command's",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        if arguments.flag("--man") {
          try arguments.finish()
          return .manual
        }
        let topic = arguments.optionalPositional()
        try arguments.finish()
        if let topic, CommandHelp.entries(for: topic).isEmpty {
          throw CommandParser.unknownCommand(topic)
        }
        return .help(command: topic)
      }),
    CommandHelp(
      ["help"], "help --man",
      "the manual page register-cli(1) as roff, made\nfrom this same table (`man -l` reads it)"),
    CommandHelp(
      ["completion"], "completion bash|zsh",
      "a completion script for the shell, made from\nthis same table: eval \"$(register-cli completion\nbash)\" or install it where the shell looks",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        let shell = try arguments.positional("bash|zsh")
        try arguments.finish()
        guard let known = Shell(rawValue: shell) else {
          throw UsageError("completion takes bash or zsh, got \"\(shell)\"")
        }
        return .completion(known)
      }),
    CommandHelp(
      ["schema"], "schema",
      "the protocol as a JSON Schema (2020-12): every\nrequest, reply, event and error code; the same\nas docs/protocol.schema.json",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        try arguments.finish()
        return .schema
      }),
    CommandHelp(
      ["--version", "version"], "--version", "print register-cli's version",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        try arguments.finish()
        return .version
      }),
  ]
}
