/// The printer's real-time status (DLE EOT n), as the Epson ESC/POS reference defines it for
/// TM printers and their kin: each request is answered at once with one byte, even while the
/// printer is off-line or holding data, so it can be asked before and after a job.
extension EscPos {
  /// DLE EOT n: n = 1 printer status, 2 off-line cause, 3 error cause, 4 roll paper sensor.
  public static func statusRequest(_ n: UInt8) -> [UInt8] { [dle, eot, n] }

  /// DLE EOT 4: ask for the paper roll sensor status (one byte back).
  public static let paperStatusRequest: [UInt8] = statusRequest(4)

  /// True when `byte` has the form of a DLE EOT answer: bits 1 and 4 set, 0 and 7 clear.
  public static func isStatusByte(_ byte: UInt8) -> Bool { byte & 0x93 == 0x12 }

  /// What a printer's answer to `paperStatusRequest` says: true when the paper is out
  /// (bits 5 and 6: roll end detected), false when there is paper; nil when the byte is not
  /// a status byte.
  public static func paperOut(status byte: UInt8) -> Bool? {
    guard isStatusByte(byte) else { return nil }
    return byte & 0x60 == 0x60
  }

  /// The printer's state from its answers to DLE EOT 1, 2, 3 and 4 (nil: not answered, or
  /// not a status byte — such an answer says nothing, it is not taken as a fault):
  ///
  /// - 4, bits 5–6: roll paper not present → `paperOut`;
  /// - 2, bit 5: printing stopped by the paper end → `paperOut`;
  /// - 2, bit 2: cover open → `coverOpen`;
  /// - 2, bit 6, or 3, bits 2, 3, 5 or 6 (recoverable, autocutter, unrecoverable,
  ///   auto-recoverable error) → `error`;
  /// - 1, bit 3: off-line (for another reason: the feed button held, waiting to be put back
  ///   on-line) → `offline`;
  /// - else `ok` (a roll near its end still prints).
  ///
  /// nil when the printer answered none of them.
  public static func printerStatus(
    printer: UInt8?, offlineCause: UInt8?, errorCause: UInt8?, paper: UInt8?
  ) -> PrinterStatus? {
    func valid(_ byte: UInt8?) -> UInt8? { byte.flatMap { isStatusByte($0) ? $0 : nil } }
    let printer = valid(printer)
    let offlineCause = valid(offlineCause)
    let errorCause = valid(errorCause)
    let paper = valid(paper)
    guard printer != nil || offlineCause != nil || errorCause != nil || paper != nil else {
      return nil
    }
    func has(_ byte: UInt8?, _ bits: UInt8) -> Bool { byte.map { $0 & bits != 0 } ?? false }
    if let paper, paper & 0x60 == 0x60 { return .paperOut }
    if has(offlineCause, 0x20) { return .paperOut }
    if has(offlineCause, 0x04) { return .coverOpen }
    if has(offlineCause, 0x40) || has(errorCause, 0x6C) { return .error }
    if has(printer, 0x08) { return .offline }
    return .ok
  }
}
