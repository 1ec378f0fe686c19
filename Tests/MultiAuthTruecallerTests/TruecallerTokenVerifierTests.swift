import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthTruecaller

/// Server-side access-token check (Docs/Providers/Truecaller.md).
@Suite(.timeLimit(.minutes(10)))
struct TruecallerTokenVerifierTests {
    static func server() -> ScriptedTransport {
        ScriptedTransport { request in
            let token = request.url.lastPathComponent
            guard request.header("appKey") == "partner" || request.header("clientId") == "client-1" else {
                return Stub.json(404, ["code": 404, "message": "Invalid partner credentials."])
            }
            switch token {
            case "2d6c5c8e-6c1f-4f7a-9f1e-1d6a0c9b7e55":
                return Stub.json(200, ["phoneNumber": 919876543210, "countryCode": "IN"])
            case "boom": return Stub.json(500, ["code": 500, "message": "error"])
            default: return Stub.json(404, ["code": 1404, "message": "Invalid access token."])
            }
        }
    }

    let base = URL(string: "https://verify.stub.test")!
    let token = "2d6c5c8e-6c1f-4f7a-9f1e-1d6a0c9b7e55"

    @Test func aValidTokenReturnsTheNumber() async throws {
        let transport = Self.server()
        let detail = try await TruecallerTokenVerifier(
            credential: .appKey("partner"), baseURL: base, transport: transport
        ).verify(accessToken: token)
        #expect(detail.phoneNumber == "919876543210")
        #expect(detail.countryCode == "IN")
        #expect(detail.e164 == "+919876543210")
        #expect(transport.requests[0].url.path == "/v1/otp/installation/phoneNumberDetail/\(token)")
        #expect(!String(describing: detail).contains("98765"))
    }

    @Test func theClientIDVariantUsesItsPathAndHeader() async throws {
        let transport = Self.server()
        _ = try await TruecallerTokenVerifier(credential: .clientID("client-1"), baseURL: base, transport: transport)
            .verify(accessToken: token)
        #expect(transport.requests[0].url.path == "/v1/otp/client/installation/phoneNumberDetail/\(token)")
        #expect(transport.requests[0].header("clientId") == "client-1")
    }

    @Test(arguments: [
        ("partner", "unknown-token", AuthError.Code.unauthorized, "1404"),
        ("wrong", "2d6c5c8e-6c1f-4f7a-9f1e-1d6a0c9b7e55", .configuration, "404"),
        ("partner", "boom", .providerUnavailable, "500"),
    ])
    func errorsMapWithTheirRawCode(key: String, token: String, expected: AuthError.Code, raw: String) async throws {
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerTokenVerifier(
                credential: .appKey(Secret(key)), baseURL: base, transport: Self.server()
            )
            .verify(accessToken: token)
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == raw)
    }

    /// A phone number in the answer must be ASCII digits: Arabic-Indic or full-width digits
    /// (which `Character.isNumber` accepts) are a malformed answer, not a number to hand on.
    @Test(arguments: ["٩١٩٨٧٦٥٤٣٢١٠", "９１９８７６５４３２１０", "91987a543210"])
    func aNumberThatIsNotASCIIDigitsIsMalformed(number: String) async throws {
        let transport = ScriptedTransport { _ in Stub.json(200, ["phoneNumber": number, "countryCode": "IN"]) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerTokenVerifier(credential: .appKey("partner"), baseURL: base, transport: transport)
                .verify(accessToken: token)
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test(arguments: ["", "a/b", "../key", "tok en", "x?y=1"])
    func malformedTokensAreRefusedWithoutANetworkCall(token: String) async throws {
        let transport = Self.server()
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerTokenVerifier(credential: .appKey("partner"), baseURL: base, transport: transport)
                .verify(accessToken: token)
        }
        #expect(error?.reason == .invalidToken)
        #expect(transport.requests.isEmpty)
    }
}
