import Foundation
import MultiAuth
import Testing

/// The platform-independent half of `PasskeyAuthorization`
/// (Sources/MultiAuth/Provider/PasskeyAuthorizationMapping.swift): ceremony → platform request,
/// platform credential → `PasskeyResult`, platform error → `.cancelled` or `AuthError`, and the
/// gate that resumes the ceremony exactly once. The AuthenticationServices glue only copies
/// these values (type-checked by Scripts/typecheck_apple.py).
@Suite struct PasskeyAuthorizationMappingTests {
    static let provider: AuthProviderID = "acme"
    static let user = PasskeyUser(id: Data([1, 2, 3, 4]), name: "ana@example.com", displayName: "Ana")

    static func challenge(_ kind: Challenge.Kind) -> Challenge {
        Challenge(
            flowID: FlowID(rawValue: "f1"), provider: provider, kind: kind, issuedAt: Date(timeIntervalSince1970: 0))
    }

    static func ceremony(
        _ operation: PasskeyCeremony.Operation, user: PasskeyUser? = user, allowed: [Data] = [],
        verification: PasskeyUserVerification = .preferred, algorithms: [Int] = [-7, -257]
    ) -> Challenge {
        challenge(
            .passkey(
                PasskeyCeremony(
                    operation: operation, challenge: Data(repeating: 7, count: 32), relyingPartyID: "example.com",
                    relyingPartyName: "Example", user: user,
                    allowedCredentials: allowed.map { PasskeyCredentialDescriptor(id: $0, transports: ["internal"]) },
                    excludedCredentials: [PasskeyCredentialDescriptor(id: Data([9]))], userVerification: verification,
                    timeout: .seconds(60), algorithms: algorithms)))
    }

    static func request(_ challenge: Challenge) throws -> PasskeyPlatformRequest {
        try PasskeyPlatformRequest(challenge)
    }

    // MARK: ceremony → platform request

    @Test func registrationMapsEveryField() throws {
        let request = try Self.request(Self.ceremony(.registration, verification: .required))
        #expect(request.relyingPartyIdentifier == "example.com")
        #expect(request.challenge == Data(repeating: 7, count: 32))
        #expect(
            request.operation == .registration(name: "ana@example.com", displayName: "Ana", userID: Data([1, 2, 3, 4])))
        #expect(request.userVerification == .required)
        #expect(request.provider == Self.provider)
    }

    @Test func emptyDisplayNameIsLeftUnset() throws {
        let user = PasskeyUser(id: Data([1]), name: "ana", displayName: "")
        let request = try Self.request(Self.ceremony(.registration, user: user))
        #expect(request.operation == .registration(name: "ana", displayName: nil, userID: Data([1])))
    }

    @Test func assertionMapsAllowedCredentialsInOrder() throws {
        let ids = [Data([1, 1]), Data([2, 2, 2]), Data([3])]
        let request = try Self.request(Self.ceremony(.assertion, user: nil, allowed: ids, verification: .discouraged))
        #expect(request.operation == .assertion(allowedCredentialIDs: ids))
        #expect(request.relyingPartyIdentifier == "example.com")
        #expect(request.challenge == Data(repeating: 7, count: 32))
        #expect(request.userVerification == .discouraged)
        // A discoverable-credential assertion: no allow list.
        #expect(try Self.request(Self.ceremony(.assertion)).operation == .assertion(allowedCredentialIDs: []))
    }

    /// The strings are WebAuthn's (W3C WebAuthn Level 3 §5.8.6), the values of
    /// `ASAuthorizationPublicKeyCredentialUserVerificationPreference`'s constants.
    @Test(arguments: [
        (PasskeyUserVerification.required, "required"), (.preferred, "preferred"), (.discouraged, "discouraged"),
    ])
    func userVerificationPreferenceStrings(_ verification: PasskeyUserVerification, _ expected: String) throws {
        let request = try Self.request(Self.ceremony(.assertion, verification: verification))
        #expect(request.userVerificationPreference == expected)
    }

    @Test(arguments: [
        Challenge.Kind.oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false), .totp(digits: 6, enrollment: nil),
        .silentNetworkAuth, .magicLink(channel: .email), .oauthRedirect(url: URL(string: "https://example.com/a")!),
        .profileConsent,
    ])
    func nonPasskeyChallengeIsRefusedBeforeThePlatform(_ kind: Challenge.Kind) {
        let error = #expect(throws: AuthError.self) { try Self.request(Self.challenge(kind)) }
        #expect(error?.code == .invalidInput)
        #expect(error?.reason == .answerMismatch)
        #expect(error?.provider == Self.provider)
    }

    @Test func registrationWithoutUserIsRefused() {
        let error = #expect(throws: AuthError.self) { try Self.request(Self.ceremony(.registration, user: nil)) }
        #expect(error?.code == .malformedResponse)
        #expect(error?.provider == Self.provider)
    }

    @Test(arguments: [
        PasskeyUser(id: Data(), name: "ana", displayName: "Ana"),
        PasskeyUser(id: Data(repeating: 1, count: 65), name: "ana", displayName: "Ana"),
        PasskeyUser(id: Data([1]), name: "", displayName: "Ana"),
    ])
    func registrationWithUnusableUserIsRefused(_ user: PasskeyUser) {
        let error = #expect(throws: AuthError.self) { try Self.request(Self.ceremony(.registration, user: user)) }
        #expect(error?.code == .malformedResponse)
    }

    @Test func sixtyFourByteUserIDIsAccepted() throws {
        let user = PasskeyUser(id: Data(repeating: 1, count: 64), name: "ana", displayName: "Ana")
        #expect(throws: Never.self) { try Self.request(Self.ceremony(.registration, user: user)) }
    }

    @Test func ceremonyWithoutChallengeOrRelyingPartyIsRefused() {
        for (bytes, rp) in [(Data(), "example.com"), (Data([1]), "")] {
            let kind = Challenge.Kind.passkey(
                PasskeyCeremony(operation: .assertion, challenge: bytes, relyingPartyID: rp))
            let error = #expect(throws: AuthError.self) { try Self.request(Self.challenge(kind)) }
            #expect(error?.code == .malformedResponse)
        }
    }

    @Test func registrationWithoutES256IsUnsupported() throws {
        let error = #expect(throws: AuthError.self) {
            try Self.request(Self.ceremony(.registration, algorithms: [-257, -8]))
        }
        #expect(error?.code == .unsupported)
        // No list means the WebAuthn default (ES256, RS256); an assertion has no algorithms.
        #expect(throws: Never.self) { try Self.request(Self.ceremony(.registration, algorithms: [])) }
        #expect(throws: Never.self) { try Self.request(Self.ceremony(.assertion, algorithms: [-257])) }
    }

    // MARK: platform credential → PasskeyResult

    @Test func registrationCredentialMapsEveryField() throws {
        let request = try Self.request(Self.ceremony(.registration))
        let result = try request.registration(
            credentialID: Data([1, 2]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xA3]))
        #expect(
            result
                == .registration(
                    PasskeyRegistration(
                        credentialID: Data([1, 2]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xA3]))))
    }

    @Test func assertionCredentialMapsEveryField() throws {
        let request = try Self.request(Self.ceremony(.assertion))
        let result = try request.assertion(
            credentialID: Data([1]), clientDataJSON: Data("{\"a\":1}".utf8), authenticatorData: Data([2, 2]),
            signature: Data([3, 3, 3]), userID: Data([4]))
        #expect(
            result
                == .assertion(
                    PasskeyAssertion(
                        credentialID: Data([1]), clientDataJSON: Data("{\"a\":1}".utf8),
                        authenticatorData: Data([2, 2]),
                        signature: Data([3, 3, 3]), userHandle: Data([4]))))
    }

    @Test(arguments: [nil, Data()])
    func absentOrEmptyUserIDIsNoUserHandle(_ userID: Data?) throws {
        let request = try Self.request(Self.ceremony(.assertion))
        let result = try request.assertion(
            credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: Data([1]), signature: Data([1]),
            userID: userID)
        guard case .assertion(let assertion) = result else {
            Issue.record("not an assertion: \(result)")
            return
        }
        #expect(assertion.userHandle == nil)
    }

    @Test func credentialOfTheWrongKindOrIncompleteIsMalformed() throws {
        let registration = try Self.request(Self.ceremony(.registration))
        let assertion = try Self.request(Self.ceremony(.assertion))
        let cases: [() throws -> PasskeyResult] = [
            {
                try registration.assertion(
                    credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: Data([1]),
                    signature: Data([1]), userID: nil)
            },
            {
                try assertion.registration(
                    credentialID: Data([1]), clientDataJSON: Data([1]), attestationObject: Data([1]))
            },
            {
                try registration.registration(
                    credentialID: Data([1]), clientDataJSON: Data([1]), attestationObject: nil)
            },
            {
                try assertion.assertion(
                    credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: nil, signature: Data([1]),
                    userID: nil)
            },
            {
                try assertion.assertion(
                    credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: Data([1]), signature: nil,
                    userID: nil)
            },
            { throw assertion.unexpectedCredential("ASPasswordCredential") },
        ]
        for body in cases {
            let error = #expect(throws: AuthError.self) { try body() }
            #expect(error?.code == .malformedResponse)
            #expect(error?.provider == Self.provider)
        }
    }

    // MARK: platform error → .cancelled or AuthError

    /// `ASAuthorizationError.Code`: 1001 canceled, 1005 notInteractive, 1006 matchedExcludedCredential.
    @Test(arguments: [1001, 1005, 1006])
    func dismissalOrNoCredentialIsCancelled(_ code: Int) throws {
        let request = try Self.request(Self.ceremony(.assertion))
        let error = NSError(domain: "com.apple.AuthenticationServices.AuthorizationError", code: code)
        #expect(try request.result(forFailure: error, authorizationErrorCode: code) == .cancelled)
    }

    @Test(arguments: [
        (1004, AuthError.Code.configuration), (1002, .malformedResponse), (1003, .unsupported), (1010, .unsupported),
        (1000, .generic), (1007, .generic), (1008, .generic), (1009, .generic), (4242, .generic),
    ])
    func realFailuresBecomeAuthErrors(_ code: Int, _ expected: AuthError.Code) throws {
        let request = try Self.request(Self.ceremony(.registration))
        let platformError = NSError(domain: "com.apple.AuthenticationServices.AuthorizationError", code: code)
        let error = #expect(throws: AuthError.self) {
            try request.result(forFailure: platformError, authorizationErrorCode: code)
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == String(code))
        #expect(error?.provider == Self.provider)
        #expect(error?.underlying != nil)
    }

    @Test func failedNamesTheAssociatedDomain() throws {
        let request = try Self.request(Self.ceremony(.assertion))
        let error = #expect(throws: AuthError.self) {
            try request.result(forFailure: NSError(domain: "x", code: 1004), authorizationErrorCode: 1004)
        }
        #expect(error?.message.contains("webcredentials:example.com") == true)
    }

    @Test func otherErrorsAreGenericAndCancellationStaysCancellation() throws {
        let request = try Self.request(Self.ceremony(.assertion))
        let error = #expect(throws: AuthError.self) {
            try request.result(forFailure: URLError(.notConnectedToInternet), authorizationErrorCode: nil)
        }
        #expect(error?.code == .generic)
        #expect(error?.providerCode == nil)
        #expect(throws: CancellationError.self) {
            try request.result(forFailure: CancellationError(), authorizationErrorCode: nil)
        }
    }

    // MARK: the gate: exactly one outcome

    static let sample = PasskeyResult.assertion(
        PasskeyAssertion(
            credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: Data([1]), signature: Data([1]),
            userHandle: nil))

    /// A stand-in for `ASAuthorizationController`: remembers the gate, counts cancels.
    @MainActor final class FakePlatform {
        var gate: PasskeyCeremonyGate?
        weak var controller: AnyObject?
        var starts = 0
        var cancels = 0
        func start(_ gate: PasskeyCeremonyGate) -> @MainActor () -> Void {
            self.gate = gate
            starts += 1
            return { self.cancels += 1 }
        }
        func waitUntilStarted() async {
            while gate == nil { await Task.yield() }
        }
    }

    @Test @MainActor func firstOutcomeWinsAndLaterOnesAreIgnored() async throws {
        let platform = FakePlatform()
        let task = Task { @MainActor in try await PasskeyCeremonyGate.run(start: platform.start) }
        await platform.waitUntilStarted()
        platform.gate?.finish(.success(Self.sample))
        platform.gate?.finish(.success(.cancelled))  // a second delegate call: ignored, no second resume
        platform.gate?.finish(.failure(AuthError(.generic)))
        platform.gate?.cancel()
        #expect(try await task.value == Self.sample)
        #expect(platform.gate?.isFinished == true)
        #expect(platform.starts == 1)
        #expect(platform.cancels == 0)  // cancelling after the end does not touch the platform
    }

    @Test @MainActor func platformFailureIsThrown() async {
        let platform = FakePlatform()
        let task = Task { @MainActor in try await PasskeyCeremonyGate.run(start: platform.start) }
        await platform.waitUntilStarted()
        platform.gate?.finish(.failure(AuthError(.configuration)))
        let error = await #expect(throws: AuthError.self) { try await task.value }
        #expect(error?.code == .configuration)
    }

    @Test @MainActor func cancellingTheTaskCancelsThePlatformOnce() async {
        let platform = FakePlatform()
        let task = Task { @MainActor in try await PasskeyCeremonyGate.run(start: platform.start) }
        await platform.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(platform.cancels == 1)
        platform.gate?.finish(.success(.cancelled))  // the delegate's `canceled` after our cancel(): ignored
        platform.gate?.cancel()
        #expect(platform.cancels == 1)
    }

    @Test @MainActor func alreadyCancelledTaskNeverStartsThePlatform() async {
        let platform = FakePlatform()
        let task = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await PasskeyCeremonyGate.run(start: platform.start)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(platform.starts == 0)
    }

    @Test @MainActor func platformFinishingWhileStartingIsDelivered() async throws {
        let result = try await PasskeyCeremonyGate.run { gate in
            gate.finish(.success(Self.sample))
            return { Issue.record("a finished ceremony was cancelled") }
        }
        #expect(result == Self.sample)
    }

    @Test @MainActor func platformObjectsAreReleasedWhenTheCeremonyEnds() async throws {
        final class Controller {}
        let platform = FakePlatform()
        let task = Task { @MainActor in
            try await PasskeyCeremonyGate.run { gate in
                let controller = Controller()
                platform.controller = controller
                _ = platform.start(gate)
                return { withExtendedLifetime(controller) {} }
            }
        }
        await platform.waitUntilStarted()
        #expect(platform.controller != nil)  // kept alive while the sheet is up
        platform.gate?.finish(.success(Self.sample))
        _ = try await task.value
        #expect(platform.controller == nil)
    }
}
