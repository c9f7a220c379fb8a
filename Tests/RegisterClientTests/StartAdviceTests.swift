import RegisterClient
import Testing

@Suite("What register-cli says when registerd does not answer")
struct StartAdviceTests {
  @Test("in a source checkout: swift run registerd")
  func inACheckout() {
    let text = StartAdvice.text { ["Package.swift", "Data/products.json"].contains($0) }
    #expect(text == "Start it with `swift run registerd` or pass --socket PATH")
  }

  @Test(
    "anywhere else, an installed registerd: systemd's socket or registerd, never swift run",
    arguments: [[], ["Package.swift"], ["Data/products.json"]])
  func installed(present: [String]) {
    let text = StartAdvice.text { present.contains($0) }
    #expect(text.contains("`systemctl start registerd.socket`"))
    #expect(text.contains("`registerd`"))
    #expect(text.contains("--socket PATH"))
    #expect(!text.contains("swift"), "\(text)")
  }
}
