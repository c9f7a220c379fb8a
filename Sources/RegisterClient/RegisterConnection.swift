import RegisterEngine
import RegisterServer

/// A typed connection to registerd: send a typed request, read a typed reply. Used by
/// register-cli and the tests.
public final class RegisterConnection {
  private let connection: LineConnection

  /// Connects to the daemon at `socketPath`.
  public init(socketPath: String) throws(SystemError) {
    connection = try LineConnection(path: socketPath)
  }

  /// Sends `request` and reads its reply.
  public func send(_ request: TypedRequest) throws(ClientError) -> Reply {
    let line = try exchange(request.line)
    do {
      return try Reply(line: line)
    } catch {
      throw .malformedReply(error)
    }
  }

  /// Sends a request line and reads the reply line, as sent (register-cli's `--json`
  /// prints it unchanged).
  public func exchange(_ line: String) throws(ClientError) -> String {
    try send(line: line)
    return try readLine()
  }

  /// Sends one request line (a newline is added).
  public func send(line: String) throws(ClientError) {
    do {
      try connection.send(line: line)
    } catch {
      throw .system(error)
    }
  }

  /// The socket's descriptor, to wait on with others (`poll`).
  public var descriptor: Int32 { connection.fd }

  /// Waits up to `milliseconds` for a line (or the connection's end) to read; false when the
  /// time ran out.
  public func waitForInput(milliseconds: Int32) -> Bool {
    connection.waitForInput(milliseconds: milliseconds)
  }

  /// Reads the next line (a reply, or a live event after `subscribe`).
  public func readLine() throws(ClientError) -> String {
    let line: String?
    do {
      line = try connection.readLine()
    } catch {
      throw .system(error)
    }
    guard let line else { throw .closed }
    return line
  }
}

/// Why a request got no reply.
public enum ClientError: Error, CustomStringConvertible {
  /// The connection failed.
  case system(SystemError)
  /// registerd closed the connection before replying.
  case closed
  /// registerd replied with something that is not a reply.
  case malformedReply(ReplyFormatError)

  public var description: String {
    switch self {
    case .system(let error): error.description
    case .closed: "registerd closed the connection before replying"
    case .malformedReply(let error): error.description
    }
  }
}
