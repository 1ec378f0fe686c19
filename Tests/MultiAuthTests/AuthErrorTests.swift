import Testing

@testable import MultiAuth

@Suite struct AuthErrorTests {
    @Test func descriptionCarriesCodeReasonAndRawCode() {
        let error = AuthError(
            .invalidCode, "wrong code", provider: .otpless, providerCode: "7118", attemptsRemaining: 2)
        #expect(
            error.description
                == "AuthError(invalidCode, provider: otpless, providerCode: 7118, attemptsRemaining: 2, message: wrong code)"
        )
        #expect(!error.isRetryable)
        #expect(AuthError(.network).isRetryable)
        #expect(AuthError.invalidInput(.tooShort).reason == .tooShort)
    }
}
