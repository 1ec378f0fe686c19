import Testing
@testable import MultiAuthSandbox

@Suite struct MultiAuthSandboxModuleTests {
    @Test func moduleNameIsStable() { #expect(MultiAuthSandboxModule.name == "MultiAuthSandbox") }
}
