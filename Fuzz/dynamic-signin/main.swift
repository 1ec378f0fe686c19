// libFuzzer target: the Dynamic adapter's response decoding. The input is one HTTP response
// (see fuzzResponse) answering, in turn, e-mail verification create, sign-in (VerifyResponse:
// JWT, user, verified credentials, MFA token), and — when that yields a session — refresh and
// revoke. Property: every call returns or throws an AuthError; nothing traps.
import Foundation
import MultiAuth
import MultiAuthDynamic

let dynamicTransport = FuzzTransport(
    cannedJSON(201, #"{"verificationUUID":"0b7c2f7e-1111-4222-8333-444455556666","email":"fuzz@example.com"}"#))
let dynamicProvider = DynamicProvider(
    environmentID: "6b1c2d3e-0000-4000-8000-00000000d7a1", baseURL: URL(string: "https://dynamic.fuzz.test/api/v0")!)
let dynamicContext = AuthContext(transport: dynamicTransport, time: fuzzTime)
let dynamicEmail = try! EmailAddress("fuzz@example.com")
let dynamicChallenge: Challenge = try! runBlocking {
    try await dynamicProvider.start(.email(dynamicEmail), context: dynamicContext).challenge!
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDynamic(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let challenge = dynamicChallenge
    dynamicTransport.response = fuzzResponse(fuzzBytes(data, size))
    _ = expectTypedOutcome("start") { try await dynamicProvider.start(.email(dynamicEmail), context: dynamicContext) }
    let step = expectTypedOutcome("respond") {
        try await dynamicProvider.respond(to: challenge, with: ChallengeAnswer(code: "123456"), context: dynamicContext)
    }
    if let session = step?.session {
        _ = String(describing: session)
        _ = expectTypedOutcome("refresh") { try await dynamicProvider.refresh(session, context: dynamicContext) }
        _ = expectTypedOutcome("signOut") { try await dynamicProvider.signOut(session, context: dynamicContext) }
    }
    return 0
}
