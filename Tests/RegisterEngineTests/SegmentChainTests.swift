import RegisterTestSupport
import Testing

@testable import RegisterEngine

/// `SegmentChain`, `verify`'s fast way to a yes: on what registerd writes it gives the chain the
/// full scan gives, and it never says yes to bytes the full scan would not call an intact chain.
@Suite struct SegmentChainTests {
  /// The journals of two random histories (sales, returns, voids, parks, closes: requests of
  /// one record and of several).
  static let journals = Result { () throws -> [[UInt8]] in
    try [21, 22].map { seed in try RandomHistory.drive(seed: seed, count: 400).storage.bytes }
  }

  /// `bytes`' records encoded again with `macKey`, chained anew.
  static func withMACs(_ bytes: [UInt8], _ macKey: HMACSHA256) -> [UInt8] {
    var previous = JournalRecord.genesis
    var out: [UInt8] = []
    for record in JournalScanner.scan(bytes).records {
      let encoded = JournalRecord.encode(
        sequence: record.sequence, at: record.at, type: record.type, data: record.data,
        operatorID: record.operatorID, approvedBy: record.approvedBy, key: record.key,
        more: record.more, previous: previous, macKey: macKey)
      out += encoded.line
      previous = encoded.sum
    }
    return out
  }

  @Test func theChainIsTheFullScans() throws {
    for bytes in try Self.journals.get() {
      let scan = JournalScanner.scan(bytes)
      #expect(scan.isIntact)
      let wanted: Set<Int64> = [1, 2, Int64(scan.records.count / 2), scan.lastSequence, 999_999]
      let chain = try #require(SegmentChain.check(bytes[...], wanted: wanted))
      #expect(chain.firstSequence == 1)
      #expect(chain.firstPrevious == JournalRecord.genesis)
      #expect(chain.lastSequence == scan.lastSequence)
      #expect(chain.lastSum == scan.lastSum)
      #expect(chain.records == scan.records.count)
      #expect(!chain.endsInsideRequest)
      let sums = Dictionary(
        uniqueKeysWithValues: scan.records.filter { wanted.contains($0.sequence) }.map {
          ($0.sequence, $0.sum)
        })
      #expect(chain.sums == sums)
      // A segment that starts later: its first record's prev is the sum before it.
      let lines = bytes.split(separator: UInt8(ascii: "\n")).map { Array($0) + [10] }
      let later = Array(lines[10...].joined())
      let part = try #require(SegmentChain.check(later[...]))
      #expect(part.firstSequence == 11)
      #expect(part.firstPrevious == scan.records[9].sum)
      // Cut after a record of a request that goes on: said so.
      if let cut = scan.records.firstIndex(where: \.more) {
        let cutShort = Array(lines[...cut].joined())
        #expect(SegmentChain.check(cutShort[...])?.endsInsideRequest == true)
      }
      // No record, or a last line without its newline: no.
      #expect(SegmentChain.check([][...]) == nil)
      #expect(SegmentChain.check(bytes.dropLast()) == nil)
    }
  }

  @Test func withTheJournalKeyEveryMACIsChecked() throws {
    let key = HMACSHA256(key: Array("the store's secret".utf8))
    let bytes = Self.withMACs(try Self.journals.get()[0], key)
    let scan = JournalScanner.scan(bytes)
    let chain = try #require(SegmentChain.check(bytes[...], key: key))
    #expect(chain.lastSum == scan.lastSum && chain.records == scan.records.count)
    // Without the key the MACs are passed over; with another key, or on a journal without
    // MACs, no.
    #expect(SegmentChain.check(bytes[...])?.lastSum == scan.lastSum)
    #expect(SegmentChain.check(bytes[...], key: HMACSHA256(key: Array("guess".utf8))) == nil)
    #expect(SegmentChain.check(try Self.journals.get()[0][...], key: key) == nil)
  }

  /// Bytes replaced, removed or inserted anywhere: whenever the fast check says yes, the full
  /// scan reads an intact chain with the same records and last sum (in practice the fast check
  /// says no to all of them: every byte is under a checksum or a marker).
  @Test func itNeverSaysYesWhereTheFullScanWouldNot() throws {
    let key = HMACSHA256(key: Array("k".utf8))
    var random = SplitMix64(seed: 77)
    var yes = 0
    for (index, original) in try Self.journals.get().enumerated() {
      let bytes = index == 0 ? original : Self.withMACs(original, key)
      let macKey = index == 0 ? nil : key
      for _ in 0..<1_500 {
        var damaged = bytes
        let position = random.below(bytes.count)
        switch random.below(3) {
        case 0: damaged[position] = UInt8(random.below(256))
        case 1: damaged.remove(at: position)
        default: damaged.insert(UInt8(random.below(256)), at: position)
        }
        guard let chain = SegmentChain.check(damaged[...], key: macKey) else { continue }
        yes += 1
        let scan = JournalScanner.scan(damaged)
        #expect(scan.isIntact, "position \(position)")
        #expect(chain.records == scan.records.count)
        #expect(chain.lastSum == scan.lastSum)
      }
    }
    // A byte replaced by itself is the only change that keeps every checksum.
    #expect(yes < 30)
  }
}
