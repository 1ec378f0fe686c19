// Sample: TOTP codes and otpauth enrollment URIs (RFC 6238, Key URI Format).
// Compiled and run by `swift test` (target MultiAuthSamples); quoted in Docs/GettingStarted.md.
import Foundation
import MultiAuthCrypto
import Testing

@Suite struct OneTimePasswordsSample {
    @Test func enrollAndVerify() throws {
        // Build the enrollment URI a server shows as a QR code (canonical form, Docs/Cases.md, B12).
        let uri = try OTPAuthURI(
            kind: .totp, issuer: "Acme Co", account: "user@example.com", secret: try Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(uri.uriString
            == "otpauth://totp/Acme%20Co:user%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20Co&algorithm=SHA1&digits=6&period=30")

        // The authenticator app parses it and shows codes; the server verifies them.
        let totp = try OTPAuthURI(parsing: uri.uriString).makeTOTP()
        #expect(try totp.code(at: Int64(1_700_000_000)) == "324550")
        let code = try totp.code(at: Int64(1_700_000_000))       // "324550": always a zero-padded String
        let replayGuard = TOTPReplayGuard()                       // persist its lastUsedStep per user
        _ = try totp.verify(code, at: Int64(1_700_000_010), window: 1, replayGuard: replayGuard)
        #expect(throws: CryptoError.codeAlreadyUsed) {            // RFC 6238 §5.2: one use per step
            try totp.verify(code, at: Int64(1_700_000_015), window: 1, replayGuard: replayGuard)
        }
    }
}
