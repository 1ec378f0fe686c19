import MultiAuth

/// A one-tap answer from the Truecaller app (`TCTrueProfileResponse`, Docs/Providers/Truecaller.md):
/// the signed profile as it arrives, before any check.
///
/// On Apple platforms the app gets these four strings from the universal-link hand-off (or
/// from the TrueSDK's `didReceiveTrueProfileResponse`); check them with
/// ``TruecallerProfileVerifier`` or ``TruecallerProvider/signIn(with:expectedNonce:context:)``.
/// The payload, the signature and the nonce are ``/MultiAuth/Secret``s (`Codable` as the bare
/// strings): every rendering shows them as `<redacted>`; read them with `reveal()`.
public struct TruecallerProfileResponse: Sendable, Hashable, Codable {
    /// Standard base64 of the profile JSON; the signature covers the UTF-8 bytes of **this
    /// string**, not the decoded JSON (Docs/Providers/Truecaller.md).
    public var payload: Secret
    /// The signature, standard base64 (base64url is tolerated).
    public var signature: Secret
    /// The algorithm name; only `SHA512withRSA` (RSASSA-PKCS1-v1_5 with SHA-512) is accepted.
    public var signatureAlgorithm: String
    /// The nonce the response claims to answer; must equal the nonce the app issued.
    public var requestNonce: Secret

    /// Creates a response from the four strings as they arrive.
    public init(payload: String, signature: String, signatureAlgorithm: String, requestNonce: String) {
        self.payload = Secret(payload)
        self.signature = Secret(signature)
        self.signatureAlgorithm = signatureAlgorithm
        self.requestNonce = Secret(requestNonce)
    }
}
