import RegisterEngine

/// Reads ESC/POS bytes back the way a printer would: text lines (in the code page, with the
/// style they print in) and the commands between them, in order — so a test can say "the
/// barcode carries R42", "the cut comes after the last line", "the drawer opens before the
/// receipt" without comparing bytes. It knows only the commands registerd sends; anything else
/// is decoded as `.unknown`, which tests refuse.
package struct EscPosDecoder {
  /// One thing the printer did.
  package enum Item: Equatable, CustomStringConvertible {
    case initialize
    case codePage(UInt8)
    case font(UInt8)
    case drawerKick(pin: UInt8, on: UInt8, off: UInt8)
    case align(UInt8)
    case emphasis(Bool)
    /// ESC d n: feed n lines.
    case feed(UInt8)
    case size(UInt8)
    case barcodeHeight(UInt8)
    case barcodeWidth(UInt8)
    case barcodeText(UInt8)
    /// GS k 73: Code 128, with its code set prefix (`{B`) taken off.
    case code128(String)
    case qrModel(UInt8)
    case qrSize(UInt8)
    case qrErrorCorrection(UInt8)
    case qrStore(String)
    case qrPrint
    /// GS V: 0/48 full, 1/49 partial, 65/66 with a feed first.
    case cut(mode: UInt8, feed: UInt8?)
    case statusRequest(UInt8)
    /// FF on a customer display: clear, cursor home.
    case clearScreen
    /// US $ x y on a customer display: the cursor to column x of row y.
    case cursor(x: UInt8, y: UInt8)
    /// A printed line (ended by LF), in the style in force.
    case line(String, style: Style)
    case unknown([UInt8])

    package var description: String {
      switch self {
      case .line(let text, let style): "line \"\(text)\"\(style.isPlain ? "" : " \(style)")"
      case .initialize: "initialize"
      case .codePage(let n): "code page \(n)"
      case .font(let n): "font \(n)"
      case .drawerKick(let pin, let on, let off): "drawer kick pin \(pin) \(on)/\(off)"
      case .align(let n): "align \(n)"
      case .emphasis(let on): "emphasis \(on)"
      case .feed(let n): "feed \(n)"
      case .size(let n): "size \(n)"
      case .barcodeHeight(let n): "barcode height \(n)"
      case .barcodeWidth(let n): "barcode width \(n)"
      case .barcodeText(let n): "barcode text \(n)"
      case .code128(let code): "code128 \(code)"
      case .qrModel(let n): "qr model \(n)"
      case .qrSize(let n): "qr size \(n)"
      case .qrErrorCorrection(let n): "qr error correction \(n)"
      case .qrStore(let code): "qr \(code)"
      case .qrPrint: "qr print"
      case .cut(let mode, let feed): "cut \(mode) \(feed.map(String.init) ?? "")"
      case .statusRequest(let n): "status request \(n)"
      case .clearScreen: "clear screen"
      case .cursor(let x, let y): "cursor \(x),\(y)"
      case .unknown(let bytes): "unknown \(bytes)"
      }
    }
  }

  /// The style a line printed in.
  package struct Style: Equatable, CustomStringConvertible {
    package var centered = false
    package var emphasized = false
    package var doubleHeight = false

    package init(centered: Bool = false, emphasized: Bool = false, doubleHeight: Bool = false) {
      self.centered = centered
      self.emphasized = emphasized
      self.doubleHeight = doubleHeight
    }

    package var isPlain: Bool { !centered && !emphasized && !doubleHeight }
    package var description: String {
      [centered ? "centered" : nil, emphasized ? "bold" : nil, doubleHeight ? "tall" : nil]
        .compactMap { $0 }.joined(separator: ",")
    }
  }

  package private(set) var items: [Item] = []

  /// Decodes `bytes`, reading text in `codePage` until an ESC t changes it.
  package init(_ bytes: [UInt8], codePage: CodePage = .cp437) {
    var page = codePage
    var style = Style()
    var text = ""
    var index = 0
    func byte(_ offset: Int) -> UInt8? {
      index + offset < bytes.count ? bytes[index + offset] : nil
    }
    while index < bytes.count {
      let current = bytes[index]
      switch current {
      case 0x0A, 0x0D:
        // LF ends a printed line; CR ends a customer display's.
        items.append(.line(text, style: style))
        text = ""
        index += 1
      case 0x0C:
        items.append(.clearScreen)
        index += 1
      case 0x1F:
        guard byte(1) == 0x24, let x = byte(2), let y = byte(3) else {
          items.append(.unknown([current]))
          index += 1
          continue
        }
        // The text so far was the line the cursor leaves.
        items.append(.line(text, style: style))
        text = ""
        items.append(.cursor(x: x, y: y))
        index += 4
      case 0x1B:
        guard let command = byte(1) else {
          items.append(.unknown([current]))
          index += 1
          continue
        }
        switch command {
        case 0x40:
          items.append(.initialize)
          style = Style()
          page = .cp437
          index += 2
        case 0x74, 0x4D, 0x61, 0x45, 0x64:
          guard let value = byte(2) else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          switch command {
          case 0x74:
            items.append(.codePage(value))
            page = CodePage.allCases.first { $0.escPosNumber == value } ?? page
          case 0x4D: items.append(.font(value))
          case 0x64: items.append(.feed(value))
          case 0x61:
            items.append(.align(value))
            style.centered = value == 1 || value == 49
          default:
            items.append(.emphasis(value & 1 == 1))
            style.emphasized = value & 1 == 1
          }
          index += 3
        case 0x70:
          guard let pin = byte(2), let on = byte(3), let off = byte(4) else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          items.append(.drawerKick(pin: pin, on: on, off: off))
          index += 5
        default:
          items.append(.unknown([current, command]))
          index += 2
        }
      case 0x1D:
        guard let command = byte(1) else {
          items.append(.unknown([current]))
          index += 1
          continue
        }
        switch command {
        case 0x21, 0x68, 0x77, 0x48:
          guard let value = byte(2) else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          switch command {
          case 0x21:
            items.append(.size(value))
            style.doubleHeight = value & 0x0F != 0
          case 0x68: items.append(.barcodeHeight(value))
          case 0x77: items.append(.barcodeWidth(value))
          default: items.append(.barcodeText(value))
          }
          index += 3
        case 0x6B:
          guard byte(2) == 73, let length = byte(3), index + 4 + Int(length) <= bytes.count else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          var data = Array(bytes[(index + 4)..<(index + 4 + Int(length))])
          if data.count >= 2 && data[0] == 0x7B { data.removeFirst(2) }
          items.append(.code128(String(decoding: data, as: UTF8.self)))
          index += 4 + Int(length)
        case 0x28:
          guard byte(2) == 0x6B, let low = byte(3), let high = byte(4), byte(5) == 0x31,
            let function = byte(6)
          else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          let length = Int(low) | Int(high) << 8
          let end = index + 5 + length
          guard length >= 2, end <= bytes.count else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          let parameters = Array(bytes[(index + 7)..<end])
          switch function {
          case 0x41: items.append(.qrModel(parameters.first ?? 0))
          case 0x43: items.append(.qrSize(parameters.first ?? 0))
          case 0x45: items.append(.qrErrorCorrection(parameters.first ?? 0))
          case 0x50:
            items.append(.qrStore(String(decoding: parameters.dropFirst(), as: UTF8.self)))
          case 0x51: items.append(.qrPrint)
          default: items.append(.unknown(Array(bytes[index..<end])))
          }
          index = end
        case 0x56:
          guard let mode = byte(2) else {
            items.append(.unknown(Array(bytes[index...])))
            index = bytes.count
            continue
          }
          if mode == 65 || mode == 66 {
            items.append(.cut(mode: mode, feed: byte(3)))
            index += 4
          } else {
            items.append(.cut(mode: mode, feed: nil))
            index += 3
          }
        default:
          items.append(.unknown([current, command]))
          index += 2
        }
      case 0x10:
        if byte(1) == 0x04, let status = byte(2) {
          items.append(.statusRequest(status))
          index += 3
        } else {
          items.append(.unknown([current]))
          index += 1
        }
      default:
        if current < 0x20 || current == 0x7F {
          items.append(.unknown([current]))
        } else {
          text.append(page.character(for: current))
        }
        index += 1
      }
    }
    if !text.isEmpty { items.append(.unknown(Array(text.utf8))) }
  }

  /// The printed lines' text, in order.
  package var lines: [String] {
    items.compactMap {
      if case .line(let text, _) = $0 { return text }
      return nil
    }
  }

  /// The printed lines without the spaces they start with: a centred line carries its
  /// padding, so this is where a centred heading is looked for.
  package var unpaddedLines: [String] { lines.map { String($0.drop { $0 == " " }) } }

  /// The printed text, one `\n` after each line.
  package var text: String { lines.map { $0 + "\n" }.joined() }

  /// The position of the first item that matches, or nil.
  package func position(of matches: (Item) -> Bool) -> Int? {
    items.firstIndex(where: matches)
  }

  /// The position of the last printed line that is not blank.
  package var lastTextLine: Int? {
    items.lastIndex {
      if case .line(let text, _) = $0 { return !text.isEmpty }
      return false
    }
  }

  /// What any barcode or QR code carries.
  package var codes: [String] {
    items.compactMap {
      switch $0 {
      case .code128(let code), .qrStore(let code): code
      default: nil
      }
    }
  }

  /// Every command that is not one registerd sends.
  package var unknown: [[UInt8]] {
    items.compactMap {
      if case .unknown(let bytes) = $0 { return bytes }
      return nil
    }
  }

  /// The items as text, one per line (a readable transcript for golden files and failures).
  package var transcript: String { items.map { $0.description + "\n" }.joined() }
}
