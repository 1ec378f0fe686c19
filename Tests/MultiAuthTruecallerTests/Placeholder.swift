// Placeholder so the test target builds until the adapter's tests land; delete with the first real test.
import Testing
@testable import MultiAuthTruecaller

@Suite struct MultiAuthTruecallerPlaceholderTests {
    @Test func moduleIsLinked() { #expect(MultiAuthTruecallerModule.name == "MultiAuthTruecaller") }
}
