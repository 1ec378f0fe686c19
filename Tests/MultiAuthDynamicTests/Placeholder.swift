// Placeholder so the test target builds until the adapter's tests land; delete with the first real test.
import Testing
@testable import MultiAuthDynamic

@Suite struct MultiAuthDynamicPlaceholderTests {
    @Test func moduleIsLinked() { #expect(MultiAuthDynamicModule.name == "MultiAuthDynamic") }
}
