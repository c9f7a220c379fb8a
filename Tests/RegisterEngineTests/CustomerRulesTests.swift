import Testing

@testable import RegisterEngine

/// One customer per e-mail address, and taking a customer off the open order again: the
/// scenarios run over both transports in EndToEndTests (CustomerRulesEndToEndTests); here,
/// what only the engine shows.
@Suite struct CustomerRulesTests {
  @Test func theDetachEventRoundTripsThroughTheJournalsEncoding() throws {
    let event = Event.customerDetached(order: 7)
    let decoded = try Event.decode(
      type: event.eventType.rawValue, data: event.data, currency: .usd)
    #expect(decoded == event)
  }
}
