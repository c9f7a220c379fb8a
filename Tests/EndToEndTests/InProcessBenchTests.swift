import Testing

/// The shipped catalog, wherever the tests run from.
private let catalog = Binaries.repository.appendingPathComponent("Data/products.json").path

@Suite("register-bench inprocess: the CPU a request costs, from requests that really ran")
struct InProcessBenchTests {
  @Test("accepted paid_ins are journaled, one record each, and the figures are printed")
  func acceptedRequests() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let result = try runBench(
      ["inprocess", "--count", "120", "--group", "50", "--catalog", catalog], in: directory)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("requests 120 group 50: loop "), "\(result.stdout)")
    #expect(result.stdout.contains("refused 0, journaled 120 record(s)"), "\(result.stdout)")
  }

  @Test("refused requests are counted and fail the run: a figure from refusals means nothing")
  func refusedRequests() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let result = try runBench(
      [
        "inprocess", "--count", "30", "--catalog", catalog,
        #"{"op":"paid_in","amount":"-1","reason":"x"}"#,
      ],
      in: directory)
    #expect(result.status == 1)
    #expect(result.stdout.contains("refused 30, journaled 0 record(s)"), "\(result.stdout)")
  }
}
