import Foundation
import RegisterTestSupport
import Testing

/// A systemd unit file's assignments, read as systemd reads them: `[Section]` headers,
/// `Key=value` lines, `#` and `;` comments, a trailing backslash continuing a line.
struct UnitFile {
  struct Assignment: Equatable {
    var section: String
    var key: String
    var value: String
  }

  var assignments: [Assignment] = []

  init(_ text: String) {
    var section = ""
    var pending = ""
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = pending + raw.trimmingCharacters(in: .whitespaces)
      pending = ""
      if line.hasPrefix("#") || line.hasPrefix(";") || line.isEmpty { continue }
      if line.hasSuffix("\\") {
        line.removeLast()
        pending = line + " "
        continue
      }
      if line.hasPrefix("[") && line.hasSuffix("]") {
        section = String(line.dropFirst().dropLast())
        continue
      }
      guard let equals = line.firstIndex(of: "=") else { continue }
      assignments.append(
        Assignment(
          section: section,
          key: line[..<equals].trimmingCharacters(in: .whitespaces),
          value: line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
    }
  }

  /// The unit with its drop-ins applied, in order: their assignments come after its own.
  func merged(with dropIns: [UnitFile]) -> UnitFile {
    var result = self
    for dropIn in dropIns { result.assignments += dropIn.assignments }
    return result
  }

  /// A setting that takes one value: the last assignment wins.
  func value(_ key: String, in section: String = "Service") -> String? {
    assignments.last { $0.section == section && $0.key == key }?.value
  }

  /// A boolean setting, as systemd parses booleans; nil when unset.
  func flag(_ key: String, in section: String = "Service") -> Bool? {
    guard let value = value(key, in: section)?.lowercased() else { return nil }
    if ["1", "yes", "y", "true", "t", "on"].contains(value) { return true }
    if ["0", "no", "n", "false", "f", "off"].contains(value) { return false }
    Issue.record("\(key)=\(value) is not a boolean")
    return nil
  }

  /// A setting whose assignments add up (RestrictAddressFamilies=, IPAddressAllow=,
  /// SupplementaryGroups=): every word of every assignment, an empty assignment clearing what
  /// came before. A `~` deny list is not what these units use, and is refused.
  func list(_ key: String, in section: String = "Service") -> [String] {
    var words: [String] = []
    for assignment in assignments where assignment.section == section && assignment.key == key {
      if assignment.value.isEmpty {
        words = []
        continue
      }
      #expect(!assignment.value.hasPrefix("~"), "\(key)=\(assignment.value): a deny list")
      words += assignment.value.split(separator: " ").map(String.init)
    }
    return words
  }

  /// A setting each assignment of which is one entry (DeviceAllow=): the entries, an empty
  /// assignment clearing those before.
  func entries(_ key: String, in section: String = "Service") -> [String] {
    var entries: [String] = []
    for assignment in assignments where assignment.section == section && assignment.key == key {
      if assignment.value.isEmpty { entries = [] } else { entries.append(assignment.value) }
    }
    return entries
  }
}

/// contrib/systemd's unit and the drop-ins shipped for lane hardware: what the sandbox lets
/// registerd reach, with and without them.
@Suite("registerd.service and its hardware drop-ins")
struct SystemdUnitTests {
  static let contrib = Binaries.repository.appendingPathComponent("contrib/systemd")

  static func text(_ name: String) throws -> String {
    try String(contentsOf: contrib.appendingPathComponent(name), encoding: .utf8)
  }

  static func unit(_ name: String) throws -> UnitFile { UnitFile(try text(name)) }

  @Test("without a drop-in registerd has no network and no devices")
  func unitAlone() throws {
    let service = try Self.unit("registerd.service")
    #expect(service.flag("PrivateNetwork") == true)
    #expect(service.list("RestrictAddressFamilies") == ["AF_UNIX"])
    #expect(service.list("IPAddressDeny") == ["any"])
    #expect(service.list("IPAddressAllow").isEmpty)
    #expect(service.flag("PrivateDevices") == true)
    #expect(service.value("DevicePolicy") == "closed")
    #expect(service.entries("DeviceAllow").isEmpty)
  }

  @Test("with the network-printer drop-in the printer's address is reachable, and only it")
  func networkPrinter() throws {
    let service = try Self.unit("registerd.service").merged(
      with: [Self.unit("registerd-network-printer.conf")])
    // A private network namespace has only loopback: without this nothing else helps.
    #expect(service.flag("PrivateNetwork") == false)
    let families = Set(service.list("RestrictAddressFamilies"))
    #expect(families == ["AF_UNIX", "AF_INET", "AF_INET6"])
    // IPAddressAllow= wins over IPAddressDeny=any for the addresses it names.
    #expect(service.list("IPAddressDeny") == ["any"])
    #expect(service.list("IPAddressAllow") == ["192.168.1.50"])
    // The address is the printer's in HARDWARE.md's store setting and its --printer example.
    let hardware = try String(
      contentsOf: Binaries.repository.appendingPathComponent("docs/HARDWARE.md"), encoding: .utf8)
    #expect(hardware.contains(#""printer": "tcp:192.168.1.50:9100""#))
    // Devices stay closed.
    #expect(service.flag("PrivateDevices") == true)
  }

  @Test("with the USB-printer drop-in the printer's device opens, as its group, and no network")
  func usbPrinter() throws {
    let service = try Self.unit("registerd.service").merged(
      with: [Self.unit("registerd-usb-printer.conf")])
    #expect(service.flag("PrivateDevices") == false)
    #expect(service.value("DevicePolicy") == "closed")
    #expect(service.entries("DeviceAllow") == ["/dev/usb/lp0 rw", "/dev/ttyUSB0 rw"])
    #expect(service.list("SupplementaryGroups") == ["lp", "dialout"])
    #expect(service.flag("PrivateNetwork") == true)
  }

  @Test(
    "HARDWARE.md shows each drop-in as shipped, byte for byte",
    arguments: ["registerd-network-printer.conf", "registerd-usb-printer.conf"])
  func documentedVerbatim(name: String) throws {
    let hardware = try String(
      contentsOf: Binaries.repository.appendingPathComponent("docs/HARDWARE.md"), encoding: .utf8)
    let file = try Self.text(name)
    #expect(hardware.contains("```ini\n" + file + "```\n"), "docs/HARDWARE.md shows \(name)")
    #expect(hardware.contains("contrib/systemd/\(name)"))
  }

  /// The units in a directory as `make install` writes them (ExecStart= the built registerd),
  /// with `dropIns` in `registerd.service.d/`.
  func installedUnits(dropIns: [String]) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    for name in ["registerd.service", "registerd.socket"] {
      try Self.text(name).replacingOccurrences(of: "@SBINDIR@", with: Binaries.directory.path)
        .write(toFile: directory.path(name), atomically: true, encoding: .utf8)
    }
    if !dropIns.isEmpty {
      try FileManager.default.createDirectory(
        atPath: directory.path("registerd.service.d"), withIntermediateDirectories: false)
      for name in dropIns {
        try FileManager.default.copyItem(
          atPath: Self.contrib.appendingPathComponent(name).path,
          toPath: directory.path("registerd.service.d/\(name)"))
      }
    }
    return directory
  }

  /// `systemd-analyze ARGUMENTS` run in `directory`: its status and output.
  func analyze(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
    try runProgram(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", directory.url.path]
        + [try ExternalProgram.systemdAnalyze.located().path] + arguments)
  }

  @Test(
    "systemd-analyze verify passes on the unit with each drop-in, with nothing to say",
    .tags(.outsideProgram), .requires(.systemdAnalyze),
    arguments: ["registerd-network-printer.conf", "registerd-usb-printer.conf"])
  func dropInsVerify(name: String) throws {
    let directory = try installedUnits(dropIns: [name])
    defer { directory.cleanup() }
    let result = try analyze(
      ["verify", "--man=no", "./registerd.socket", "./registerd.service"], in: directory)
    // Without a running system bus (containers, CI) systemd-analyze may say it cannot reach
    // it; that is about the host, not the units.
    let said = (result.stdout + result.stderr).split(separator: "\n").filter {
      !$0.localizedCaseInsensitiveContains("bus") || $0.contains("registerd")
    }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(said.isEmpty, "\(said.joined(separator: "\n"))")
  }

  /// systemd's own reading of the sandbox (`security --offline`, drop-ins applied): for each
  /// check's name, whether the unit passes it.
  func security(dropIns: [String]) throws -> [String: Bool] {
    let directory = try installedUnits(dropIns: dropIns)
    defer { directory.cleanup() }
    let result = try analyze(
      ["security", "--offline=yes", "--man=no", "--json=short", "./registerd.service"],
      in: directory)
    // It exits non-zero only above --threshold= (100 by default: never).
    #expect(result.status == 0, "\(result.stderr)")
    let checks = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
      "\(result.stdout)\(result.stderr)")
    var passed: [String: Bool] = [:]
    for check in checks {
      if let name = check["name"] as? String, let set = check["set"] as? Bool { passed[name] = set }
    }
    return passed
  }

  @Test(
    "systemd's own reading: no network without the drop-in, the network with it",
    .tags(.outsideProgram), .requires(.systemdAnalyze))
  func networkAsSystemdSeesIt() throws {
    let alone = try security(dropIns: [])
    #expect(alone["PrivateNetwork="] == true, "\(alone)")
    #expect(alone["RestrictAddressFamilies=~AF_(INET|INET6)"] == true)
    #expect(alone["IPAddressDeny="] == true)
    let printer = try security(dropIns: ["registerd-network-printer.conf"])
    #expect(printer["PrivateNetwork="] == false, "\(printer)")
    #expect(printer["RestrictAddressFamilies=~AF_(INET|INET6)"] == false)
    // The allow list has an address that is not localhost: less than "blocks all".
    #expect(printer["IPAddressDeny="] == false)
    // Nothing else is opened.
    #expect(printer["PrivateDevices="] == true)
    #expect(printer["RestrictAddressFamilies=~AF_PACKET"] == true)
    #expect(printer["RestrictAddressFamilies=~AF_NETLINK"] == true)
    let usb = try security(dropIns: ["registerd-usb-printer.conf"])
    #expect(usb["PrivateDevices="] == false, "\(usb)")
    #expect(usb["PrivateNetwork="] == true)
  }
}
