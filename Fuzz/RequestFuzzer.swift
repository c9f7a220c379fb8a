// libFuzzer entry point for the request path: every input is split into lines, and each line is
// handed, in order, to a fresh in-memory register (the real decoder, decide and apply; no
// journal). A trap, an overflow, an out-of-bounds access or a leak found by AddressSanitizer is
// a crash the daemon would have had on that request line. After each line the register must
// equal its replay (the committed events applied one by one, every order totalled afresh): the
// catalog has promotions, whose totals the service takes from `decide` rather than computing
// them again. Built and run by Fuzz/run.sh.

let fuzzCatalog = """
  {
    "store": {
      "name": "Fuzz Lane", "address": ["1 Main St"], "currency": "USD",
      "tax": {"classes": {"standard": "7.5", "exempt": "0"}, "default_class": "standard"},
      "receipt_footer": "Thanks", "cash_rounding": "0.05", "pin_hash_iterations": 1000,
      "discount_approval_limit": "20"
    },
    "products": [
      {"sku": "TEE", "name": "Tee", "description": "", "category": "Tops", "price": "20.00",
       "sale_price": "15.00", "stock": 3},
      {"sku": "JEANS", "name": "Jeans", "description": "", "category": "Bottoms",
       "price": "49.99"},
      {"sku": "GIFT", "name": "Gift Card", "description": "", "category": "Gift",
       "price": "25.00", "tax_class": "exempt"},
      {"sku": "PRINT", "name": "Print", "description": "", "category": "Art", "price": "10.00",
       "options": [{"group": "size", "required": true,
                    "choices": [{"name": "8x10"}, {"name": "11x14", "price_delta": "5.00"}]}]}
    ],
    "promotions": [
      {"id": "TEE-3", "name": "Tees 3 for 40", "kind": "quantity_price", "sku": "TEE",
       "quantity": 3, "price": "40.00"},
      {"id": "ANY-2", "name": "Any 2 for 55", "kind": "mix_match", "skus": ["TEE", "JEANS", "PRINT"],
       "quantity": 2, "price": "55.00"},
      {"id": "B2G1", "name": "Prints buy 2 get 1", "kind": "buy_get", "skus": ["PRINT"],
       "buy": 2, "get": 1, "percent_off": "100"},
      {"id": "TOPS", "name": "Tops 10% off", "kind": "category_percent", "category": "Tops",
       "percent": "10", "starts": "2026-01-01", "ends": "2026-12-31"}
    ]
  }
  """

let fuzzStart = Timestamp(epochMilliseconds: 1_773_601_385_000, utcOffsetSeconds: -18_000)
let fuzzRegister: Register = {
  do {
    return Register(
      catalog: try CatalogFile.parse(Array(fuzzCatalog.utf8), file: "fuzz"), at: fuzzStart)
  } catch {
    fatalError("the fuzz catalog does not load: \(error)")
  }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let service = RegisterService(
    register: fuzzRegister, clock: ManualClock(fuzzStart),
    random: { count in [UInt8](repeating: 7, count: count) })
  let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
  // Replay's view: the same events applied one by one, every order totalled from scratch (the
  // service takes the totals `decide` computed); the two must never differ.
  var replayed = fuzzRegister
  for line in lines.prefix(64) {
    let result = service.process([IncomingLine(connection: 1, bytes: Array(line))])
    // Exactly one reply per line, and it is itself valid JSON.
    guard result.replies.count == 1,
      (try? JSONParser.parse(Array(result.replies[0].line.utf8))) != nil
    else {
      fatalError("a request line did not get exactly one JSON reply")
    }
    for committed in result.events {
      replayed.apply(
        committed.event, at: committed.at, operatorID: committed.operatorID,
        sequence: committed.sequence)
    }
    guard replayed == service.register else {
      fatalError("the register and its replay differ after \(String(decoding: line, as: UTF8.self))")
    }
  }
  return 0
}
