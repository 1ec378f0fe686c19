import Testing
@testable import MultiAuthCrypto

@Suite struct MultiAuthCryptoModuleTests {
    @Test func moduleNameIsStable() { #expect(MultiAuthCryptoModule.name == "MultiAuthCrypto") }
}
