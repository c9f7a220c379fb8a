import RegisterClient
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Wiring only: the command table, parsing and the session live in RegisterClient.
exit(
  CLI.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: processEnvironment())
    .rawValue)
