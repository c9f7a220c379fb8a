import Foundation
import RegisterClient
import RegisterServer
import RegisterTestSupport
import Testing

/// Runs `program` (found on PATH) with `arguments` and `stdin`; its status and output.
private func run(
  _ program: ExternalProgram, _ arguments: [String], stdin: String? = nil,
  environment: [String: String] = [:]
) throws -> CLIResult {
  try runProgram(program.located(), arguments, stdin: stdin, environment: environment)
}

/// The repository's hand-written registerd(8).
private var registerdPage: String {
  get throws {
    try String(
      contentsOf: Binaries.repository.appendingPathComponent("man/registerd.8"), encoding: .utf8)
  }
}

@Suite("Man pages and shell completions", .serialized)
struct ManualAndCompletionTests {
  /// register-cli(1) as `register-cli help --man` prints it, in a file.
  func generatedPage(in directory: TemporaryDirectory) throws -> String {
    let page = try runCLI(["help", "--man"])
    #expect(page.status == 0, "\(page.stderr)")
    let path = directory.path("register-cli.1")
    try page.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test(
    "both pages render under groff -man -ww without a warning, and under man -l",
    .tags(.outsideProgram), .requires(.groff, .man))
  func pagesRenderCleanly() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let pages = [
      try generatedPage(in: directory),
      Binaries.repository.appendingPathComponent("man/registerd.8").path,
    ]
    for page in pages {
      let groff = try run(.groff, ["-man", "-ww", "-z", page])
      #expect(groff.status == 0, "groff (Debian: groff-base) on \(page): \(groff.stderr)")
      #expect(groff.stderr.isEmpty, "groff warns on \(page):\n\(groff.stderr)")
      let man = try run(
        .man, ["-l", page], environment: ["MANPAGER": "cat", "MANWIDTH": "80", "LC_ALL": "C"])
      #expect(man.status == 0, "man (Debian: man-db) on \(page): \(man.stderr)")
      for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS"] {
        #expect(man.stdout.contains("\n\(heading)\n"), "\(page) has \(heading)")
      }
      #expect(!man.stderr.contains("warning"), "\(man.stderr)")
    }
  }

  @Test("register-cli(1) comes from the help table: every command, alias and exit status")
  func generatedPageCoversTheTable() throws {
    let page = try runCLI(["help", "--man"]).stdout
    for heading in [
      "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "ENVIRONMENT", "EXIT STATUS",
      "FILES", "EXAMPLES", "SEE ALSO",
    ] {
      #expect(page.contains(".SH \(heading)\n"), "\(heading)")
    }
    for command in Completion.commands {
      for name in command.names {
        #expect(page.contains(ManPage.roffText(name)), "\(name) is in the page")
      }
    }
    for flag in Completion.globalFlags {
      #expect(page.contains(ManPage.roffText(flag)), "\(flag) is in the page")
    }
    for status in ExitStatus.allCases {
      #expect(page.contains(".B \(status.rawValue)\n\(ManPage.roffText(status.meaning))\n"))
    }
    for variable in ["REGISTER_SOCKET", "XDG_RUNTIME_DIR", "REGISTER_DATA_DIR", "TZ"] {
      #expect(page.contains(".B \(variable)\n"), "\(variable)")
    }
    // Flags are typed as printed: no bare hyphen before a flag anywhere in the roff.
    let text = page.split(separator: "\n").filter { !$0.hasPrefix(".\\\"") }
    #expect(!text.contains { $0.contains(" --") || $0.hasPrefix("--") }, "flags are written \\-\\-")
    // The help and the page say the same exit statuses (one table).
    let help = try runCLI(["help"]).stdout
    for status in ExitStatus.allCases {
      #expect(help.contains("  \(status.rawValue)  \(status.meaning)\n"))
    }
  }

  @Test("every option registerd's --help lists is described in registerd(8)")
  func registerdPageListsEveryOption() throws {
    let page = try registerdPage
    // A flag starts a word: "--catalog", "-h" (not the hyphen inside "data-dir").
    let flags = Options.usage.split(whereSeparator: { " \n[](),`".contains($0) }).map {
      String($0.prefix { $0 == "-" || $0.isLowercase })
    }.filter { $0.hasPrefix("-") && $0.contains(where: \.isLetter) }
    #expect(flags.contains("--socket") && flags.contains("--journal-key") && flags.contains("-h"))
    for flag in Set(flags) {
      let roff = ManPage.roffText(flag)
      #expect(
        page.contains(".BI \(roff) ") || page.contains(".B \(roff)\n")
          || page.contains(".BR \(roff) "), "registerd.8 describes \(flag)")
    }
    // --store and --log-level with their argument (.BI), and the environment, signals and
    // paths the page must name.
    for flag in ["--store", "--log-level"] {
      #expect(page.contains(".BI \(ManPage.roffText(flag)) "), "\(flag)")
    }
    for variable in [
      "REGISTER_SOCKET", "REGISTER_DATA_DIR", "REGISTERD_FIXED_TIME", "LISTEN_FDS",
      "NOTIFY_SOCKET", "WATCHDOG_USEC", "JOURNAL_STREAM", "SIGHUP", "SIGTERM",
      "/etc/registerd/products.json", "/etc/registerd/store.json", "/var/lib/registerd",
      "/run/registerd/registerd.sock",
    ] {
      #expect(page.contains(ManPage.roffText(variable)), "\(variable)")
    }
  }

  @Test(
    "completion scripts pass bash -n and zsh -n", .tags(.outsideProgram), .requires(.bash, .zsh))
  func completionScriptsParse() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    for shell in [ExternalProgram.bash, .zsh] {
      let script = try runCLI(["completion", shell.name])
      #expect(script.status == 0, "\(script.stderr)")
      let path = directory.path("register-cli.\(shell)")
      try script.stdout.write(toFile: path, atomically: true, encoding: .utf8)
      let check = try run(shell, ["-n", path])
      #expect(check.status == 0, "\(shell) -n: \(check.stderr)")
      #expect(check.stderr.isEmpty, "\(check.stderr)")
    }
    let bad = try runCLI(["completion", "fish"])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("completion takes bash or zsh"))
  }

  @Test(
    "bash completes command words, their words and flags from the table", .tags(.outsideProgram),
    .requires(.bash),
    arguments: [
      (["register-cli", "te"], ["tender"]),
      (
        ["register-cli", "tender", ""],
        ["cash", "card", "gift-card", "store-credit", "other", "card-present"]
      ),
      (["register-cli", "pay", "c"], ["cash", "card", "card-present"]),
      (["register-cli", "--socket", "/tmp/s", "ad"], ["add"]),
      (["register-cli", "tender", "card", "--e"], ["--exp"]),
      (["register-cli", "operator", "s"], ["set-pin"]),
      (["register-cli", "completion", ""], ["bash", "zsh"]),
      (["register-cli", "--js"], ["--json"]),
      (["register-cli", "void-l"], ["void-line"]),
    ])
  func bashCompletes(words: [String], expected: [String]) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = directory.path("register-cli.bash")
    try runCLI(["completion", "bash"]).stdout.write(
      toFile: path, atomically: true, encoding: .utf8)
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    let probe = """
      source '\(path)'
      COMP_WORDS=(\(quoted))
      COMP_CWORD=\(words.count - 1)
      _register_cli
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try run(.bash, ["--norc", "--noprofile", "-c", probe])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let replies = result.stdout.split(separator: "\n").map(String.init)
    #expect(Set(replies) == Set(expected), "\(words): \(replies)")
  }

  @Test(
    "zsh completes from the same table (compsys stood in for by stubs that print)",
    .tags(.outsideProgram), .requires(.zsh),
    arguments: [
      (["register-cli", "te"], ["tender"]),
      (
        ["register-cli", "tender", ""],
        ["cash", "card", "gift-card", "store-credit", "other", "card-present"]
      ),
      (
        ["register-cli", "--socket", "/tmp/s", "operator", ""],
        [
          "add", "list", "remove", "set-pin", "unlock",
        ]
      ),
      (
        ["register-cli", "tender", "card", "--"],
        ["--exp", "--amount", "--reference", "--brand", "--last4", "--auth"]
      ),
      (["register-cli", "--socket", ""], ["FILES"]),
    ])
  func zshCompletes(words: [String], expected: [String]) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = directory.path("_register-cli")
    try runCLI(["completion", "zsh"]).stdout.write(toFile: path, atomically: true, encoding: .utf8)
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    // compadd -a NAME...: print the arrays; _describe -t TAG TEXT NAME: print the names.
    let probe = """
      compdef() { : }
      _files() { print -- FILES }
      compadd() { local name; shift; for name in "$@"; do print -l -- "${(@P)name}"; done }
      _describe() { local -a entries=("${(@P)4}"); print -l -- "${entries[@]%%:*}" }
      source '\(path)'
      words=(\(quoted))
      CURRENT=\(words.count)
      PREFIX='\(words.last ?? "")'
      _register-cli
      """
    let result = try run(.zsh, ["-f", "-c", probe])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let prefix = words.last ?? ""
    // The stubs print every candidate; the shell would keep those that start with PREFIX.
    let replies = result.stdout.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix(prefix) || $0 == "FILES"
    }
    let flags = Set(replies.filter { !Completion.globalFlags.contains($0) })
    #expect(flags == Set(expected), "\(words): \(replies)")
  }
}
