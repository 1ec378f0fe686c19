// Placeholder so the test target builds until the adapter's tests land; delete with the first real test.
import Testing
@testable import MultiAuthOTPless

@Suite struct MultiAuthOTPlessPlaceholderTests {
    @Test func moduleIsLinked() { #expect(MultiAuthOTPlessModule.name == "MultiAuthOTPless") }
}
