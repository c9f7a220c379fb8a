/// Where a receipt printer (or a customer display) is: a device file (`/dev/usb/lp0`, a serial
/// port such as `/dev/ttyUSB0`) or a raw TCP port (`tcp:192.168.1.50:9100`).
public enum DeviceAddress: Sendable, Equatable, CustomStringConvertible {
  case device(path: String)
  case tcp(host: String, port: Int)

  /// Reads `/absolute/path` or `tcp:HOST:PORT` (HOST a name, an IPv4 address or `[IPv6]`;
  /// PORT 1–65535); nil for anything else.
  public init?(_ text: String) {
    guard (1...200).contains(text.utf8.count),
      text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
    else { return nil }
    if text.hasPrefix("/") {
      self = .device(path: text)
      return
    }
    guard text.hasPrefix("tcp:") else { return nil }
    let rest = text.dropFirst(4)
    guard let colon = rest.lastIndex(of: ":") else { return nil }
    var host = String(rest[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    let portText = rest[rest.index(after: colon)...]
    guard !host.isEmpty, !host.contains("/"), (1...5).contains(portText.count),
      portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let port = Int(portText),
      (1...65535).contains(port)
    else { return nil }
    self = .tcp(host: host, port: port)
  }

  /// As it was written: the path, or `tcp:HOST:PORT`.
  public var description: String {
    switch self {
    case .device(let path): path
    case .tcp(let host, let port):
      host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
    }
  }

  /// What a setting or flag that names a device must look like.
  public static let expected =
    "a device path such as /dev/usb/lp0, or tcp:HOST:PORT such as tcp:192.168.1.50:9100"
}
