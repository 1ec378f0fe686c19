import Testing
@testable import MultiAuthHTTP

@Suite struct MultiAuthHTTPModuleTests {
    @Test func moduleNameIsStable() { #expect(MultiAuthHTTPModule.name == "MultiAuthHTTP") }
}
