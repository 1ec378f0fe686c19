// libFuzzer target: the Truecaller adapter's response decoding. The input is one HTTP response
// answering every call of: OTP create (incl. verifiedBefore → profile), verify → name →
// profile, and a one-tap signed profile (the bytes decoded as the profile response, and as
// the key list the verifier fetches). Property: every call returns or throws an AuthError.
import Foundation
import MultiAuth
import MultiAuthTruecaller

let truecallerTransport = FuzzTransport(
    cannedJSON(200, #"{"status":2,"message":"OTP sent","method":"sms","verificationToken":"tok-1","tokenTtl":300}"#))
let truecallerProvider = TruecallerProvider(
    configuration: TruecallerConfiguration(
        appKey: "fuzz-key", appLink: URL(string: "https://fuzz.example/tc")!,
        baseURL: URL(string: "https://truecaller.fuzz.test")!,
        deviceID: "fuzz-device"))
let truecallerContext = AuthContext(transport: truecallerTransport, time: fuzzTime)
let truecallerPhone = try! PhoneNumber("+91 98765 43210")
let truecallerChallenge: Challenge = try! runBlocking {
    try await truecallerProvider.start(.phone(truecallerPhone), context: truecallerContext).challenge!
}
let truecallerAnswer = ChallengeAnswer(code: "123456", name: try! PersonName(firstName: "Asha", lastName: "Rao"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTruecaller(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let challenge = truecallerChallenge
    let response = fuzzResponse(fuzzBytes(data, size))
    truecallerTransport.response = response
    _ = expectTypedOutcome("start") {
        try await truecallerProvider.start(.phone(truecallerPhone), context: truecallerContext)
    }
    _ = expectTypedOutcome("respond") {
        try await truecallerProvider.respond(to: challenge, with: truecallerAnswer, context: truecallerContext)
    }
    if let oneTap = try? JSONDecoder().decode(TruecallerProfileResponse.self, from: response.body) {
        _ = expectTypedOutcome("one-tap") {
            try await truecallerProvider.signIn(
                with: oneTap, expectedNonce: oneTap.requestNonce.reveal(), context: truecallerContext)
        }
    }
    return 0
}
