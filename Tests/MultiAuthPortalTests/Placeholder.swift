// Placeholder so the test target builds until the adapter's tests land; delete with the first real test.
import Testing
@testable import MultiAuthPortal

@Suite struct MultiAuthPortalPlaceholderTests {
    @Test func moduleIsLinked() { #expect(MultiAuthPortalModule.name == "MultiAuthPortal") }
}
