import Testing
@testable import MultiAuthConformance

@Suite struct MultiAuthConformanceModuleTests {
    @Test func moduleNameIsStable() { #expect(MultiAuthConformanceModule.name == "MultiAuthConformance") }
}
