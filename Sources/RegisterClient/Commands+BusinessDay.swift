import RegisterEngine

extension CommandHelp {
  /// The commands of help's section "The business day": each declared once — its words, its usage
  /// and help, and (on its first entry) how its arguments are read.
  static let businessDay: [CommandHelp] = [
    CommandHelp(
      ["report"], "report [x]", "X report: the day's totals so far",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let kindName = arguments.optionalPositional() ?? "x"
        guard let kind = DayReport.Kind(rawValue: kindName) else {
          throw UsageError("report takes x or z, got \"\(kindName)\"")
        }
        let day = try arguments.option("--day").map { text throws(UsageError) in
          try CommandParser.integer(text, name: "--day", as: Int.self)
        }
        if kind == .x, day != nil {
          throw UsageError(
            "an X report is always of the open day; use register-cli report z --day N")
        }
        let escpos = arguments.flag("--escpos")
        invocation = CommandParser.request(
          Requests.Report(kind: kind, day: day, escpos: escpos), escpos ? .escpos : .report)
        return invocation
      }),
    CommandHelp(["report"], "report z [--day N]", "reprint the Z report of a closed day"),
    CommandHelp(
      ["report"], "report [x|z] [--day N] --escpos > FILE",
      "the report as ESC/POS bytes for a receipt printer"),
    CommandHelp(
      ["close-day", "close_day"], "close-day [--counted-cash AMOUNT] [--yes]",
      "Z report: print the totals and close the day\n(asked to confirm at a terminal, unless --yes)",
      parse: { (name: String, arguments: inout ArgumentList) throws(UsageError) -> Invocation in
        var invocation: Invocation
        let counted = try arguments.option("--counted-cash").map {
          arguments.money($0, path: "--counted-cash")
        }
        let typed = TypedRequest(Requests.CloseDay(countedCash: counted))
        invocation =
          arguments.flag("--yes")
          ? .request(typed, .report)
          : .confirm(
            question:
              "Close the business day (print the Z report; the day cannot be reopened)?",
            typed, .report)
        return invocation
      }),
  ]
}
