import Dispatch
import RegisterClient
import RegisterEngine
import RegisterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// register-bench: drives a running registerd with N concurrent clients ringing up sales, and
// reports throughput, latency percentiles and how many requests shared each fsync.
// `register-bench history ...` instead writes a long journal for a benchmark (History.swift);
// `register-bench inprocess ...` measures the CPU one request costs in the engine, without
// sockets or disk (InProcess.swift).

struct BenchOptions {
  var socketPath: String
  var clients = 8
  var sales = 200
  var lines = 4
}

func parseOptions() -> BenchOptions? {
  var options = BenchOptions(socketPath: defaultSocketPath(environment: processEnvironment()))
  var arguments = CommandLine.arguments.dropFirst()
  while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else {
      writeStandardError("register-bench: \(flag) needs a value\n")
      return nil
    }
    switch flag {
    case "--socket": options.socketPath = value
    case "--clients": options.clients = Int(value) ?? options.clients
    case "--sales": options.sales = Int(value) ?? options.sales
    case "--lines": options.lines = Int(value) ?? options.lines
    default:
      writeStandardError(
        "usage: register-bench [--socket PATH] [--clients N] [--sales PER_CLIENT] [--lines PER_SALE]\n"
          + HistoryOptions.usage + "\n" + inProcessUsage + "\n"
      )
      return nil
    }
  }
  return options
}

func monotonicNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

final class Results: @unchecked Sendable {
  private let lock = Lock()
  private(set) var latencies: [UInt64] = []
  private(set) var failures = 0

  func add(_ values: [UInt64], failures count: Int) {
    lock.withLock {
      latencies.append(contentsOf: values)
      failures += count
    }
  }
}

func hello(_ path: String) -> JSONValue? {
  guard let connection = try? LineConnection(path: path),
    let line = try? connection.request(#"{"op":"hello"}"#)
  else { return nil }
  return (try? JSONParser.parse(line))?["result"]
}

func run() -> Int32 {
  if CommandLine.arguments.dropFirst().first == "history" {
    return runHistory(Array(CommandLine.arguments.dropFirst(2)))
  }
  if CommandLine.arguments.dropFirst().first == "inprocess" {
    return runInProcess(Array(CommandLine.arguments.dropFirst(2)))
  }
  guard let options = parseOptions() else { return 2 }
  guard let before = hello(options.socketPath) else {
    writeStandardError("register-bench: cannot reach registerd at \(options.socketPath)\n")
    return 3
  }
  let results = Results()
  let group = DispatchGroup()
  let start = monotonicNanoseconds()
  for client in 0..<options.clients {
    group.enter()
    DispatchQueue.global().async {
      defer { group.leave() }
      var latencies: [UInt64] = []
      latencies.reserveCapacity(options.sales * (options.lines + 1))
      var failures = 0
      guard let connection = try? LineConnection(path: options.socketPath) else {
        results.add([], failures: 1)
        return
      }
      let skus = ["SOCK-3PK", "CAP-BSB", "TOTE-CNV", "PRINT-4X6", "SCARF-WOOL"]
      for sale in 0..<options.sales {
        for line in 0..<options.lines {
          let sku = skus[(client + sale + line) % skus.count]
          let began = monotonicNanoseconds()
          let reply = try? connection.request(#"{"op":"add","sku":"\#(sku)"}"#)
          latencies.append(monotonicNanoseconds() - began)
          if reply?.contains(#""ok":true"#) != true { failures += 1 }
        }
        let began = monotonicNanoseconds()
        let reply = try? connection.request(#"{"op":"tender","type":"cash","amount":"100000"}"#)
        latencies.append(monotonicNanoseconds() - began)
        // All clients share the one open order: another client may just have completed it.
        if reply?.contains(#""ok":true"#) != true && reply?.contains("empty_order") != true {
          failures += 1
        }
      }
      results.add(latencies, failures: failures)
    }
  }
  group.wait()
  let elapsed = monotonicNanoseconds() - start
  let after = hello(options.socketPath)
  var sorted = results.latencies
  sorted.sort()
  func percentile(_ p: Int) -> String {
    guard !sorted.isEmpty else { return "-" }
    let index = min(sorted.count - 1, sorted.count * p / 100)
    return microseconds(sorted[index])
  }
  func microseconds(_ nanos: UInt64) -> String {
    let micros = nanos / 1000
    return "\(micros / 1000).\(pad3(micros % 1000)) ms"
  }
  func pad3(_ value: UInt64) -> String {
    let text = String(value)
    return String(repeating: "0", count: 3 - text.count) + text
  }
  let requests = UInt64(sorted.count)
  let perSecond = elapsed > 0 ? requests * 1_000_000_000 / elapsed : 0
  var report = """
    clients             \(options.clients)
    sales per client    \(options.sales) (\(options.lines) adds + 1 tender each)
    requests            \(requests) (\(results.failures) failed)
    elapsed             \(microseconds(elapsed))
    throughput          \(perSecond) requests/s
    latency p50         \(percentile(50))
    latency p95         \(percentile(95))
    latency p99         \(percentile(99))
    latency max         \(sorted.last.map(microseconds) ?? "-")

    """
  if let records0 = before["journal"]?["records"]?.int64Value,
    let fsyncs0 = before["journal"]?["fsyncs"]?.int64Value,
    let records1 = after?["journal"]?["records"]?.int64Value,
    let fsyncs1 = after?["journal"]?["fsyncs"]?.int64Value, fsyncs1 > fsyncs0
  {
    let records = records1 - records0
    let fsyncs = fsyncs1 - fsyncs0
    report += """
      journal records     \(records)
      fsyncs              \(fsyncs) (\(records * 100 / fsyncs / 100).\(pad3(UInt64(records * 100 / fsyncs % 100)).dropFirst()) records per fsync)

      """
  }
  writeStandardOutput(report)
  return results.failures == 0 ? 0 : 1
}

exit(run())
