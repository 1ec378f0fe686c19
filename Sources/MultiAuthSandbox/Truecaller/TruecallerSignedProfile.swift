import MultiAuth

/// A one-tap answer as the emulated Truecaller app produces it: the four strings of a
/// `TCTrueProfileResponse` (Docs/Providers/Truecaller.md).
///
/// The sandbox cannot import the adapter; copy the fields into the adapter's
/// `TruecallerProfileResponse`. The payload, the signature and the nonce are `Secret`s, so
/// every rendering shows only the algorithm.
public struct TruecallerSignedProfile: Sendable, Hashable {
    /// Standard base64 of the profile JSON.
    public var payload: Secret
    /// Standard base64 RSASSA-PKCS1-v1_5 / SHA-512 signature over the UTF-8 bytes of ``payload``.
    public var signature: Secret
    /// Always `SHA512withRSA` unless a test changes it.
    public var signatureAlgorithm: String
    /// The nonce the answer claims to answer.
    public var requestNonce: Secret

    /// Creates a signed profile.
    public init(payload: Secret, signature: Secret, signatureAlgorithm: String, requestNonce: Secret) {
        self.payload = payload
        self.signature = signature
        self.signatureAlgorithm = signatureAlgorithm
        self.requestNonce = requestNonce
    }
}
