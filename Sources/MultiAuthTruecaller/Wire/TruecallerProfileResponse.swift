/// A one-tap answer from the Truecaller app (`TCTrueProfileResponse`, Docs/Providers/Truecaller.md):
/// the signed profile as it arrives, before any check.
///
/// On Apple platforms the app gets these four strings from the universal-link hand-off (or
/// from the TrueSDK's `didReceiveTrueProfileResponse`); check them with
/// ``TruecallerProfileVerifier`` or ``TruecallerProvider/signIn(with:expectedNonce:context:)``.
/// `description` never shows the payload or the signature.
public struct TruecallerProfileResponse: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Standard base64 of the profile JSON; the signature covers the UTF-8 bytes of **this
    /// string**, not the decoded JSON (Docs/Providers/Truecaller.md).
    public var payload: String
    /// The signature, standard base64 (base64url is tolerated).
    public var signature: String
    /// The algorithm name; only `SHA512withRSA` (RSASSA-PKCS1-v1_5 with SHA-512) is accepted.
    public var signatureAlgorithm: String
    /// The nonce the response claims to answer; must equal the nonce the app issued.
    public var requestNonce: String

    /// Creates a response.
    public init(payload: String, signature: String, signatureAlgorithm: String, requestNonce: String) {
        self.payload = payload
        self.signature = signature
        self.signatureAlgorithm = signatureAlgorithm
        self.requestNonce = requestNonce
    }

    /// `TruecallerProfileResponse(algorithm: …, payload: <redacted>, signature: <redacted>)`.
    public var description: String {
        "TruecallerProfileResponse(algorithm: \(signatureAlgorithm), payload: <redacted>, signature: <redacted>)"
    }
}
