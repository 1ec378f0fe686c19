import Testing

@testable import MultiAuth

@Suite struct AuthErrorTests {
    @Test func descriptionCarriesCodeReasonAndRawCode() {
        let error = AuthError(
            .invalidCode, "wrong code", provider: "otpless", providerCode: "7118", attemptsRemaining: 2)
        #expect(
            error.description
                == "AuthError(invalidCode, provider: otpless, providerCode: 7118, attemptsRemaining: 2, message: wrong code)"
        )
        #expect(!error.isRetryable)
        #expect(AuthError(.network).isRetryable)
        #expect(AuthError.invalidInput(.tooShort).reason == .tooShort)
    }

    /// A sign-in loop asks for the code again only when the challenge is still usable: a wrong
    /// code, or a code refused for its form before any request.
    @Test func onlyAWrongOrMistypedCodeAsksForTheCodeAgain() throws {
        #expect(AuthError(.invalidCode, attemptsRemaining: 2).asksForTheCodeAgain)
        #expect(AuthError.invalidInput(.invalidCodeFormat).asksForTheCodeAgain)
        let typedWithASpace = #expect(throws: AuthError.self) {
            try ChallengeAnswer(code: "12 34").normalizedCode(length: 6)
        }
        #expect(typedWithASpace?.asksForTheCodeAgain == true)
        for error in [
            AuthError(.attemptsExhausted), AuthError(.expired), AuthError.invalidInput(.invalidName),
            AuthError.invalidInput(.answerMismatch), AuthError(.network), AuthError(.rateLimited),
            AuthError(.challengeNotPending),
        ] {
            #expect(!error.asksForTheCodeAgain, "\(error)")
        }
    }
}
