import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// The printer's real-time status (DLE EOT 1–4) read into `hello`'s printer status, with the
/// bytes of the Epson ESC/POS reference (DLE EOT: each answer 0xx1xx10).
@Suite struct PrinterStatusTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var answers: [UInt8?]
    var status: PrinterStatus?
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "on-line, no error, paper in", answers: [0x12, 0x12, 0x12, 0x12], status: .ok),
    Case(
      name: "the roll near its end still prints", answers: [0x12, 0x12, 0x12, 0x1E], status: .ok),
    Case(name: "drawer pin 3 high is no fault", answers: [0x16, 0x12, 0x12, 0x12], status: .ok),
    Case(
      name: "paper out: off-line, stopped by the paper end, roll not present",
      answers: [0x1A, 0x32, 0x12, 0x7E], status: .paperOut),
    Case(
      name: "roll sensor alone says no paper", answers: [0x12, 0x12, 0x12, 0x72], status: .paperOut),
    Case(name: "cover open", answers: [0x1A, 0x16, 0x12, 0x12], status: .coverOpen),
    Case(
      name: "cover open with the roll out: paper first", answers: [0x1A, 0x36, 0x12, 0x7E],
      status: .paperOut),
    Case(name: "autocutter error", answers: [0x1A, 0x52, 0x1A, 0x12], status: .error),
    Case(name: "unrecoverable error", answers: [0x1A, 0x52, 0x32, 0x12], status: .error),
    Case(name: "auto-recoverable error", answers: [0x12, 0x12, 0x52, 0x12], status: .error),
    Case(name: "off-line for no named cause", answers: [0x1A, 0x12, 0x12, 0x12], status: .offline),
    Case(name: "only the first answered", answers: [0x12, nil, nil, nil], status: .ok),
    Case(name: "nothing answered", answers: [nil, nil, nil, nil], status: nil),
    Case(
      name: "bytes that are no status say nothing", answers: [0xFF, 0x00, 0x80, 0x7F], status: nil),
    Case(
      name: "a malformed paper byte is not taken for paper out", answers: [0x12, 0x12, 0x12, 0xFE],
      status: .ok),
  ]

  @Test(arguments: cases)
  func statusFromAnswers(_ test: Case) {
    #expect(
      EscPos.printerStatus(
        printer: test.answers[0], offlineCause: test.answers[1], errorCause: test.answers[2],
        paper: test.answers[3]) == test.status)
  }

  @Test(
    "every byte a printer could send is read without a trap, and a fault only from a status byte")
  func everyByte() {
    for byte in UInt8.min...UInt8.max {
      let status = EscPos.printerStatus(
        printer: byte, offlineCause: byte, errorCause: byte, paper: byte)
      #expect((status == nil) == !EscPos.isStatusByte(byte))
    }
  }

  @Test("hello names each status as PROTOCOL.md does")
  func names() {
    #expect(
      PrinterStatus.allCases.map(\.rawValue) == [
        "ok", "offline", "paper_out", "cover_open", "error", "unknown",
      ])
  }
}
