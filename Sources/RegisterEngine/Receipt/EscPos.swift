/// What a receipt's code is printed as: a Code 128 barcode (any lane scanner reads it) or a QR
/// code (read by 2D scanners and phones).
public enum ReceiptBarcode: String, Sendable, Equatable, CaseIterable {
  case code128
  case qr
}

/// How the store's receipt printer is driven: its code page and the symbol receipts carry.
public struct EscPosOptions: Sendable, Equatable {
  public var codePage: CodePage
  public var barcode: ReceiptBarcode
  /// Open the cash drawer (ESC p) before printing.
  public var drawerKick: Bool

  public init(
    codePage: CodePage = .cp437, barcode: ReceiptBarcode = .code128, drawerKick: Bool = false
  ) {
    self.codePage = codePage
    self.barcode = barcode
    self.drawerKick = drawerKick
  }

  /// The options a store's settings give (no drawer kick).
  public init(store: StoreSettings) {
    self.init(codePage: store.printerCodePage, barcode: store.receiptBarcode)
  }
}

/// ESC/POS, the command language of nearly every receipt printer (Epson TM, Star in its ESC/POS
/// mode, Bixolon, and their clones): the commands registerd sends, and documents made of a
/// text layout. Pure: bytes in memory, no device.
public enum EscPos {
  static let esc: UInt8 = 0x1B
  static let gs: UInt8 = 0x1D
  static let lf: UInt8 = 0x0A
  static let dle: UInt8 = 0x10
  static let eot: UInt8 = 0x04

  /// ESC @: back to the power-on state (clears styles left by an interrupted job).
  public static let initialize: [UInt8] = [esc, 0x40]
  /// ESC p 0 25 250: a 50 ms pulse on the drawer's connector pin 2, then 500 ms off.
  public static let drawerKick: [UInt8] = [esc, 0x70, 0x00, 0x19, 0xFA]
  /// GS V 66 3: feed to the cutter (plus 3 dots) and cut, leaving a hinge (partial cut).
  public static let partialCut: [UInt8] = [gs, 0x56, 0x42, 0x03]
  /// A whole document: initialise, the code page and font, the drawer kick when asked, the
  /// layout's lines in their styles, the receipt `code` (nil: none) as a barcode or QR code,
  /// and a partial cut.
  static func document(_ layout: TextLayout, options: EscPosOptions, code: String?) -> [UInt8] {
    var out = initialize
    out += [esc, 0x74, options.codePage.escPosNumber]  // ESC t n: code page
    // ESC M n: font A (12×24 dots, 48 columns on 80 mm paper, 42 on some) fits 40, 42 and 48
    // columns; a wider layout takes font B (9×17 dots, 64 columns).
    out += [esc, 0x4D, layout.width <= 48 ? 0 : 1]
    if options.drawerKick { out += drawerKick }
    var style = LineStyle.plain
    for (line, format) in zip(layout.lines, layout.styles) {
      if format.style.emphasized != style.emphasized {
        out += [esc, 0x45, format.style.emphasized ? 1 : 0]  // ESC E n: emphasis
      }
      if format.style.doubleHeight != style.doubleHeight {
        out += [gs, 0x21, format.style.doubleHeight ? 0x01 : 0x00]  // GS ! n: double height
      }
      style = format.style
      // A centred line keeps the layout's padding and is printed left-justified, as every
      // other line: ESC a 1 would centre it on the paper, which is wider than the receipt when
      // the store's `receipt_width` is narrower than the printer's columns.
      out += options.codePage.encode(line)
      out.append(lf)
    }
    if style.emphasized { out += [esc, 0x45, 0] }
    if style.doubleHeight { out += [gs, 0x21, 0] }
    if let code {
      out += [esc, 0x64, 1]  // ESC d 1: a line of space above the symbol
      // The symbol is centred by the printer (ESC a 1), on the paper: its width in dots is the
      // printer's to know, not the receipt's columns.
      out += [esc, 0x61, 1]
      out += symbol(code, options.barcode)
      out += [esc, 0x61, 0]
    }
    out += partialCut
    return out
  }

  /// `code` (printable ASCII) as a Code 128 barcode with its text below, or as a QR code.
  static func symbol(_ code: String, _ kind: ReceiptBarcode) -> [UInt8] {
    let data = Array(code.utf8.filter { $0 >= 0x20 && $0 < 0x7F }.prefix(200))
    switch kind {
    case .code128:
      // GS h 80: 80 dots high; GS w 2: modules 2 dots wide; GS H 2: the text below it;
      // GS k 73 n {B data: Code 128, code set B (all printable ASCII).
      let payload: [UInt8] = [0x7B, 0x42] + data
      return [gs, 0x68, 80, gs, 0x77, 2, gs, 0x48, 2, gs, 0x6B, 73, UInt8(payload.count)]
        + payload + [lf]
    case .qr:
      // GS ( k, function 165: model 2; 167: module size 6; 169: error correction M;
      // 180: store the data; 181: print it.
      let length = data.count + 3
      return [gs, 0x28, 0x6B, 4, 0, 0x31, 0x41, 0x32, 0x00]
        + [gs, 0x28, 0x6B, 3, 0, 0x31, 0x43, 6]
        + [gs, 0x28, 0x6B, 3, 0, 0x31, 0x45, 0x31]
        + [gs, 0x28, 0x6B, UInt8(length & 0xFF), UInt8(length >> 8), 0x31, 0x50, 0x30] + data
        + [gs, 0x28, 0x6B, 3, 0, 0x31, 0x51, 0x30, lf]
    }
  }

  /// A screen for a two-line ESC/POS customer display (Epson DM-D and its kin, 20 columns):
  /// initialise, the code page, clear (FF, cursor home), the first line, the cursor to the
  /// start of the second (US $ 1 2), the second line, CR.
  public static func poleDisplay(_ lines: [String], codePage: CodePage) -> [UInt8] {
    var out = initialize + [esc, 0x74, codePage.escPosNumber, 0x0C]
    for (index, line) in lines.prefix(2).enumerated() {
      if index == 1 { out += [0x1F, 0x24, 1, 2] }
      out += codePage.encode(line)
    }
    out.append(0x0D)
    return out
  }

  /// A job that only opens the cash drawer (a no-sale, a float, a paid in or out).
  public static var drawerOnly: [UInt8] { initialize + drawerKick }
}
