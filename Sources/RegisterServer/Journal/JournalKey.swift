import RegisterEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The journal key (`--journal-key FILE`): a secret the store keeps outside the data
/// directory, readable only by the daemon's user. With it, every record registerd writes also
/// carries an HMAC-SHA256 made with it (`"mac"`), and `register-cli verify --journal-key FILE`
/// checks them: someone who can write the data directory but not read the key cannot rewrite
/// history and make it check out. Make one with
/// `head -c 32 /dev/urandom > /etc/registerd/journal.key && chmod 600 /etc/registerd/journal.key`.
public enum JournalKey {
  /// Why a key file is refused.
  public struct Problem: Error, CustomStringConvertible {
    public var description: String
  }

  /// Reads the key at `path`: a regular file (not a link), not readable or writable by group
  /// or others, 16 to 4096 bytes (the whole file is the key), and not inside `dataDirectory`.
  public static func load(_ path: String, dataDirectory: String? = nil) throws(Problem)
    -> HMACSHA256
  {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw Problem(description: "cannot read the journal key \(path): \(SystemError("lstat"))")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw Problem(description: "the journal key \(path) is not a regular file (a link or other)")
    }
    guard info.st_mode & 0o077 == 0 else {
      throw Problem(
        description:
          "the journal key \(path) is open to group or others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 \(path)"
      )
    }
    if let dataDirectory, let inside = resolved(path), let data = resolved(dataDirectory),
      inside.hasPrefix(data + "/")
    {
      throw Problem(
        description:
          "the journal key \(path) is inside the data directory; keep it elsewhere (whoever can write the journal must not be able to read the key)"
      )
    }
    // Checked by its size first, for the message; read with the limit all the same, since
    // the file can be replaced between the two (by then a FIFO or a device is refused too).
    guard (16...4096).contains(Int(info.st_size)) else {
      throw Problem(
        description:
          "the journal key \(path) has \(info.st_size) bytes; use 16 to 4096 (head -c 32 /dev/urandom > \(path))"
      )
    }
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(path, followingSymlinks: false, limit: 4096)
    } catch {
      throw Problem(description: "cannot read the journal key \(path): \(error)")
    }
    guard (16...4096).contains(bytes.count) else {
      throw Problem(
        description:
          "the journal key \(path) has \(bytes.count) bytes; use 16 to 4096 (head -c 32 /dev/urandom > \(path))"
      )
    }
    return HMACSHA256(key: bytes)
  }

  private static func resolved(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }
}
