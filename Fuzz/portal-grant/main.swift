// libFuzzer target: the Portal adapter's response decoding. The input is one HTTP response
// answering: magic-link send, OAuth URLs, the grant exchange after a redirect
// (`/magic-links/validations`: CST or userJwt + totpLink) and the TOTP validation. Property:
// every call returns or throws an AuthError.
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthPortal

let portalTransport = FuzzTransport(cannedJSON(200, #"{"data":{"sent":true}}"#))
let portalProvider = PortalProvider(
    configuration: try! PortalConfiguration(
        authEnvironmentID: "fuzz-environment", redirectURL: URL(string: "multiauth-portal://auth/callback")!,
        apiHost: "api.portal.fuzz.test", fromEmail: "sign-in@example.com", templateID: "fuzz-template"))
let portalContext = AuthContext(transport: portalTransport, time: fuzzTime)
let portalEmail = try! EmailAddress("fuzz@example.com")
let portalRedirect = URL(string: "multiauth-portal://auth/callback?token=abc&authMethod=EMAIL_MAGIC_LINK")!
let portalUserJWT =
    Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
    + Base64URL.encode(Array(#"{"endUserId":"user-1","exp":1700000600}"#.utf8)) + ".c2ln"
let portalChallenges: (magicLink: Challenge, totp: Challenge) = try! runBlocking {
    let magicLink = try await portalProvider.start(.email(portalEmail), context: portalContext).challenge!
    portalTransport.response = cannedJSON(200, #"{"data":{"userJwt":"\#(portalUserJWT)","endUserId":"user-1"}}"#)
    let totp = try await portalProvider.handleRedirect(portalRedirect, pending: magicLink, context: portalContext)
        .challenge!
    return (magicLink, totp)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPortal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (magicLink, totp) = portalChallenges
    portalTransport.response = fuzzResponse(fuzzBytes(data, size))
    _ = expectTypedOutcome("start magic link") {
        try await portalProvider.start(.email(portalEmail), context: portalContext)
    }
    _ = expectTypedOutcome("start OAuth") { try await portalProvider.start(.oauth(.google), context: portalContext) }
    let step = expectTypedOutcome("grant exchange") {
        try await portalProvider.handleRedirect(portalRedirect, pending: magicLink, context: portalContext)
    }
    if case .totp(_, let enrollment?)? = step?.challenge?.kind {
        _ = enrollment.totpSecret
        _ = try? enrollment.parsedURI()
    }
    _ = expectTypedOutcome("TOTP validation") {
        try await portalProvider.respond(to: totp, with: ChallengeAnswer(code: "123456"), context: portalContext)
    }
    return 0
}
