/// A receipt as an RFC 5322 e-mail message: plain text body, proper headers (From, To,
/// Subject, Date, Message-ID, MIME), CRLF line endings, non-ASCII header text as RFC 2047
/// encoded words.
public enum EmailMessage {
  public static func render(
    receiptText: String, receiptNumber: Int, storeName: String, from: String, to: String,
    messageID: String, at time: Timestamp, isReturn: Bool
  ) -> [UInt8] {
    let subject =
      "\(isReturn ? "Your return receipt" : "Your receipt") \(receiptNumber) from \(storeName)"
    let ascii = receiptText.unicodeScalars.allSatisfy(\.isASCII)
    var headers: [(String, String)] = [
      ("From", "\(displayName(storeName)) <\(from)>"),
      ("To", "<\(to)>"),
      ("Subject", headerText(subject)),
      ("Date", rfc5322Date(time)),
      ("Message-ID", "<\(messageID)>"),
      ("MIME-Version", "1.0"),
      ("Content-Type", "text/plain; charset=utf-8"),
      ("Content-Transfer-Encoding", ascii ? "7bit" : "8bit"),
    ]
    headers.append(("X-Mailer", "registerd \(registerdVersion)"))
    var message = ""
    for (name, value) in headers { message += "\(name): \(value)\r\n" }
    message += "\r\n"
    var lines = receiptText.split(separator: "\n", omittingEmptySubsequences: false)
    // The text ends with a newline; the split leaves one empty piece for it.
    if lines.last?.isEmpty == true { lines.removeLast() }
    for line in lines { message += line + "\r\n" }
    return Array(message.utf8)
  }

  /// A display name: quoted (with \ and " escaped), or an encoded word when not ASCII.
  static func displayName(_ name: String) -> String {
    guard name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) else {
      return encodedWord(name)
    }
    var quoted = "\""
    for character in name {
      if character == "\"" || character == "\\" { quoted.append("\\") }
      quoted.append(character)
    }
    return quoted + "\""
  }

  /// Header text, as an RFC 2047 encoded word when it is not plain ASCII.
  static func headerText(_ text: String) -> String {
    text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) ? text : encodedWord(text)
  }

  static func encodedWord(_ text: String) -> String {
    "=?utf-8?B?\(base64(Array(text.utf8)))?="
  }

  static func base64(_ bytes: [UInt8]) -> String { Base64.encode(bytes) }

  /// "Sun, 22 Nov 2026 14:03:05 -0500"
  static func rfc5322Date(_ time: Timestamp) -> String {
    let local = time.local
    let localMillis = time.epochMilliseconds + Int64(time.utcOffsetSeconds) * 1000
    let (days, _) = Timestamp.floorDivide(localMillis, 86_400_000)
    // 1970-01-01 was a Thursday.
    let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    let (_, weekday) = Timestamp.floorDivide(days, 7)
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    let offset = Int(time.utcOffsetSeconds)
    let sign = offset < 0 ? "-" : "+"
    let zone = "\(sign)\(pad(abs(offset) / 3600, 2))\(pad(abs(offset) % 3600 / 60, 2))"
    return "\(weekdays[Int(weekday)]), \(local.day) \(months[local.month - 1]) \(local.year) "
      + "\(local.timeString) \(zone)"
  }
}
